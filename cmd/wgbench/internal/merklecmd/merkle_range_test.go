package merklecmd

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/clitest"
	"github.com/wgcompute/wgcompute/internal/base/split"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// TestMerkleRangesInProcesses builds a tree split 16 ways as 16 machines
// would: each range in a process of its own, on the GPU backends and the
// CPU in turn, one from a file of its own leaves alone, and combines their
// records in another process into the root 'wgbench merkle' prints for
// the whole tree. BLAKE3 with 2^20 leaves; Rescue, whose CPU merge is
// slow, with 2^12.
func TestMerkleRangesInProcesses(t *testing.T) {
	const m = 16
	backends := append(gputest.Backends(), "cpu")
	for _, c := range []struct {
		hash merkle.Hash
		n    int
	}{{blake3.MerkleMerge{}, 1 << 20}, {rescue.MerkleMerge{}, 1 << 12}} {
		t.Run(c.hash.Name(), func(t *testing.T) {
			dir := t.TempDir()
			leaves, in := clitest.WriteLeaves(t, dir, c.hash, c.n, 20)
			ref, err := merkle.Build(nil, leaves, c.hash, merkle.Options{})
			require.NoError(t, err)
			root := ref.Root()
			want := hex.EncodeToString(root[:]) + "\n"
			whole, _, err := wgbench(t, "merkle", "--backend", backends[0], "--hash", c.hash.Name(), "--in", in)
			require.NoError(t, err)
			require.Equal(t, want, whole, "wgbench merkle of the whole tree")

			// Range 5 has only its own leaves, the others the whole file.
			own := filepath.Join(dir, "range-5.bin")
			size := c.n / m
			require.NoError(t, os.WriteFile(own, wgpu.Bytes(leaves[5*size:6*size]), 0o644))
			start := time.Now()
			records := make([]string, m)
			errs := make([]error, m)
			var wg sync.WaitGroup
			slots := make(chan struct{}, runtime.NumCPU())
			for i := 0; i < m; i++ {
				records[i] = filepath.Join(dir, fmt.Sprintf("range-%d.txt", i))
				args := []string{"merkle", "--backend", backends[i%len(backends)], "--hash", c.hash.Name(), "--range", fmt.Sprintf("%d/%d", i, m), "--out", records[i], "--in", in}
				if i == 5 {
					args = append(args[:len(args)-1], own, "--leaves", fmt.Sprint(c.n))
				}
				cmd := wgbenchProcess(t, "", args...)
				wg.Add(1)
				go func() {
					defer wg.Done()
					slots <- struct{}{}
					defer func() { <-slots }()
					if out, err := cmd.CombinedOutput(); err != nil {
						errs[i] = fmt.Errorf("%q: %w: %s", args, err, out)
					}
				}()
			}
			wg.Wait()
			t.Logf("%d ranges of %d leaves in processes: %v", m, c.n, time.Since(start))
			for i := range errs {
				require.NoError(t, errs[i])
				b, err := os.ReadFile(records[i])
				require.NoError(t, err)
				rec, err := parseRecord(string(b))
				require.NoError(t, err, "range %d: %q", i, b)
				require.Equal(t, rangeRecord{hash: c.hash, r: split.Range{Index: i, Count: m}, leaves: c.n, root: ref.Nodes()[m+i]}, rec)
			}

			// The records in files, in another process, shuffled.
			args := []string{"merkle", "combine"}
			for i := 0; i < m; i++ {
				args = append(args, records[(7*i+3)%m])
			}
			var stdout, stderr bytes.Buffer
			cmd := wgbenchProcess(t, "", args...)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Run(), stderr.String())
			require.Equal(t, want, stdout.String(), "combine of the records")
			require.Empty(t, stderr.String())

			// The records concatenated, through standard input.
			var all []byte
			for i := m - 1; i >= 0; i-- {
				b, err := os.ReadFile(records[i])
				require.NoError(t, err)
				all = append(all, b...)
			}
			got, _, err := wgbenchIn(t, string(all), "merkle", "combine", "--backend", "cpu")
			require.NoError(t, err)
			require.Equal(t, want, got, "combine from standard input")
		})
	}
}

// TestMerkleRangeCombine splits small trees every way, ranges of one leaf
// and the range of the whole tree included, in-process.
func TestMerkleRangeCombine(t *testing.T) {
	dir := t.TempDir()
	for _, backend := range []string{"cpu", gputest.Backends()[0]} {
		for _, hash := range merkleHashes() {
			for _, n := range []int{2, 4, 64} {
				leaves, in := clitest.WriteLeaves(t, dir, hash, n, 3)
				ref, err := merkle.Build(nil, leaves, hash, merkle.Options{})
				require.NoError(t, err)
				root := ref.Root()
				for m := 1; m <= n; m *= 4 {
					what := fmt.Sprintf("%s %s n=%d m=%d", backend, hash.Name(), n, m)
					var records strings.Builder
					for i := 0; i < m; i++ {
						out, _, err := wgbench(t, "merkle", "--backend", backend, "--hash", hash.Name(), "--in", in, "--range", fmt.Sprintf("%d/%d", i, m))
						require.NoError(t, err, what)
						want := leaves[i]
						if m < n {
							want = ref.Nodes()[m+i]
						}
						require.Equal(t, fmt.Sprintf("merkle-range hash=%s range=%d/%d leaves=%d root=%x\n", hash.Name(), i, m, n, want[:]), out, what)
						records.WriteString(out)
					}
					got, _, err := wgbenchIn(t, records.String(), "merkle", "combine", "--backend", backend)
					require.NoError(t, err, what)
					require.Equal(t, hex.EncodeToString(root[:])+"\n", got, what)
				}
			}
		}
	}
}

func TestMerkleRangeBadInput(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	_, in16 := clitest.WriteLeaves(t, dir, blake3.MerkleMerge{}, 16, 1)
	three, odd := file("three.bin", make([]byte, 96)), file("odd.bin", make([]byte, 65))
	// Leaf 1 of 4 Rescue leaves is not canonical: range 0/2 holds it, 1/2
	// does not.
	bad := make([][32]byte, 4)
	binary.LittleEndian.PutUint64(bad[1][8:], rescue.P)
	nonCanonical := file("noncanonical.bin", wgpu.Bytes(bad))
	ownBad := file("own-noncanonical.bin", wgpu.Bytes(bad[1:2]))

	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--in", in16, "--range", "3/12"}, []string{"--range", "range 3/12", "a power of two"}},
		{[]string{"--in", in16, "--range", "16/16"}, []string{"the index must be 0..15"}},
		{[]string{"--in", in16, "--range", "3:16"}, []string{`range "3:16": want I/M`}},
		{[]string{"--in", in16, "--range", ""}, []string{`range "": want I/M`}},
		{[]string{"--in", in16, "--range", "0/32"}, []string{"range 0/32 of a tree of 16 leaves", "at most 16 ranges"}},
		{[]string{"--in", in16, "--leaves", "16"}, []string{"--leaves N needs --range I/M"}},
		{[]string{"--range", "0/2"}, []string{"--in LEAVES is required"}},
		{[]string{"--in", three, "--range", "0/2"}, []string{"range 0/2 of a tree of 3 leaves: ranges split a tree of a power of two of leaves"}},
		{[]string{"--in", odd, "--range", "0/2"}, []string{"65 bytes", "whole number of 32-byte leaves"}},
		{[]string{"--in", os.DevNull, "--range", "0/2"}, []string{"not a regular file", "--leaves N"}},
		{[]string{"--in", dir, "--range", "0/2"}, []string{"is a directory"}},
		{[]string{"--in", filepath.Join(dir, "missing.bin"), "--range", "0/2"}, []string{"missing.bin", "no such file"}},
		{[]string{"--in", in16, "--range", "1/4", "--leaves", "12"}, []string{"--leaves", "12 leaves", "power of two"}},
		{[]string{"--in", in16, "--range", "1/4", "--leaves", "32"}, []string{"has 512 bytes; range 1/4 of a tree of 32 leaves (8 leaves of 32 bytes) has 256"}},
		{[]string{"--in", in16, "--range", "1/4", "--leaves", "128"}, []string{"has 512 bytes; range 1/4 of a tree of 128 leaves (32 leaves of 32 bytes) has 1024"}},
		{[]string{"--hash", "rescue", "--in", nonCanonical, "--range", "0/2"}, []string{"leaf 1 (leaf 1 of range 0/2)", "element 1", "not a Goldilocks field element"}},
		{[]string{"--hash", "rescue", "--in", nonCanonical, "--range", "1/4"}, []string{"leaf 1 (leaf 0 of range 1/4)", "element 1"}},
		{[]string{"--hash", "rescue", "--in", ownBad, "--range", "1/4", "--leaves", "4"}, []string{"leaf 1 (leaf 0 of range 1/4)", "element 1"}},
		{[]string{"--hash", "rescue", "--in", nonCanonical, "--range", "1/4", "--leaves", "8"}, []string{"has 128 bytes; range 1/4 of a tree of 8 leaves (2 leaves of 32 bytes) has 64"}},
		{[]string{"--hash", "sha256", "--in", in16, "--range", "0/2"}, []string{`unknown hash "sha256"`}},
	} {
		args := append([]string{"merkle", "--backend", "cpu"}, tc.args...)
		if !strings.Contains(strings.Join(tc.args, " "), "--hash") {
			args = append(args, "--hash", "blake3")
		}
		requireInputError(t, args, tc.want...)
	}
	// A worker checks its own leaves only: range 1/2 of the file is
	// canonical.
	_, _, err := wgbench(t, "merkle", "--backend", "cpu", "--hash", "rescue", "--in", nonCanonical, "--range", "1/2")
	require.NoError(t, err)
	// The record written with --out is the one printed.
	out := filepath.Join(dir, "rec.txt")
	stdout, _, err := wgbench(t, "merkle", "--backend", "cpu", "--hash", "blake3", "--in", in16, "--range", "2/4", "--out", out)
	require.NoError(t, err)
	require.Equal(t, stdout, string(mustRead(t, out)))
	require.True(t, strings.HasPrefix(stdout, "merkle-range hash=blake3 range=2/4 leaves=16 root="), stdout)
}

func TestMerkleCombineBadInput(t *testing.T) {
	dir := t.TempDir()
	root := strings.Repeat("ab", 32)
	rec := func(hash string, i, m, n int) string {
		return fmt.Sprintf("merkle-range hash=%s range=%d/%d leaves=%d root=%s\n", hash, i, m, n, root)
	}
	four := rec("blake3", 0, 4, 16) + rec("blake3", 1, 4, 16) + rec("blake3", 2, 4, 16) + rec("blake3", 3, 4, 16)
	path := filepath.Join(dir, "four.txt")
	require.NoError(t, os.WriteFile(path, []byte(four), 0o644))
	for _, tc := range []struct {
		stdin string
		args  []string
		want  []string
	}{
		{"", nil, []string{"no records in -", "- for standard input"}},
		{"\n  \n", []string{"-"}, []string{"no records"}},
		{"hello\n", nil, []string{"standard input:1: not a record", "merkle-range hash=NAME range=I/M leaves=N root=HEX"}},
		{"\n" + strings.Replace(rec("blake3", 0, 1, 2), "leaves=", "n=", 1), nil, []string{"standard input:2: field 4 is \"n=2\", not leaves=..."}},
		{rec("blake3", 0, 1, 2) + " extra", nil, []string{"standard input:2: not a record"}},
		{rec("md5", 0, 1, 2), nil, []string{`unknown hash "md5"`}},
		{rec("blake3", 0, 3, 12), nil, []string{"range 0/3", "a power of two"}},
		{rec("blake3", 0, 16, 8), nil, []string{"range 0/16 of a tree of 8 leaves", "at most 8 ranges"}},
		{rec("blake3", 0, 2, 12), nil, []string{"12 leaves", "power of two"}},
		{strings.Replace(rec("blake3", 0, 1, 2), root, "xyz", 1), nil, []string{"digest of 3 characters"}},
		{strings.Replace(rec("rescue", 0, 1, 2), root, strings.Repeat("ff", 32), 1), nil, []string{"root: element 0", "Goldilocks"}},
		{rec("blake3", 2, 4, 16), []string{path, "-"}, []string{"range 2/4 is in", "four.txt:3 and again in standard input:1"}},
		{rec("blake3", 0, 8, 16), []string{path, "-"}, []string{"standard input:1 is range 0/8 of a tree of 16 leaves with blake3, but", "four.txt:1 is range 0/4", "one tree, split one way"}},
		{rec("blake3", 0, 4, 32), []string{path, "-"}, []string{"range 0/4 of a tree of 32 leaves"}},
		{rec("rescue", 0, 4, 16), []string{path, "-"}, []string{"with rescue, but"}},
		{rec("blake3", 0, 4, 16) + rec("blake3", 3, 4, 16), nil, []string{"2 of the 4 ranges of the tree of 16 leaves with blake3 have no record: missing 1, 2"}},
		{rec("blake3", 5, 32, 64), nil, []string{"31 of the 32 ranges", "missing 0, 1, 2, 3, 4, 6, 7, 8, 9, 10, ..."}},
		{"", []string{filepath.Join(dir, "missing.txt")}, []string{"missing.txt", "no such file"}},
		// A record claims ranges the input does not hold: nothing is
		// allocated for them (2^62 slots panicked in makeslice, 2^26 took
		// 4.9 GB).
		{rec("rescue", 0, 1<<62, 1<<62), nil, []string{"4611686018427387903 of the 4611686018427387904 ranges", "missing 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ..."}},
		{rec("rescue", 0, 1<<62, 1<<62), []string{"--prove", "0"}, []string{"4611686018427387903 of the 4611686018427387904 ranges"}},
		{rec("blake3", 1<<30-1, 1<<30, 1<<30), nil, []string{"1073741823 of the 1073741824 ranges", "missing 0, 1, 2"}},
	} {
		args := append([]string{"merkle", "combine", "--backend", "cpu"}, tc.args...)
		var err error
		require.NotPanics(t, func() { _, _, err = wgbenchIn(t, tc.stdin, args...) }, "%q", tc.stdin)
		require.Error(t, err, "%q %q", tc.stdin, tc.args)
		require.NotEqual(t, cli.ExitError{Code: 1}, err)
		for _, w := range tc.want {
			require.Contains(t, err.Error(), w, "%q %q", tc.stdin, tc.args)
		}
	}
	// Four records of one tree combine, whatever their roots.
	_, _, err := wgbench(t, "merkle", "combine", "--backend", "cpu", path)
	require.NoError(t, err)
}

// TestRecordRoundTrip: parseRecord reads what String writes.
func TestRecordRoundTrip(t *testing.T) {
	for _, hash := range merkleHashes() {
		var root [32]byte
		root[0], root[31] = 0x12, 0x34
		rec := rangeRecord{hash: hash, r: split.Range{Index: 7, Count: 8}, leaves: 1 << 30, root: root}
		line := rec.String()
		require.Equal(t, fmt.Sprintf("merkle-range hash=%s range=7/8 leaves=1073741824 root=12%s34", hash.Name(), strings.Repeat("00", 30)), line)
		got, err := parseRecord(line + "\r")
		require.NoError(t, err)
		require.Equal(t, rec, got)
	}
}

// TestMerkleRangeProofs: a leaf's proof in its range's tree (prove
// --range), joined with the proof of the range's root among the ranges'
// (combine --prove), is the proof merkle prove prints for the whole tree,
// byte for byte, and verifies against the whole tree's root; for ranges
// of one leaf and for the one range of the whole tree too.
func TestMerkleRangeProofs(t *testing.T) {
	dir := t.TempDir()
	const n = 64
	for _, hash := range merkleHashes() {
		leaves, in := clitest.WriteLeaves(t, dir, hash, n, 5)
		ref, err := merkle.Build(nil, leaves, hash, merkle.Options{})
		require.NoError(t, err)
		root := ref.Root()
		for _, m := range []int{1, 4, n} {
			backend := "cpu"
			if m == 4 {
				backend = gputest.Backends()[0]
			}
			var records strings.Builder
			for i := 0; i < m; i++ {
				out, _, err := wgbench(t, "merkle", "--backend", "cpu", "--hash", hash.Name(), "--in", in, "--range", fmt.Sprintf("%d/%d", i, m))
				require.NoError(t, err)
				records.WriteString(out)
			}
			for _, x := range []int{0, 37, n - 1} {
				what := fmt.Sprintf("%s m=%d leaf %d", hash.Name(), m, x)
				i := x / (n / m)
				direct, _, err := wgbench(t, "merkle", "prove", "--backend", "cpu", "--hash", hash.Name(), "--in", in, "--index", fmt.Sprint(x))
				require.NoError(t, err, what)
				lower, _, err := wgbench(t, "merkle", "prove", "--backend", backend, "--hash", hash.Name(), "--in", in, "--index", fmt.Sprint(x), "--range", fmt.Sprintf("%d/%d", i, m))
				require.NoError(t, err, what)
				upper, _, err := wgbenchIn(t, records.String(), "merkle", "combine", "--backend", backend, "--prove", fmt.Sprint(i))
				require.NoError(t, err, what)
				lowerPath, upperPath, joinedPath := filepath.Join(dir, "lower.json"), filepath.Join(dir, "upper.json"), filepath.Join(dir, "joined.json")
				require.NoError(t, os.WriteFile(lowerPath, []byte(lower), 0o644))
				require.NoError(t, os.WriteFile(upperPath, []byte(upper), 0o644))
				joined, _, err := wgbench(t, "merkle", "join", lowerPath, upperPath)
				require.NoError(t, err, what)
				require.Equal(t, direct, joined, what)
				require.NoError(t, os.WriteFile(joinedPath, []byte(joined), 0o644))
				_, _, err = wgbench(t, "merkle", "verify", "--hash", hash.Name(), "--proof", joinedPath, "--root", hex.EncodeToString(root[:]), "--leaves", fmt.Sprint(n))
				require.NoError(t, err, what)
				// The pieces the other way round do not fit (the top tree of
				// one root aside, where both pieces may be the same).
				if m > 1 {
					requireInputError(t, []string{"merkle", "join", upperPath, lowerPath}, "merkle: join: ")
				}
			}
		}
	}

	_, in := clitest.WriteLeaves(t, dir, blake3.MerkleMerge{}, n, 5)
	requireInputError(t, []string{"merkle", "prove", "--backend", "cpu", "--hash", "blake3", "--in", in, "--index", "0", "--range", "1/4"},
		"--index 0: range 1/4 of the tree of 64 leaves holds leaves 16..31")
	requireInputError(t, []string{"merkle", "prove", "--backend", "cpu", "--hash", "blake3", "--in", in, "--index", "0", "--leaves", "64"}, "--leaves N needs --range")
	// 2^59 leaves of 32 bytes wrapped to 0 bytes, which an empty file holds.
	empty := filepath.Join(t.TempDir(), "empty")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	requireInputError(t, []string{"merkle", "--backend", "cpu", "--hash", "blake3", "--in", empty, "--range", "0/1", "--leaves", "576460752303423488"},
		"range 0/1 of a tree of 576460752303423488 leaves: 576460752303423488 × 32 is more than 9223372036854775807 bytes")
	var records strings.Builder
	for i := 0; i < 4; i++ {
		out, _, err := wgbench(t, "merkle", "--backend", "cpu", "--hash", "blake3", "--in", in, "--range", fmt.Sprintf("%d/4", i))
		require.NoError(t, err)
		records.WriteString(out)
	}
	for _, r := range []string{"4", "-1"} {
		_, _, err := wgbenchIn(t, records.String(), "merkle", "combine", "--backend", "cpu", "--prove", r)
		require.ErrorContains(t, err, "--prove "+r+": the records are of ranges 0..3")
	}
	garbage := filepath.Join(dir, "garbage.json")
	require.NoError(t, os.WriteFile(garbage, []byte("{"), 0o644))
	requireInputError(t, []string{"merkle", "join", garbage}, "1 arguments: want two proof files")
	requireInputError(t, []string{"merkle", "join", garbage, garbage}, "garbage.json is not a proof")
	requireInputError(t, []string{"merkle", "join", filepath.Join(dir, "missing.json"), garbage}, "missing.json", "no such file")
}

// TestMerkleRangeClaims: a range's record states what was read. With
// --leaves N the input must hold the range's N/M leaves, no more and no
// fewer (a file of another size is refused by its size, before the memory
// the claim would take is weighed); a range of one leaf of a tree of 2^30
// is what it says, and its record, combined alone, is refused at once as
// missing the other ranges, with nothing allocated for them.
func TestMerkleRangeClaims(t *testing.T) {
	dir := t.TempDir()
	one := filepath.Join(dir, "one-leaf")
	require.NoError(t, os.WriteFile(one, make([]byte, 32), 0o644))
	requireInputError(t, []string{"merkle", "--backend", "cpu", "--hash", "rescue", "--in", one, "--range", "0/2", "--leaves", "1073741824"},
		"one-leaf has 32 bytes; range 0/2 of a tree of 1073741824 leaves (536870912 leaves of 32 bytes) has 17179869184")
	requireInputError(t, []string{"merkle", "--backend", "cpu", "--hash", "rescue", "--in", one, "--range", "0/1", "--leaves", "2"},
		"one-leaf has 32 bytes; range 0/1 of a tree of 2 leaves (2 leaves of 32 bytes) has 64")

	rec, _, err := wgbench(t, "merkle", "--backend", "cpu", "--hash", "rescue", "--in", one, "--range", "0/1073741824", "--leaves", "1073741824")
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(rec, "merkle-range hash=rescue range=0/1073741824 leaves=1073741824 root="), rec)
	_, _, err = wgbenchIn(t, rec, "merkle", "combine", "--backend", "cpu")
	require.ErrorContains(t, err, "1073741823 of the 1073741824 ranges of the tree of 1073741824 leaves with rescue have no record: missing 1, 2, 3")
}
