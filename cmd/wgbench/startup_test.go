package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestB3sumTreeAlone runs b3sum command lines on the command tree of b3sum
// alone, which a line starting with b3sum gets, and after a global flag
// that changes nothing, which builds every command: output, errors and
// exit status must be the same.
func TestB3sumTreeAlone(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(file, []byte("abc"), 0o666))
	sums := filepath.Join(dir, "sums")
	require.NoError(t, os.WriteFile(sums, []byte("6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85  "+file+"\n"), 0o666))
	for _, args := range [][]string{
		{"b3sum", "--device", "cpu", file},
		{"b3sum", "--help"},
		{"b3sum", "combine", "--help"},
		{"b3sum", "-V"},
		{"b3sum", "--bogus"},
		{"b3sum", "--check", sums},
		{"b3sum", "--quiet", file},
		{"b3sum", "--device", "sometimes", file},
		{"b3sum", "--subtree", "0/2", file},
		{"b3sum", "--backend", "nowhere", file},
		{"b3sum", "help"},
		{"b3sum", filepath.Join(dir, "missing")},
	} {
		code, out, errOut := runCLI("", args...)
		whole, wholeOut, wholeErr := runCLI("", append([]string{"--trace=false"}, args...)...)
		require.Equal(t, whole, code, "%q: exit status", args)
		require.Equal(t, wholeOut, out, "%q: standard output", args)
		require.Equal(t, wholeErr, errOut, "%q: standard error", args)
	}
}

// TestBarLines checks the progress line's text for a count, for bytes and
// for a spinner, and that a shorter line and clear overwrite a longer one.
func TestBarLines(t *testing.T) {
	var out strings.Builder
	b := NewBar(&out, "rescue merge", 4000, "records")
	b.done = 1000
	require.Equal(t, "rescue merge  25% |███████                       | (1000/4000, 500 records/s) [2s:6s]", b.line(b.start.Add(2*time.Second)))
	by := NewBar(&out, "read", 64<<20, "B")
	by.done = 16 << 20
	require.Equal(t, "read  25% |███████                       | (16 MiB/64 MiB, 8 MiB/s) [2s:6s]", by.line(by.start.Add(2*time.Second)))
	// Before the first report: the work and the time taken, turning.
	b0 := NewBar(&out, "merkle: rescue tree", 2097151, "merges")
	require.Equal(t, "⠙ merkle: rescue tree (2097151 merges) [40s]", b0.line(b0.start.Add(40*time.Second)))
	by0 := NewBar(&out, "read", 64<<20, "B")
	require.Equal(t, "⠙ read (64 MiB) [1s]", by0.line(by0.start.Add(time.Second)))
	sp := NewBar(&out, "merkle: building the tree", -1, "")
	require.Equal(t, "⠙ merkle: building the tree [1m5s]", sp.line(sp.start.Add(65*time.Second)))
	sp.done = 3
	require.Equal(t, "⠹ merkle: building the tree (3) [1m5s]", sp.line(sp.start.Add(65*time.Second)))

	b.draw("a longer line")
	b.draw("short")
	b.Clear()
	require.Equal(t, "\ra longer line\rshort        \r             \r", out.String()[len(out.String())-len("\ra longer line\rshort        \r             \r"):])
}

// TestStartupImports holds wgbench to packages whose initializers every
// command can afford: each linked package's run before any command, b3sum
// of a 4 KiB file included (BENCHMARKS.md, "Start-up on the 2-core CI
// machine"). The GPU hosts' test packs have no Go toolchain to list them.
func TestStartupImports(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list the packages wgbench links")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err)
	linked := strings.Fields(string(out))
	for _, p := range []string{
		"net/http",                          // 0.3 ms with progressbar's colorstring and uniseg
		"github.com/schollz/progressbar/v3", // links net/http
		"gonum.org/v1/plot",                 // 0.6 ms with its fonts, go-latex and gob: in wgbench-plot
		"encoding/gob",
	} {
		if slices.Contains(linked, p) {
			t.Errorf("wgbench links %s, whose initializers every command would pay at start-up", p)
		}
	}
}
