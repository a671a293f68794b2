package merkle

import (
	"fmt"
	"math/bits"

	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// Trees of any number of leaves.
//
// The rule: the nodes of each level are paired left to right, and an odd
// last node, which has no sibling, is carried up to the next level as it is
// (not hashed, not duplicated). Level 0 is the leaves, level j has
// ceil(n/2^j) nodes, and level depth = ceil(log2 n) is the root. It is
// merkletreejs's default (its duplicateOdd option off) and the shape of
// RFC 6962's Merkle Tree Hash (the left subtree of every node holds the
// largest power of two of leaves below the node's count), so the tree of n
// leaves is the perfect trees of the binary decomposition of n, largest
// first, joined from the right: for 7 leaves, merge(t4, merge(t2, leaf 6)).
// A power-of-two tree has no odd level, so it is the same tree as before.
//
// The node array holds node 0 (zero), then the levels from the root down
// to level 1, each left to right: level j starts at node off[j], where
// off[depth] = 1 and off[j] = off[j+1] + ceil(n/2^(j+1)). For a power of
// two, off[j] = n/2^j: this is winterfell's heap layout, where node i is
// merge(node 2i, node 2i+1). A tree of one leaf is that leaf, at node 1.

// layout is the shape of the tree of n leaves (n at least 1) and where its
// levels lie in the node array.
type layout struct {
	n, depth int
	// off[j] is the index of level j's first node (j from min(1, depth)
	// to depth).
	off [bits.UintSize + 1]int
}

func newLayout(n int) *layout {
	l := &layout{n: n, depth: bits.Len(uint(n - 1))}
	o := 1
	for j := l.depth; j >= 0; j-- {
		l.off[j] = o
		o += l.width(j)
	}
	return l
}

// width returns the number of nodes of level j: ceil(n/2^j).
func (l *layout) width(j int) int { return (l.n-1)>>j + 1 }

// low returns the lowest level the node array of a whole tree holds: 1,
// or 0 for a tree of one leaf (whose root is its leaf).
func (l *layout) low() int { return min(1, l.depth) }

// size returns the length of the node array that holds levels low to
// depth: node 0 and those levels.
func (l *layout) size(low int) int { return l.off[low] + l.width(low) }

// level returns level j's nodes in nodes, an array of the layout.
func (l *layout) level(nodes [][32]byte, j int) [][32]byte {
	return nodes[l.off[j] : l.off[j]+l.width(j)]
}

// reuse returns size nodes for a build into t: t's node memory when t is
// not nil and holds enough, else new memory; node 0 is zero.
func (t *Tree) reuse(size int) [][32]byte {
	if t == nil || cap(t.nodes) < size {
		return make([][32]byte, size)
	}
	nodes := t.nodes[:size]
	nodes[0] = [32]byte{}
	return nodes
}

// perfect reports whether n leaves make a perfect tree, a power of two of
// at least 2: the trees the GPU builds as one heap.
func perfect(n int) bool { return n >= 2 && powerOfTwo(n) }

// powerOfTwo reports whether n is 1, 2, 4, ...: the sizes of ranges,
// of matrices committed together, and of the trees JoinProofs joins.
func powerOfTwo(n int) bool { return n >= 1 && n&(n-1) == 0 }

// nodeCount returns the length of the node array of a tree of n leaves
// (n at least 1): node 0, then every level from the root down to the one
// above the leaves. It is n for a power of two, at most n + log2(n) for
// other counts, and 2 for one leaf (node 1 is the leaf).
func nodeCount(n int) (int, error) {
	if err := checkSize(n); err != nil {
		return 0, err
	}
	l := newLayout(n)
	return l.size(l.low()), nil
}

// PathLen returns the number of digests in the path of leaf i of a tree of
// n leaves: one for each level below the root where the leaf's ancestor
// has a sibling (log2(n) for a power of two), or -1 unless 0 <= i < n.
func PathLen(n, i int) int {
	if n < 1 || i < 0 || i >= n {
		return -1
	}
	return len(pathNodes(n, i))
}

// pathNodes lists the nodes of leaf i's path in a tree of n leaves, from
// the leaf's sibling up: the sibling of its ancestor on each level that
// has one (an odd last node has none, and is carried up).
func pathNodes(n, i int) []nodePos {
	var ps []nodePos
	for j, w := 0, n; w > 1; j, w = j+1, (w+1)/2 {
		if s := i ^ 1; s < w {
			ps = append(ps, nodePos{j, s})
		}
		i >>= 1
	}
	return ps
}

// walkPath returns the node a path leads to: h, a leaf, merged in turn
// with each digest of path, path[k] standing for node ps[k] (pathNodes of
// the leaf), on h's right when it is a right node, by ms of the level the
// merge makes, as the tree was built (mergeUp).
func walkPath(h [32]byte, ps []nodePos, path [][32]byte, ms levelMerges) [32]byte {
	for k, s := range ps {
		merge, p := ms(s.level+1), s.pos>>1
		if s.pos&1 == 1 {
			h = merge(p, h, path[k])
		} else {
			h = merge(p, path[k], h)
		}
	}
	return h
}

// nodeMerge makes node p of a level from its two children.
type nodeMerge func(p int, left, right [32]byte) [32]byte

// levelMerges gives the nodeMerge of each level j of a tree (from 1), for
// a build (mergeUp) and for a proof's walk (walkPath) alike.
type levelMerges func(j int) nodeMerge

// merges returns the levelMerges of a tree of one hash: every node the
// hash's Merge of its children.
func merges(hash Hash) levelMerges {
	m := func(_ int, left, right [32]byte) [32]byte { return hash.Merge(left, right) }
	return func(int) nodeMerge { return m }
}

// mergeLevel sets dst, the level above below, to merge's nodes over
// below's pairs, carrying an odd last node up, on all cores, grain nodes
// a task.
func mergeLevel(dst, below [][32]byte, grain int, merge nodeMerge) {
	par.For(len(below)/2, grain, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			dst[p] = merge(p, below[2*p], below[2*p+1])
		}
	})
	if len(below)%2 == 1 {
		dst[len(dst)-1] = below[len(below)-1]
	}
}

// mergeUp fills levels from+1 to depth of nodes from level from, below,
// each level j merged by ms(j), or by many(j) where many is not nil and
// gives one, grain nodes a task. Every CPU build (buildCPU, mixed trees,
// matrix commitments) makes its levels here.
func (l *layout) mergeUp(nodes, below [][32]byte, from, grain int, ms levelMerges, many levelManys) {
	for j := from + 1; j <= l.depth; j++ {
		level := l.level(nodes, j)
		if m := manyAt(many, j); m != nil {
			mergeLevelMany(level, below, grain, m)
		} else {
			mergeLevel(level, below, grain, ms(j))
		}
		below = level
	}
}

// buildCPU fills every level of nodes, an array of the layout, from
// leaves.
func (l *layout) buildCPU(nodes, leaves [][32]byte, hash Hash) {
	if l.depth == 0 {
		nodes[1] = leaves[0]
		return
	}
	l.mergeUp(nodes, leaves, 0, 256, merges(hash), manyOf(hash))
}

// rootCPU returns the root of the tree of leaves (at least one), on one
// core, through scratch (len(leaves)/2 digests at least). Not mergeUp:
// it keeps no levels, and runs on one of the cores capCPU spreads over.
func rootCPU(leaves [][32]byte, hash Hash, scratch [][32]byte) [32]byte {
	w := len(leaves)
	if w == 1 {
		return leaves[0]
	}
	below := leaves
	for w > 1 {
		for p := 0; p < w/2; p++ {
			scratch[p] = hash.Merge(below[2*p], below[2*p+1])
		}
		if w%2 == 1 {
			scratch[w/2] = below[w-1]
		}
		below, w = scratch, (w+1)/2
	}
	return scratch[0]
}

// tails fills the last node of each odd-count level from low up, the node
// over the leaves after the tree's last perfect part of that level's size,
// and returns the root. roots[a] is the root of the perfect part of 2^a
// leaves for each bit a of n (roots[0] the last leaf when n is odd): the
// last node of level j is the root of part j-1 merged with the last node
// of level j-1 when both are there, else whichever is, carried up. These
// are the only merges across parts, at most depth of them.
func (l *layout) tails(nodes [][32]byte, roots *[bits.UintSize][32]byte, low int, hash Hash) [32]byte {
	if l.depth == 0 { // one leaf, the root
		if low == 0 {
			nodes[1] = roots[0]
		}
		return roots[0]
	}
	var tail [32]byte
	has := false
	for j := 1; j <= l.depth; j++ {
		if l.n>>(j-1)&1 == 1 {
			if has {
				tail = hash.Merge(roots[j-1], tail)
			} else {
				tail, has = roots[j-1], true
			}
		}
		if has && j >= low {
			nodes[l.off[j]+l.width(j)-1] = tail
		}
	}
	if has {
		return tail
	}
	return roots[l.depth]
}

// parts calls fn for each perfect part of the tree of n leaves, largest
// first: the 2^a leaves from lo, for each bit a of n.
func parts(n int, fn func(a, lo int) error) error {
	lo := 0
	for a := bits.Len(uint(n)) - 1; a >= 0; a-- {
		if n>>a&1 == 1 {
			if err := fn(a, lo); err != nil {
				return err
			}
			lo += 1 << a
		}
	}
	return nil
}

// buildParts builds levels low to depth of the tree of leaves into nodes
// (an array of l's layout holding those levels) on the GPU, a perfect part
// at a time, each bringing back only the levels wanted; the few nodes that
// join the parts are merged on the host (tails). It returns the root.
func (b *builder) buildParts(nodes, leaves [][32]byte, l *layout, low int) ([32]byte, error) {
	var roots [bits.UintSize][32]byte
	var total wgpu.Timing
	var scratch [][32]byte
	err := parts(l.n, func(a, lo int) error {
		part := leaves[lo : lo+1<<a]
		if a == 0 {
			roots[0] = part[0]
			return nil
		}
		r, err := b.run(len(part))
		if err != nil {
			return err
		}
		roots[a], err = r.levels(part, func(j int) [][32]byte {
			if j < low {
				return nil
			}
			at := l.off[j] + lo>>j
			return nodes[at : at+len(part)>>j]
		}, &scratch)
		total = total.Add(r.total)
		if err != nil {
			return fmt.Errorf("merkle: leaves %d..%d: %w", lo, lo+len(part)-1, err)
		}
		return nil
	})
	if err != nil {
		return [32]byte{}, err
	}
	b.report(total)
	return l.tails(nodes, &roots, low, b.hash), nil
}

// bigLevel is the most nodes of a level that levels brings back through
// its scratch memory (1 MiB): larger levels go straight to their places,
// so that a tree that is not a power of two costs no second copy of its
// nodes in host memory.
var bigLevel = 1 << 15

// levels builds the perfect tree of leaves on the GPU and puts each level
// j (1 to log2(len(leaves))) that dst(j) wants into dst(j), a slice of
// that level's width; it returns the root. Only what is wanted comes back:
// in a subtree's heap, the levels from the lowest wanted up are a prefix
// of its nodes. A tree larger than one subtree is built a subtree at a
// time, and its top levels over their roots as a tree of their own.
// scratch holds one download, kept from call to call.
func (r *run) levels(leaves [][32]byte, dst func(j int) [][32]byte, scratch *[][32]byte) ([32]byte, error) {
	m := len(leaves)
	depth := bits.Len(uint(m)) - 1
	c := min(m, r.maxLeaves)
	if err := r.reserve(c); err != nil {
		return [32]byte{}, err
	}
	if c == m {
		lowest := depth
		for j := 1; j < depth; j++ {
			if dst(j) != nil {
				lowest = j
				break
			}
		}
		// The levels of more than bigLevel nodes come back straight into
		// their places, one download each; the smaller ones above them in
		// one download of the heap's prefix, through scratch, as do those
		// narrower than the host width, which only the host makes.
		top := lowest
		for top < depth && m>>top > max(bigLevel, r.hostW-1) {
			top++
		}
		size := 2 * (m >> top)
		if cap(*scratch) < size {
			*scratch = make([][32]byte, size)
		}
		buf := (*scratch)[:size]
		if err := r.subtree(func() [][32]byte { return buf }, leaves); err != nil {
			return [32]byte{}, err
		}
		for j := lowest; j <= depth; j++ {
			d := dst(j)
			if d == nil {
				continue
			}
			w := m >> j
			if j >= top {
				copy(d, buf[w:2*w])
			} else if err := r.ctx.Download(wgpu.Bytes(d), r.nodeBuf, uint64(w*DigestSize)); err != nil {
				return [32]byte{}, fmt.Errorf("merkle: download level %d: %w", j, err)
			}
		}
		return buf[1], nil
	}
	k, cd := m/c, bits.Len(uint(c))-1
	roots := make([][32]byte, k)
	for s := 0; s < k; s++ {
		var err error
		roots[s], err = r.levels(leaves[s*c:(s+1)*c], func(j int) [][32]byte {
			if d := dst(j); d != nil {
				w := c >> j
				return d[s*w : (s+1)*w]
			}
			return nil
		}, scratch)
		if err != nil {
			return [32]byte{}, fmt.Errorf("subtree %d of %d: %w", s, k, err)
		}
	}
	return r.levels(roots, func(j int) [][32]byte { return dst(cd + j) }, scratch)
}

// rootOnParts returns the root of the tree of leaves, a count that is not
// a power of two of at least 2, on g's devices: rootOn of each perfect
// part, joined on the host.
func rootOnParts(g *sched.Group, leaves [][32]byte, hash Hash, opts Options) ([32]byte, error) {
	var roots [bits.UintSize][32]byte
	l, total, err := onParts(g, leaves, hash, opts, func(a int, part [][32]byte, o Options) error {
		var err error
		roots[a], err = rootOn(g, part, hash, o)
		return err
	})
	if err != nil {
		return [32]byte{}, err
	}
	roots[0] = leaves[len(leaves)-1] // used only when the count is odd
	root := l.tails(nil, &roots, l.depth+1, hash)
	if opts.Timing != nil {
		*opts.Timing = total
	}
	return root, nil
}

// buildOnParts builds the tree of leaves, a count that is not a power of
// two of at least 2, on g's devices: buildOn of each perfect part, its
// levels copied into place, joined on the host.
func buildOnParts(g *sched.Group, leaves [][32]byte, hash Hash, opts Options) (*Tree, error) {
	var roots [bits.UintSize][32]byte
	l := newLayout(len(leaves))
	nodes := make([][32]byte, l.size(l.low()))
	lo := 0
	_, total, err := onParts(g, leaves, hash, opts, func(a int, part [][32]byte, o Options) error {
		t, err := buildOn(g, part, hash, o)
		if err != nil {
			return err
		}
		roots[a] = t.Root()
		for j := 1; j <= a; j++ {
			w := 1 << (a - j)
			copy(l.level(nodes, j)[lo>>j:], t.nodes[w:2*w])
		}
		lo += len(part)
		return nil
	})
	if err != nil {
		return nil, err
	}
	roots[0] = leaves[len(leaves)-1] // used only when the count is odd
	l.tails(nodes, &roots, l.low(), hash)
	if opts.Timing != nil {
		*opts.Timing = total
	}
	return &Tree{hash: hash, leaves: leaves, nodes: nodes}, nil
}

// onParts checks the tree of leaves and calls fn for each perfect part of
// at least 2 leaves, largest first, with options that time it; a part of
// one leaf is left to the caller's tails. It returns the layout and the
// parts' timings summed.
func onParts(g *sched.Group, leaves [][32]byte, hash Hash, opts Options, fn func(a int, part [][32]byte, o Options) error) (*layout, wgpu.Timing, error) {
	var total wgpu.Timing
	if err := checkOn(g, len(leaves), hash); err != nil {
		return nil, total, err
	}
	l := newLayout(len(leaves))
	err := parts(l.n, func(a, lo int) error {
		part := leaves[lo : lo+1<<a : lo+1<<a]
		if a == 0 {
			if err := hash.CheckDigest(part[0]); err != nil {
				return fmt.Errorf("merkle: leaf %d: %w", lo, err)
			}
			return nil
		}
		var t wgpu.Timing
		o := opts
		o.Timing = &t
		if err := fn(a, part, o); err != nil {
			return fmt.Errorf("leaves %d..%d: %w", lo, lo+len(part)-1, err)
		}
		total = total.Add(t)
		return nil
	})
	return l, total, err
}
