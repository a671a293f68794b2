package vortex

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/consensys/gnark-crypto/field/koalabear"
	fext "github.com/consensys/gnark-crypto/field/koalabear/extensions"
	gvortex "github.com/consensys/gnark-crypto/field/koalabear/vortex"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/ntt"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Stages are the timings of a commitment's stages on the GPU: the kernels
// of each (Kernel, where the adapter measures it) and the host time of
// each (Wall, the uploads in Encode and the tree's read-back in Tree).
type Stages struct {
	Encode, SIS, Leaves, Tree wgpu.Timing
}

// Kernels returns the stages' kernel times summed (Elapsed of each).
func (s Stages) Kernels() time.Duration {
	return s.Encode.Elapsed() + s.SIS.Elapsed() + s.Leaves.Elapsed() + s.Tree.Elapsed()
}

// Options tune one Commit; the zero value reports nothing.
type Options struct {
	// Stages, where not nil, receives the stages' timings (GPU only).
	Stages *Stages
}

// ProverState is a commitment's prover side: the root, the Merkle tree,
// and the codewords on the device (or gnark-crypto's prover state for a
// nil Context), from which OpenLinComb and OpenColumns make a proof.
// Release frees its device memory.
type ProverState struct {
	p    *Params
	tree *gvortex.MerkleTree
	// ualpha is OpenLinComb's result.
	ualpha []fext.E4
	// cpu is gnark-crypto's state, for a nil Context.
	cpu *gvortex.ProverState
	dev *resident
}

// Commit commits to the matrix m (rows of p.NumColumns() elements, at
// most p.MaxRows() of them) as gnark-crypto's vortex.Commit does: on
// ctx's GPU, or with gnark-crypto itself on all cores for a nil ctx. The
// elements are taken as they are in memory (Montgomery forms); one that
// is not reduced is refused, naming it.
func Commit[R Rows](ctx *wgpu.Context, p *Params, m R, opts Options) (*ProverState, error) {
	if p == nil {
		return nil, fmt.Errorf("vortex: no parameters: make them with NewParams")
	}
	rows, err := rowsOf(p, m)
	if err != nil {
		return nil, err
	}
	if ctx == nil {
		if err := checkMontgomery(rows); err != nil {
			return nil, err
		}
		st, err := gvortex.Commit(p.g, rows)
		if err != nil {
			return nil, fmt.Errorf("vortex: %w", err)
		}
		return &ProverState{p: p, tree: st.MerkleTree, cpu: st}, nil
	}
	// The check reads the rows while they go up: an element that is not
	// reduced makes the kernels compute nonsense, which is thrown away.
	checked := make(chan error, 1)
	go func() { checked <- checkMontgomery(rows) }()
	flat, _ := any(m).([]koalabear.Element)
	dev, tree, err := commitGPU(ctx, p, rows, flat, opts)
	if cerr := <-checked; cerr != nil {
		if err == nil {
			dev.release()
		}
		return nil, cerr
	}
	if err != nil {
		return nil, err
	}
	return &ProverState{p: p, tree: tree, dev: dev}, nil
}

// Root returns the commitment: the Merkle tree's root.
func (s *ProverState) Root() Hash { return s.tree.Root() }

// Tree returns the Merkle tree of the leaves, gnark-crypto's type (its
// last level the leaves).
func (s *ProverState) Tree() *gvortex.MerkleTree { return s.tree }

// Release frees the state's device memory; the state's openings fail
// after.
func (s *ProverState) Release() {
	if s.dev != nil {
		s.dev.release()
		s.dev = nil
	}
	s.cpu = nil
}

// resident is a commitment's buffers on the device: the codewords in
// column tiles (tile t holds columns [tW, (t+1)W) of every row, row-major,
// W elements a row) and the SIS digests by tile.
type resident struct {
	ctx      *wgpu.Context
	rows, w  int
	tiles    []*wgpu.Buffer
	digests  []*wgpu.Buffer
	copyKern *wgpu.Kernel
}

func (r *resident) release() {
	for _, b := range r.tiles {
		b.Release()
	}
	for _, b := range r.digests {
		b.Release()
	}
	r.tiles, r.digests = nil, nil
}

// bindLimit is the most bytes one binding (and one buffer) takes on ctx.
func bindLimit(ctx *wgpu.Context) uint64 {
	lim := ctx.Limits()
	return min(lim.MaxStorageBindingSize, lim.MaxBufferSize)
}

// layout is how a commitment is cut to fit the device's bindings.
type layout struct {
	// w is a tile's width in columns, tiles their count.
	w, tiles int
	// piece is the rows encoded at once.
	piece int
}

// planLayout returns the tiles and pieces of rows × m codewords (and
// their digests of d elements a column) within bindings of limit bytes:
// the widest power-of-two tiles whose codewords and digests fit one
// binding each, and pieces of as many rows (a power of two) as a binding
// of whole codewords holds.
func planLayout(rows, m, d int, limit uint64) (layout, error) {
	w := m
	for w > 1 && (uint64(rows)*uint64(w)*4 > limit || uint64(w)*uint64(d)*4 > limit) {
		w /= 2
	}
	if uint64(rows)*uint64(w)*4 > limit || uint64(w)*uint64(d)*4 > limit || uint64(rows)*uint64(w) >= 1<<32 {
		return layout{}, fmt.Errorf("vortex: a column of %d rows does not fit the device's binding of %d bytes", rows, limit)
	}
	l := layout{w: w, tiles: m / w}
	// A tile's leaves (32 bytes a column) and UAlpha (16) start at
	// 256-byte aligned offsets of their buffers.
	if l.tiles > 1 && w < 16 {
		return layout{}, fmt.Errorf("vortex: columns of %d rows: tiles of 16 columns (%d bytes) exceed the device's binding of %d bytes", rows, uint64(rows)*64, limit)
	}
	if l.tiles == 1 {
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

// copyKernel is vortex.wgsl's vortex_copy on ctx.
func copyKernel(ctx *wgpu.Context) (*wgpu.Kernel, error) {
	k, err := ctx.Kernel(wgpu.KernelSpec{
		Label: "vortex.wgsl:vortex_copy", Module: wgsl.Module{Files: []string{"vortex.wgsl"}, Consts: field.KoalaBear.Consts()},
		Entry: "vortex_copy", Storage: 2, Uniform: true, ReadOnly: []bool{true, false},
	})
	if err != nil {
		return nil, fmt.Errorf("vortex: %w", err)
	}
	return k, nil
}

// copyDispatch is vortex_copy of rows × width words.
func copyDispatch(ctx *wgpu.Context, k *wgpu.Kernel, src, dst wgpu.Binding, rows, width, srcOff, srcStride, dstOff, dstStride int, leave bool) wgpu.Dispatch {
	l := uint32(0)
	if leave {
		l = 1
	}
	return wgpu.Dispatch{Kernel: k, Bindings: []wgpu.Binding{src, dst},
		Params: []uint32{uint32(rows), uint32(width), uint32(srcOff), uint32(srcStride), uint32(dstOff), uint32(dstStride), l},
		Groups: ctx.Grid(uint64(rows)*uint64(width), 256)}
}

// words views gnark-crypto's elements as their Montgomery forms.
func words(v []koalabear.Element) []uint32 {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&v[0])), len(v))
}

// commitGPU is Commit on ctx: each piece of rows uploaded and encoded,
// its codewords copied into the column tiles (or encoded into the only
// tile), each tile's columns hashed with SIS, the digests into leaves,
// the leaves into the tree level by level, and the tree read back.
func commitGPU(ctx *wgpu.Context, p *Params, rows [][]koalabear.Element, flat []koalabear.Element, opts Options) (_ *resident, _ *gvortex.MerkleTree, err error) {
	var st Stages
	R, n, m, d := len(rows), p.NumColumns(), p.SizeCodeWord(), p.Degree()
	limit := bindLimit(ctx)
	l, err := planLayout(R, m, d, limit)
	if err != nil {
		return nil, nil, err
	}
	if uint64(m)*32 > ctx.Limits().MaxBufferSize {
		return nil, nil, fmt.Errorf("vortex: the tree's %d leaves exceed the device's buffer of %d bytes", m, ctx.Limits().MaxBufferSize)
	}
	ck, err := copyKernel(ctx)
	if err != nil {
		return nil, nil, err
	}
	res := &resident{ctx: ctx, rows: R, w: l.w, copyKern: ck}
	defer func() {
		if err != nil {
			res.release()
		}
	}()
	newBuf := func(label string, size uint64) (*wgpu.Buffer, error) {
		b, err := ctx.NewBuffer(label, size)
		if err != nil {
			return nil, fmt.Errorf("vortex: %w", err)
		}
		return b, nil
	}
	for range l.tiles {
		t, err := newBuf("vortex codewords", uint64(R)*uint64(l.w)*4)
		if err != nil {
			return nil, nil, err
		}
		res.tiles = append(res.tiles, t)
	}

	// Encode.
	start := time.Now()
	ext, err := ntt.NewExtender(ctx, field.KoalaBear, p.logN, ntt.ExtendOptions{Rate: p.Rate()})
	if err != nil {
		return nil, nil, fmt.Errorf("vortex: %w", err)
	}
	defer ext.Release()
	// Two input buffers where there are several pieces: the next piece
	// goes up while the kernels encode the last. The kernels of one piece
	// run at a time (they share the Extender's scratch).
	var ins [2]*wgpu.Buffer
	for i := range min(2, (R+l.piece-1)/l.piece) {
		if ins[i], err = newBuf("vortex rows", uint64(l.piece)*uint64(n)*4); err != nil {
			return nil, nil, err
		}
		defer ins[i].Release()
	}
	var scratch *wgpu.Buffer
	if l.tiles > 1 {
		if scratch, err = newBuf("vortex codewords piece", uint64(l.piece)*uint64(m)*4); err != nil {
			return nil, nil, err
		}
		defer scratch.Release()
	}
	upload := func(in *wgpu.Buffer, r0, nr int) error {
		if flat != nil {
			// Rows one after another in the caller's slice go up in one
			// transfer.
			return ctx.Upload(in, 0, wgpu.Bytes(flat[r0*n:(r0+nr)*n]))
		}
		for i := range nr {
			if err := ctx.Upload(in, uint64(i)*uint64(n)*4, wgpu.Bytes(rows[r0+i])); err != nil {
				return err
			}
		}
		return nil
	}
	if err := upload(ins[0], 0, min(l.piece, R)); err != nil {
		return nil, nil, fmt.Errorf("vortex: upload rows: %w", err)
	}
	var enc wgpu.Timing
	for k, r0 := 0, 0; r0 < R; k, r0 = k+1, r0+l.piece {
		nr := min(l.piece, R-r0)
		if opts.Stages != nil {
			// The kernels' timing leaves the upload's last copies out.
			if err := ctx.Wait(); err != nil {
				return nil, nil, fmt.Errorf("vortex: upload rows: %w", err)
			}
		}
		out := wgpu.Bind(res.tiles[0])
		if scratch != nil {
			out = wgpu.Bind(scratch)
		}
		ds, err := ext.Dispatches(wgpu.Bind(ins[k%2]), out, nr, ntt.Montgomery)
		if err != nil {
			return nil, nil, fmt.Errorf("vortex: %w", err)
		}
		if scratch != nil {
			for t, tile := range res.tiles {
				ds = append(ds, copyDispatch(ctx, ck, wgpu.Bind(scratch), wgpu.Bind(tile), nr, l.w, t*l.w, m, r0*l.w, l.w, false))
			}
		}
		pend, err := ctx.Submit(ds...)
		if err != nil {
			return nil, nil, fmt.Errorf("vortex: encode rows %d to %d: %w", r0, r0+nr, err)
		}
		var upErr error
		if next := r0 + l.piece; next < R {
			upErr = upload(ins[(k+1)%2], next, min(l.piece, R-next))
		}
		tm, err := pend.Wait()
		if err != nil {
			return nil, nil, fmt.Errorf("vortex: encode rows %d to %d: %w", r0, r0+nr, err)
		}
		if upErr != nil {
			return nil, nil, fmt.Errorf("vortex: upload rows: %w", upErr)
		}
		enc = enc.Add(tm)
	}
	st.Encode = wgpu.Timing{Kernel: enc.Kernel, Measured: enc.Measured, Wall: time.Since(start)}

	// SIS digests of every column, a tile at a time.
	rsd, err := p.key.NewResident(ctx, R)
	if err != nil {
		return nil, nil, fmt.Errorf("vortex: %w", err)
	}
	defer rsd.Release()
	var ds []wgpu.Dispatch
	for _, tile := range res.tiles {
		dg, err := newBuf("vortex sis digests", uint64(l.w)*uint64(d)*4)
		if err != nil {
			return nil, nil, err
		}
		res.digests = append(res.digests, dg)
		dsp, err := rsd.Dispatch(wgpu.Bind(tile), wgpu.Bind(dg), l.w, l.w, 1)
		if err != nil {
			return nil, nil, fmt.Errorf("vortex: %w", err)
		}
		ds = append(ds, dsp)
	}
	if st.SIS, err = ctx.Run(ds...); err != nil {
		return nil, nil, fmt.Errorf("vortex: SIS: %w", err)
	}

	// Leaves: gnark-crypto's sponge of each digest (Montgomery forms in
	// and out), then their canonical values, the tree's last level.
	depth := p.logN + p.logRate
	levels := make([]*wgpu.Buffer, depth+1)
	defer func() {
		for _, b := range levels {
			if b != nil {
				b.Release()
			}
		}
	}()
	for k := range levels {
		if levels[k], err = newBuf("vortex tree level", uint64(32)<<k); err != nil {
			return nil, nil, err
		}
	}
	leavesM, err := newBuf("vortex leaves", uint64(m)*32)
	if err != nil {
		return nil, nil, err
	}
	defer leavesM.Release()
	ds = ds[:0]
	g := poseidon2.GnarkKoalaBear
	for t, dg := range res.digests {
		dsp, err := g.SpongeMontgomeryDispatch(ctx, wgpu.Bind(dg), wgpu.Binding{Buffer: leavesM, Offset: uint64(t) * uint64(l.w) * 32, Size: uint64(l.w) * 32}, l.w, d)
		if err != nil {
			return nil, nil, fmt.Errorf("vortex: %w", err)
		}
		ds = append(ds, dsp)
	}
	ds = append(ds, pieces(limit, uint64(m)*32, func(off, size uint64) wgpu.Dispatch {
		w := int(size / 4)
		return copyDispatch(ctx, ck, wgpu.Binding{Buffer: leavesM, Offset: off, Size: size}, wgpu.Binding{Buffer: levels[depth], Offset: off, Size: size}, 1, w, 0, w, 0, w, true)
	})...)
	if st.Leaves, err = ctx.Run(ds...); err != nil {
		return nil, nil, fmt.Errorf("vortex: leaves: %w", err)
	}

	// The tree, level by level, and its read-back.
	start = time.Now()
	ds = ds[:0]
	for k := depth - 1; k >= 0; k-- {
		var failed error
		ds = append(ds, pieces(limit, uint64(64)<<k, func(off, size uint64) wgpu.Dispatch {
			dsp, err := g.MergeDispatch(ctx, wgpu.Binding{Buffer: levels[k+1], Offset: off, Size: size}, wgpu.Binding{Buffer: levels[k], Offset: off / 2, Size: size / 2}, int(size/64))
			if err != nil && failed == nil {
				failed = err
			}
			return dsp
		})...)
		if failed != nil {
			return nil, nil, fmt.Errorf("vortex: %w", failed)
		}
	}
	var tt wgpu.Timing
	if len(ds) > 0 {
		if tt, err = ctx.Run(ds...); err != nil {
			return nil, nil, fmt.Errorf("vortex: tree: %w", err)
		}
	}
	tree := &gvortex.MerkleTree{Levels: make([][]Hash, depth+1)}
	for k := range levels {
		lv := make([]Hash, 1<<k)
		w := unsafe.Slice((*uint32)(unsafe.Pointer(&lv[0])), 8<<k)
		if err := ctx.Download(wgpu.Bytes(w), levels[k], 0); err != nil {
			return nil, nil, fmt.Errorf("vortex: read the tree back: %w", err)
		}
		f := field.KoalaBear
		par.For(len(w), 1<<14, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				w[i] = f.ToMonty(w[i])
			}
		})
		tree.Levels[k] = lv
	}
	st.Tree = wgpu.Timing{Kernel: tt.Kernel, Measured: tt.Measured, Wall: time.Since(start)}
	if opts.Stages != nil {
		*opts.Stages = st
	}
	return res, tree, nil
}

// pieces returns the dispatches of a job over size bytes cut into
// bindings of at most limit bytes each, every piece a power of two of
// bytes (size is one) so that offsets stay aligned.
func pieces(limit, size uint64, dispatch func(off, size uint64) wgpu.Dispatch) []wgpu.Dispatch {
	step := size
	for step > limit {
		step /= 2
	}
	var ds []wgpu.Dispatch
	for off := uint64(0); off < size; off += step {
		ds = append(ds, dispatch(off, step))
	}
	return ds
}
