// Package clitest runs wgbench's commands in tests: in-process on a fresh
// command tree, as the process main runs, or as a process of its own (the
// test binary run as wgbench), with the file checks the command tests
// share.
package clitest

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// MainEnv, set to 1, makes a test binary wgbench itself: tests that need
// separate processes run it with wgbench's arguments (Process).
const MainEnv = "WGBENCH_TEST_MAIN"

// StuckMarkEnv names a file that a wgbench process of the tests creates
// when the grace after Ctrl-C ran out (cli.TestHookStuck).
const StuckMarkEnv = "WGBENCH_TEST_STUCK_MARK"

// CLI is a tree of wgbench's commands as tests run it.
type CLI struct{ tree cli.Tree }

// Of is the CLI of tree.
func Of(tree cli.Tree) CLI { return CLI{tree} }

// New is the CLI of the commands that cmds build, under wgbench's root.
func New(cmds ...func(g *cli.Globals) *cobra.Command) CLI {
	return NewAll(func(g *cli.Globals) []*cobra.Command {
		var cs []*cobra.Command
		for _, c := range cmds {
			cs = append(cs, c(g))
		}
		return cs
	})
}

// NewAll is the CLI of the commands that commands returns, under
// wgbench's root.
func NewAll(commands func(g *cli.Globals) []*cobra.Command) CLI {
	return CLI{func(g *cli.Globals) *cobra.Command {
		root := cli.NewRoot(g)
		root.AddCommand(commands(g)...)
		return root
	}}
}

// Root builds the tree on the globals g.
func (c CLI) Root(g *cli.Globals) *cobra.Command { return c.tree(g) }

// Main is the TestMain of a package whose tests run c: the test binary is
// wgbench running c as the whole process where MainEnv is 1, else it runs
// the tests on every GPU backend (gputest.Main).
func Main(m *testing.M, c CLI) {
	MainOf(m, func(args []string) int {
		return cli.RunProcess(&cli.Globals{Args: args}, c.tree, os.Stdin, os.Stdout, os.Stderr)
	})
}

// MainOf is Main where runProcess runs the arguments as the whole process.
func MainOf(m *testing.M, runProcess func(args []string) int) {
	if os.Getenv(MainEnv) == "1" {
		if mark := os.Getenv(StuckMarkEnv); mark != "" {
			cli.TestHookStuck = func() { os.WriteFile(mark, nil, 0o600) }
		}
		os.Exit(runProcess(os.Args[1:]))
	}
	os.Exit(gputest.Main(m))
}

// Process is 'wgbench args...' in a process of its own: the test binary,
// run as wgbench (Main), with stdin.
func Process(t *testing.T, stdin string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), MainEnv+"=1")
	cmd.Stdin = strings.NewReader(stdin)
	return cmd
}

// Run runs 'wgbench args...' in-process on a fresh command tree and
// returns stdout, stderr and the error RunE returned (what main would
// print and turn into exit 2, or cli.ExitError{Code: 1}).
func (c CLI) Run(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	return c.In(t, "", args...)
}

// In is Run with stdin.
func (c CLI) In(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	return c.With(t, &cli.Globals{Args: args}, stdin)
}

// On is Run with its commands' devices the Group of ctx taken members
// times (Globals.Group): a split over several devices on one adapter.
func (c CLI) On(t *testing.T, ctx *wgpu.Context, members int, args ...string) (string, string, error) {
	t.Helper()
	ctxs := make([]*wgpu.Context, members)
	for i := range ctxs {
		ctxs[i] = ctx
	}
	grp, err := sched.NewGroup(ctxs...)
	require.NoError(t, err)
	return c.With(t, &cli.Globals{Args: args, Group: grp.SplitAll()}, "")
}

// With runs the command g.Args on the globals g.
func (c CLI) With(t *testing.T, g *cli.Globals, stdin string) (string, string, error) {
	t.Helper()
	args := g.Args
	var out, errOut bytes.Buffer
	root := c.tree(g)
	root.SetIn(strings.NewReader(stdin))
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), errOut.String(), err
}

// Main runs wgbench with args and the given standard streams in-process,
// as main does (cli.Run), and returns the exit status.
func (c CLI) Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.Run(&cli.Globals{Args: args}, c.tree, stdin, stdout, stderr)
}

// Exit runs 'wgbench args...' in-process as main does (cli.Run) and
// returns the exit status, stdout and stderr.
func (c CLI) Exit(stdin string, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := c.Main(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// RequireInputError runs 'wgbench args...' and checks that it fails as bad
// input does (an error, not the exit 1 of a negative result) with a
// message holding each of want.
func (c CLI) RequireInputError(t *testing.T, args []string, want ...string) {
	t.Helper()
	var err error
	require.NotPanics(t, func() { _, _, err = c.Run(t, args...) }, "%q", args)
	require.Error(t, err, "%q", args)
	require.NotEqual(t, cli.ExitError{Code: 1}, err, "%q: bad input must be an error, not a negative result", args)
	for _, w := range want {
		require.Contains(t, err.Error(), w, "%q", args)
	}
}

// RequireNoTemp checks that no temporary output file is left in dir.
func RequireNoTemp(t *testing.T, dir string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		require.NotContains(t, d.Name(), ".tmp", "temporary file left behind")
		return nil
	}))
}

// RequireFile checks that path holds want.
func RequireFile(t *testing.T, path string, want []byte) {
	t.Helper()
	require.Equal(t, want, MustRead(t, path), path)
}

// MustRead returns path's content.
func MustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}
