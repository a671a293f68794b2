package wgpu

import "testing"

// TestBackends returns the backends the tests cover, as gputest chooses
// them: gputest imports this package, so the tests inside it cannot call
// gputest, and TestMain (an external test) sets this to gputest.Backends.
var TestBackends func() []string

// TestOptions returns the Options the tests open backend with, as
// gputest.Options does (the WGCOMPUTE_* variables' settings); TestMain
// sets it, as TestBackends.
var TestOptions func(tb testing.TB, backend string) Options
