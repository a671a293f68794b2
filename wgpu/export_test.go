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

// NextPiece exposes nextPiece to the package's external tests.
var NextPiece = nextPiece

// BufferSizes lists the sizes of the buffers r holds, set by set: in
// device memory, then in host memory.
func (r *Batcher) BufferSizes() []uint64 {
	var sizes []uint64
	for _, set := range r.sets {
		for _, b := range set {
			sizes = append(sizes, b.Size())
		}
	}
	for _, set := range r.host {
		for _, h := range set {
			sizes = append(sizes, h.b.Size())
		}
	}
	return sizes
}

// MappedHostBuffers counts r's host buffers that are mapped.
func (r *Batcher) MappedHostBuffers() int {
	n := 0
	for _, set := range r.host {
		for _, h := range set {
			if h.mapped {
				n++
			}
		}
	}
	return n
}
