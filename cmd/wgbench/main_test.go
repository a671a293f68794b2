package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"
)

// wgbench runs 'wgbench args...' in-process and returns stdout, stderr and
// the error RunE returned (what main would print and turn into exit 2, or
// exitError{1}). cobra keeps flag values between Execute calls, so every
// flag of the commands on the path is set back to its default first.
func wgbench(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	cmd, _, err := rootCmd.Find(args)
	require.NoError(t, err)
	for c := cmd; c != nil; c = c.Parent() {
		resetFlags(t, c)
	}
	var out, errOut bytes.Buffer
	rootCmd.SetIn(strings.NewReader(""))
	rootCmd.SetOut(&out)
	rootCmd.SetErr(&errOut)
	rootCmd.SetArgs(args)
	err = rootCmd.Execute()
	return out.String(), errOut.String(), err
}

func resetFlags(t *testing.T, c *cobra.Command) {
	t.Helper()
	reset := func(f *pflag.Flag) {
		// Set on a slice flag appends to it, and DefValue is its
		// printed form ("[]"), so slices are emptied instead.
		if s, ok := f.Value.(pflag.SliceValue); ok {
			require.NoError(t, s.Replace(nil))
		} else {
			require.NoError(t, f.Value.Set(f.DefValue), f.Name)
		}
		f.Changed = false
	}
	c.Flags().VisitAll(reset)
	c.PersistentFlags().VisitAll(reset)
}
