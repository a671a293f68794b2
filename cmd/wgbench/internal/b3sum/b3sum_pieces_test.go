package b3sum

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// b3modes are b3sum's three modes, as flags and standard input.
var b3modes = []struct {
	name, stdin string
	args        []string
}{
	{"hash", "", nil},
	{"keyed", "whats the Elvish word for friend", []string{"--keyed"}},
	{"derive-key", "", []string{"--derive-key", "wgcompute pieces test"}},
}

// randomFile writes n seeded random bytes to a file in dir and returns its
// path.
func randomFile(t *testing.T, dir string, n int, seed uint64) string {
	t.Helper()
	b := make([]byte, n)
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	path := filepath.Join(dir, fmt.Sprintf("in-%d.bin", n))
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

// TestB3sumSubtree hashes files in ranges with b3sum --subtree, on the CPU
// and the GPU, in all modes, and checks that b3sum combine prints what
// b3sum prints for the whole file, which b3sum --check then accepts.
func TestB3sumSubtree(t *testing.T) {
	dir := t.TempDir()
	gpu := gputest.Backends()[0]
	for _, n := range []int{0, 5, 1024, 1025, 300_001} {
		path := randomFile(t, dir, n, uint64(n))
		for _, mode := range b3modes {
			code, want, stderr := runCLI(mode.stdin, slices.Concat([]string{"b3sum", "--length", "40"}, mode.args, []string{path})...)
			require.Zero(t, code, stderr)
			for _, device := range [][]string{{"--device", "cpu"}, {"--device", "gpu", "--backend", gpu}} {
				ranges := []string{"0/3", "1/3", "2/3"}
				if n == 300_001 {
					ranges = []string{"0:1024", "1024:99328", "100352:199649", "300001:0"}
				}
				var records strings.Builder
				for _, r := range ranges {
					code, out, stderr := runCLI(mode.stdin, slices.Concat([]string{"b3sum", "--subtree", r}, device, mode.args, []string{path})...)
					require.Zero(t, code, "%s: %s", r, stderr)
					require.Empty(t, stderr)
					records.WriteString(out)
				}
				recs := filepath.Join(dir, "records.txt")
				require.NoError(t, os.WriteFile(recs, []byte(records.String()), 0o644))
				code, got, stderr := runCLI(mode.stdin, slices.Concat([]string{"b3sum", "combine", "-l", "40", "--name", path}, mode.args, []string{recs})...)
				require.Zero(t, code, stderr)
				require.Equal(t, want, got, "%d bytes, %s, %v", n, mode.name, device)
			}
			if mode.name != "hash" {
				continue
			}
			// Without --name, the hash alone; --raw, its bytes; and from
			// standard input, with a record repeated.
			code, out, _ := runCLI("", "b3sum", "--subtree", "0/1", path)
			require.Zero(t, code)
			code, got, _ := runCLI(out+"\n"+out, "b3sum", "combine")
			require.Zero(t, code)
			require.Equal(t, want[:64]+"\n", got)
			code, got, _ = runCLI(out, "b3sum", "combine", "--raw", "-l", "40", "-")
			require.Zero(t, code)
			_, wantRaw, _ := runCLI("", "b3sum", "--raw", "-l", "40", path)
			require.Equal(t, wantRaw, got)
			check := filepath.Join(dir, "check.txt")
			code, got, _ = runCLI(out, "b3sum", "combine", "--name", path)
			require.Zero(t, code)
			require.NoError(t, os.WriteFile(check, []byte(got), 0o644))
			code, got, _ = runCLI("", "b3sum", "--check", check)
			require.Zero(t, code)
			require.Equal(t, path+": OK\n", got)
		}
	}
}

// TestB3sumSubtreeErrors checks that bad ranges, files and records exit 1
// with a message saying what is wrong, and print nothing on stdout.
func TestB3sumSubtreeErrors(t *testing.T) {
	dir := t.TempDir()
	a := randomFile(t, dir, 5000, 1)
	b := randomFile(t, dir, 6000, 2)
	records := func(name, stdin string, args ...string) string {
		code, out, stderr := runCLI(stdin, append([]string{"b3sum"}, args...)...)
		require.Zero(t, code, stderr)
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(out), 0o644))
		return path
	}
	key := b3modes[1].stdin
	a0, a1 := records("a0", "", "--subtree", "0/2", a), records("a1", "", "--subtree", "1/2", a)
	b1 := records("b1", "", "--subtree", "1/2", b)
	// c is another file of a's size: its pieces combined with a's gave a
	// hash of neither, and exit 0.
	c1 := records("c1", "", "--subtree", "1/2", randomFile(t, t.TempDir(), 5000, 3))
	badFile := filepath.Join(dir, "bad-file")
	require.NoError(t, os.WriteFile(badFile, []byte("b3file hash 5000\n"), 0o644))
	k1 := records("k1", key, "--keyed", "--subtree", "1/2", a)
	text := filepath.Join(dir, "text")
	require.NoError(t, os.WriteFile(text, []byte("hello\n"), 0o644))
	bad := filepath.Join(dir, "bad")
	require.NoError(t, os.WriteFile(bad, []byte("\n"+string(mustRead(t, a0))+"b3piece hash 5000 0 4096 xyz\n"), 0o644))
	for _, tc := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"", []string{"--subtree", "5:10", a}, "Error: " + a + ": blake3: the range starts at byte 5, inside a chunk"},
		{"", []string{"--subtree", "0:10", a}, "[0, 10) ends inside a chunk"},
		{"", []string{"--subtree", "0:99999", a}, "passes the end of the 5000-byte input"},
		{"", []string{"--subtree", "1/0", a}, "part 1 of 0"},
		{"", []string{"--subtree", "1:2:3", a}, `--subtree "1:2:3": a range is OFFSET:LEN (decimal bytes) or I/K`},
		{"", []string{"--subtree", "", a}, "a range is OFFSET:LEN"},
		{"", []string{"--subtree", "0/1", a, b}, "Error: --subtree hashes a range of one FILE, got 2"},
		{"", []string{"--subtree", "0/1"}, "got 0"},
		{"", []string{"--subtree", "0/1", "-"}, "not standard input"},
		{"", []string{"--subtree", "0/1", "--check", a}, "--check does not apply to --subtree"},
		{"", []string{"--subtree", "0/1", "-l", "64", a}, "--length does not apply"},
		{"", []string{"--subtree", "0/1", "--raw", a}, "--raw does not apply"},
		{"", []string{"--subtree", "0/1", filepath.Join(dir, "missing")}, "No such file or directory (os error 2)"},
		{"", []string{"--subtree", "0/1", dir}, "Error: " + dir + ": is a directory: --subtree hashes a regular file or a block device, of known size"},
		{"", []string{"--subtree", "0:0", "/dev/null"}, "Error: /dev/null: is a character device: --subtree hashes a regular file"},
		{"short", []string{"--keyed", "--subtree", "0/1", a}, "expected 32 key bytes from stdin, found 5"},
		{"", []string{"combine", a0}, "blake3: bytes [2048, 5000) of the 5000-byte input are in no piece"},
		{"", []string{"combine", a1, b1}, "pieces of inputs of different lengths"},
		{"", []string{"combine", a0, c1}, "the records are of different files: the b3file lines at " + a0 + ":1 and " + c1 + ":1 differ"},
		{"", []string{"combine", badFile, a0, a1}, badFile + `:1: a b3file line is "b3file MODE TOTAL SAMPLE": it has 3 fields`},
		{"", []string{"combine", a0, k1}, "the piece [2048, 4096) of a 5000-byte input was hashed in keyed mode, and the options ask for hash"},
		{"", []string{"combine", "--derive-key", "x", a0, a1}, "was hashed in hash mode, and the options ask for derive-key"},
		{"", []string{"combine", bad}, bad + ":4: blake3: piece record: the chaining value \"xyz\" is not 64 lowercase hex digits"},
		{"", []string{"combine", text, a1}, text + `:1: blake3: not a piece record: it starts with "hello"`},
		{"", []string{"combine"}, "no pieces to combine"},
		{"", []string{"combine", filepath.Join(dir, "missing")}, "no such file or directory"},
		{key, []string{"combine", "--keyed", "-"}, "--keyed reads the key from standard input: name the records files"},
		{key, []string{"combine", "--keyed", "--derive-key", "c", a0}, "--keyed and --derive-key exclude each other"},
		{"", []string{"combine", "--raw", "--name", "x", a0}, "--raw writes the output bytes alone"},
		{"", []string{"combine", "-l", "x", a0, a1}, `invalid --length "x": invalid digit found in string`},
		{"", []string{"combine", dir}, "is a directory"},
		{"", []string{"combine", "/dev/zero"}, "/dev/zero is larger than 64.0 MiB, the most the records can take here"},
	} {
		code, out, stderr := runCLI(tc.stdin, append([]string{"b3sum"}, tc.args...)...)
		require.Equal(t, 1, code, "%q: %s", tc.args, stderr)
		require.Contains(t, stderr, tc.want, "%q", tc.args)
		require.Empty(t, out, "%q", tc.args)
	}
	// A file named combine is hashed after --.
	t.Chdir(dir)
	require.NoError(t, os.WriteFile("combine", []byte("hello"), 0o644))
	code, out, stderr := runCLI("", "b3sum", "--", "combine")
	require.Zero(t, code, stderr)
	require.Equal(t, "ea8f163db38682925e4491c5e58d4bb3506ef8c14eb78a86e908c5624a67200f  combine\n", out)
}

// TestB3sumPiecesInProcesses hashes a file in 7 uneven ranges, each in a
// process of its own, all at once, as the jobs of a batch engine would
// (every other one on the GPU), writing their records to files, and
// combines the files in another process: the output is b3sum's for the
// whole file, in the default and the keyed mode.
func TestB3sumPiecesInProcesses(t *testing.T) {
	dir := t.TempDir()
	const n = 5<<20 + 777
	path := randomFile(t, dir, n, 3)
	rng := rand.New(rand.NewPCG(4, 4))
	chunks := (n + 1023) / 1024
	cuts := []int{0, n}
	for len(cuts) < 8 {
		if c := 1024 * (1 + rng.IntN(chunks-1)); !slices.Contains(cuts, c) {
			cuts = append(cuts, c)
		}
	}
	slices.Sort(cuts)
	gpu := gputest.Backends()[0]
	for _, mode := range b3modes[:2] {
		t.Run(mode.name, func(t *testing.T) {
			code, want, stderr := runCLI(mode.stdin, slices.Concat([]string{"b3sum"}, mode.args, []string{path})...)
			require.Zero(t, code, stderr)
			var files []string
			var errs []*bytes.Buffer
			var procs []func() error
			for i := range 7 {
				device := []string{"--device", "cpu"}
				if i%2 == 1 {
					device = []string{"--device", "gpu", "--backend", gpu}
				}
				r := fmt.Sprintf("%d:%d", cuts[i], cuts[i+1]-cuts[i])
				cmd := wgbenchProcess(t, mode.stdin, slices.Concat([]string{"b3sum", "--subtree", r}, device, mode.args, []string{path})...)
				name := filepath.Join(dir, fmt.Sprintf("%s-%d.txt", mode.name, i))
				f, err := os.Create(name)
				require.NoError(t, err)
				defer f.Close()
				var errOut bytes.Buffer
				cmd.Stdout, cmd.Stderr = f, &errOut
				require.NoError(t, cmd.Start())
				files, errs, procs = append(files, name), append(errs, &errOut), append(procs, cmd.Wait)
			}
			for i, wait := range procs {
				require.NoError(t, wait(), "range %d: %s", i, errs[i])
			}
			slices.Reverse(files)
			cmd := wgbenchProcess(t, mode.stdin, slices.Concat([]string{"b3sum", "combine", "--name", path}, mode.args, files)...)
			var errOut bytes.Buffer
			cmd.Stderr = &errOut
			got, err := cmd.Output()
			require.NoError(t, err, errOut.String())
			require.Equal(t, want, string(got))
		})
	}
}
