package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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
