package merkle

import (
	"errors"
	"fmt"
	"math/bits"
	"time"

	"github.com/wgcompute/wgcompute/wgpu"
)

// The three ways to build the levels of a subtree on the GPU.
const (
	// LevelPerDispatch is approach 1: one dispatch per level, every level
	// in one submission (one compute pass, or one pass per level with
	// Options.PassPerLevel).
	LevelPerDispatch = 1
	// WorkgroupLevels is approach 2, the articles' workgroup variant: each
	// workgroup computes several levels through global memory, with a
	// barrier between them.
	WorkgroupLevels = 2
	// Subtrees is approach 3: each workgroup builds a whole subtree,
	// the lowest levels in registers and the rest in workgroup memory, so
	// that a dispatch covers log2(WorkgroupSize)+2 levels and no level is
	// read back from global memory.
	Subtrees = 3
)

// Options tune Build. The zero value is the fastest default.
type Options struct {
	// Approach is LevelPerDispatch, WorkgroupLevels or Subtrees; 0 means
	// the hash's fastest on an H200 for the tree's size: for BLAKE3
	// Subtrees (256 invocations) below 2^23 leaves and LevelPerDispatch
	// from there, for Rescue LevelPerDispatch, whose large merge keeps few warps per SM
	// and so pays for the idle invocations of the in-workgroup levels.
	Approach int
	// PassPerLevel puts each dispatch in its own compute pass (still one
	// submission), to measure what a pass costs; Run's single pass is
	// faster.
	PassPerLevel bool
	// WorkgroupSize is the invocations per workgroup, a power of two from
	// 2 to 256; 0 means the hash's default for the approach (64 or 256).
	WorkgroupSize int
	// MaxSubtreeLeaves caps the leaves of one subtree, built in one
	// submission, below what one storage binding holds (0: no cap). Larger
	// trees are built a subtree at a time and the roots merged last.
	MaxSubtreeLeaves int
}

const (
	defaultWorkgroup = 64
	// regLevels is how many levels each invocation of mk_subtree merges in
	// registers before the workgroup-memory levels (the kernel does 0..2).
	regLevels = 2
)

// Build builds the tree of leaves with hash on ctx's GPU. With a nil ctx it
// runs BuildCPU. len(leaves) must be a power of two, at least 2; Rescue
// leaves must hold canonical field elements. The tree keeps leaves (it does
// not copy them).
func Build(ctx *wgpu.Context, leaves [][32]byte, hash *Hash, opts Options) (*Tree, error) {
	n := len(leaves)
	if err := CheckSize(n); err != nil {
		return nil, err
	}
	if hash == nil {
		return nil, errors.New("merkle: no hash given: use merkle.Blake3 or merkle.Rescue")
	}
	if err := hash.CheckLeaves(leaves); err != nil {
		return nil, err
	}
	if ctx == nil {
		return BuildCPU(leaves, hash)
	}
	if opts.Approach == 0 {
		opts.Approach = hash.defaultApproach(n)
	}
	b, err := newBuilder(ctx, hash, opts)
	if err != nil {
		return nil, err
	}
	t := &Tree{hash: hash, leaves: leaves, nodes: make([][32]byte, n)}
	if err := b.build(t.nodes, leaves); err != nil {
		return nil, err
	}
	t.kernel, t.measured = b.kernelT, b.measured
	return t, nil
}

type builder struct {
	ctx      *wgpu.Context
	opts     Options
	wg       int
	kernel   *wgpu.Kernel
	maxChunk int
	// kernelT sums the GPU time of the runs so far; measured stays true
	// while every run was timed.
	kernelT  time.Duration
	measured bool
}

func newBuilder(ctx *wgpu.Context, hash *Hash, opts Options) (*builder, error) {
	if opts.Approach == 0 {
		opts.Approach = hash.approach
		if opts.Approach == 0 {
			opts.Approach = Subtrees
		}
	}
	if opts.Approach < LevelPerDispatch || opts.Approach > Subtrees {
		return nil, fmt.Errorf("merkle: approach %d: accepted are 1 (a dispatch per level), 2 (workgroup levels through global memory), 3 (subtrees in workgroup memory)", opts.Approach)
	}
	wg := opts.WorkgroupSize
	if wg == 0 {
		wg = defaultWorkgroup
		if opts.Approach == Subtrees && hash.wideSubtrees {
			wg = 256
		}
	}
	lim := ctx.Limits()
	if wg < 2 || wg > 256 || wg&(wg-1) != 0 || uint32(wg) > lim.MaxInvocationsPerWorkgroup || uint32(wg) > lim.MaxWorkgroupSizeX {
		return nil, fmt.Errorf("merkle: workgroup size %d: accepted are powers of two from 2 to 256 within the device's %d invocations", wg, lim.MaxInvocationsPerWorkgroup)
	}
	if need := uint32(2 * wg * DigestSize); need > lim.MaxWorkgroupStorage {
		return nil, fmt.Errorf("merkle: workgroup size %d needs %d bytes of workgroup memory, over the device's %d", wg, need, lim.MaxWorkgroupStorage)
	}
	src, err := hash.wgsl(wg)
	if err != nil {
		return nil, err
	}
	entry := map[int]string{LevelPerDispatch: "mk_level", WorkgroupLevels: "mk_levels", Subtrees: "mk_subtree"}[opts.Approach]
	k, err := ctx.Kernel(wgpu.KernelSpec{
		Label:  "merkle.wgsl:" + entry + " (" + hash.name + ")",
		Source: src, Entry: entry, Storage: 2, Uniform: true, ReadOnly: []bool{true, false},
	})
	if err != nil {
		return nil, fmt.Errorf("merkle: %w", err)
	}
	maxChunk, err := chunkLeaves(lim, opts.MaxSubtreeLeaves)
	if err != nil {
		return nil, err
	}
	return &builder{ctx: ctx, opts: opts, wg: wg, kernel: k, maxChunk: maxChunk, measured: true}, nil
}

// chunkLeaves returns the most leaves one subtree may have: the largest
// power of two whose digests fit in one storage binding and one buffer,
// capped by limit when limit > 0.
func chunkLeaves(lim wgpu.Limits, limit int) (int, error) {
	size := min(lim.MaxStorageBindingSize, lim.MaxBufferSize)
	if size < 2*DigestSize {
		return 0, fmt.Errorf("merkle: the device's storage bindings hold %d bytes, under the %d of two digests", size, 2*DigestSize)
	}
	c := 1 << (bits.Len64(size/DigestSize) - 1)
	if limit > 0 && c > limit {
		c = 1 << (bits.Len(uint(limit)) - 1)
	}
	if c < 2 {
		c = 2
	}
	return c, nil
}

// build fills nodes (len(leaves) of them) from leaves. A tree that fits one
// binding is one subtree; a larger one is built a subtree of c leaves at a
// time in the same two buffers, and the subtree roots, node K..2K-1 of the
// whole tree for K subtrees, are then built into nodes[:K] as a tree of
// their own.
func (b *builder) build(nodes, leaves [][32]byte) error {
	n := len(leaves)
	c := min(n, b.maxChunk)
	leafBuf, err := b.ctx.NewBuffer("merkle leaves", uint64(c*DigestSize))
	if err != nil {
		return fmt.Errorf("merkle: %w", err)
	}
	defer leafBuf.Release()
	nodeBuf, err := b.ctx.NewBuffer("merkle nodes", uint64(c*DigestSize))
	if err != nil {
		return fmt.Errorf("merkle: %w", err)
	}
	defer nodeBuf.Release()
	if c == n {
		return b.subtree(nodes, leaves, leafBuf, nodeBuf)
	}
	k := n / c
	local := make([][32]byte, c)
	roots := make([][32]byte, k)
	for s := 0; s < k; s++ {
		if err := b.subtree(local, leaves[s*c:(s+1)*c], leafBuf, nodeBuf); err != nil {
			return fmt.Errorf("subtree %d of %d: %w", s, k, err)
		}
		// Level w of the subtree lands at level w*k of the tree.
		for w := c / 2; w >= 1; w /= 2 {
			copy(nodes[w*k+s*w:w*k+(s+1)*w], local[w:2*w])
		}
		roots[s] = local[1]
	}
	return b.build(nodes[:k], roots)
}

// subtree builds the tree of leaves (at most b.maxChunk) into nodes, through
// leafBuf and nodeBuf.
func (b *builder) subtree(nodes, leaves [][32]byte, leafBuf, nodeBuf *wgpu.Buffer) error {
	n := len(leaves)
	size := uint64(n * DigestSize)
	if err := b.ctx.Upload(leafBuf, 0, wgpu.Bytes(leaves)); err != nil {
		return fmt.Errorf("merkle: upload leaves: %w", err)
	}
	// Upload returns with its last staging copies still queued, and the
	// run's start timestamp would be taken while they drain: wait for them
	// (a 4-byte clear of node 0, which no kernel writes) so that the kernel
	// time is the kernels' alone.
	if err := b.ctx.Clear(nodeBuf, 0, 4); err != nil {
		return fmt.Errorf("merkle: %w", err)
	}
	binds := []wgpu.Binding{{Buffer: leafBuf, Size: size}, {Buffer: nodeBuf, Size: size}}
	ds := b.dispatches(n, binds)
	run := b.ctx.Run
	if b.opts.PassPerLevel {
		run = b.ctx.RunPasses
	}
	tm, err := run(ds...)
	if err != nil {
		return fmt.Errorf("merkle: %d leaves, approach %d: %w", n, b.opts.Approach, err)
	}
	b.kernelT += tm.Kernel
	b.measured = b.measured && tm.Measured
	if err := b.ctx.Download(wgpu.Bytes(nodes), nodeBuf, 0); err != nil {
		return fmt.Errorf("merkle: download nodes: %w", err)
	}
	// The kernels never write node 0; a reused buffer may hold garbage there.
	nodes[0] = [32]byte{}
	return nil
}

// params is the kernels' uniform: in_w, levels, regs, from_leaves, groups.
func params(inW, levels, regs int, fromLeaves bool, groups int) []uint32 {
	f := uint32(0)
	if fromLeaves {
		f = 1
	}
	return []uint32{uint32(inW), uint32(levels), uint32(regs), f, uint32(groups)}
}

// plan returns, for a subtree of n leaves, the levels each dispatch
// computes: every level alone (approach 1), or as many as a workgroup
// covers (per, for approaches 2 and 3), the last dispatch taking the rest.
func plan(n, per int) []int {
	total := bits.Len(uint(n)) - 1
	var ls []int
	for total > 0 {
		d := min(per, total)
		ls = append(ls, d)
		total -= d
	}
	return ls
}

// levelsPer returns how many levels one dispatch of the approach covers.
func (b *builder) levelsPer() int {
	lg := bits.Len(uint(b.wg)) - 1
	switch b.opts.Approach {
	case WorkgroupLevels:
		return lg + 1
	case Subtrees:
		return lg + regLevels
	}
	return 1
}

// dispatches lists the dispatches that build a subtree of n leaves.
func (b *builder) dispatches(n int, binds []wgpu.Binding) []wgpu.Dispatch {
	var ds []wgpu.Dispatch
	inW := n
	for _, d := range plan(n, b.levelsPer()) {
		var groups [3]uint32
		var regs, busyGroups int
		switch b.opts.Approach {
		case LevelPerDispatch:
			groups = b.ctx.Grid(uint64(inW/2), uint32(b.wg))
		default:
			busyGroups = inW >> d
			groups = b.ctx.Grid(uint64(busyGroups)*uint64(b.wg), uint32(b.wg))
			if b.opts.Approach == Subtrees {
				regs = min(regLevels, d)
			}
		}
		ds = append(ds, wgpu.Dispatch{Kernel: b.kernel, Bindings: binds, Params: params(inW, d, regs, inW == n, busyGroups), Groups: groups})
		inW >>= d
	}
	return ds
}

// KernelTimes uploads leaves once and builds their tree runs times on the
// device, back to back, returning each run's GPU kernel time. Build's
// kernel time follows an upload that left the GPU idle for a while, and a
// GPU that idles lowers its clocks; these are the kernels of a busy GPU, as
// the articles' tables measure them. The tree must fit one subtree (one
// storage binding); nothing is downloaded.
func KernelTimes(ctx *wgpu.Context, leaves [][32]byte, hash *Hash, opts Options, runs int) ([]time.Duration, error) {
	n := len(leaves)
	if err := CheckSize(n); err != nil {
		return nil, err
	}
	if err := hash.CheckLeaves(leaves); err != nil {
		return nil, err
	}
	if !ctx.Info().Timestamps {
		return nil, fmt.Errorf("merkle: kernel times: %s (%s) has no timestamp queries", ctx.Info().Name, ctx.Info().Backend)
	}
	if opts.Approach == 0 {
		opts.Approach = hash.defaultApproach(n)
	}
	b, err := newBuilder(ctx, hash, opts)
	if err != nil {
		return nil, err
	}
	if n > b.maxChunk {
		return nil, fmt.Errorf("merkle: kernel times: %d leaves exceed one subtree of %d", n, b.maxChunk)
	}
	size := uint64(n * DigestSize)
	leafBuf, err := ctx.NewBuffer("merkle leaves", size)
	if err != nil {
		return nil, fmt.Errorf("merkle: %w", err)
	}
	defer leafBuf.Release()
	nodeBuf, err := ctx.NewBuffer("merkle nodes", size)
	if err != nil {
		return nil, fmt.Errorf("merkle: %w", err)
	}
	defer nodeBuf.Release()
	if err := ctx.Upload(leafBuf, 0, wgpu.Bytes(leaves)); err != nil {
		return nil, fmt.Errorf("merkle: upload leaves: %w", err)
	}
	ds := b.dispatches(n, []wgpu.Binding{{Buffer: leafBuf, Size: size}, {Buffer: nodeBuf, Size: size}})
	run := ctx.Run
	if opts.PassPerLevel {
		run = ctx.RunPasses
	}
	times := make([]time.Duration, 0, runs)
	for r := 0; r < runs; r++ {
		tm, err := run(ds...)
		if err != nil {
			return nil, fmt.Errorf("merkle: %d leaves, approach %d: %w", n, b.opts.Approach, err)
		}
		times = append(times, tm.Kernel)
	}
	return times, nil
}
