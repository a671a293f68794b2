package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
)

// TestVersion: wgbench --version and -V print the version and the commit
// (b3sum -V stays b3sum's).
func TestVersion(t *testing.T) {
	for _, flag := range []string{"--version", "-V"} {
		out, _, err := wgbench(t, flag)
		require.NoError(t, err, flag)
		require.True(t, strings.HasPrefix(out, "wgbench "), "%s: %q", flag, out)
		require.Contains(t, out, ", commit ", flag)
	}
	out, _, err := wgbench(t, "b3sum", "-V")
	if err != nil {
		require.Equal(t, cli.ExitError{Code: 0}, err)
	}
	require.Equal(t, "b3sum 1.2.0\n", out)
}

// TestSuggestions: a mistyped command or flag gets the near ones.
func TestSuggestions(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"merkel"}, "Did you mean this?\n\tmerkle"},
		{[]string{"merkle", "prov"}, `unknown command "prov" for "wgbench merkle": choose from combine, join, prove, verify (did you mean prove?)`},
		{[]string{"merkle", "--hsh", "blake3"}, "unknown flag: --hsh: did you mean --hash?"},
		{[]string{"--bakend", "cpu", "devices"}, "unknown flag: --bakend: did you mean --backend?"},
		{[]string{"bench", "--qick"}, "did you mean --quick?"},
		{[]string{"merkle", "--zzzzzz"}, "unknown flag: --zzzzzz ('wgbench merkle --help' lists the flags)"},
	} {
		_, _, err := wgbench(t, tc.args...)
		require.ErrorContains(t, err, tc.want, "%q", tc.args)
	}
}

// TestUsageLines: no usage line ends with cobra's " [flags]" after a Use
// that lists its own ("[FLAGS] [FILE]... [flags]").
func TestUsageLines(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		line := c.UseLine()
		require.NotContains(t, line, "FLAGS", "%s", line)
		require.LessOrEqual(t, strings.Count(line, "[flags]"), 1, "%s", line)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(&cli.Globals{}))
	walk(newRoot(&cli.Globals{Args: []string{"b3sum"}}))
}

// TestB3sumNoNamesCombine: 'b3sum --no-names combine' prints the hash
// alone, as combine does without --name (--no-names was unknown).
func TestB3sumNoNamesCombine(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(p, []byte("hello\n"), 0o644))
	records, _, err := wgbench(t, "b3sum", "--subtree", "0/1", p)
	require.NoError(t, err)
	want, _, err := wgbench(t, "b3sum", "--no-names", p)
	require.NoError(t, err)
	for _, args := range [][]string{{"b3sum", "--no-names", "combine"}, {"b3sum", "combine", "--no-names"}} {
		got, _, err := wgbenchIn(t, records, args...)
		require.NoError(t, err, "%q", args)
		require.Equal(t, want, got, "%q", args)
	}
	_, _, err = wgbenchIn(t, records, "b3sum", "combine", "--no-names", "--name", "f")
	require.ErrorContains(t, err, "--no-names and --name exclude each other")
}

// TestQuietOnce: bench has one --quiet (the global one); --no-progress is
// hidden, kept for scripts.
func TestQuietOnce(t *testing.T) {
	out, _, err := wgbench(t, "bench", "--help")
	require.NoError(t, err)
	require.Contains(t, out, "--quiet")
	require.NotContains(t, out, "--no-progress")
}
