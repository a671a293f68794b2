package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// asMainEnv, set to 1 in the environment of the test binary, makes the
// binary wgbench itself: a test that needs commands in processes of their
// own (as on separate machines) runs its own binary, which is wgbench
// built as the tests are, instead of building one.
const asMainEnv = "WGBENCH_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) == "1" {
		main()
	}
	os.Exit(m.Run())
}

// wgbenchCommand returns the command that runs 'wgbench args...' in a
// process of its own.
func wgbenchCommand(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), asMainEnv+"=1")
	return cmd
}

// wgbench runs 'wgbench args...' in-process on a fresh command tree and
// returns stdout, stderr and the error RunE returned (what main would
// print and turn into exit 2, or exitError{1}).
func wgbench(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	return wgbenchIn(t, "", args...)
}

// wgbenchIn is wgbench with stdin.
func wgbenchIn(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := newRoot(&globals{args: args})
	root.SetIn(strings.NewReader(stdin))
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), errOut.String(), err
}

// requireInputError runs 'wgbench args...' and checks that it fails as bad
// input does (an error, not the exit 1 of a negative result) with a
// message holding each of want.
func requireInputError(t *testing.T, args []string, want ...string) {
	t.Helper()
	var err error
	require.NotPanics(t, func() { _, _, err = wgbench(t, args...) }, "%q", args)
	require.Error(t, err, "%q", args)
	require.NotEqual(t, exitError{1}, err, "%q: bad input must be an error, not a negative result", args)
	for _, w := range want {
		require.Contains(t, err.Error(), w, "%q", args)
	}
}
