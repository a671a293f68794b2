package merkle

import "sync"

// cpuPiece is how many pairs the CPU merges between two reports to
// Options.Progress: 16384 Rescue merges take about half a second on two
// cores.
const cpuPiece = 1 << 14

// buildCPUReporting fills every level of nodes from leaves, as
// layout.buildCPU does, a piece of cpuPiece pairs of a level at a time,
// telling progress the merges done after each piece. It stops with
// progress's error.
func (l *layout) buildCPUReporting(nodes, leaves [][32]byte, hash Hash, progress func(done, total int) error) error {
	if l.depth == 0 {
		nodes[1] = leaves[0]
		return nil
	}
	merge := merges(hash)
	below, done := leaves, 0
	for j := 1; j <= l.depth; j++ {
		level := l.level(nodes, j)
		pairs := len(below) / 2
		for lo := 0; lo < pairs; lo += cpuPiece {
			hi := min(lo+cpuPiece, pairs)
			// An even number of nodes below: no node is carried up
			// inside the piece. The merge ignores the node's index.
			mergeLevel(level[lo:hi], below[2*lo:2*hi], 256, merge(j))
			done += hi - lo
			if err := progress(done, l.n-1); err != nil {
				return err
			}
		}
		if len(below)%2 == 1 {
			level[len(level)-1] = below[len(below)-1]
		}
		below = level
	}
	return nil
}

// reporter counts the merges of a tree's ranges, built on several
// goroutines, for Options.Progress, calling it one range at a time.
type reporter struct {
	mu       sync.Mutex
	progress func(done, total int) error
	done, n  int
	// err is progress's first error: the members still building a range
	// when it came are not reported.
	err error
}

// newReporter returns the reporter of a tree of n leaves to progress,
// which may be nil.
func newReporter(progress func(done, total int) error, n int) *reporter {
	return &reporter{progress: progress, n: n}
}

// add counts merges more done and reports the total so far, unless
// progress stopped the build: then it returns that error again.
func (r *reporter) add(merges int) error {
	if r.progress == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.done += merges
		r.err = r.progress(r.done, r.n-1)
	}
	return r.err
}
