package b3sum

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/blake3"
)

// b3sumGolden, when set to the path of a b3sum 1.2.0 binary, makes
// TestB3sumParity record that binary's outputs into b3sumGoldenFile
// instead of checking against them:
//
//	go test ./cmd/wgbench/internal/b3sum -run TestB3sumParity -b3sum.golden=$(which b3sum)
var b3sumGolden = flag.String("b3sum.golden", "", "record testdata/b3sum/golden.txt with this b3sum 1.2.0 binary")

const b3sumGoldenFile = "testdata/b3sum/golden.txt"

// b3sumTree writes the files the parity cases hash and check into dir:
// plain and empty files, files above the mapping threshold and the CPU's
// piece size, names b3sum escapes or prints lossily, a directory, and
// check files with good, bad, missing and malformed entries.
func b3sumTree(t *testing.T, dir string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	hexSum := func(b []byte) string {
		s := blake3.Sum256(b)
		return fmt.Sprintf("%x", s)
	}
	big, large := random(100_000), random(3<<20+5)
	files := map[string][]byte{
		"hello.txt":     []byte("hello"),
		"empty":         nil,
		"big.bin":       big,
		"large.bin":     large,
		"back\\slash":   []byte("backslash"),
		"new\nline":     []byte("newline"),
		"cr\rname":      []byte("carriage return"),
		"bad\xffname":   []byte("invalid UTF-8"),
		"sp ace":        []byte("space"),
		"\u00fcn\u00ef": []byte("unicode"),
		"key32":         []byte("whats the Elvish word for friend"),
	}
	hello, wrong := hexSum([]byte("hello")), hexSum([]byte("hellO"))
	files["good.b3"] = []byte(hello + "  hello.txt\n" + hexSum(big) + "  big.bin\n" + hexSum(nil) + "  empty\n" +
		`\` + hexSum([]byte("backslash")) + `  back\\slash` + "\n" + `\` + hexSum([]byte("newline")) + `  new\nline` + "\n" +
		hexSum([]byte("carriage return")) + "  cr\rname\n" + hexSum([]byte("unicode")) + "  \u00fcn\u00ef\n")
	files["bad.b3"] = []byte(wrong + "  hello.txt\n" + hello + "  missing\n" + hello + "  dir\n" + hello + "  big.bin\n" + hexSum(big) + "  big.bin\n")
	files["malformed.b3"] = []byte("\n" + hello + "\n" + hello + " x hello.txt\n" + strings.ToUpper(hello) + "  hello.txt\n" +
		"g" + hello[1:] + "  hello.txt\n" + "\u00e9" + hello[2:] + "  hello.txt\n" + `\` + hello + `  bad\escape` + "\n" +
		`\` + hello + `  trailing\` + "\n" + hello + "  bad\uFFFDname\n" + hello + "  nul\x00name\n" + hello + "  hello.txt\n")
	files["crlf.b3"] = []byte(hello + "  hello.txt\r\n" + hello + "  hello.txt\n")
	files["noeol.b3"] = []byte(hello + "  hello.txt\n" + hello + "  hello.txt")
	files["invalid.b3"] = []byte(hello + "  hello.txt\n" + hello + "  bad\xffname\n" + hello + "  hello.txt\n")
	for name, b := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "dir"), 0o755))
}

// b3sumCase is one b3sum command line, run in the tree's directory.
type b3sumCase struct {
	name  string
	args  []string
	stdin string // "@file" reads the tree's file
}

var b3sumCases = []b3sumCase{
	{name: "files", args: []string{"hello.txt", "empty", "big.bin", "large.bin"}},
	{name: "stdin", stdin: "hello"},
	{name: "dash", args: []string{"hello.txt", "-", "-"}, stdin: "hello"},
	{name: "no-names", args: []string{"--no-names", "hello.txt", "big.bin"}},
	{name: "raw", args: []string{"--raw", "big.bin"}},
	{name: "raw stdin", args: []string{"--raw", "-l", "100"}, stdin: "hello"},
	{name: "raw two files", args: []string{"--raw", "hello.txt", "big.bin"}},
	{name: "length 0", args: []string{"-l", "0", "hello.txt"}},
	{name: "length 1", args: []string{"--length", "1", "hello.txt"}},
	{name: "length 65", args: []string{"--length=65", "big.bin", "large.bin"}},
	{name: "length 20000", args: []string{"-l", "20000", "hello.txt"}},
	{name: "length +7", args: []string{"-l", "+7", "hello.txt"}},
	{name: "length bad", args: []string{"-l", "x", "hello.txt", "missing", "big.bin"}},
	{name: "length empty", args: []string{"-l", "", "hello.txt"}},
	{name: "length too large", args: []string{"-l", "99999999999999999999999", "hello.txt"}},
	{name: "keyed", args: []string{"--keyed", "hello.txt", "big.bin", "large.bin"}, stdin: "@key32"},
	{name: "keyed dash", args: []string{"--keyed", "hello.txt", "-", "big.bin"}, stdin: "@key32"},
	{name: "keyed short key", args: []string{"--keyed", "hello.txt"}, stdin: "short"},
	{name: "keyed long key", args: []string{"--keyed", "hello.txt"}, stdin: "whats the Elvish word for friend!"},
	{name: "derive-key", args: []string{"--derive-key", "wgcompute parity 2026", "hello.txt", "big.bin", "-l", "40"}},
	{name: "derive-key empty", args: []string{"--derive-key", "", "hello.txt"}},
	{name: "odd names", args: []string{"back\\slash", "new\nline", "cr\rname", "bad\xffname", "sp ace", "\u00fcn\u00ef"}},
	{name: "odd names no-names", args: []string{"--no-names", "back\\slash", "new\nline"}},
	{name: "missing and dir", args: []string{"missing", "hello.txt", "dir", "bad\xff\nmissing"}},
	{name: "num-threads 1", args: []string{"--num-threads", "1", "large.bin", "big.bin"}},
	{name: "num-threads 0", args: []string{"--num-threads", "0", "large.bin"}},
	{name: "num-threads bad", args: []string{"--num-threads", "x", "hello.txt"}},
	{name: "no-mmap", args: []string{"--no-mmap", "big.bin", "large.bin", "-"}, stdin: "hello"},
	{name: "check", args: []string{"-c", "good.b3"}},
	{name: "check quiet", args: []string{"--check", "--quiet", "good.b3"}},
	{name: "check bad", args: []string{"-c", "bad.b3"}},
	{name: "check bad quiet", args: []string{"-c", "--quiet", "bad.b3", "good.b3"}},
	{name: "check malformed", args: []string{"-c", "malformed.b3"}},
	{name: "check crlf", args: []string{"-c", "crlf.b3"}},
	{name: "check no final newline", args: []string{"-c", "noeol.b3"}},
	{name: "check invalid UTF-8", args: []string{"-c", "invalid.b3", "good.b3"}},
	{name: "check missing file", args: []string{"-c", "missing.b3", "good.b3"}},
	{name: "check dir", args: []string{"-c", "dir"}},
	{name: "check stdin", args: []string{"-c"}, stdin: "@good.b3"},
	{name: "check no-mmap", args: []string{"-c", "--no-mmap", "good.b3", "bad.b3"}},
	{name: "keyed and derive-key", args: []string{"--keyed", "--derive-key", "x", "hello.txt"}, stdin: "@key32"},
	{name: "check and raw", args: []string{"-c", "--raw", "good.b3"}},
	{name: "check and length", args: []string{"-c", "-l", "32", "good.b3"}},
	{name: "quiet alone", args: []string{"--quiet", "hello.txt"}},
	{name: "keyed without files", args: []string{"--keyed"}, stdin: "@key32"},
	{name: "unknown flag", args: []string{"--bogus", "hello.txt"}},
	{name: "unknown short flag", args: []string{"-x", "hello.txt"}},
	{name: "unknown flag in a group", args: []string{"-cx", "hello.txt"}},
	{name: "unknown flag after keyed", args: []string{"--keyed", "-x", "hello.txt"}, stdin: "@key32"},
	{name: "unknown flag after a file", args: []string{"hello.txt", "--bogus"}},
	{name: "length without value", args: []string{"--no-names", "--length"}},
	{name: "short length without value", args: []string{"-l"}},
	{name: "derive-key without value", args: []string{"--derive-key"}},
	{name: "num-threads twice", args: []string{"--num-threads", "2", "--num-threads", "3", "hello.txt"}},
	{name: "check twice", args: []string{"-c", "-c", "good.b3"}},
	{name: "keyed twice", args: []string{"--keyed", "--keyed", "hello.txt"}, stdin: "@key32"},
	{name: "check and raw and no-mmap", args: []string{"-c", "--raw", "--no-mmap", "good.b3"}},
	{name: "keyed raw and check", args: []string{"--keyed", "--raw", "-c", "hello.txt"}, stdin: "@key32"},
	{name: "check and no-names", args: []string{"--no-names", "-c"}},
	{name: "quiet and length", args: []string{"--quiet", "-l", "5", "hello.txt"}},
	{name: "version", args: []string{"-V"}},
	{name: "version long", args: []string{"--version"}},
	{name: "version and files", args: []string{"--version", "hello.txt", "missing"}},
	{name: "version in a group", args: []string{"-cV"}},
	{name: "version before a bad flag", args: []string{"-V", "--bogus"}},
	{name: "bad flag before version", args: []string{"--bogus", "-V"}},
	{name: "version beats conflicts", args: []string{"-c", "--raw", "-V"}},
}

// b3sumResult is what one command line printed and its exit status.
type b3sumResult struct {
	code           int
	stdout, stderr string
}

// TestB3sumParity runs each case through 'wgbench b3sum' and compares its
// standard output, standard error and exit status with those of b3sum
// 1.2.0, recorded in testdata/b3sum/golden.txt.
func TestB3sumParity(t *testing.T) {
	golden, err := filepath.Abs(b3sumGoldenFile)
	require.NoError(t, err)
	dir := t.TempDir()
	b3sumTree(t, dir)
	t.Chdir(dir)
	stdinOf := func(c b3sumCase) []byte {
		if name, ok := strings.CutPrefix(c.stdin, "@"); ok {
			b, err := os.ReadFile(name)
			require.NoError(t, err)
			return b
		}
		return []byte(c.stdin)
	}
	if *b3sumGolden != "" {
		var out bytes.Buffer
		for _, c := range b3sumCases {
			cmd := exec.Command(*b3sumGolden, c.args...)
			cmd.Stdin = bytes.NewReader(stdinOf(c))
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			code := 0
			if err := cmd.Run(); err != nil {
				ee, ok := err.(*exec.ExitError)
				require.True(t, ok, "%s: %v", c.name, err)
				code = ee.ExitCode()
			}
			fmt.Fprintf(&out, "case %s\ncode %d\nstdout %s\nstderr %s\n", strconv.Quote(c.name), code,
				strconv.Quote(stdout.String()), strconv.Quote(stderr.String()))
		}
		require.NoError(t, os.WriteFile(golden, out.Bytes(), 0o644))
		return
	}
	want := readB3sumGolden(t, golden)
	for _, c := range b3sumCases {
		t.Run(c.name, func(t *testing.T) {
			w, ok := want[c.name]
			require.True(t, ok, "no recorded output: run with -b3sum.golden=$(which b3sum)")
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"b3sum"}, c.args...), bytes.NewReader(stdinOf(c)), &stdout, &stderr)
			require.Equal(t, w.stdout, stdout.String(), "%q: stdout", c.args)
			require.Equal(t, w.code, code, "%q: exit status; stderr %q", c.args, stderr.String())
			require.Equal(t, w.stderr, stderr.String(), "%q: stderr", c.args)
		})
	}
}

// readB3sumGolden reads the recorded outputs, by case name.
func readB3sumGolden(t *testing.T, path string) map[string]b3sumResult {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	got := map[string]b3sumResult{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	field := func(prefix string) string {
		require.True(t, sc.Scan(), "%s: truncated", path)
		s, ok := strings.CutPrefix(sc.Text(), prefix+" ")
		require.True(t, ok, "%s: want %q, got %q", path, prefix, sc.Text())
		return s
	}
	unquote := func(s string) string {
		u, err := strconv.Unquote(s)
		require.NoError(t, err)
		return u
	}
	for sc.Scan() {
		name, ok := strings.CutPrefix(sc.Text(), "case ")
		require.True(t, ok, "%s: want a case, got %q", path, sc.Text())
		var r b3sumResult
		r.code, err = strconv.Atoi(field("code"))
		require.NoError(t, err)
		r.stdout, r.stderr = unquote(field("stdout")), unquote(field("stderr"))
		got[unquote(name)] = r
	}
	require.NoError(t, sc.Err())
	return got
}
