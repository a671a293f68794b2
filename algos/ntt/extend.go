package ntt

import (
	"fmt"
	"math/bits"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// ExtendOptions say how Extend extends a row of evaluations on <w> (n of
// them, natural order) to n·Rate evaluations of the same polynomial of
// degree below n. The zero value with Rate set is Reed-Solomon encoding
// as gnark-crypto's koalabear/vortex Params.EncodeReedSolomon makes it.
type ExtendOptions struct {
	// Rate is the blowup, a power of two from 2 to 16.
	Rate int
	// Coset evaluates on Shift·<W> instead of <W>, W of order n·Rate.
	Coset bool
	// Shift is the coset's generator, nonzero, in the form it is given in
	// (see Scalar); the zero Scalar takes gnark-crypto's
	// GeneratorFullMultiplicativeGroup() (KoalaBear 3, BabyBear 31, which
	// are also Plonky3's F::GENERATOR).
	Shift Scalar
	// Root is W, of order exactly n·Rate, given as Shift is; the zero
	// Scalar takes gnark-crypto's fft.Generator(n·Rate). The input's
	// subgroup is then <W^Rate>.
	Root Scalar
	// Out is the order of each output row: Natural (element t is the
	// evaluation at Shift·W^t), or BitReversed, Plonky3's coset_lde_batch
	// order (element t at index rev(t) of log2(n·Rate) bits): a Plonky3
	// user passes Out: BitReversed, Coset: true, Shift:
	// Value(F::GENERATOR) and Root: Value(two_adic_generator(log2(n·Rate)))
	// (canonical values: Plonky3's Montgomery words are not gnark-crypto's,
	// its constant being 2^32 too). Plonky3's matrices hold a
	// polynomial per column, this package's a polynomial per row: its
	// LDE matrix is the transpose of Extend's output.
	Out Order
	// Timing, where not nil, receives the kernels' timing (GPU only).
	Timing *wgpu.Timing
}

// MaxRate is the largest blowup Extend takes.
const MaxRate = 16

// extendRoots returns the checked rate's log, the input's root (of order
// n, for the inverse) and W, with defaults filled in.
func extendRoots(fi fieldImpl, logN int, o ExtendOptions) (rateLog int, small, big, shift uint64, err error) {
	if o.Rate < 2 || o.Rate > MaxRate || o.Rate&(o.Rate-1) != 0 {
		return 0, 0, 0, 0, fmt.Errorf("ntt: rate %d: the blowup is a power of two from 2 to %d", o.Rate, MaxRate)
	}
	rateLog = bits.TrailingZeros(uint(o.Rate))
	if logN < 1 || logN > fi.twoAdicity() {
		return 0, 0, 0, 0, fmt.Errorf("ntt: rows of 2^%d elements: %s takes 2^1 up to 2^%d (its two-adicity)", logN, fi.Name(), fi.twoAdicity())
	}
	if logN+rateLog > fi.twoAdicity() {
		return 0, 0, 0, 0, fmt.Errorf("ntt: rows of 2^%d elements at rate %d: the codewords of 2^%d elements exceed %s's 2^%d", logN, o.Rate, logN+rateLog, fi.Name(), fi.twoAdicity())
	}
	r, err := rootsOf(fi, logN+rateLog, Options{Root: o.Root, Shift: o.Shift, Coset: o.Coset})
	if err != nil {
		return 0, 0, 0, 0, err
	}
	small = fi.defaultRoot(logN)
	if !o.Root.IsZero() {
		small = fi.exp(r.w, uint64(o.Rate))
	}
	return rateLog, small, r.w, r.g, nil
}

// CheckExtend returns log2 of n, the length of a row that Extend takes at
// rate, or an error naming what is wrong: n not a power of two from 2,
// rate not one from 2 to MaxRate, or codewords longer than f's
// two-adicity allows.
func CheckExtend[E field.Element](f field.Field[E], n, rate int) (int, error) {
	fi, err := implOf(f)
	if err != nil {
		return 0, err
	}
	if n < 2 || n&(n-1) != 0 {
		return 0, fmt.Errorf("ntt: a row of %d elements: the length must be a power of two from 2 up to 2^%d", n, fi.twoAdicity())
	}
	logN := bits.TrailingZeros(uint(n))
	if _, _, _, _, err := extendRoots(fi, logN, ExtendOptions{Rate: rate}); err != nil {
		return 0, err
	}
	return logN, nil
}

// Extend extends each row of src (rows of 2^logN canonical elements of f)
// as o says into dst (o.Rate times as long): on t's GPU, or on all
// cores with gnark-crypto's fft for a nil t. An element not below p is
// refused, naming it, and dst is left unchanged.
func Extend[E field.Element](t wgpu.Target, f field.Field[E], dst, src []E, logN int, o ExtendOptions) error {
	ctx, fi, err := deviceAndField(t, f, "Extend")
	if err != nil {
		return err
	}
	if err := checkExtendArgs(fi, len(dst), len(src), logN, o); err != nil {
		return err
	}
	if err := checkElements(fi, src); err != nil {
		return err
	}
	return extend(ctx, fi, dst, src, logN, o, Canonical)
}

// ExtendMonty is Extend over BabyBear or KoalaBear on elements in
// Montgomery form, in and out, so that gnark-crypto's []koalabear.Element
// (or babybear) are passed as they are: the codewords are the elements
// gnark-crypto's fft makes, bit for bit. A word not below p (not
// reduced) is refused, naming it, and dst is left unchanged.
func ExtendMonty[E Monty](t wgpu.Target, f field.Monty31, dst, src []E, logN int, o ExtendOptions) error {
	ctx, err := sched.OneDevice(t)
	if err != nil {
		return fmt.Errorf("ntt: ExtendMonty %w", err)
	}
	fi := over[uint32]{f}
	if err := checkExtendArgs(fi, len(dst), len(src), logN, o); err != nil {
		return err
	}
	words, out := field.MontyWords(src), field.MontyWords(dst)
	if err := checkMonty(fi, words); err != nil {
		return err
	}
	return extend(ctx, fi, out, words, logN, o, Montgomery)
}

// EncodeReedSolomon is Extend at rate with the defaults: each row's
// codeword exactly as gnark-crypto's koalabear/vortex
// Params.EncodeReedSolomon makes it (rates 2, 4 and 8 there).
func EncodeReedSolomon[E field.Element](t wgpu.Target, f field.Field[E], dst, src []E, logN, rate int) error {
	return Extend(t, f, dst, src, logN, ExtendOptions{Rate: rate})
}

// EncodeReedSolomonMonty is ExtendMonty at rate with the defaults: the
// rows of src, gnark-crypto's []koalabear.Element as they are, encoded
// into dst exactly as koalabear/vortex Params.EncodeReedSolomon encodes
// each.
func EncodeReedSolomonMonty[E Monty](t wgpu.Target, f field.Monty31, dst, src []E, logN, rate int) error {
	return ExtendMonty(t, f, dst, src, logN, ExtendOptions{Rate: rate})
}

// checkExtendArgs checks Extend's arguments but the elements: the rate, the
// roots, whole rows in src (nsrc elements), and dst's length.
func checkExtendArgs(fi fieldImpl, ndst, nsrc, logN int, o ExtendOptions) error {
	if _, _, _, _, err := extendRoots(fi, logN, o); err != nil {
		return err
	}
	if _, err := rowsOf(nsrc, logN); err != nil {
		return err
	}
	if ndst != nsrc*o.Rate {
		return fmt.Errorf("ntt: extending %d elements at rate %d into %d: want %d", nsrc, o.Rate, ndst, nsrc*o.Rate)
	}
	return nil
}

// extend is Extend and ExtendMonty after their checks, on rows held in
// form.
func extend[E field.Element](ctx *wgpu.Context, fi fieldImpl, dst, src []E, logN int, o ExtendOptions, form Form) error {
	if len(src) == 0 {
		return nil
	}
	if ctx == nil {
		return extendCPU(fi, dst, src, logN, o, form)
	}
	e, err := newExtender(ctx, fi, logN, o)
	if err != nil {
		return err
	}
	defer e.Release()
	return extendHost(e, dst, src, o.Timing, form)
}

// extendCPU is Extend on a nil Context: the inverse transform into the
// first n of each output row, zeros after, then the forward transform of
// the whole row, on elements held in form.
func extendCPU[E field.Element](fi fieldImpl, dst, src []E, logN int, o ExtendOptions, form Form) error {
	rateLog, small, big, shift, err := extendRoots(fi, logN, o)
	if err != nil {
		return err
	}
	n, m := 1<<logN, o.Rate<<logN
	coef := append([]E(nil), src...)
	io := Options{Inverse: true}
	if !o.Root.IsZero() {
		io.Root = Value(small)
	}
	if err := transformCPU(fi, coef, logN, io, form); err != nil {
		return err
	}
	for r := 0; r < len(src)/n; r++ {
		row := dst[r*m : (r+1)*m]
		copy(row, coef[r*n:(r+1)*n])
		clear(row[n:])
	}
	fo := Options{Coset: o.Coset, Shift: Value(shift), Out: o.Out}
	if !o.Root.IsZero() {
		fo.Root = Value(big)
	}
	return transformCPU(fi, dst, logN+rateLog, fo, form)
}

// Extender is the resident object of Extend for one row size and rate:
// the Plans of the inverse transform and of each of the Rate cosets of
// <W^Rate> that make up Shift·<W> (element Rate·j + r of a row is the
// evaluation on coset r, Shift·W^r·<W^Rate>, at j) and two scratch
// buffers of one piece of rows, until Release.
type Extender struct {
	ctx     *wgpu.Context
	fi      fieldImpl
	logN    int
	rateLog int
	o       ExtendOptions
	inv     *Plan
	cosets  []*Plan         // by r; nil where the coset is the input itself
	shifts  []uint64        // by r: the coset's generator
	scratch [2]*wgpu.Buffer // the coefficients, and a coset's evaluations
	// spare fills the tile bindings that TileDispatches leaves unused:
	// buffers of their own, as each is bound writable.
	spare [1<<maxTilesLog - 1]*wgpu.Buffer
}

// NewExtender makes the Extender of rows of 2^logN elements of f for o
// on t's GPU (a Context or a Group of one).
func NewExtender[E field.Element](t wgpu.Target, f field.Field[E], logN int, o ExtendOptions) (*Extender, error) {
	ctx, fi, err := deviceAndField(t, f, "an Extender")
	if err != nil {
		return nil, err
	}
	return newExtender(ctx, fi, logN, o)
}

// newExtender is NewExtender on a fieldImpl.
func newExtender(ctx *wgpu.Context, fi fieldImpl, logN int, o ExtendOptions) (*Extender, error) {
	if ctx == nil {
		return nil, fmt.Errorf("ntt: an Extender needs a GPU Context: a nil Context runs Extend on the CPU")
	}
	rateLog, small, big, shift, err := extendRoots(fi, logN, o)
	if err != nil {
		return nil, err
	}
	e := &Extender{ctx: ctx, fi: fi, logN: logN, rateLog: rateLog, o: o}
	ok := false
	defer func() {
		if !ok {
			e.Release()
		}
	}()
	if e.inv, err = newPlan(ctx, fi, logN, PlanOptions{Root: Value(small)}); err != nil {
		return nil, err
	}
	g := uint64(1)
	if o.Coset {
		g = shift
	}
	e.cosets = make([]*Plan, o.Rate)
	e.shifts = make([]uint64, o.Rate)
	for r := range o.Rate {
		s := fi.mul(g, fi.exp(big, uint64(r)))
		e.shifts[r] = s
		if s == 1 && o.Out == Natural {
			continue // the input's own subgroup, in its order: the input itself
		}
		if e.cosets[r], err = newPlan(ctx, fi, logN, PlanOptions{Root: Value(small), Shift: Value(s)}); err != nil {
			return nil, err
		}
	}
	ok = true
	return e, nil
}

// Release frees the Extender's tables and scratch buffers.
func (e *Extender) Release() {
	if e == nil {
		return
	}
	e.inv.Release()
	for _, p := range e.cosets {
		p.Release()
	}
	for _, bs := range [][]*wgpu.Buffer{e.scratch[:], e.spare[:]} {
		for i, b := range bs {
			if b != nil {
				b.Release()
				bs[i] = nil
			}
		}
	}
}

// pieceRows returns how many rows one piece takes: its output within a
// storage binding and u32 indices, its scratch within a buffer, and 256-byte aligned offsets.
func (e *Extender) pieceRows() (int, error) {
	lim := e.ctx.Limits()
	eb := uint64(e.fi.elemBytes())
	outRow := eb << (e.logN + e.rateLog)
	limit := min(lim.MaxStorageBindingSize, lim.MaxBufferSize*uint64(e.o.Rate), 1<<33)
	if outRow > limit {
		return 0, fmt.Errorf("ntt: a codeword of 2^%d elements (%d bytes) exceeds the device's storage binding size of %d bytes", e.logN+e.rateLog, outRow, limit)
	}
	n := int(limit / outRow)
	if inRow := eb << e.logN; inRow < 256 {
		per := int(256 / inRow)
		if n < per {
			return 0, fmt.Errorf("ntt: rows of 2^%d elements at rate %d: the device's binding of %d bytes holds fewer than %d rows", e.logN, e.o.Rate, limit, per)
		}
		n -= n % per
	}
	return n, nil
}

// Dispatches returns the dispatches that extend rows of in (2^logN
// elements each, held in form, at a 256-byte aligned offset) into out
// (Rate times as long, the same form), in one submission; in is not
// changed. in and out are buffers of their own: WebGPU refuses a
// dispatch that reads one buffer at a binding and writes it at another.
// They use the Extender's scratch buffers, so one Extender's dispatches
// must not be in flight twice.
func (e *Extender) Dispatches(in, out wgpu.Binding, rows int, form Form) ([]wgpu.Dispatch, error) {
	return e.dispatches(in, []wgpu.Binding{out}, rows, form, inputCheck{})
}

// CheckedDispatches is Dispatches that also checks the input: the
// smallest index (its element's in in) of an element that is not
// reduced (a word from p up, in a 31-bit field's Montgomery or canonical
// form; Goldilocks's from p up) goes into word slot of check, where that
// is smaller (atomically: fill the slot with 0xffffffff before; a piece
// of rows a slot). The transform's first pass reads every element once
// and checks it there: no read of its own. check is a buffer of its own,
// like in and out.
func (e *Extender) CheckedDispatches(in, out wgpu.Binding, rows int, form Form, check wgpu.Binding, slot int) ([]wgpu.Dispatch, error) {
	c, err := e.checkSlot(rows, check, slot)
	if err != nil {
		return nil, err
	}
	return e.dispatches(in, []wgpu.Binding{out}, rows, form, c)
}

// checkSlot returns the inputCheck of slot of check, or an error where
// the slot does not lie within it or the rows' indices exceed its words.
func (e *Extender) checkSlot(rows int, check wgpu.Binding, slot int) (inputCheck, error) {
	if slot < 0 || check.Offset%256 != 0 || !check.Holds(4*uint64(slot)+4) {
		return inputCheck{}, fmt.Errorf("ntt: the check's slot %d does not lie within its binding (256-byte aligned)", slot)
	}
	if uint64(rows)<<e.logN > 1<<32 {
		return inputCheck{}, fmt.Errorf("ntt: %d rows of 2^%d elements: a check's indices are 32-bit words, up to 2^32 elements", rows, e.logN)
	}
	return inputCheck{into: check, slot: slot}, nil
}

// TileDispatches is Dispatches with each output row cut into
// len(tiles) column tiles of equal width, as a commitment holds
// codewords wider than one binding: tile t holds columns t·w to (t+1)·w
// - 1 of each row (w = Rate·2^logN / len(tiles)), row r's at r·w. Each
// tile is a buffer of its own, at a 256-byte aligned offset. The
// transform's last pass writes the tiles itself: no copy of the
// codewords. It takes 2 to MaxTiles() tiles, a power of two (none where
// MaxTiles is 0: it says where).
// Where check has a buffer, the input is checked as CheckedDispatches
// checks it (slot its word); else not.
func (e *Extender) TileDispatches(in wgpu.Binding, tiles []wgpu.Binding, rows int, form Form, check wgpu.Binding, slot int) ([]wgpu.Dispatch, error) {
	if why := e.tilesRefused(); why != "" {
		return nil, fmt.Errorf("ntt: %s", why)
	}
	if n, most := len(tiles), 1<<maxTilesLog; n < 2 || n > most || n&(n-1) != 0 {
		return nil, fmt.Errorf("ntt: %d tiles: a power of two from 2 to %d is accepted", n, most)
	}
	// WebGPU refuses a dispatch that binds a buffer writable and binds it
	// again.
	for i, t := range tiles {
		for _, u := range append([]wgpu.Binding{in, check}, tiles[:i]...) {
			if t.Buffer != nil && t.Buffer == u.Buffer {
				return nil, fmt.Errorf("ntt: tile %d's buffer is bound again (as the input, the check or another tile): each tile needs a buffer of its own", i)
			}
		}
	}
	var c inputCheck
	if check.Buffer != nil {
		var err error
		if c, err = e.checkSlot(rows, check, slot); err != nil {
			return nil, err
		}
	}
	return e.dispatches(in, tiles, rows, form, c)
}

// MaxTiles returns the most column tiles TileDispatches writes: 8, or 0
// where it writes none. It writes none where the device allows a stage
// fewer than 12 storage buffers (the tiles' kernel binds eight beside
// what a transform binds; WebGPU's default limits allow 8), where the
// output is in bit-reversed order, and where the rows' transform on this
// device ends on a pass whose top stages are not a radix-16 round (whose
// stores know their tiles: rows below 2^4, and some splits into passes).
func (e *Extender) MaxTiles() int {
	if e.tilesRefused() != "" {
		return 0
	}
	return 1 << maxTilesLog
}

// tilesRefused says why the Extender writes no tiles, or "".
func (e *Extender) tilesRefused() string {
	if most := e.ctx.Limits().MaxStorageBuffersPerStage; most < tiledStorage {
		return fmt.Sprintf("column tiles need a stage of %d storage buffers: the device allows %d", tiledStorage, most)
	}
	if e.o.Out != Natural {
		return "column tiles need natural order output"
	}
	for _, p := range e.cosets {
		if p != nil && p.topStages() < 4 {
			return fmt.Sprintf("column tiles need the transform's last pass to end on a radix-16 round: rows of 2^%d end on %d stages here", e.logN, p.topStages())
		}
	}
	return ""
}

// dispatches is TileDispatches where outs are several tiles, else
// CheckedDispatches where check names a binding, else Dispatches;
// check's base is 0, each piece's its first element.
func (e *Extender) dispatches(in wgpu.Binding, outs []wgpu.Binding, rows int, form Form, check inputCheck) ([]wgpu.Dispatch, error) {
	per, err := e.pieceRows()
	if err != nil {
		return nil, err
	}
	rowBytes := uint64(e.fi.elemBytes()) << e.logN
	tilesLog := bits.Len(uint(len(outs))) - 1
	tileRow := rowBytes * uint64(e.o.Rate) >> tilesLog
	type bound struct {
		name string
		bind wgpu.Binding
		size uint64
	}
	checks := []bound{{"input", in, rowBytes * uint64(rows)}}
	for i, b := range outs {
		name := "output"
		if tilesLog > 0 {
			name = fmt.Sprintf("tile %d's", i)
		}
		checks = append(checks, bound{name, b, tileRow * uint64(rows)})
	}
	for _, b := range checks {
		if b.bind.Offset%256 != 0 || !b.bind.Holds(b.size) {
			return nil, fmt.Errorf("ntt: %d rows of 2^%d elements at rate %d do not fit the %s binding (256-byte aligned)", rows, e.logN, e.o.Rate, b.name)
		}
	}
	if rows > per && tileRow*uint64(per)%256 != 0 {
		return nil, fmt.Errorf("ntt: pieces of %d rows start the tiles of %d bytes a row at offsets that are not 256-byte aligned", per, tileRow)
	}
	if rows == 0 {
		return nil, nil
	}
	scratchRows := min(per, rows)
	for i := range e.scratch {
		if err := e.ctx.Grow(&e.scratch[i], "ntt scratch", rowBytes*uint64(scratchRows)); err != nil {
			return nil, fmt.Errorf("ntt: %w", err)
		}
	}
	if tilesLog > 0 {
		for i := range e.spare[len(outs)-1:] {
			if err := e.ctx.Grow(&e.spare[len(outs)-1+i], "ntt unused tiles", spareBytes); err != nil {
				return nil, fmt.Errorf("ntt: %w", err)
			}
		}
	}
	var ds []wgpu.Dispatch
	for r0 := 0; r0 < rows; r0 += per {
		nr := min(per, rows-r0)
		pin := wgpu.Binding{Buffer: in.Buffer, Offset: in.Offset + rowBytes*uint64(r0), Size: rowBytes * uint64(nr)}
		out := stream{outLog: e.logN + e.rateLog - tilesLog, tilesLog: tilesLog}
		for _, b := range outs {
			out.tiles = append(out.tiles, wgpu.Binding{Buffer: b.Buffer, Offset: b.Offset + tileRow*uint64(r0), Size: tileRow * uint64(nr)})
		}
		out.dst = out.tiles[0]
		if tilesLog == 0 {
			out.tiles = nil // one output: its rows at dst
		} else {
			// The kernel binds eight tiles: the others, spares.
			for _, b := range e.spare[len(outs)-1:] {
				out.tiles = append(out.tiles, wgpu.Bind(b))
			}
		}
		check.base = r0 << e.logN
		more, err := e.piece(pin, out, nr, form, check)
		if err != nil {
			return nil, err
		}
		ds = append(ds, more...)
	}
	return ds, nil
}

// piece is Dispatches for rows that one piece holds: the coefficients
// (the inverse transform of the input, read from it, in the first
// scratch buffer, Montgomery form), then each coset's transform of them,
// whose last pass writes the coset's evaluations into their places in
// the output (out's dst or tiles, as its outLog and tilesLog say): in
// natural order, element j of coset r at Rate·j + r (with the input
// itself beside the last coset's where it is coset 0); in bit-reversed
// order, coset r's evaluations bit-reversed as the block rev(r) of the
// row. The last coset works in the coefficients' buffer, the others in
// the second scratch buffer. The inverse's first pass checks what it
// reads as check says.
func (e *Extender) piece(in wgpu.Binding, out stream, rows int, form Form, check inputCheck) ([]wgpu.Dispatch, error) {
	k := e.logN
	size := uint64(rows*e.fi.elemBytes()) << k
	coef := wgpu.Binding{Buffer: e.scratch[0], Size: size}
	work := wgpu.Binding{Buffer: e.scratch[1], Size: size}
	natural := e.o.Out == Natural
	coefOrder, evalIn, evalOut := BitReversed, BitReversed, Natural
	if !natural {
		coefOrder, evalIn, evalOut = Natural, Natural, BitReversed
	}
	ds, err := e.inv.sequence(stream{src: in, work: coef, dst: coef, outLog: k, stride: 1, enter: form == Canonical, check: check},
		rows, Options{Inverse: true, Out: coefOrder})
	if err != nil {
		return nil, err
	}
	last := 0
	for r, p := range e.cosets {
		if p != nil {
			last = r
		}
	}
	// With one coset to transform (rate 2, natural order), the inverse's
	// last pass and the coset's first run as one (Plan.fuse): the
	// coefficients stay in workgroup memory between them.
	fused := natural && e.cosets[last] != nil && e.inv.tab == e.cosets[last].tab && e.inv.cfg == e.cosets[last].cfg
	for r, p := range e.cosets {
		if p != nil && r != last {
			fused = false
		}
	}
	for r, p := range e.cosets {
		if p == nil {
			continue // the input, copied beside the last coset
		}
		s := out
		s.src, s.work, s.stride, s.off, s.leave = coef, work, e.o.Rate, r, form == Canonical
		if !natural {
			s.stride, s.off = 1, int(bits.Reverse64(uint64(r))>>(64-e.rateLog))<<k
		}
		if r == last {
			s.work = coef
			if e.cosets[0] == nil {
				s.aux, s.auxOff, s.useAux = in, 0, true
			}
		}
		more, err := p.sequence(s, rows, Options{Coset: e.shifts[r] != 1, In: evalIn, Out: evalOut})
		if err != nil {
			return nil, err
		}
		if fused {
			d, ok, err := p.fuse(e.inv, ds[len(ds)-1], more[0])
			if err != nil {
				return nil, err
			}
			if ok {
				ds[len(ds)-1], more = d, more[1:]
			}
		}
		ds = append(ds, more...)
	}
	return ds, nil
}

// extendHost extends src's rows (held in form, checked by the caller)
// into dst, in the same form, through the kernel-family layer's
// dispatcher (sched.Job: pieces of rows uploaded while the previous
// piece's kernels run), and stores the kernels' timing in t where it is
// not nil.
func extendHost[E field.Element](e *Extender, dst, src []E, t *wgpu.Timing, form Form) error {
	if _, err := e.pieceRows(); err != nil {
		return err
	}
	rowBytes := e.fi.elemBytes() << e.logN
	var failed error
	tm, err := sched.Run(e.ctx, sched.Job{
		Label:  fmt.Sprintf("ntt extend %s 2^%d rate %d", e.fi.Name(), e.logN, e.o.Rate),
		Count:  len(src) >> e.logN,
		Inputs: []sched.Input{{Data: wgpu.Bytes(src), ItemBytes: rowBytes}},
		Output: sched.Output{Data: wgpu.Bytes(dst), ItemBytes: rowBytes * e.o.Rate},
		Dispatches: func(n int, bind []wgpu.Binding) []wgpu.Dispatch {
			ds, err := e.Dispatches(bind[0], bind[1], n, form)
			if err != nil && failed == nil {
				failed = err
			}
			return ds
		},
	})
	if failed != nil {
		return failed
	}
	if err != nil {
		return fmt.Errorf("ntt: %w", err)
	}
	if t != nil {
		*t = tm
	}
	return nil
}
