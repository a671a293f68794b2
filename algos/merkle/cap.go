package merkle

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
)

// Capped trees (Options.CapHeight).
//
// A tree keeps all its nodes on the host: 32 bytes a leaf (1 GiB for 2^25
// leaves), besides the leaves. With CapHeight h it keeps the top h+1
// levels alone, at most 2^(h+1) nodes: the cap, level k = depth - h, whose
// node s is the root of the subtree over leaves s·2^k to (s+1)·2^k (the
// last one may hold fewer), and the levels above it. These are the first
// nodes of the whole tree's array, in the same places. Building costs the
// same merges, but the GPU brings back only the top levels, and the CPU
// keeps only one subtree's nodes per core at a time (TestCapMemory builds
// 2^16 leaves with cap height 6 and bounds what the capped build allocates
// by 1/16 of the full build's 2 MiB plus half a subtree's nodes per core,
// on the CPU and on the GPU). A proof of a leaf
// rebuilds the leaf's subtree from the leaves, which the tree keeps (they
// are the caller's memory): the nodes of 2^k leaves, once for each subtree
// a proof touches, on the Context the tree was built on.

// checkCapHeight returns an error unless h is a cap height Options takes.
func checkCapHeight(h int) error {
	if h < 0 {
		return fmt.Errorf("merkle: CapHeight %d: accepted are 0 (keep every node) or a height above 0 (keep the top levels down to a cap of at most 2^height nodes)", h)
	}
	return nil
}

// capLevel returns the level of the cap of a tree of n leaves with cap
// height h, or 0 when the tree keeps every node (h is 0, or the cap would
// be level 1 or below).
func capLevel(l *layout, h int) int {
	if h <= 0 || l.depth-h <= 1 {
		return 0
	}
	return l.depth - h
}

// capInfo is what a capped tree needs to rebuild its subtrees.
type capInfo struct {
	level int           // the cap's level: levels level..depth are kept
	ctx   *wgpu.Context // where subtrees are rebuilt (nil: the CPU)
	opts  Options       // their build options (no CapHeight, no Timing)
}

// byLevels reports whether a tree of n leaves is built level by level
// (buildByLevels) rather than as one heap: every capped tree, and on the
// GPU every tree that is not a power of two of at least 2 leaves.
func (b *builder) byLevels(n int) bool {
	if capLevel(newLayout(n), b.opts.CapHeight) > 0 {
		return true
	}
	return b.ctx != nil && !perfect(n)
}

// buildByLevels builds the tree of leaves, as BuildInto does, keeping the
// levels the options ask for: on the GPU a perfect part at a time
// (buildParts); on the CPU every level, or with a cap, each subtree's root
// on its own core and the levels above it.
func (b *builder) buildByLevels(t *Tree, leaves [][32]byte) (*Tree, error) {
	n := len(leaves)
	if _, _, err := settings(b.hash, b.opts, n); err != nil {
		return nil, err
	}
	if !b.leavesChecked {
		if err := checkLeaves(b.hash, leaves); err != nil {
			return nil, err
		}
	}
	l := newLayout(n)
	k := capLevel(l, b.opts.CapHeight)
	low := l.low()
	if k > 0 {
		low = k
	}
	nodes := t.reuse(l.size(low))
	if b.ctx != nil {
		if _, err := b.buildParts(nodes, leaves, l, low); err != nil {
			return nil, err
		}
	} else {
		start := time.Now()
		if k > 0 {
			capCPU(nodes, leaves, b.hash, l, k)
		} else {
			l.buildCPU(nodes, leaves, b.hash)
		}
		b.report(wgpu.Timing{Wall: time.Since(start)})
	}
	built := &Tree{hash: b.hash, leaves: leaves, nodes: nodes}
	if k > 0 {
		o := b.opts
		o.CapHeight, o.Timing = 0, nil
		built.capped = &capInfo{level: k, ctx: b.ctx, opts: o}
	}
	if t != nil {
		*t = *built
		return t, nil
	}
	return built, nil
}

// rootByLevels returns the root of the tree of leaves on the GPU, a
// perfect part at a time, bringing back each part's root alone.
func (b *builder) rootByLevels(leaves [][32]byte) ([32]byte, error) {
	if _, _, err := settings(b.hash, b.opts, len(leaves)); err != nil {
		return [32]byte{}, err
	}
	if !b.leavesChecked {
		if err := checkLeaves(b.hash, leaves); err != nil {
			return [32]byte{}, err
		}
	}
	l := newLayout(len(leaves))
	nodes := make([][32]byte, 2)
	if l.depth == 0 {
		b.report(wgpu.Timing{})
		return leaves[0], nil
	}
	return b.buildParts(nodes, leaves, l, l.depth)
}

// capCPU fills levels k to depth of nodes: the cap, the root of each
// subtree of 2^k leaves computed on one core, then the levels above it.
// Each core takes subtrees one at a time and keeps one scratch for all of
// them: par.For's ranges (up to four per core) would each make their own.
func capCPU(nodes, leaves [][32]byte, hash Hash, l *layout, k int) {
	caps := l.level(nodes, k)
	var next atomic.Int64
	par.Workers(min(runtime.GOMAXPROCS(0), len(caps)), func(int) {
		scratch := make([][32]byte, 1<<k/2)
		for s := int(next.Add(1) - 1); s < len(caps); s = int(next.Add(1) - 1) {
			caps[s] = rootCPU(capLeaves(leaves, k, s), hash, scratch)
		}
	})
	l.mergeUp(nodes, caps, k, 256, merges(hash), manyOf(hash))
}

// subtreeLeaves returns the leaves of subtree s of a capped tree.
func (t *Tree) subtreeLeaves(s int) [][32]byte { return capLeaves(t.leaves, t.capped.level, s) }

// capLeaves returns the leaves under node s of level k, the cap's, of the
// tree of leaves: 2^k of them from s·2^k, or those left for the last. Not
// Range.Leaves: a range is of a power of two of leaves, all ranges equal.
func capLeaves(leaves [][32]byte, k, s int) [][32]byte {
	lo, hi := s<<k, min(len(leaves), (s+1)<<k)
	return leaves[lo:hi:hi]
}
