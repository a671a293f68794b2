package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
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
		require.Equal(t, ExitError{0}, err)
	}
	require.Equal(t, b3sumVersion+"\n", out)
}

// TestRevision: the commit is the build's vcs.revision, else the one
// -ldflags "-X main.commit=..." gave (make build), else unknown.
func TestRevision(t *testing.T) {
	defer func(c string) { commit = c }(commit)
	stamped := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abc"}, {Key: "vcs.modified", Value: "true"}}}
	commit = ""
	require.Equal(t, "unknown", revision(&debug.BuildInfo{}, true))
	require.Equal(t, "unknown", revision(nil, false))
	require.Equal(t, "0123abc-dirty", revision(stamped, true))
	commit = "59dc21e"
	require.Equal(t, "59dc21e", revision(&debug.BuildInfo{}, true), "-buildvcs=false with -ldflags -X")
	require.Equal(t, "59dc21e", revision(nil, false))
	require.Equal(t, "0123abc-dirty", revision(stamped, true), "the VCS stamp, where there is one")
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

// TestHashRequired: the merkle commands without --hash say it is required
// and list the registry's names (it said: unknown hash "").
func TestHashRequired(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"merkle", []string{"merkle", "--in", "x"}},
		{"merkle prove", []string{"merkle", "prove", "--in", "x", "--index", "0"}},
		{"merkle verify", []string{"merkle", "verify", "--proof", "x"}},
	} {
		_, _, err := wgbench(t, tc.args...)
		require.ErrorContains(t, err, tc.name+": --hash is required: accepted are "+merkleHashNames(", "), "%q", tc.args)
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
	walk(newRoot(&Globals{}))
	walk(newRoot(&Globals{Args: []string{"b3sum"}}))
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
