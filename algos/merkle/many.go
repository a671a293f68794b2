package merkle

import (
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/internal/base/par"
)

// rowsHasher is a RowHash with a CPU path for many rows at once (a block
// permutation over several states side by side, for example), which the
// CPU matrix commitments (a nil Context) take in place of HashRow row by
// row. It is optional: the results must be HashRow's, bit for bit.
type rowsHasher[E field.Element] interface {
	// HashRowsMany sets dst[i] to HashRow(data[i·cols : (i+1)·cols]) for
	// every i < len(dst), on the calling goroutine (the commitment spreads
	// the rows over the cores). data holds len(dst)·cols checked elements.
	HashRowsMany(dst [][32]byte, data []E, cols int)
}

// levelMerger is a Hash with a CPU path for many merges at once, which the
// CPU builds (a nil Context) take for each level merged by that hash
// alone, in place of Merge pair by pair. It is optional: the results must
// be Merge's, bit for bit.
type levelMerger interface {
	// MergeMany sets dst[i] to Merge(below[2i], below[2i+1]) for every
	// i < len(dst), on the calling goroutine; below holds 2·len(dst)
	// digests or more.
	MergeMany(dst, below [][32]byte)
}

// levelManys gives the levelMerger of each level j of a tree (from 1), or
// nil where a level is merged pair by pair (its levelMerges).
type levelManys func(j int) levelMerger

// manyOf returns the levelManys of a tree of one hash: the hash's
// levelMerger at every level, if it has one.
func manyOf(hash Hash) levelManys {
	m, ok := hash.(levelMerger)
	if !ok {
		return nil
	}
	return func(int) levelMerger { return m }
}

// mergeLevelMany is mergeLevel through m.MergeMany, grain nodes a task.
func mergeLevelMany(dst, below [][32]byte, grain int, m levelMerger) {
	par.For(len(below)/2, grain, func(lo, hi int) {
		m.MergeMany(dst[lo:hi], below[2*lo:2*hi])
	})
	if len(below)%2 == 1 {
		dst[len(dst)-1] = below[len(below)-1]
	}
}

// rowsManyGrain is the fewest rows a task of HashRowsMany takes, so that
// a block permutation fills its lanes.
const rowsManyGrain = 64

// manyAt returns many(j), or nil for a nil many.
func manyAt(many levelManys, j int) levelMerger {
	if many == nil {
		return nil
	}
	return many(j)
}
