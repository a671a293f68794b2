package merkle

import (
	"fmt"
	"iter"
	"math/bits"
	"runtime"
	"strconv"
	"time"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// approach is how the levels of a subtree are built on the GPU. Every
// approach gives the same tree; they exist to be measured against each
// other. The zero value lets Build choose by hash and tree size.
type approach int

const (
	// levelPerDispatch is approach 1: one dispatch per level, every level
	// in one submission (one compute pass, or one pass per level with
	// Options.PassPerLevel).
	levelPerDispatch approach = iota + 1
	// workgroupLevels is approach 2, the articles' workgroup variant: each
	// workgroup computes several levels through global memory, with a
	// barrier between them.
	workgroupLevels
	// subtrees is approach 3: each workgroup builds a whole subtree,
	// the lowest levels in registers and the rest in workgroup memory, so
	// that a dispatch covers log2(WorkgroupSize)+2 levels and no level is
	// read back from global memory.
	subtrees
)

// approaches lists every approach, in the order of their numbers.
var approaches = []approach{levelPerDispatch, workgroupLevels, subtrees}

var approachNames = [...]string{"default", "level-per-dispatch", "workgroup-levels", "subtrees"}

// String returns the approach's name: "level-per-dispatch",
// "workgroup-levels", "subtrees", or "default" for the zero value.
func (a approach) String() string {
	if a >= 0 && int(a) < len(approachNames) {
		return approachNames[a]
	}
	return fmt.Sprintf("approach(%d)", int(a))
}

// parseApproach reads an approach's name or number ("subtrees" or "3");
// "default", "0" and "" give the zero value.
func parseApproach(s string) (approach, error) {
	if s == "" {
		return 0, nil
	}
	for a, name := range approachNames {
		if s == name || s == strconv.Itoa(a) {
			return approach(a), nil
		}
	}
	return 0, approachError(strconv.Quote(s))
}

func approachError(a string) error {
	return fmt.Errorf("merkle: approach %s: accepted are 1 (level-per-dispatch: a dispatch per level), 2 (workgroup-levels: levels through global memory), 3 (subtrees: subtrees in workgroup memory), or 0 (default: the fastest for the hash and size)", a)
}

// Options tune Build and the other calls, and a Committer. The zero value is the fastest default.
type Options struct {
	// WorkgroupSize is the invocations per workgroup, a power of two from
	// 2 to 256; 0 means the hash's default for the way the levels are
	// built, else 64.
	WorkgroupSize int
	// Timing, when non-nil, receives each build's timing, summed over its
	// submissions (on the CPU, its wall time).
	Timing *wgpu.Timing
	// CapHeight, when above 0, keeps on the host only the top CapHeight+1
	// levels of the trees Build and a Committer make: the root down to the
	// cap, at most 2^CapHeight nodes that are the roots of equal subtrees,
	// the last of which may hold fewer leaves (plonky2's Merkle cap). The levels below are neither brought back
	// from the device nor allocated; a proof rebuilds the subtrees it needs
	// from the leaves (Build of a subtree's leaves). 0 keeps every node, as
	// does a height of the tree's depth minus 1 or more. For N leaves and
	// a depth d = ceil(log2 N) above h+1, the cap's nodes are the roots of
	// the subtrees of 2^(d-h) leaves: the last ceil(N/2^(d-h)) nodes of
	// Tree.Nodes. A build on a Group of several devices does not take it.
	CapHeight int
	// Progress, when set, is told how many of the tree's merges are done
	// (done of total, N-1 for N leaves) as a long build goes on: on the
	// CPU after each piece of a level, on a device after each subtree it
	// builds in one submission, on a Group after each range. Calls come
	// one at a time. An error it returns stops the build, which returns
	// that error: a caller can show progress and stop on request. A build
	// in one submission, of a count that is not a power of two on a
	// device, or of a capped or mixed tree reports nothing.
	Progress func(done, total int) error
	// HostWidth is where a build on a device hands a tree's top to the
	// host: the device builds the levels of HostWidth nodes and wider,
	// those HostWidth nodes come back (with the levels below them, for
	// Build), and the host merges the narrower levels above them on all
	// cores, where they take less time than one merge's latency per level
	// on the device (hostTopper). A tree of HostWidth leaves or fewer is
	// built on the host alone. 0 takes the hash's width (hostTopper; none
	// for a hash without it), else a power of two from 2. The
	// nodes are the same either way; Timing's Kernel counts the device's
	// levels alone and its Wall the host's too. A Committer (matrix
	// commitments, records, mixed trees) takes the width of its top
	// level's hash and hands the host the top of its last subtree, but
	// for a top that the rows of shorter matrices are merged into
	// (CommitMatrices), which stays on the device.
	HostWidth int
	// Committer, when set, is the resident Committer a call builds with,
	// its kernels and buffers kept from one call to the next: the call
	// runs on the Committer's device with its schedule and its options,
	// and the call's target and other options are not used. The row or
	// record hash a call is given must be the schedule's first (by Name).
	// NewCommitter does not take it.
	Committer *Committer
	// Schedule, when set, makes Build and Root build a mixed tree, each
	// level merged with the schedule's hash of that level (the package
	// says how), on one device (a Group's first) or the CPU; their hash
	// must then be nil, and the count of leaves one the schedule fits
	// (Schedule.Levels). The other calls, and a Committer, do not take it.
	Schedule Schedule

	// The variants kept to be measured, which internal/base/impl's "merkle"
	// entries force (variants.go): the way the levels are built (0: the
	// hash's tuner, else subtrees), a compute pass per level, and every
	// level on the device whatever HostWidth and the hash say.
	approach     approach
	passPerLevel bool
	deviceTop    bool
}

// defaultWorkgroup is the workgroup size of a hash without tuner.
const defaultWorkgroup = 64

// regLevels is how many levels each invocation of mk_subtree merges in
// registers before the workgroup-memory levels (the kernel does 0..2).
const regLevels = 2

// settings returns the approach and workgroup size a build of n leaves
// runs with: the options', else the hash's tuner, else subtrees with 64
// invocations. It is the one place where the defaults are chosen.
func settings(hash Hash, opts Options, n int) (approach, int, error) {
	a, wg := opts.approach, opts.WorkgroupSize
	tuning, tuned := hash.(tuner)
	if a == 0 && tuned {
		var err error
		if a, err = parseApproach(tuning.MerkleApproach(n)); err != nil {
			return 0, 0, fmt.Errorf("merkle: %s's default: %w", hash.Name(), err)
		}
	}
	if a == 0 {
		a = subtrees
	}
	if a < levelPerDispatch || a > subtrees {
		return 0, 0, approachError(strconv.Itoa(int(a)))
	}
	if wg == 0 && tuned {
		wg = tuning.MerkleWorkgroupSize(a.String())
	}
	if wg == 0 {
		wg = defaultWorkgroup
	}
	if wg < 2 || wg > 256 || !powerOfTwo(wg) {
		return 0, 0, fmt.Errorf("merkle: workgroup size %d: accepted are powers of two from 2 to 256", wg)
	}
	return a, wg, nil
}

// Build builds the tree of leaves with hash on t: on a Context's GPU, on
// the devices of a Group (buildOn: the nodes are the same) or, with a nil
// t, on all CPU cores, the plain-Go reference (buildCPU). There must be at
// least one leaf (any count: the package doc says how counts that are not
// powers of two are built), and every leaf a digest the hash accepts. The
// tree keeps leaves (it does not copy them). With opts.Committer it builds
// with that Committer, as the Committer's schedule says, and with
// opts.Schedule a mixed tree; hash is nil then. A capped tree
// (opts.CapHeight) is built on one device.
func Build(t wgpu.Target, leaves [][32]byte, hash Hash, opts Options) (*Tree, error) {
	if c := opts.Committer; c != nil {
		return c.build(leaves)
	}
	if opts.Schedule != nil {
		var t2 *Tree
		err := mixed(t, hash, opts, func(c *Committer) (err error) {
			t2, err = c.build(leaves)
			return err
		})
		return t2, err
	}
	ctx, one := sched.Device(t)
	if !one {
		return buildOn(sched.GroupOf(t), leaves, hash, opts)
	}
	b, err := newBuilder(ctx, hash, opts)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	return b.Build(leaves)
}

// builder builds trees with one hash and one set of options on one
// Context, keeping its buffers, one subtree's worth, from one build to the
// next until Release. It is not safe for concurrent use. A Builder on a
// nil Context builds on the CPU.
type builder struct {
	ctx  *wgpu.Context
	hash Hash
	opts Options
	// maxLeaves is the most leaves of one subtree: the largest power of
	// two whose digests fit one storage binding and one buffer.
	maxLeaves int
	// leafBuf and nodeBuf hold one subtree's leaves and nodes; they grow
	// to the largest subtree built so far.
	leafBuf, nodeBuf *wgpu.Buffer
	// leavesChecked: the caller has checked the leaves (the ranges of a
	// tree that onGroup checked whole), so no build checks them again.
	leavesChecked bool
	// hostW is the width of the narrowest level a device builds, the
	// levels above it merged on the host (Options.HostWidth); 0: none.
	hostW int
}

// newBuilder returns a builder of trees with hash on ctx (nil: the CPU).
// It holds no device memory until its first build.
func newBuilder(ctx *wgpu.Context, hash Hash, opts Options) (*builder, error) {
	if hash == nil {
		return nil, errNoHash
	}
	if err := checkCapHeight(opts.CapHeight); err != nil {
		return nil, err
	}
	hostW, err := hostWidth(hash, opts, runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, err
	}
	b := &builder{ctx: ctx, hash: hash, opts: opts, hostW: hostW}
	if ctx != nil {
		items := sched.PieceItems(ctx.Limits(), DigestSize)
		if items < 2 {
			return nil, fmt.Errorf("merkle: the device's storage bindings hold %d bytes, under the %d of two digests", ctx.Limits().MaxStorageBindingSize, 2*DigestSize)
		}
		b.maxLeaves = int(wgpu.PowerOfTwoBelow(uint64(items)))
	}
	return b, nil
}

// checkWorkgroup returns an error unless approach a can run with wg
// invocations per workgroup on the device.
func (b *builder) checkWorkgroup(a approach, wg int) error {
	lim := b.ctx.Limits()
	if uint32(wg) > lim.MaxInvocationsPerWorkgroup || uint32(wg) > lim.MaxWorkgroupSizeX {
		return fmt.Errorf("merkle: workgroup size %d: the device runs at most %d invocations per workgroup", wg, min(lim.MaxInvocationsPerWorkgroup, lim.MaxWorkgroupSizeX))
	}
	if need := uint32(2 * wg * DigestSize); a == subtrees && need > lim.MaxWorkgroupStorage {
		return fmt.Errorf("merkle: workgroup size %d needs %d bytes of workgroup memory, over the device's %d", wg, need, lim.MaxWorkgroupStorage)
	}
	return nil
}

// Release frees the builder's buffers. The builder may be used again.
func (b *builder) Release() {
	if b.leafBuf != nil {
		b.leafBuf.Release()
		b.nodeBuf.Release()
		b.leafBuf, b.nodeBuf = nil, nil
	}
}

// SubtreeLeaves returns the most leaves one subtree holds on the device
// (0 on the CPU): trees up to that size are built in one submission, and
// BuildBuffers builds at most that many.
func (b *builder) SubtreeLeaves() int { return b.maxLeaves }

// Build builds the tree of leaves, as the package's Build does.
func (b *builder) Build(leaves [][32]byte) (*Tree, error) { return b.BuildInto(nil, leaves) }

// BuildInto builds the tree of leaves as Build does, into t's node memory
// when t holds enough (a Tree from an earlier build that is no longer
// needed), and returns it; a nil t, or one too small, gets new memory. A
// prover that builds tree after tree of one size skips allocating and
// zeroing 32 bytes per leaf every time (1 GiB for 2^25 leaves), work of
// one core that took longer than the transfers (bench/results/HISTORY.md,
// "The system path, second pass, and several devices", its Merkle entry).
// On an error, t's nodes are undefined.
func (b *builder) BuildInto(t *Tree, leaves [][32]byte) (*Tree, error) {
	n := len(leaves)
	if err := checkSize(n); err != nil {
		return nil, err
	}
	if b.byLevels(n) {
		return b.buildByLevels(t, leaves)
	}
	if b.ctx == nil {
		// Options the GPU would reject are errors here too.
		if _, _, err := settings(b.hash, b.opts, n); err != nil {
			return nil, err
		}
		start := time.Now()
		built, err := buildCPU(t, leaves, b.hash, !b.leavesChecked, b.opts.Progress)
		b.report(wgpu.Timing{Wall: time.Since(start)})
		return built, err
	}
	r, err := b.run(n)
	if err != nil {
		return nil, err
	}
	r.checkLeaves(leaves)
	// New host nodes are allocated while the leaves go up: Go zeroes
	// memory it reuses on one core, about as long as the upload.
	nodes := make(chan [][32]byte, 1)
	if t != nil && cap(t.nodes) >= n {
		nodes <- t.nodes[:n]
	} else {
		go func() {
			defer wgpu.Span("merkle allocate host nodes")(int64(n) * DigestSize)
			nodes <- make([][32]byte, n)
		}()
	}
	built := &Tree{hash: b.hash, leaves: leaves}
	err = r.build(func() [][32]byte { built.nodes = <-nodes; return built.nodes }, leaves)
	if err != nil {
		return nil, err
	}
	b.report(r.total)
	if t != nil {
		*t = *built
		return t, nil
	}
	return built, nil
}

// Root returns the root of the tree of leaves, as Build(...).Root() would,
// without bringing the other nodes back: the read-back is one digest per
// subtree instead of all the nodes, and no host memory is allocated for
// them. On a Group of several devices each builds the roots of its ranges
// and the first the levels above them (rootOn). With opts.Committer it
// builds with that Committer, and hash may be nil.
func Root(t wgpu.Target, leaves [][32]byte, hash Hash, opts Options) ([32]byte, error) {
	if c := opts.Committer; c != nil {
		return c.root(leaves)
	}
	if opts.Schedule != nil {
		var root [32]byte
		err := mixed(t, hash, opts, func(c *Committer) (err error) {
			root, err = c.root(leaves)
			return err
		})
		return root, err
	}
	ctx, one := sched.Device(t)
	if !one {
		return rootOn(sched.GroupOf(t), leaves, hash, opts)
	}
	b, err := newBuilder(ctx, hash, opts)
	if err != nil {
		return [32]byte{}, err
	}
	defer b.Release()
	return b.Root(leaves)
}

// Root returns the root of the tree of leaves, as the package's Root does.
func (b *builder) Root(leaves [][32]byte) ([32]byte, error) {
	n := len(leaves)
	if b.ctx == nil {
		t, err := b.Build(leaves)
		if err != nil {
			return [32]byte{}, err
		}
		return t.Root(), nil
	}
	if err := checkSize(n); err != nil {
		return [32]byte{}, err
	}
	if !perfect(n) {
		return b.rootByLevels(leaves)
	}
	r, err := b.run(n)
	if err != nil {
		return [32]byte{}, err
	}
	r.checkLeaves(leaves)
	nodes := make([][32]byte, 2)
	if err := r.build(func() [][32]byte { return nodes }, leaves); err != nil {
		return [32]byte{}, err
	}
	b.report(r.total)
	return nodes[1], nil
}

// BuildBuffers builds the tree of the n leaves at the start of leaves (n
// digests) into the first n digests of nodes, on the device alone: nothing
// is uploaded, read back or checked, so leaves can come from another kernel
// and the nodes go on to one. Node 0 is not written. n must be a power of
// two from 2 to SubtreeLeaves(); CapHeight and HostWidth do not apply.
func (b *builder) BuildBuffers(nodes, leaves *wgpu.Buffer, n int) error {
	if !perfect(n) {
		return fmt.Errorf("merkle: BuildBuffers: %d leaves: it builds a power of two of leaves, from 2 to SubtreeLeaves() (build other counts with Build)", n)
	}
	if b.ctx == nil {
		return fmt.Errorf("merkle: BuildBuffers: device buffers need a Context (a nil one builds on the CPU: use Build)")
	}
	if n > b.maxLeaves {
		return fmt.Errorf("merkle: BuildBuffers: %d leaves: one subtree holds at most %d on this device", n, b.maxLeaves)
	}
	size := uint64(n * DigestSize)
	for _, buf := range []*wgpu.Buffer{nodes, leaves} {
		if buf == nil || buf.Size() < size {
			return fmt.Errorf("merkle: BuildBuffers: %d leaves need buffers of %d bytes at least", n, size)
		}
	}
	r, err := b.run(n)
	if err != nil {
		return err
	}
	if err := r.dispatch(n, bits.Len(uint(n))-1, leaves, nodes); err != nil {
		return err
	}
	b.report(r.total)
	return nil
}

func (b *builder) report(t wgpu.Timing) {
	if b.opts.Timing != nil {
		*b.opts.Timing = t
	}
}

// run is one build on the GPU: its kernel and settings, and its timing.
type run struct {
	*builder
	approach approach
	wg       int
	kernel   *wgpu.Kernel
	total    wgpu.Timing
	// checked, when set, delivers the leaves' check, which runs while
	// the first leaves go up; no kernel runs before it passes.
	checked chan error
	// n is the whole tree's leaves, whose subtrees report to
	// Options.Progress; the tree of their roots does not.
	n int
}

// checkLeaves starts checking leaves on other goroutines.
func (r *run) checkLeaves(leaves [][32]byte) {
	if r.leavesChecked {
		return
	}
	r.checked = make(chan error, 1)
	go func() { r.checked <- checkLeaves(r.hash, leaves) }()
}

// waitChecked waits for the leaves' check, once.
func (r *run) waitChecked() error {
	if r.checked == nil {
		return nil
	}
	err := <-r.checked
	r.checked = nil
	return err
}

var entries = [...]string{levelPerDispatch: "mk_level", workgroupLevels: "mk_levels", subtrees: "mk_subtree"}

// run returns the build of a tree of n leaves, with its kernel compiled.
func (b *builder) run(n int) (*run, error) {
	a, wg, err := settings(b.hash, b.opts, n)
	if err != nil {
		return nil, err
	}
	if err := b.checkWorkgroup(a, wg); err != nil {
		return nil, err
	}
	m, err := kernelModule(b.hash, wg)
	if err != nil {
		return nil, err
	}
	entry := fmt.Sprintf("%s_%d", entries[a], wg)
	k, err := b.ctx.Kernel(wgpu.KernelSpec{
		Label:  "merkle.wgsl:" + entry + " (" + b.hash.Name() + ")",
		Module: m, Entry: entry, Storage: 2, Uniform: true, ReadOnly: []bool{true, false},
	})
	if err != nil {
		return nil, fmt.Errorf("merkle: %w", err)
	}
	return &run{builder: b, approach: a, wg: wg, kernel: k, n: n}, nil
}

// reserve makes the builder's buffers hold c digests each.
func (b *builder) reserve(c int) error {
	size := uint64(c * DigestSize)
	if b.leafBuf != nil && b.leafBuf.Size() >= size {
		return nil
	}
	b.Release()
	var err error
	if b.leafBuf, err = b.ctx.NewBuffer("merkle leaves", size); err != nil {
		return fmt.Errorf("merkle: %w", err)
	}
	if b.nodeBuf, err = b.ctx.NewBuffer("merkle nodes", size); err != nil {
		b.leafBuf.Release()
		b.leafBuf = nil
		return fmt.Errorf("merkle: %w", err)
	}
	return nil
}

// build fills the nodes that dst returns (len(leaves) of them) from leaves,
// or, when they are 2 alone, its root node 1 (Root: only roots are read
// back). dst is called once the first results are on their way: the host
// memory is allocated while the leaves go up. A tree that fits one subtree
// is built in one submission; a larger one a subtree of c leaves at a time
// in the same two buffers, and the subtree roots, node K..2K-1 of the
// whole tree for K subtrees, are then built into nodes[:K] as a tree of
// their own.
func (r *run) build(dst func() [][32]byte, leaves [][32]byte) error {
	n := len(leaves)
	c := min(n, r.maxLeaves)
	if err := r.reserve(c); err != nil {
		return err
	}
	if c == n {
		return r.subtree(dst, leaves)
	}
	nodes := dst()
	rootOnly := len(nodes) < n
	k := n / c
	local := make([][32]byte, c)
	if rootOnly {
		local = local[:2]
	}
	roots := make([][32]byte, k)
	for s := 0; s < k; s++ {
		if err := r.subtree(func() [][32]byte { return local }, leaves[s*c:(s+1)*c]); err != nil {
			return fmt.Errorf("subtree %d of %d: %w", s, k, err)
		}
		roots[s] = local[1]
		if !rootOnly {
			placeSubtree(nodes, local, s, k)
		}
		if p := r.opts.Progress; p != nil && n == r.n {
			if err := p((s+1)*(c-1), n-1); err != nil {
				return err
			}
		}
	}
	if rootOnly {
		return r.build(func() [][32]byte { return nodes }, roots)
	}
	return r.build(func() [][32]byte { return nodes[:k] }, roots)
}

// placeSubtree copies sub, the heap of subtree s of the k equal subtrees
// of a tree, into nodes, the whole tree's heap: level w of the subtree
// lands at level w·k of the tree.
func placeSubtree(nodes, sub [][32]byte, s, k int) {
	for w := len(sub) / 2; w >= 1; w /= 2 {
		copy(nodes[w*k+s*w:w*k+(s+1)*w], sub[w:2*w])
	}
}

// subtree builds the tree of leaves (at most maxLeaves) into the nodes dst
// returns, through the builder's buffers; when they are fewer than
// len(leaves), a power of two, only that prefix of the nodes comes back
// (node 1 alone for 2; node 0 is not written), the top levels of the heap.
// The levels narrower than the host width are merged on the host from the
// level of that width (hostTop), the whole subtree when it has no more
// leaves than that.
func (r *run) subtree(dst func() [][32]byte, leaves [][32]byte) error {
	m, w := len(leaves), r.hostW
	if w >= m {
		if err := r.waitChecked(); err != nil {
			return err
		}
		nodes := dst()
		if len(nodes) == m {
			nodes[0] = [32]byte{}
		}
		r.hostTop(nodes, leaves)
		return nil
	}
	if err := r.ctx.Upload(r.leafBuf, 0, wgpu.Bytes(leaves)); err != nil {
		return fmt.Errorf("merkle: upload leaves: %w", err)
	}
	// Upload returns with its last staging copies still queued, and the
	// run's start timestamp would be taken while they drain: wait for them
	// so that the kernel time is the kernels' alone.
	if err := r.ctx.Wait(); err != nil {
		return fmt.Errorf("merkle: %w", err)
	}
	if err := r.waitChecked(); err != nil {
		return err
	}
	levels := bits.Len(uint(m)) - 1
	if w > 0 {
		levels -= bits.Len(uint(w)) - 1
	}
	if err := r.dispatch(m, levels, r.leafBuf, r.nodeBuf); err != nil {
		return err
	}
	nodes := dst()
	// The device's nodes are w.. of the heap (1.. when it built the root).
	first := max(w, 1)
	switch {
	case len(nodes) > first:
		if err := r.ctx.Download(wgpu.Bytes(nodes[first:]), r.nodeBuf, uint64(first*DigestSize)); err != nil {
			return fmt.Errorf("merkle: download nodes %d..%d: %w", first, len(nodes)-1, err)
		}
		if len(nodes) == m {
			// The kernels never write node 0; a reused buffer may hold
			// garbage there.
			nodes[0] = [32]byte{}
		}
		if w > 0 {
			r.hostTop(nodes, nodes[w:2*w])
		}
	default: // a prefix of the heap above the device's level
		below := make([][32]byte, w)
		if err := r.ctx.Download(wgpu.Bytes(below), r.nodeBuf, uint64(w*DigestSize)); err != nil {
			return fmt.Errorf("merkle: download the %d nodes the host merges from: %w", w, err)
		}
		r.hostTop(nodes, below)
	}
	return nil
}

// hostTop fills the nodes of heap, a prefix of a subtree's heap (from node
// 1; node 0 is left as it is), above below, its level of len(below) nodes:
// each level merged from the one under it with the hash's Merge on all
// cores. below may be that level inside heap. The host's time is the
// run's: it is added to its Wall, not to its kernel time.
func (r *run) hostTop(heap, below [][32]byte) {
	start := time.Now()
	w := len(below)
	dst := heap
	if len(heap) < w {
		dst = make([][32]byte, w)
	}
	merge := merges(r.hash)(0)
	for lw := w / 2; lw >= 1; lw /= 2 {
		// A grain of 4 merges: a Goldilocks merge takes microseconds, so
		// even a level of a few nodes is worth spreading over the cores.
		mergeLevel(dst[lw:2*lw], below, 4, merge)
		below = dst[lw : 2*lw]
	}
	if len(heap) < w {
		copy(heap[1:], dst[1:len(heap)])
	}
	// Measured as the device's kernels are: a subtree built on the host
	// alone ran no kernel, which is known where kernels are timed.
	r.total = r.total.Add(wgpu.Timing{Wall: time.Since(start), Measured: r.ctx.Info().Timestamps})
}

// dispatch runs the kernels that build the lowest levels levels of the
// subtree of the n leaves in leafBuf into nodeBuf (log2(n) for all of
// them), in one submission, and adds their timing.
func (r *run) dispatch(n, levels int, leafBuf, nodeBuf *wgpu.Buffer) error {
	size := uint64(n * DigestSize)
	binds := []wgpu.Binding{{Buffer: leafBuf, Size: size}, {Buffer: nodeBuf, Size: size}}
	exec := r.ctx.Run
	if r.opts.passPerLevel {
		exec = r.ctx.RunPasses
	}
	tm, err := exec(r.levelDispatches(n, levels, true, binds)...)
	r.total = r.total.Add(tm)
	if err != nil {
		return fmt.Errorf("merkle: %d leaves, approach %s: %w", n, r.approach, err)
	}
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
	var ls []int
	for _, d := range pieces(bits.Len(uint(n))-1, per) {
		ls = append(ls, d)
	}
	return ls
}

// pieces yields the consecutive pieces of at most per (at least 1) that
// count things split into, the last taking the rest: each piece's first
// thing and its count.
func pieces(count, per int) iter.Seq2[int, int] {
	return func(yield func(first, m int) bool) {
		for first := 0; first < count; first += per {
			if !yield(first, min(per, count-first)) {
				return
			}
		}
	}
}

// levelsPer returns how many levels one dispatch of the approach covers.
func (r *run) levelsPer() int {
	lg := bits.Len(uint(r.wg)) - 1
	switch r.approach {
	case workgroupLevels:
		return lg + 1
	case subtrees:
		return lg + regLevels
	}
	return 1
}

// levelDispatches lists the dispatches that build levels levels above an
// input level of inW nodes (the leaf buffer when fromLeaves, else nodes
// inW..2inW-1): every level alone (approach 1), or as many as a workgroup
// covers, as plan splits them.
func (r *run) levelDispatches(inW, levels int, fromLeaves bool, binds []wgpu.Binding) []wgpu.Dispatch {
	var ds []wgpu.Dispatch
	for i, d := range plan(1<<levels, r.levelsPer()) {
		var groups [3]uint32
		var regs, busyGroups int
		switch r.approach {
		case levelPerDispatch:
			groups = r.ctx.Grid(uint64(inW/2), uint32(r.wg))
		default:
			busyGroups = inW >> d
			groups = r.ctx.Grid(uint64(busyGroups)*uint64(r.wg), uint32(r.wg))
			if r.approach == subtrees {
				regs = min(regLevels, d)
			}
		}
		ds = append(ds, wgpu.Dispatch{Kernel: r.kernel, Bindings: binds, Params: params(inW, d, regs, fromLeaves && i == 0, busyGroups), Groups: groups})
		inW >>= d
	}
	return ds
}
