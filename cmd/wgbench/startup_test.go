package main

import (
	"os"
	"path/filepath"
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
