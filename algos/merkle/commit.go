package merkle

import (
	"errors"
	"fmt"
	"io"
	"math/bits"
	"runtime"
	"time"
	"unsafe"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/internal/base/split"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Committer builds trees with one Schedule of hashes and one set of
// options on one Context, the resident entry for a caller that commits
// again and again: given as Options.Committer to Build, CommitMatrix,
// CommitMatrices, CommitDeviceMatrix, DeviceMatrixRoot or CommitRecords,
// it builds from leaves, from the rows of matrices or from byte records,
// the last with the leaves computed on the device into the buffer the
// levels are built from. It keeps its buffers, one subtree's worth and one
// piece of input, from one build to the next until Release. It is not
// safe for concurrent use. A Committer on a nil Context builds on the
// CPU.
type Committer struct {
	ctx   *wgpu.Context
	sched Schedule
	opts  Options
	// b holds the leaf and node buffers and the subtree size; its hash
	// is the schedule's first.
	b *builder
	// data holds one piece of a matrix's elements or of records.
	data *wgpu.Buffer
	// inj holds one subtree's row digests to inject (CommitMatrices),
	// in the layout of its nodes.
	inj *wgpu.Buffer
	// rootOnly reads back no leaf made on the device and no node but
	// those the root needs (DeviceMatrixRoot): the tree's other
	// nodes are left unset, in scratch.
	rootOnly bool
	// scratch holds the leaves and nodes of a tree built for its root
	// alone, reused from one such build to the next: their contents are
	// never read but where just written, and fresh arrays would be
	// cleared by the allocator on every call.
	scratch [][32]byte
}

// NewCommitter returns a Committer of trees with schedule s on t: a
// Context, a Group of one or nil, the CPU (a Committer runs on one
// device: a Group of several is refused). It holds no device memory
// until its first build. opts.Committer is not taken.
func NewCommitter(t wgpu.Target, s Schedule, opts Options) (*Committer, error) {
	ctx, one := sched.Device(t)
	if !one {
		return nil, fmt.Errorf("merkle: a Committer runs on one device: give it a Context (or a Group of one), not a Group of %d", sched.GroupOf(t).Len())
	}
	if opts.Committer != nil {
		return nil, fmt.Errorf("merkle: NewCommitter: Options.Committer is set: a Committer is made of a target, a schedule and options, not of another Committer")
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	b, err := newBuilder(ctx, s[0].Hash, opts)
	if err != nil {
		return nil, err
	}
	return &Committer{ctx: ctx, sched: s, opts: opts, b: b}, nil
}

// commitOnce runs commit with opts.Committer where it is set, else with a
// Committer of trees of hash alone on ctx, released after: CommitMatrix,
// CommitMatrices, CommitDeviceMatrix and CommitRecords.
func commitOnce(ctx *wgpu.Context, hash Hash, opts Options, commit func(c *Committer) (*Tree, error)) (*Tree, error) {
	if hash == nil {
		return nil, errNoHash
	}
	if opts.Committer != nil {
		return commit(opts.Committer)
	}
	c, err := NewCommitter(ctx, Schedule{{Hash: hash}}, opts)
	if err != nil {
		return nil, err
	}
	defer c.Release()
	return commit(c)
}

// Release frees the Committer's buffers. The Committer may be used again.
func (c *Committer) Release() {
	c.b.Release()
	c.scratch = nil
	for _, b := range []**wgpu.Buffer{&c.data, &c.inj} {
		if *b != nil {
			(*b).Release()
			*b = nil
		}
	}
}

// SubtreeLeaves returns the most leaves one subtree holds on the device
// (0 on the CPU): trees up to that size are built in one submission, and
// BuildBuffers builds at most that many.
func (c *Committer) SubtreeLeaves() int { return c.b.SubtreeLeaves() }

// BuildInto builds the tree of leaves as Build with the Committer does,
// into t's node memory when t holds enough (a Tree from an earlier build
// that is no longer needed), and returns it; a nil t, or one too small,
// gets new memory. A prover that builds tree after tree of one size skips
// allocating and zeroing 32 bytes per leaf every time (1 GiB for 2^25
// leaves), work of one core that took longer than the transfers
// (bench/results/HISTORY.md, "The system path, second pass, and several
// devices", its Merkle entry). On an error, t's nodes are undefined. The
// schedule must be of one hash.
func (c *Committer) BuildInto(t *Tree, leaves [][32]byte) (*Tree, error) {
	if err := c.uniform("BuildInto"); err != nil {
		return nil, err
	}
	return c.b.BuildInto(t, leaves)
}

// BuildBuffers builds the tree of the n leaves at the start of leaves (n
// digests) into the first n digests of nodes, on the device alone: nothing
// is uploaded, read back or checked, so leaves can come from another kernel
// and the nodes go on to one. Node 0 is not written. n must be a power of
// two from 2 to SubtreeLeaves(); CapHeight and HostWidth do not apply. The
// schedule must be of one hash.
func (c *Committer) BuildBuffers(nodes, leaves *wgpu.Buffer, n int) error {
	if err := c.uniform("BuildBuffers"); err != nil {
		return err
	}
	return c.b.BuildBuffers(nodes, leaves, n)
}

// uniform returns an error unless the Committer's schedule is of one hash.
func (c *Committer) uniform(call string) error {
	if len(c.sched) != 1 {
		return fmt.Errorf("merkle: %s builds trees of one hash, not the schedule %s", call, c.sched)
	}
	return nil
}

// root returns the root of the tree of leaves, as Root with the Committer
// does: without the other nodes for a schedule of one hash.
func (c *Committer) root(leaves [][32]byte) ([32]byte, error) {
	if len(c.sched) == 1 {
		return c.b.Root(leaves)
	}
	t, err := c.build(leaves)
	if err != nil {
		return [32]byte{}, err
	}
	return t.Root(), nil
}

// build builds the tree of leaves, digests of the schedule's first hash,
// as Build with Options.Schedule does (Build with Options.Committer). With a schedule of
// one hash it is builder.Build.
func (c *Committer) build(leaves [][32]byte) (*Tree, error) {
	if len(c.sched) == 1 {
		return c.b.Build(leaves)
	}
	hs, err := c.sched.Levels(len(leaves))
	if err != nil {
		return nil, err
	}
	if err := c.checkSettings(len(leaves)); err != nil {
		return nil, err
	}
	if err := checkLeaves(hs[0], leaves); err != nil {
		return nil, err
	}
	start := time.Now()
	if c.ctx == nil {
		t := buildMixedCPU(leaves, hs)
		c.report(wgpu.Timing{Wall: time.Since(start)})
		return t, nil
	}
	t := &Tree{hash: hs[len(hs)-1], leaves: leaves, nodes: make([][32]byte, len(leaves))}
	var total wgpu.Timing
	if err := c.levels(&total, t.nodes, leaves, nil, hs, nil, 0, nil, whole); err != nil {
		return nil, err
	}
	c.report(total)
	return t, nil
}

// commitMatrix is CommitMatrix with c, merged by c's schedule; rows' hash
// must be the schedule's first hash (by Name).
func commitMatrix[E field.Element](c *Committer, m Matrix[E], rows rowsOf[E]) (*Tree, error) {
	// On a device the elements are checked on their way up
	// (field.CheckedReader).
	if err := checkMat(m, rows.field, c.ctx == nil); err != nil {
		return nil, err
	}
	hs, err := c.leafLevels(rows.hash, m.Rows)
	if err != nil {
		return nil, err
	}
	cpu := func(leaves [][32]byte) { matrixLeavesCPU(leaves, m, rows) }
	t, err := c.commit(hs, m.Rows, cpu, func() (rowFill, error) { return matrixFill(c, m, rows) })
	if err != nil {
		return nil, elementError(err, func() error { return checkMat(m, rows.field, true) })
	}
	return t, nil
}

// commitRecords is CommitRecords with c: the tree whose leaf i is
// hash.HashRecord of record i of size bytes, merged by the schedule; hash
// must be the schedule's first hash (by Name). A schedule of one hash
// takes any number of records, a mixed one a power of two.
func (c *Committer) commitRecords(records []byte, size int, hash RecordHash) (*Tree, error) {
	if hash == nil {
		return nil, errNoHash
	}
	n, err := checkRecords(records, size)
	if err != nil {
		return nil, err
	}
	if !perfect(n) && len(c.sched) == 1 {
		return c.anyRecords(records, size, n, hash)
	}
	if !perfect(n) {
		return nil, fmt.Errorf("merkle: %d records: %w", n, checkPerfect(n))
	}
	hs, err := c.leafLevels(hash, n)
	if err != nil {
		return nil, err
	}
	cpu := func(leaves [][32]byte) { recordLeavesCPU(leaves, records, size, hash) }
	return c.commit(hs, n, cpu, func() (rowFill, error) { return c.recordFill(records, size, hash) })
}

// anyRecords is CommitRecords for n records that do not make a perfect
// tree, with a schedule of one hash: the leaves are hashed on the device
// a subtree's worth at a time into the leaf buffer and read back, and the
// tree built from them as Build builds any count.
func (c *Committer) anyRecords(records []byte, size, n int, hash RecordHash) (*Tree, error) {
	if hash.Name() != c.sched[0].Hash.Name() {
		return nil, fmt.Errorf("merkle: the leaves are %s digests, but the tree merges with %s: hash the leaves with the tree's hash", hash.Name(), c.sched[0].Hash.Name())
	}
	leaves := make([][32]byte, n)
	if c.ctx == nil {
		recordLeavesCPU(leaves, records, size, hash)
		return c.b.Build(leaves)
	}
	fill, err := c.recordFill(records, size, hash)
	if err != nil {
		return nil, err
	}
	sub := min(n, c.b.maxLeaves)
	if err := c.b.reserve(sub); err != nil {
		return nil, err
	}
	var total wgpu.Timing
	for lo, m := range pieces(n, sub) {
		if err := fill(&total, c.b.leafBuf, 0, lo, m); err != nil {
			return nil, err
		}
		if err := c.ctx.Download(wgpu.Bytes(leaves[lo:lo+m]), c.b.leafBuf, 0); err != nil {
			return nil, fmt.Errorf("merkle: download leaves: %w", err)
		}
	}
	t, err := c.b.Build(leaves)
	if err != nil {
		return nil, err
	}
	if c.opts.Timing != nil {
		*c.opts.Timing = total.Add(*c.opts.Timing)
	}
	return t, nil
}

// leafLevels returns the level hashes of a tree of n leaves made by leaf,
// which must be the schedule's first hash.
func (c *Committer) leafLevels(leaf Hash, n int) ([]Hash, error) {
	hs, err := c.sched.Levels(n)
	if err != nil {
		return nil, err
	}
	if leaf.Name() != hs[0].Name() {
		return nil, fmt.Errorf("merkle: the leaves are %s digests, but the schedule %s merges the first level with %s: hash the leaves with the first level's hash", leaf.Name(), c.sched, hs[0].Name())
	}
	return hs, c.checkSettings(n)
}

// checkSettings returns an error if the options do not suit a hash of the
// schedule (a build with one hash checks them itself).
func (c *Committer) checkSettings(n int) error {
	for _, l := range c.sched {
		if _, _, err := settings(l.Hash, c.opts, n); err != nil {
			return err
		}
	}
	return nil
}

// rowFill computes the digests of items [lo, lo+count) (rows, records)
// into digests first..first+count-1 of dst, adding its timing to total.
type rowFill func(total *wgpu.Timing, dst *wgpu.Buffer, first, lo, count int) error

// injections are the digests merged into the nodes of chosen levels
// (CommitMatrices): for a level j in the map, node i of the level becomes
// Merge(node i, digest i), digest i computed by the level's rowFill.
type injections map[int]rowFill

// commit builds the tree of n leaves made by fill on the device (cpu on
// the host, with a nil Context) with the level hashes hs.
func (c *Committer) commit(hs []Hash, n int, cpu func(leaves [][32]byte), fill func() (rowFill, error)) (*Tree, error) {
	start := time.Now()
	if c.ctx != nil && c.rootOnly {
		if len(c.scratch) < 2*n {
			c.scratch = make([][32]byte, 2*n)
		}
		f, err := fill()
		if err != nil {
			return nil, err
		}
		t := &Tree{hash: hs[len(hs)-1], leaves: c.scratch[:n], nodes: c.scratch[n : 2*n]}
		var total wgpu.Timing
		if err := c.levels(&total, t.nodes, t.leaves, f, hs, nil, 0, nil, whole); err != nil {
			return nil, err
		}
		c.report(total)
		return t, nil
	}
	leaves := make([][32]byte, n)
	if c.ctx == nil {
		cpu(leaves)
		t := buildMixedCPU(leaves, hs)
		c.report(wgpu.Timing{Wall: time.Since(start)})
		return t, nil
	}
	f, err := fill()
	if err != nil {
		return nil, err
	}
	t := &Tree{hash: hs[len(hs)-1], leaves: leaves, nodes: make([][32]byte, n)}
	var total wgpu.Timing
	if err := c.levels(&total, t.nodes, leaves, f, hs, nil, 0, nil, whole); err != nil {
		return nil, err
	}
	c.report(total)
	return t, nil
}

func (c *Committer) report(t wgpu.Timing) {
	if c.opts.Timing != nil {
		*c.opts.Timing = t
	}
}

// levels builds the tree of len(leaves) leaves into nodes (all but node
// 0), with level j+1 merged by hs[j] and next the hash of the level above
// the tree's root (nil when the root is the whole tree's). With fill nil
// the leaves are given and uploaded; else fill computes them on the
// device and they are read back into leaves. base is the level of the
// whole tree that these leaves are (0 but for a tree of subtree roots),
// and inj the whole tree's injections by level. at places the tree in
// nodes: range at.Index of at.Count of a larger tree's heap (whole: nodes
// is the tree's own heap), its nodes read back straight into their
// places. A tree larger than one subtree is built a subtree at a time,
// and the subtree roots then as a tree of their own with the upper
// hashes, as builder.Build does.
func (c *Committer) levels(total *wgpu.Timing, nodes, leaves [][32]byte, fill rowFill, hs []Hash, next Hash, base int, inj injections, at split.Range) error {
	n := len(leaves)
	sub := min(n, c.b.maxLeaves)
	if err := c.b.reserve(sub); err != nil {
		return err
	}
	lg := bits.Len(uint(sub)) - 1
	injected := make([]bool, lg+1) // by level of the subtree
	for t := 1; t <= lg; t++ {
		if inj[base+t] != nil {
			injected[t] = true
			if err := c.grow(&c.inj, "merkle injected digests", uint64(sub*DigestSize)); err != nil {
				return err
			}
		}
	}
	k := n / sub
	host, err := c.hostTop(total, sub, lg, hs, next, base, inj, k, fill == nil)
	if err != nil {
		return err
	}
	dev := lg - host.levels // the levels built on the device
	ds, err := c.subtreeDispatches(sub, hs[:dev], levelAbove(hs, dev, next), n, injected)
	if err != nil {
		return err
	}
	var top [][32]byte // the narrow levels of a subtree read back out of place
	if at.Count*k > 1 {
		top = make([][32]byte, min(sub, placeDirect))
	}
	roots := make([][32]byte, k)
	for s := 0; s < k; s++ {
		part := leaves[s*sub : (s+1)*sub]
		if host.levels == lg { // the whole subtree on the host, from its given leaves
			heap := top
			if at.Count*k == 1 {
				heap = nodes[:sub]
			}
			heap[0] = [32]byte{}
			host.merge(heap, part)
			if at.Count*k > 1 {
				placeSubtree(nodes, heap, at.Index*k+s, at.Count*k)
			}
			roots[s] = heap[1]
			continue
		}
		if fill == nil {
			if err := c.ctx.Upload(c.b.leafBuf, 0, wgpu.Bytes(part)); err != nil {
				return fmt.Errorf("merkle: upload leaves: %w", err)
			}
			if err := c.ctx.Wait(); err != nil { // the kernel time is the kernels' alone
				return fmt.Errorf("merkle: %w", err)
			}
		} else if err := fill(total, c.b.leafBuf, 0, s*sub, sub); err != nil {
			return err
		}
		for t := 1; t <= lg; t++ {
			if injected[t] {
				w := sub >> t
				if err := inj[base+t](total, c.inj, w, s*w, w); err != nil {
					return err
				}
			}
		}
		tm, err := c.ctx.Run(ds...)
		*total = total.Add(tm)
		if err != nil {
			return fmt.Errorf("merkle: %d leaves, schedule %s: %w", sub, c.sched, err)
		}
		if fill != nil && !c.rootOnly {
			if err := c.ctx.Download(wgpu.Bytes(part), c.b.leafBuf, 0); err != nil {
				return fmt.Errorf("merkle: download leaves: %w", err)
			}
		}
		if roots[s], err = c.downloadSubtree(nodes, sub, split.Range{Index: at.Index*k + s, Count: at.Count * k}, top, host); err != nil {
			return err
		}
	}
	if k == 1 {
		return nil
	}
	return c.levels(total, nodes, roots, nil, hs[lg:], next, base+lg, inj, at)
}

// whole places a tree in its own heap (Committer.levels).
var whole = split.Range{Index: 0, Count: 1}

// placeDirect is the narrowest level of a subtree that downloadSubtree
// reads back straight into its place: a download per level costs a
// submission and a wait, so the levels under 4096 nodes (128 KiB) come
// back in one download and are copied into place on the host.
const placeDirect = 4096

// hostLevels is the top of a Committer's subtree that the host merges
// (levels of them, 0 for none) and how: merge fills the levels of heap,
// the subtree's heap (or its prefix), above below, its level of width
// 1<<levels (the leaves, when the host merges every level).
type hostLevels struct {
	levels int
	merge  func(heap, below [][32]byte)
}

// hostTop returns the levels of the subtrees of sub leaves (lg levels, of
// hashes hs under next, from level base of the whole tree, k of them)
// that the host merges, as a builder's subtree does (Options.HostWidth,
// the top level's hash's hostTopper): those narrower than the host width, of
// the last subtree alone (k is 1: the subtrees of a larger tree end in
// their roots' tree), unless rows are injected into one of them. Every
// level when the subtree has no more leaves than the width and they are
// given (hostLeaves; else the device makes them and one level at least),
// and it fits the levels read back out of place (placeDirect); else those
// narrower than placeDirect at most. The host's time is added to total's
// Wall.
func (c *Committer) hostTop(total *wgpu.Timing, sub, lg int, hs []Hash, next Hash, base int, inj injections, k int, hostLeaves bool) (hostLevels, error) {
	if lg == 0 || k != 1 {
		return hostLevels{}, nil
	}
	w, err := hostWidth(hs[lg-1], c.opts, runtime.GOMAXPROCS(0))
	if err != nil || w == 0 {
		return hostLevels{}, err
	}
	hl := min(bits.Len(uint(w))-1, lg)
	if hl == lg && (!hostLeaves || sub > placeDirect) {
		hl = lg - 1
	}
	for hl > 0 && hl < lg && 1<<hl >= placeDirect {
		hl--
	}
	for t := lg - hl + 1; t <= lg; t++ {
		if inj[base+t] != nil {
			return hostLevels{}, nil
		}
	}
	if hl == 0 {
		return hostLevels{}, nil
	}
	ms := mixedMerges(hs, next)
	return hostLevels{levels: hl, merge: func(heap, below [][32]byte) {
		start := time.Now()
		for t := lg - hl + 1; t <= lg; t++ {
			lw := sub >> t
			// A grain of 4 merges, as the builder's host levels.
			mergeLevel(heap[lw:2*lw], below, 4, ms(t))
			below = heap[lw : 2*lw]
		}
		*total = total.Add(wgpu.Timing{Wall: time.Since(start), Measured: c.ctx.Info().Timestamps})
	}}, nil
}

// downloadSubtree reads the subtree of sub leaves built in the node
// buffer back into nodes, where it is range at of the heap (its level of
// width w at nodes[w·at.Count + at.Index·w:]), and returns its root:
// into nodes[:sub] for the whole heap, else its wide levels straight into
// place and its narrow ones through top (min(sub, placeDirect) nodes).
// The levels the host merges (host) are not read back but merged.
func (c *Committer) downloadSubtree(nodes [][32]byte, sub int, at split.Range, top [][32]byte, host hostLevels) ([32]byte, error) {
	first := 1 << host.levels // the narrowest level on the device
	if at.Count == 1 {
		end := sub
		if c.rootOnly {
			end = 2 * first // the level the host merges from, or the root
		}
		if err := c.ctx.Download(wgpu.Bytes(nodes[first:end]), c.b.nodeBuf, uint64(first*DigestSize)); err != nil {
			return [32]byte{}, fmt.Errorf("merkle: download nodes: %w", err)
		}
		nodes[0] = [32]byte{} // never written by the kernels
		if host.merge != nil {
			host.merge(nodes[:sub], nodes[first:2*first])
		}
		return nodes[1], nil
	}
	narrow := min(sub, placeDirect)
	for w := sub / 2; w >= narrow && !c.rootOnly; w /= 2 {
		first := w*at.Count + at.Index*w
		if err := c.ctx.Download(wgpu.Bytes(nodes[first:first+w]), c.b.nodeBuf, uint64(w*DigestSize)); err != nil {
			return [32]byte{}, fmt.Errorf("merkle: download nodes: %w", err)
		}
	}
	if err := c.ctx.Download(wgpu.Bytes(top[first:narrow]), c.b.nodeBuf, uint64(first*DigestSize)); err != nil {
		return [32]byte{}, fmt.Errorf("merkle: download nodes: %w", err)
	}
	if host.merge != nil {
		host.merge(top[:narrow], top[first:2*first])
	}
	placeSubtree(nodes, top[:narrow], at.Index, at.Count)
	return top[1], nil
}

// levelAbove returns the hash of the level above the first lg of hs.
func levelAbove(hs []Hash, lg int, next Hash) Hash {
	if lg < len(hs) {
		return hs[lg]
	}
	return next
}

// subtreeDispatches returns the dispatches that build a subtree of sub
// leaves from the leaf buffer into the node buffer, level j+1 merged with
// hs[j], merged with the injection buffer's digests where injected[j+1],
// and converted for the level above where the hash changes (next: the
// hash above the subtree's root, or nil). A run of levels of one hash is
// built as Build builds it, by that hash's approach; the tree size n
// picks the approach.
func (c *Committer) subtreeDispatches(sub int, hs []Hash, next Hash, n int, injected []bool) ([]wgpu.Dispatch, error) {
	size := uint64(sub * DigestSize)
	binds := []wgpu.Binding{{Buffer: c.b.leafBuf, Size: size}, {Buffer: c.b.nodeBuf, Size: size}}
	var ds []wgpu.Dispatch
	for lo := 0; lo < len(hs); {
		hi := lo + 1
		for hi < len(hs) && hs[hi].Name() == hs[lo].Name() && !injected[hi] {
			hi++
		}
		hb := *c.b // the builder's buffers, with this run's hash
		hb.hash = hs[lo]
		r, err := hb.run(n)
		if err != nil {
			return nil, err
		}
		ds = append(ds, r.levelDispatches(sub>>lo, hi-lo, lo == 0, binds)...)
		if injected[hi] {
			d, err := c.injectDispatch(hs[hi-1], sub>>hi)
			if err != nil {
				return nil, err
			}
			ds = append(ds, d)
		}
		if conv := convertAfter(hs, hi-1, next); conv != nil {
			up := levelAbove(hs, hi, next)
			d, err := c.convertDispatch(up, conv, sub>>hi)
			if err != nil {
				return nil, err
			}
			ds = append(ds, d)
		}
		lo = hi
	}
	return ds, nil
}

// kernel compiles entry of file, a kernel over the hash's module m (from
// its method named method), with storage bindings (of two, the first
// read-only) and a uniform.
func (c *Committer) kernel(file, entry string, hash Hash, m wgpu.Module, method string, storage int) (*wgpu.Kernel, error) {
	if m == nil {
		return nil, fmt.Errorf("merkle: %s: %s returned no module", hash.Name(), method)
	}
	spec := wgpu.KernelSpec{
		Label:  file + ":" + entry + " (" + hash.Name() + ")",
		Module: joined{m, wgsl.Module{Library: shaders, Files: []string{file}}}, Entry: entry, Storage: storage, Uniform: true,
	}
	if storage == 2 {
		spec.ReadOnly = []bool{true, false}
	}
	k, err := c.ctx.Kernel(spec)
	if err != nil {
		return nil, fmt.Errorf("merkle: %w", err)
	}
	return k, nil
}

// grow makes *buf hold size bytes (wgpu.Context.Grow).
func (c *Committer) grow(buf **wgpu.Buffer, label string, size uint64) error {
	if err := c.ctx.Grow(buf, label, size); err != nil {
		return fmt.Errorf("merkle: %w", err)
	}
	return nil
}

// nodeWG is the workgroup size of the per-node kernels: convert, inject,
// and the matrix and records kernels.
const nodeWG = 64

// nodesDispatch runs k over the count nodes count..2count-1 of the node
// buffer (bound last, after binds), one invocation each.
func (c *Committer) nodesDispatch(k *wgpu.Kernel, binds []wgpu.Binding, count int) wgpu.Dispatch {
	binds = append(binds, wgpu.Binding{Buffer: c.b.nodeBuf, Size: uint64(2 * count * DigestSize)})
	return wgpu.Dispatch{Kernel: k, Bindings: binds, Params: []uint32{uint32(count)}, Groups: c.ctx.Grid(uint64(count), nodeWG)}
}

// convertDispatch converts the count nodes count..2count-1 of the node
// buffer to digests of up, in place.
func (c *Committer) convertDispatch(up Hash, conv digestConverter, count int) (wgpu.Dispatch, error) {
	k, err := c.kernel("merkle_convert.wgsl", "mk_convert", up, conv.ConvertModule(), "ConvertModule", 1)
	if err != nil {
		return wgpu.Dispatch{}, err
	}
	return c.nodesDispatch(k, nil, count), nil
}

// injectDispatch merges the count nodes count..2count-1 of the node
// buffer with the injection buffer's digests of the same places, with
// hash: node = Merge(node, digest).
func (c *Committer) injectDispatch(hash Hash, count int) (wgpu.Dispatch, error) {
	k, err := c.kernel("merkle_inject.wgsl", "mk_inject", hash, hash.MergeModule(), "MergeModule", 2)
	if err != nil {
		return wgpu.Dispatch{}, err
	}
	return c.nodesDispatch(k, []wgpu.Binding{{Buffer: c.inj, Size: uint64(2 * count * DigestSize)}}, count), nil
}

// pieceFill returns a rowFill that uploads the input of items [lo, hi)
// (bytes from input(lo, hi)) a piece of at most per items at a time into
// the data buffer, and runs k over it with params(items of the piece, the
// digest its first item goes to). Where checked is given, the upload
// reads the input from checked(lo, hi) instead, a field.CheckedReader
// over the same bytes that checks them on their way up.
func (c *Committer) pieceFill(label string, k *wgpu.Kernel, per int, itemBytes int, input func(lo, hi int) []byte, checked func(lo, hi int) io.Reader, params func(count, first int) []uint32) (rowFill, error) {
	return func(total *wgpu.Timing, dst *wgpu.Buffer, dstFirst, lo, count int) error {
		per := min(per, count)
		if err := c.grow(&c.data, "merkle leaf input", uint64(max(4, per*itemBytes+3))&^3); err != nil {
			return err
		}
		var prev *wgpu.Pending
		wait := func() error {
			if prev == nil {
				return nil
			}
			t, err := prev.Wait()
			*total = total.Add(t)
			prev = nil
			return err
		}
		defer wait()
		for first, m := range pieces(count, per) {
			in := input(lo+first, lo+first+m)
			var err error
			if checked == nil {
				err = c.ctx.Upload(c.data, 0, in)
			} else {
				err = c.ctx.UploadFrom(c.data, 0, checked(lo+first, lo+first+m), int64(len(in)))
			}
			if err != nil {
				return fmt.Errorf("merkle: upload %s: %w", label, err)
			}
			bind := []wgpu.Binding{
				{Buffer: c.data, Size: uint64(max(4, len(in)+3)) &^ 3},
				{Buffer: dst, Size: uint64((dstFirst + count) * DigestSize)},
			}
			p, err := c.ctx.Submit(wgpu.Dispatch{Kernel: k, Bindings: bind, Params: params(m, dstFirst+first), Groups: c.ctx.Grid(uint64(m), nodeWG)})
			if werr := wait(); err == nil {
				err = werr
			}
			if err != nil {
				return fmt.Errorf("merkle: hash %s %d..%d: %w", label, lo+first, lo+first+m, err)
			}
			prev = p
		}
		return wait()
	}, nil
}

// pieceItems returns how many items of itemBytes one piece of input
// holds: the storage binding limit, and u32 word indices.
func (c *Committer) pieceItems(itemBytes int) int {
	return max(1, min(sched.PieceItems(c.ctx.Limits(), itemBytes), (1<<32-1-4)/itemBytes))
}

// matrixFill is the rowFill that hashes rows of m on the device.
func matrixFill[E field.Element](c *Committer, m Matrix[E], rows rowsOf[E]) (rowFill, error) {
	k, err := c.kernel(rows.file, "mk_rows", rows.hash, rows.module(), "RowModule", 2)
	if err != nil {
		return nil, err
	}
	var e E
	rowBytes := int(unsafe.Sizeof(e)) * m.Cols
	per := c.pieceItems(rowBytes)
	if sched.PieceItems(c.ctx.Limits(), rowBytes) == 0 {
		return nil, fmt.Errorf("merkle: a row of %d elements (%d bytes) does not fit the device's storage binding limit of %d bytes", m.Cols, rowBytes, c.ctx.Limits().MaxStorageBindingSize)
	}
	return c.pieceFill("rows", k, per, rowBytes,
		func(lo, hi int) []byte { return wgpu.Bytes(m.Data[lo*m.Cols : hi*m.Cols]) },
		func(lo, hi int) io.Reader {
			return field.NewCheckedReader(m.Data[lo*m.Cols:hi*m.Cols], uint64(rows.field.p))
		},
		func(count, first int) []uint32 { return []uint32{uint32(count), uint32(m.Cols), uint32(first), 0, 0} })
}

// recordFill is the rowFill that hashes records on the device.
func (c *Committer) recordFill(records []byte, size int, hash RecordHash) (rowFill, error) {
	k, err := c.kernel("merkle_records.wgsl", "mk_records", hash, hash.RecordModule(), "RecordModule", 2)
	if err != nil {
		return nil, err
	}
	// A piece's bytes are padded to whole words.
	if sched.PieceItems(c.ctx.Limits(), size+4) == 0 {
		return nil, fmt.Errorf("merkle: a record of %d bytes does not fit the device's storage binding limit of %d bytes", size, c.ctx.Limits().MaxStorageBindingSize)
	}
	// Not pieceItems: a piece of records is padded to whole words, which
	// the binding must hold too (a row is whole words already).
	per := max(1, (min(c.ctx.Limits().Binding(), 1<<32-1)-4)/uint64(size))
	return c.pieceFill("records", k, int(min(per, 1<<31)), size,
		func(lo, hi int) []byte { return records[lo*size : hi*size] }, nil,
		func(count, first int) []uint32 { return []uint32{uint32(count), uint32(size), uint32(first)} })
}

// checkPerfect returns an error unless n leaves make a perfect tree (a
// power of two, at least 2): what matrix commitments and mixed trees
// build; other counts are built by Build and CommitRecords. The
// error has no package prefix: its callers add "merkle:" with their own
// context.
func checkPerfect(n int) error {
	if !perfect(n) {
		return fmt.Errorf("%d leaves: matrix commitments and mixed trees take a power of two of leaves, at least 2 (a tree of one hash, from leaves or records, takes any count)", n)
	}
	return nil
}

// elementError returns err, or where err is an element found out of the
// field on its way up (field.ErrNotCanonical) the error of check, the
// whole matrices' check, which names it.
func elementError(err error, check func() error) error {
	if errors.Is(err, field.ErrNotCanonical) {
		if cerr := check(); cerr != nil {
			return cerr
		}
	}
	return err
}

// first returns the one device t runs on, or a Group's first member: the
// target of the work that runs on one device alone (a mixed tree, a
// capped tree's subtree).
func first(t wgpu.Target) *wgpu.Context {
	if ctx, one := sched.Device(t); one {
		return ctx
	}
	return sched.GroupOf(t).Contexts()[0]
}
