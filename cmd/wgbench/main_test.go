package main

import (
	"bytes"
	"strings"
	"testing"
)

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
