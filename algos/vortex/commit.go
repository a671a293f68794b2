package vortex

import (
	"context"
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/consensys/gnark-crypto/field/koalabear"
	fext "github.com/consensys/gnark-crypto/field/koalabear/extensions"
	gvortex "github.com/consensys/gnark-crypto/field/koalabear/vortex"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Stages are the timings of a commitment's stages on the GPU: the kernels
// of each (Kernel, where the adapter measures it) and the host time of
// each (Wall, the uploads in Encode and the root's read-back in Tree);
// for a commitment split over several devices, the slowest device's each
// (Timing.Parallel), Tree's with the top of the tree added, which the
// first device builds from the subtrees' roots.
type Stages struct {
	Encode, SIS, Leaves, Tree wgpu.Timing
}

// Kernels returns the stages' kernel times summed (Elapsed of each).
func (s Stages) Kernels() time.Duration {
	return s.Encode.Elapsed() + s.SIS.Elapsed() + s.Leaves.Elapsed() + s.Tree.Elapsed()
}

// Options tune one Commit; the zero value reports nothing and runs to
// the end.
type Options struct {
	// Stages, where not nil, receives the stages' timings (GPU only).
	Stages *Stages
	// Context, where not nil, cancels the commitment: on the GPU it is
	// checked between the pieces of rows and between the stages, for a
	// nil wgpu Context before and after gnark-crypto's Commit (which
	// cannot stop midway). A cancelled commitment frees what it made and
	// returns an error that wraps Context.Err().
	Context context.Context
}

// commitJob is a commitment as a Committer makes it: the caller's Options,
// and what Linea's scheme asks beyond gnark-crypto's (LineaCommitter).
type commitJob struct {
	Options
	// noSIS hashes the codewords' columns themselves into the leaves
	// (Linea's commitments without SIS, LineaOptions.NoSIS).
	noSIS bool
	// constant, where not nil, marks the rows that stand for one value
	// (Linea's LineaConstant): such a row is one element, its value, and
	// is written on the device, not uploaded in full.
	constant []bool
}

// cancelled returns the error of a commitment whose Context is done.
func cancelled(c context.Context) error {
	if c == nil {
		return nil
	}
	if err := c.Err(); err != nil {
		return fmt.Errorf("vortex: commitment cancelled: %w", err)
	}
	return nil
}

// ProverState is a commitment's prover side: the root, and the codewords,
// SIS digests and Merkle tree on the devices (or gnark-crypto's prover
// state for a nil Context), from which OpenLinComb and OpenColumns make a
// proof.
//
// Release frees its device memory at once (to its Committer, where that
// is still open); a state that becomes unreachable without Release frees
// it then, as the garbage collector finds it (runtime.AddCleanup), so
// that a forgotten Release holds no device memory for long. Its methods
// may be called from several goroutines: they take turns, one at a time.
type ProverState struct {
	p    *Params
	root Hash

	// mu is held by every method but Root and Params: the openings take
	// turns, and a method in progress keeps the state reachable.
	mu sync.Mutex
	// tree is the whole Merkle tree: gnark-crypto's for a nil Context,
	// else read back from the device on the first Tree call.
	tree *gvortex.MerkleTree
	// ualpha is OpenLinComb's result.
	ualpha []fext.E4
	// cpu is gnark-crypto's state, for a nil Context.
	cpu *gvortex.ProverState
	dev *resident
	// cleanup frees dev once the state is unreachable; Release stops it.
	cleanup runtime.Cleanup
}

// newDeviceState returns the state of a commitment whose buffers are
// dev's: freed by Release, or once the state is unreachable.
func newDeviceState(p *Params, root Hash, dev *resident) *ProverState {
	s := &ProverState{p: p, root: root, dev: dev}
	// The cleanup holds dev, never s: dev holds nothing of s.
	s.cleanup = runtime.AddCleanup(s, (*resident).release, dev)
	return s
}

// Commit commits to the matrix m (rows of p.NumColumns() elements, at
// most p.MaxRows() of them) as gnark-crypto's vortex.Commit does: on t, a
// Context's GPU or a Group's devices (as a Committer of NewCommitter
// splits it), or with gnark-crypto itself on all cores for a nil t. The
// elements are taken as they are in memory (Montgomery forms); one that
// is not reduced is refused, naming it.
func Commit[R Rows](t wgpu.Target, p *Params, m R, opts Options) (*ProverState, error) {
	if p == nil {
		return nil, fmt.Errorf("vortex: no parameters: make them with NewParams or FromGnark")
	}
	rows, err := rowsOf(p, m)
	if err != nil {
		return nil, err
	}
	g := sched.GroupOf(t)
	if g == nil {
		return commitCPU(p, rows, opts)
	}
	// One commitment: the devices' staging stays as it is (GrowStaging
	// pays for itself over repeated ones).
	c, err := newCommitter(g, p, false)
	if err != nil {
		return nil, err
	}
	defer c.Release()
	return c.commit(rows, commitJob{Options: opts})
}

// commitCPU is gnark-crypto's vortex.Commit of rows, whose elements are
// checked first.
func commitCPU(p *Params, rows [][]koalabear.Element, opts Options) (*ProverState, error) {
	if err := cancelled(opts.Context); err != nil {
		return nil, err
	}
	if err := checkMontgomery(rows); err != nil {
		return nil, err
	}
	st, err := gvortex.Commit(p.g, rows)
	if err != nil {
		return nil, fmt.Errorf("vortex: %w", err)
	}
	if err := cancelled(opts.Context); err != nil {
		return nil, err
	}
	return &ProverState{p: p, root: st.MerkleTree.Root(), tree: st.MerkleTree, cpu: st}, nil
}

// Root returns the commitment: the Merkle tree's root.
func (s *ProverState) Root() Hash { return s.root }

// Params returns the parameters the state was committed with.
func (s *ProverState) Params() *Params { return s.p }

// Tree returns the Merkle tree of the leaves, gnark-crypto's type (its
// last level the leaves): on the GPU path read back from the device on
// the first call (a commitment and its openings need only the root and
// the opened paths), kept after.
func (s *ProverState) Tree() (*gvortex.MerkleTree, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.readTree()
}

// readTree is Tree, s.mu held.
func (s *ProverState) readTree() (*gvortex.MerkleTree, error) {
	if s.tree != nil {
		return s.tree, nil
	}
	if s.dev == nil {
		return nil, errReleased
	}
	t, err := s.dev.readTree()
	if err != nil {
		return nil, err
	}
	s.tree = t
	return t, nil
}

// Gnark returns the state as gnark-crypto's vortex.ProverState, whose
// OpenLinComb and OpenColumns make the proofs this state makes: for a nil
// Context gnark-crypto's own (shared, not copied), else one whose
// EncodedMatrix, HashedColumns and MerkleTree are read back from the
// device and whose Ualpha is OpenLinComb's (nil before it ran). Its
// Params are p.Gnark(). The state stays as it was.
func (s *ProverState) Gnark() (*gvortex.ProverState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cpu != nil {
		return s.cpu, nil
	}
	if s.dev == nil {
		return nil, errReleased
	}
	enc, err := s.encodedMatrix()
	if err != nil {
		return nil, err
	}
	dig, err := s.hashedColumns()
	if err != nil {
		return nil, err
	}
	tree, err := s.readTree()
	if err != nil {
		return nil, err
	}
	return &gvortex.ProverState{Params: s.p.g, EncodedMatrix: enc, HashedColumns: dig, MerkleTree: tree, Ualpha: slices.Clone(s.ualpha)}, nil
}

// Release frees the state's device memory at once; the state's openings
// fail after. It is safe to call more than once.
func (s *ProverState) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dev != nil {
		s.cleanup.Stop()
		s.dev.release()
		s.dev = nil
	}
	s.cpu = nil
}

// resident is a commitment's buffers on its devices: its parts, in
// column order, each with its subtrees of unit columns, and the tree's
// levels above those, on the first part's device. Level k of the tree is
// 2^k canonical digests (level 0 the root).
type resident struct {
	rows  int
	parts []*part
	// g is the parts' devices, in order, which the openings run on.
	g    *sched.Group
	unit int
	// top is the level of the subtrees' roots, log2 of their count;
	// levels are the tree's levels 0 to top where top > 0 (where it is 0,
	// the one part's subtree is the tree).
	top    int
	levels []*wgpu.Buffer
}

// part is one device's share of a commitment: the codewords of columns
// [lo, lo+w·len(tiles)) in column tiles (tile t holds columns lo+tw to
// lo+(t+1)w-1 of every row, row-major, w elements a row), their SIS
// digests by tile, and their subtrees.
type part struct {
	d       *member
	lo, w   int
	tiles   []*wgpu.Buffer
	digests []*wgpu.Buffer
	// levels[l] is the tree's level top+l over the part's columns: its
	// subtrees' nodes side by side, up to levels[log2(unit)], the leaves.
	levels []*wgpu.Buffer
}

// span is how many columns the part holds.
func (pt *part) span() int { return pt.w * len(pt.tiles) }

// ctx is the device of the tree's top.
func (r *resident) ctx() *wgpu.Context { return r.parts[0].d.ctx }

// release gives the buffers back to their members.
func (r *resident) release() {
	for i, pt := range r.parts {
		if pt == nil {
			continue
		}
		pt.d.put(pt.tiles...)
		pt.d.put(pt.digests...)
		pt.d.put(pt.levels...)
		if i == 0 {
			pt.d.put(r.levels...)
		}
	}
	r.parts, r.levels = nil, nil
}

// layout is how a device's share of a commitment is cut to fit its
// bindings.
type layout struct {
	// w is a tile's width in columns, tiles their count.
	w, tiles int
	// piece is the rows encoded at once.
	piece int
	// direct: the only tile holds every column, and the encoding writes
	// into it; tiled: the tiles hold every column and the encoding writes
	// them itself (Extender.TileDispatches); else it writes a scratch
	// buffer of whole codewords, copied into the tiles.
	direct, tiled bool
}

// outRow is the bytes of a row of codewords in what the encoding writes
// (the only tile, or each tile), whose pieces of rows start at 256-byte
// aligned offsets there; 0 where it writes a scratch buffer from its
// start.
func (l layout) outRow(m int) int {
	switch {
	case l.direct:
		return 4 * m
	case l.tiled:
		return 4 * l.w
	}
	return 0
}

// planLayout returns the tiles and pieces of a share of span columns of
// rows × m codewords (and their digests of d elements a column) within
// bindings of limit bytes: the widest power-of-two tiles, at most unit
// columns (a power of two that divides span and the share's first
// column), whose codewords and digests fit one binding each, and pieces
// of as many rows (a power of two) as a binding of whole codewords holds.
// The encoding writes the tiles itself where they hold every column and
// are at most maxTiles (Extender.MaxTiles).
func planLayout(rows, m, unit, span, d int, limit uint64, maxTiles int) (layout, error) {
	w := unit
	for w > 1 && (uint64(rows)*uint64(w)*4 > limit || uint64(w)*uint64(d)*4 > limit) {
		w /= 2
	}
	if uint64(rows)*uint64(w)*4 > limit || uint64(w)*uint64(d)*4 > limit || uint64(rows)*uint64(w) >= 1<<32 {
		return layout{}, fmt.Errorf("vortex: a column of %d rows does not fit the device's binding of %d bytes", rows, limit)
	}
	l := layout{w: w, tiles: span / w, direct: span == m && w == m}
	l.tiled = !l.direct && span == m && l.tiles <= maxTiles
	// A tile's leaves (32 bytes a column) and UAlpha (16) start at
	// 256-byte aligned offsets of their buffers.
	if !l.direct && w < 16 {
		if uint64(d)*64 > limit {
			return layout{}, fmt.Errorf("vortex: SIS digests of %d elements: tiles of 16 columns (%d bytes of digests) exceed the device's binding of %d bytes", d, uint64(d)*64, limit)
		}
		return layout{}, fmt.Errorf("vortex: columns of %d rows: tiles of 16 columns (%d bytes) exceed the device's binding of %d bytes", rows, uint64(rows)*64, limit)
	}
	if l.direct {
		l.piece = rows
		return l, nil
	}
	if uint64(m)*4 > limit {
		return layout{}, fmt.Errorf("vortex: a codeword of %d elements exceeds the device's binding of %d bytes", m, limit)
	}
	l.piece = 1
	for l.piece*2 <= rows && uint64(l.piece*2)*uint64(m)*4 <= limit {
		l.piece *= 2
	}
	return l, nil
}

// kernel is entry of the Vortex kernel file on ctx (KoalaBear's constants
// and consts in its prelude): storage bindings 0..storage-1, binding 1
// the one it writes, then the parameters' uniform.
func kernel(ctx *wgpu.Context, file, entry string, storage int, consts ...wgsl.Const) (*wgpu.Kernel, error) {
	ro := make([]bool, storage)
	for i := range ro {
		ro[i] = i != 1
	}
	k, err := ctx.Kernel(wgpu.KernelSpec{
		Label: file + ":" + entry, Module: wgsl.Module{Library: shaders, Files: []string{file}, Consts: append(append([]wgsl.Const(nil), field.KoalaBear.Consts()...), consts...)},
		Entry: entry, Storage: storage, Uniform: true, ReadOnly: ro,
	})
	if err != nil {
		return nil, fmt.Errorf("vortex: %w", err)
	}
	return k, nil
}

// copyKernel is vortex_copy on ctx, a workgroup copying copyRun words
// of a row (its VX_RUN).
func copyKernel(ctx *wgpu.Context) (*wgpu.Kernel, error) {
	return kernel(ctx, "vortex.wgsl", "vortex_copy", 2, wgsl.Const{Name: "VX_RUN", Value: uint32(copyRun)})
}

// copyDispatch is vortex_copy of rows × width words.
func copyDispatch(ctx *wgpu.Context, k *wgpu.Kernel, src, dst wgpu.Binding, rows, width, srcOff, srcStride, dstOff, dstStride int, leave bool) wgpu.Dispatch {
	l := uint32(0)
	if leave {
		l = 1
	}
	return wgpu.Dispatch{Kernel: k, Bindings: []wgpu.Binding{src, dst},
		Params: []uint32{uint32(rows), uint32(width), uint32(srcOff), uint32(srcStride), uint32(dstOff), uint32(dstStride), l},
		Groups: ctx.Grid(uint64(rows)*uint64((width+copyRun-1)/copyRun)*256, 256)}
}

// copyRun is the words of a row one workgroup of vortex_copy copies
// (its VX_RUN): eight of its 256 invocations' loads in flight each, one
// division by the row's runs a workgroup.
const copyRun = 8 * 256

// commitGPU is Commit over the first k of c's devices: each device's
// share of the columns (commitPart, stages.go: every row uploaded and encoded, the
// share's codewords kept in column tiles, hashed with SIS, the digests
// into leaves, the leaves into the share's subtrees of unit columns
// each), the subtrees' roots gathered on the first device, the top of the
// tree built there, and the root read back. Every level stays on the
// device that built it. The buffers come from the members and go back to
// them.
func (c *Committer) commitGPU(rows [][]koalabear.Element, k int, opts commitJob) (_ *resident, root Hash, err error) {
	p := c.p
	R, m := len(rows), p.SizeCodeWord()
	g, err := sched.NewGroup(c.g.Contexts()[:k]...)
	if err != nil {
		return nil, Hash{}, fmt.Errorf("vortex: %w", err)
	}
	unit := m
	if k > 1 {
		unit = splitUnit(m, k)
	}
	res := &resident{rows: R, parts: make([]*part, k), g: g, unit: unit, top: bits.Len(uint(m/unit)) - 1}
	outs := make([]partOut, k)
	defer func() {
		for i, o := range outs {
			c.devs[i].put(o.temps...)
		}
		if err != nil {
			res.release()
		}
	}()
	err = g.Split(m, unit, func(i int, _ *wgpu.Context, lo, hi int) error {
		pt, err := c.devs[i].commitPart(partJob{stop: opts.Context, rows: rows, lo: lo, hi: hi, unit: unit,
			check: i == 0, timed: opts.Stages != nil, noSIS: opts.noSIS, constant: opts.constant}, &outs[i])
		res.parts[i] = pt
		return err
	})
	if err != nil {
		return nil, Hash{}, err
	}
	var st Stages
	var cost kernelCost
	for _, o := range outs {
		st.Encode, st.SIS, st.Leaves, st.Tree = st.Encode.Parallel(o.st.Encode), st.SIS.Parallel(o.st.SIS), st.Leaves.Parallel(o.st.Leaves), st.Tree.Parallel(o.st.Tree)
		cost.encode = max(cost.encode, o.st.Encode.Elapsed())
		cost.hash += o.st.SIS.Elapsed() + o.st.Leaves.Elapsed()
	}
	c.learn(R, cost)

	if err := cancelled(opts.Context); err != nil {
		return nil, Hash{}, err
	}
	// The top of the tree, above the subtrees, on the first device: the
	// subtrees' roots through the host, then level by level.
	start := time.Now()
	d0 := c.devs[0]
	ctx := d0.ctx
	rootLevel := res.parts[0].levels[0]
	if res.top > 0 {
		endTop := wgpu.Span("vortex: the top of the tree")
		defer func() { endTop(0) }()
		roots := make([]uint32, 8*(m/unit))
		for _, pt := range res.parts {
			n := pt.span() / unit
			if err := pt.d.ctx.Download(wgpu.Bytes(roots[8*(pt.lo/unit):8*(pt.lo/unit+n)]), pt.levels[0], 0); err != nil {
				return nil, Hash{}, fmt.Errorf("vortex: read the subtrees' roots back: %w", err)
			}
		}
		for lv := range res.top + 1 {
			b, err := d0.get("vortex tree level", uint64(32)<<lv)
			if err != nil {
				return nil, Hash{}, err
			}
			res.levels = append(res.levels, b)
		}
		if err := ctx.Upload(res.levels[res.top], 0, wgpu.Bytes(roots)); err != nil {
			return nil, Hash{}, fmt.Errorf("vortex: upload the subtrees' roots: %w", err)
		}
		ds, err := merges(ctx, res.levels, 1, p.linea)
		if err != nil {
			return nil, Hash{}, err
		}
		tt, err := ctx.Run(ds...)
		if err != nil {
			return nil, Hash{}, fmt.Errorf("vortex: tree: %w", err)
		}
		st.Tree = st.Tree.Add(tt)
		rootLevel = res.levels[0]
	}
	if err := d0.checkRows(rows, &outs[0]); err != nil {
		return nil, Hash{}, err
	}
	w := field.MontyWords(root[:])
	if err := ctx.Download(wgpu.Bytes(w), rootLevel, 0); err != nil {
		return nil, Hash{}, fmt.Errorf("vortex: read the root back: %w", err)
	}
	for i := range w {
		w[i] = field.KoalaBear.ToMonty(w[i])
	}
	st.Tree.Wall += time.Since(start)
	if opts.Stages != nil {
		*opts.Stages = st
	}
	return res, root, nil
}

// merges returns the dispatches that build levels[len-2] down to
// levels[0] of a (sub)tree from its last level, each node the compression
// of its two children: levels[l] holds n·2^l nodes (n the subtrees side
// by side), 32 bytes each, in pieces within the device's bindings.
//
// Where md is set, a node is Linea's: the Merkle-Damgard hash of its two
// children (smt_koalabear), else gnark-crypto's compression of them.
func merges(ctx *wgpu.Context, levels []*wgpu.Buffer, n int, md bool) ([]wgpu.Dispatch, error) {
	limit := ctx.Limits().Binding()
	gp := poseidon2.GnarkKoalaBear
	merge := gp.MergeDispatch
	if md {
		merge = gp.MergeMDDispatch
	}
	var ds []wgpu.Dispatch
	for lv := len(levels) - 2; lv >= 0; lv-- {
		var failed error
		ds = append(ds, pieces(limit, uint64(64*n)<<lv, func(off, size uint64) wgpu.Dispatch {
			dsp, err := merge(ctx, wgpu.Binding{Buffer: levels[lv+1], Offset: off, Size: size}, wgpu.Binding{Buffer: levels[lv], Offset: off / 2, Size: size / 2}, int(size/64))
			if err != nil && failed == nil {
				failed = err
			}
			return dsp
		})...)
		if failed != nil {
			return nil, fmt.Errorf("vortex: %w", failed)
		}
	}
	return ds, nil
}

// lineaLeaves returns the dispatches of Linea's leaves of pt, canonical:
// the Merkle-Damgard hash of each column's SIS digest (dg elements), or
// without SIS of the column itself (rows elements).
func (d *member) lineaLeaves(pt *part, rows, dg int, noSIS bool, temp func(string, uint64) (*wgpu.Buffer, error)) ([]wgpu.Dispatch, error) {
	ctx, g := d.ctx, poseidon2.GnarkKoalaBear
	return d.tileLeaves(pt, false, temp, func(t int, out *wgpu.Buffer) ([]wgpu.Dispatch, error) {
		if noSIS {
			return g.ColumnLeavesMDDispatches(ctx, wgpu.Binding{Buffer: pt.tiles[t], Size: uint64(rows) * uint64(pt.w) * 4}, wgpu.Bind(out), rows, pt.w)
		}
		dsp, err := g.LeavesMDDispatch(ctx, wgpu.Bind(pt.digests[t]), wgpu.Bind(out), pt.w, dg)
		return []wgpu.Dispatch{dsp}, err
	})
}

// gnarkLeaves returns the dispatches of gnark-crypto's leaves of pt: its
// width-24 sponge of each column's SIS digest (dg Montgomery forms in and
// out), their canonical values into pt's last level.
func (d *member) gnarkLeaves(pt *part, dg int, temp func(string, uint64) (*wgpu.Buffer, error)) ([]wgpu.Dispatch, error) {
	ctx, g := d.ctx, poseidon2.GnarkKoalaBear
	return d.tileLeaves(pt, true, temp, func(t int, out *wgpu.Buffer) ([]wgpu.Dispatch, error) {
		dsp, err := g.SpongeMontgomeryDispatch(ctx, wgpu.Bind(pt.digests[t]), wgpu.Bind(out), pt.w, dg)
		return []wgpu.Dispatch{dsp}, err
	})
}

// tileLeaves returns the dispatches of pt's leaves: hash writes tile t's
// (32 bytes a column) into a temporary buffer of the tile's own, and a
// copy takes them into pt's last level (their canonical values where
// leave: hash wrote Montgomery forms). Every tile's hash is queued before
// the copies: wgpu orders the dispatches that write one buffer one after
// the other, so that hashes writing one level would each wait for the
// last, and the last workgroups of each tile would run alone; written
// apart, the tiles' hashes run as one grid. A single tile's canonical
// leaves go straight into the level.
func (d *member) tileLeaves(pt *part, leave bool, temp func(string, uint64) (*wgpu.Buffer, error), hash func(t int, out *wgpu.Buffer) ([]wgpu.Dispatch, error)) ([]wgpu.Dispatch, error) {
	ctx := d.ctx
	limit := ctx.Limits().Binding()
	leaves := pt.levels[len(pt.levels)-1]
	if len(pt.tiles) == 1 && !leave {
		ds, err := hash(0, leaves)
		if err != nil {
			return nil, fmt.Errorf("vortex: %w", err)
		}
		return ds, nil
	}
	tileBytes := uint64(pt.w) * 32
	var ds, copies []wgpu.Dispatch
	for t := range pt.tiles {
		out, err := temp("vortex leaves", tileBytes)
		if err != nil {
			return nil, err
		}
		hds, err := hash(t, out)
		if err != nil {
			return nil, fmt.Errorf("vortex: %w", err)
		}
		ds = append(ds, hds...)
		off := uint64(t) * tileBytes
		copies = append(copies, pieces(limit, tileBytes, func(po, size uint64) wgpu.Dispatch {
			w := int(size / 4)
			return copyDispatch(ctx, d.copyKern, wgpu.Binding{Buffer: out, Offset: po, Size: size}, wgpu.Binding{Buffer: leaves, Offset: off + po, Size: size}, 1, w, 0, w, 0, w, leave)
		})...)
	}
	return append(ds, copies...), nil
}

// checkRows reads the rows' check back (out.firsts) and names the first
// element that is not a reduced Montgomery form.
func (d *member) checkRows(rows [][]koalabear.Element, out *partOut) error {
	firsts := make([]uint32, len(out.starts)-1)
	if err := d.ctx.Download(wgpu.Bytes(firsts), out.firsts, 0); err != nil {
		return fmt.Errorf("vortex: read the rows' check back: %w", err)
	}
	n := d.p.NumColumns()
	for k, i := range firsts {
		if i != ^uint32(0) {
			r, j := out.starts[k]+int(i)/n, int(i)%n
			v := rows[r][min(j, len(rows[r])-1)] // a constant row is its one value
			return fmt.Errorf("vortex: element (%d, %d) is %d in memory: a koalabear.Element holds its Montgomery form, below p = %d", r, j, v[0], field.KoalaBear.P())
		}
	}
	return nil
}

// depth is the tree's: its leaves' level.
func (r *resident) depth() int { return r.top + len(r.parts[0].levels) - 1 }

// readTree reads the whole tree back, level by level, as Montgomery
// forms: the top from the first device, the levels below from every
// part.
func (r *resident) readTree() (*gvortex.MerkleTree, error) {
	depth := r.depth()
	tree := &gvortex.MerkleTree{Levels: make([][]Hash, depth+1)}
	for k := range depth + 1 {
		lv, err := r.readLevel(k)
		if err != nil {
			return nil, err
		}
		tree.Levels[k] = lv
	}
	return tree, nil
}

// readLevel reads level k of the tree back (2^k nodes, level 0 the root),
// from the first device or from the parts that hold it, as Montgomery
// forms.
func (r *resident) readLevel(k int) ([]Hash, error) {
	lv := make([]Hash, 1<<k)
	w := unsafe.Slice((*uint32)(unsafe.Pointer(&lv[0])), 8<<k)
	if k < r.top {
		if err := r.ctx().Download(wgpu.Bytes(w), r.levels[k], 0); err != nil {
			return nil, fmt.Errorf("vortex: read the tree back: %w", err)
		}
	} else {
		l := k - r.top
		for _, pt := range r.parts {
			first, n := pt.lo/r.unit<<l, pt.span()/r.unit<<l
			if err := pt.d.ctx.Download(wgpu.Bytes(w[8*first:8*(first+n)]), pt.levels[l], 0); err != nil {
				return nil, fmt.Errorf("vortex: read the tree back: %w", err)
			}
		}
	}
	f := field.KoalaBear
	par.For(len(w), 1<<14, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			w[i] = f.ToMonty(w[i])
		}
	})
	return lv, nil
}

// paths returns the Merkle proofs of the selected columns (gnark-crypto's
// MerkleTree.Open of each): their siblings gathered on the devices
// (vortex_path.wgsl), a level at a time, and read back: each part's
// subtrees give the siblings below the subtrees' roots, the first device
// the top's.
func (r *resident) paths(o *opening) ([]gvortex.MerkleProof, error) {
	depth := r.depth()
	count := len(o.sel)
	out := make([]gvortex.MerkleProof, count)
	if count == 0 || depth == 0 {
		return out, nil
	}
	got := make([][]Hash, len(r.parts))
	err := r.each(func(i int, pt *part) error {
		if len(o.mine[i]) == 0 && (i > 0 || r.top == 0) {
			return nil
		}
		ctx := pt.d.ctx
		k, err := kernel(ctx, "vortex_path.wgsl", "vortex_path", 3)
		if err != nil {
			return err
		}
		all := make([]Hash, count*depth)
		words := unsafe.Slice((*uint32)(unsafe.Pointer(&all[0])), 8*len(all))
		ob, err := pt.d.get("vortex paths", uint64(4*len(words)))
		if err != nil {
			return err
		}
		defer pt.d.put(ob)
		limit := ctx.Limits().Binding()
		var ds []wgpu.Dispatch
		// gather is a level's dispatches: level holds nodes first and on.
		gather := func(lv int, level *wgpu.Buffer, first, nodes int) {
			ds = append(ds, pieces(limit, uint64(32*nodes), func(off, size uint64) wgpu.Dispatch {
				return wgpu.Dispatch{Kernel: k, Bindings: []wgpu.Binding{{Buffer: level, Offset: off, Size: size}, wgpu.Bind(ob), wgpu.Bind(o.shared[i])},
					Params: []uint32{uint32(count), uint32(depth - lv), uint32(depth), uint32(depth - lv), uint32(first + int(off/32)), uint32(size / 32)},
					Groups: ctx.Grid(uint64(8*count), 64)}
			})...)
		}
		if len(o.mine[i]) > 0 {
			for lv := depth; lv > r.top; lv-- {
				l := lv - r.top
				gather(lv, pt.levels[l], pt.lo/r.unit<<l, pt.span()/r.unit<<l)
			}
		}
		if i == 0 {
			for lv := r.top; lv >= 1; lv-- {
				gather(lv, r.levels[lv], 0, 1<<lv)
			}
		}
		if _, err := ctx.Run(ds...); err != nil {
			return fmt.Errorf("vortex: gather the Merkle paths: %w", err)
		}
		if err := ctx.Download(wgpu.Bytes(words), ob, 0); err != nil {
			return fmt.Errorf("vortex: read the Merkle paths back: %w", err)
		}
		got[i] = all
		return nil
	})
	if err != nil {
		return nil, err
	}
	// A path's siblings below the subtrees' roots come from the part that
	// holds the column, the top's from the first.
	below := depth - r.top
	for j := range out {
		p := make(gvortex.MerkleProof, depth)
		copy(p[:below], got[o.owner[j]][j*depth:])
		copy(p[below:], got[0][j*depth+below:(j+1)*depth])
		out[j] = p
	}
	return out, nil
}

// encodePiece returns the rows encoded at once: l.piece, or less where
// that is most of a large matrix, so that uploads overlap the encoding,
// but not under minPiece bytes of rows.
// Pieces of the only tile start at 256-byte aligned offsets.
func encodePiece(rows, n, m int, l layout) int {
	piece := l.piece
	if uint64(rows)*uint64(n)*4 >= overlapFrom {
		for piece > 1 && piece*overlapPieces > rows && uint64(piece/2)*uint64(n)*4 >= minPiece {
			piece /= 2
		}
	}
	if r := l.outRow(m); r > 0 {
		// The codewords' offsets.
		for piece < rows && (piece*r)%256 != 0 {
			piece *= 2
		}
		piece = min(piece, rows)
	}
	return piece
}

// pieceUnit returns the rows whose codewords start a piece at a 256-byte
// aligned offset of what the encoding writes (one row where it writes a
// scratch buffer).
func pieceUnit(rows, m int, l layout) int {
	u := 1
	if r := l.outRow(m); r > 0 {
		for u < rows && (u*r)%256 != 0 {
			u *= 2
		}
	}
	return u
}

// pieceStarts returns the first row of each piece and rows at the end:
// pieces of piece rows, but for the first three, a quarter, a quarter and
// a half of one (whole units), so that the first upload, which nothing
// overlaps, is short.
func pieceStarts(rows, piece, unit int) []int {
	starts := []int{0}
	for _, f := range []int{4, 4, 2} {
		if starts[len(starts)-1] >= rows {
			break
		}
		if sz := piece / f / unit * unit; sz >= unit && piece > unit {
			starts = append(starts, min(rows, starts[len(starts)-1]+sz))
		}
	}
	for starts[len(starts)-1] < rows {
		starts = append(starts, min(rows, starts[len(starts)-1]+piece))
	}
	return starts
}

// overlapFrom is the bytes of rows from which the rows go up in pieces
// while the last piece is encoded; a smaller matrix goes up whole.
var overlapFrom uint64 = 64 << 20

// minPiece is the fewest bytes of rows that encodePiece cuts a piece to:
// each piece costs a submission and a wait, which smaller pieces do not
// repay (BENCHMARKS.md, "One commitment over two GPUs").
var minPiece uint64 = 256 << 20

// overlapPieces is how many pieces a large matrix goes up in, at the least
// (pieces of minPiece bytes allowing).
const overlapPieces = 8

// adjacent reports whether row b starts where row a ends in memory
// (compared as addresses: a pointer one past a's end may point past its
// allocation).
func adjacent(a, b []koalabear.Element) bool {
	return len(a) > 0 && len(b) > 0 && addr(b) == addr(a)+uintptr(len(a))*unsafe.Sizeof(a[0])
}

// within reports whether row b lies in first's capacity: in its slice's
// memory, which first[:k] may then reach (two allocations that happen to
// be adjacent are not one slice).
func within(first, b []koalabear.Element) bool {
	return addr(b) >= addr(first) && addr(b)+uintptr(len(b))*unsafe.Sizeof(b[0]) <= addr(first)+uintptr(cap(first))*unsafe.Sizeof(b[0])
}

// addr is the address of v's first element.
func addr(v []koalabear.Element) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(v))) }

// pieces returns the dispatches of a job over size bytes cut into
// bindings of at most limit bytes each: one piece where size fits, else
// pieces of the largest power of two of bytes that divides size and fits,
// so that offsets stay aligned.
func pieces(limit, size uint64, dispatch func(off, size uint64) wgpu.Dispatch) []wgpu.Dispatch {
	step := size
	if step > limit {
		step = size & -size
		for step > limit {
			step /= 2
		}
	}
	var ds []wgpu.Dispatch
	for off := uint64(0); off < size; off += step {
		ds = append(ds, dispatch(off, step))
	}
	return ds
}
