package sched

// LearntMinimum is learntMinimum, for the tests.
var LearntMinimum = learntMinimum

// NextPiece exposes nextPiece to the package's external tests.
var NextPiece = nextPiece

// BufferSizes lists the sizes of the buffers r holds, set by set: in
// device memory, then in host memory.
func (r *Runner) BufferSizes() []uint64 {
	var sizes []uint64
	for _, set := range r.sets {
		for _, b := range set {
			sizes = append(sizes, b.Size())
		}
	}
	for _, set := range r.host {
		for _, h := range set {
			sizes = append(sizes, h.Size())
		}
	}
	return sizes
}

// MappedHostBuffers counts r's host buffers that are mapped.
func (r *Runner) MappedHostBuffers() int {
	n := 0
	for _, set := range r.host {
		for _, h := range set {
			if h.Mapped() {
				n++
			}
		}
	}
	return n
}
