package wgpu

import "github.com/wgcompute/wgcompute/internal/base/trace"

// Span starts a span of phase in the process's trace and returns the
// function that ends it, recording bytes moved (0 if none). The library
// records its phases (device requests, compiles, transfers, kernels,
// waits) and algorithms theirs ("read input", "merge on host") this way;
// a program that offers a trace turns it on and prints it (wgbench's
// --trace, WGCOMPUTE_TRACE). While it is off, as it is unless a program
// turns it on, a span costs one atomic load.
func Span(phase string) func(bytes int64) { return trace.Span(phase) }
