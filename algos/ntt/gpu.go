package ntt

import (
	"fmt"
	"math/bits"
	"slices"
	"sync"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Form is how a buffer on the device holds its elements: field.Form,
// the one form type of every package.
type Form = field.Form

const (
	// Canonical elements are their values below p (field.Canonical).
	Canonical = field.Canonical
	// Montgomery elements are x·2^32 mod p, gnark-crypto's layout of
	// BabyBear and KoalaBear (field.Montgomery); Goldilocks elements are
	// canonical in either form.
	Montgomery = field.Montgomery
)

// PlanOptions are the roots a Plan is made for, given as Options give
// them; zero Scalars take gnark-crypto's (see Options.Root and
// Options.Shift).
type PlanOptions struct {
	Root  Scalar
	Shift Scalar
}

// Plan is the resident object of one transform size: the kernels of
// ntt.wgsl compiled for the device and the twiddle and coset tables
// for its roots, computed once on the device by a kernel when the Plan is
// made (nothing is uploaded per call), until Release.
type Plan struct {
	ctx    *wgpu.Context
	fi     fieldImpl
	logN   int
	r      roots
	tables *wgpu.Buffer
	spare  *wgpu.Buffer // the read-only bindings a dispatch leaves unused
	tab    tableLayout
	bitrev *wgpu.Kernel // rows shorter than a tile of ntt_bitrev_tiles
	tiles  *wgpu.Kernel // the bit reversal of longer rows
	cfg    config
	// fixed compiles each pass's flags into its kernel (ntt.wgsl's
	// NT_FLAGS), one module for each set of them a Plan dispatches, made
	// when first dispatched: the compiler then leaves out what the other
	// flags would run, which cost a GPU's passes time even where not run
	// (BENCHMARKS.md, "The prover's pipeline"). Off on software adapters,
	// whose compilers take seconds over each module: their passes run the
	// kernel that reads the flags from the uniform (anyFlags).
	fixed  bool
	mu     sync.Mutex
	passes map[passKind]*wgpu.Kernel // the ntt_pass kernels made so far
}

// passKind names one ntt_pass kernel: in place (its rows bound once, at
// nt_data) or not, the flags compiled in (anyFlags: none), and what it
// binds besides (io).
type passKind struct {
	inPlace bool
	flags   uint32
	io      passIO
}

// passIO is what a module binds besides the rows and tables: its loads
// checked (ntt_check.wgsl) or not, and its output whole rows
// (ntt_rows.wgsl) or 2^tilesLog column tiles (ntt_tiles.wgsl), tilesLog
// from 1 to 3.
type passIO struct {
	checked  bool
	tilesLog int
}

// The storage bindings of ntt.wgsl's kernels: nt_src, nt_data, nt_tab
// and nt_aux; then ntt_check.wgsl's nt_first where the loads are
// checked; and where the output is tiled, binding 4 (nt_first, or
// unused) and ntt_tiles.wgsl's tiles 1 to 7.
const (
	uncheckedStorage = 4
	checkedStorage   = 5
	tiledStorage     = 12
	// maxTilesLog is log2 of the most tiles a tiled pass writes.
	maxTilesLog = 3
)

// storage returns the module's storage bindings and which of them are
// read-only.
func (io passIO) storage() (int, []bool) {
	ro := []bool{true, false, true, true}
	switch {
	case io.tilesLog > 0:
		ro = append(ro, !io.checked)
		for range tiledStorage - checkedStorage {
			ro = append(ro, false)
		}
	case io.checked:
		ro = append(ro, false)
	}
	return len(ro), ro
}

// config is the tuning policy chosen from the device's limits: the
// workgroup size, and the elements one workgroup holds in its memory
// (2^tileLog) with the columns (2^colLog) a group of a pass above the
// low bits takes side by side.
type config struct {
	wg      uint32
	tileLog int
	colLog  int
	tl      int // log2 of the side of ntt_bitrev_tiles' tiles (NT_TL)
	// bare leaves the butterflies out of the passes (NT_BUTTERFLIES), each
	// round, pair and stage adding one to its elements' words instead: the
	// passes' memory schedule alone, for BenchmarkNTTSchedule. No product
	// path sets it.
	bare bool
}

// maxTileLog bounds a workgroup's elements at 2^12 (16 KiB, WebGPU's
// default workgroup storage): more leaves fewer workgroups resident per
// multiprocessor for little saving in passes.
const maxTileLog = 12

// colLog is log2 of the consecutive columns a strided group loads at the
// least: 16 words, a 64-byte run (forSize widens it where it may).
const colLog = 4

// minColLog is the narrowest run forSize takes for a smaller tile that
// saves no pass otherwise: 8 words, a 32-byte sector.
const minColLog = 3

// minWG is the smallest workgroup forSize makes a sixteenth of a smaller
// tile: below it, the tile keeps c's workgroup (a 2^16 row in tiles of
// 2^10 ran 20% slower by 64 invocations than by 256 on an H200).
const minWG = 128

// configFor returns the policy for a device of limits lim and elements
// of elemBytes bytes.
func configFor(lim wgpu.Limits, elemBytes int) config {
	wg := min(uint32(256), lim.MaxInvocationsPerWorkgroup, lim.MaxWorkgroupSizeX)
	wg = 1 << (bits.Len32(max(wg, 1)) - 1)
	tile := min(lim.MaxWorkgroupStorage/uint32(elemBytes), 1<<maxTileLog)
	tileLog := bits.Len32(max(tile, 2)) - 1
	tl := 5 // 128-byte runs
	if elemBytes == 8 {
		tl = 4
	}
	return config{wg: wg, tileLog: tileLog, colLog: min(colLog, tileLog-1), tl: tl}
}

// forSize returns c for rows of 2^k elements. For a row of fewer than
// 2^8 of c's tiles, the smallest tile, down to four elements an
// invocation of c's workgroup (one radix-4 step of ntt_pass each), that
// takes no more passes than c's, its strided runs narrowed down to 8
// words where only that saves a pass: a smaller tile makes more
// workgroups of a small transform (a 2^16 row is 16 workgroups of 2^12
// elements, too few for a large GPU, each invocation working through
// sixteen elements alone); a larger row has workgroups enough. A smaller
// tile's workgroup is a sixteenth of its elements where that is at least
// minWG, so that no invocation idles in a radix-16 round: rows of 2^19,
// the encoding's, in tiles of 2^11 by 128 invocations and runs of 8
// words, ran 6% faster than in c's tiles on an H200, and the batched
// rows of 2^18 3% (BENCHMARKS.md, "The arithmetic alone"). On a software
// adapter (the CPU behind Vulkan or WebGPU: lavapipe, Chromium's
// SwiftShader) the tile stays c's: a few cores run the workgroups, which
// more of them do not fill better, and each tile size is a module of its
// own, which such a compiler takes seconds to build (BENCHMARKS.md, "The
// browser self-test"). Then the strided passes take groups of a whole
// 128-byte line of columns (2^tl) where that costs no pass and no trip
// through workgroup memory either (2^17, not 2^19, 2^20 and 2^24, whose
// strided bits split as 8 + 4 in runs of 16 words and 6 + 6 in runs of
// 32), so that a warp's load is one line.
func (c config) forSize(k int, software bool) config {
	want := len(planPasses(k, c))
	d := c
	if k < c.tileLog+8 && !software {
		// The widest runs first; runs of 8 words only where no tile saved
		// a pass with them.
	shrink:
		for _, narrow := range []bool{false, true} {
			for t := min(c.tileLog, bits.Len32(c.wg)+1); t < c.tileLog; t++ {
				e := c
				e.tileLog, e.colLog = t, min(c.colLog, t-1)
				if narrow {
					e.colLog = min(minColLog, e.colLog)
				}
				if n := uint32(1) << max(t-4, 0); n >= minWG {
					e.wg = min(c.wg, n)
				}
				if len(planPasses(k, e)) <= want {
					d = e
					break shrink
				}
			}
		}
	}
	if e := d; c.tl > d.colLog && c.tl < d.tileLog {
		e.colLog = c.tl
		if len(planPasses(k, e)) <= want && planTrips(k, e) <= planTrips(k, d) {
			d = e
		}
	}
	return d
}

// planTrips is the trips through workgroup memory of the passes above the
// low bits in planPasses(k, c) (stridedTrips).
func planTrips(k int, c config) int {
	n := 0
	for _, ps := range planPasses(k, c) {
		if ps.lo > 0 {
			n += stridedTrips(ps.m)
		}
	}
	return n
}

// pass is one pass over device memory: the stages of bits lo..lo+m-1,
// groups of 2^c columns.
type pass struct {
	lo, m, c int
}

// planPasses splits a row of 2^k elements into passes, the top bits
// first (DIF's order; DIT runs them reversed): the low bits in one pass
// of up to 2^tileLog consecutive elements, the bits above in as few
// passes as a tile of 2^colLog columns allows, of the sizes that take the
// fewest trips through workgroup memory (stridedTrips), as equal as may
// be among those.
func planPasses(k int, c config) []pass {
	last := min(k, c.tileLog)
	rest := k - last
	per := c.tileLog - c.colLog
	np := (rest + per - 1) / per
	ms := make([]int, np)
	for i := range ms {
		ms[i] = rest / np
		if i < rest%np {
			ms[i]++
		}
	}
	best := ms
	cost := func(ms []int) int {
		n := 0
		for _, m := range ms {
			n += stridedTrips(m)
		}
		return n
	}
	// Every split into np passes of at most per bits, the larger first:
	// np and per are small (np·per < 32).
	var try func(i, left, most int)
	try = func(i, left, most int) {
		if i == np-1 {
			if left >= 1 && left <= most {
				ms[i] = left
				if cost(ms) < cost(best) {
					best = slices.Clone(ms)
				}
			}
			return
		}
		for m := min(most, left-(np-1-i)); m >= 1; m-- {
			ms[i] = m
			try(i+1, left-m, m)
		}
	}
	if np > 1 {
		best = slices.Clone(ms)
		try(0, rest, per)
	}
	var ps []pass
	top := k
	for _, m := range best {
		ps = append(ps, pass{lo: top - m, m: m, c: c.colLog})
		top -= m
	}
	return append(ps, pass{lo: 0, m: last, c: 0})
}

// passSteps is how ntt_pass runs m stages (nt_stages): m/4 radix-16
// rounds, a pair where two are left over and a stage alone where one is.
func passSteps(m int) int {
	return m/4 + m%4/2 + m%2
}

// storesItself reports whether a DIF pass's last round or pair stores its
// elements to device memory itself (NT_DIF_OUT): a strided pass (lo > 0,
// whose elements are runs of columns) ending on a round or a pair.
func (ps pass) storesItself() bool {
	return ps.lo > 0 && ps.m >= 2 && ps.m%2 == 0
}

// loadsItself reports whether a DIT pass's first round loads its elements
// from device memory itself (NT_DIT_IN): a strided pass whose stages are
// whole rounds, so that a round comes first.
func (ps pass) loadsItself() bool {
	return ps.lo > 0 && ps.m >= 4 && ps.m%4 == 0
}

// unitTwiddles reports whether the pass runs a row's lowest stages
// without the products of twiddle 1 (NT_UNIT): the low bits' pass where
// a radix-16 round (m a multiple of 4) or a lone stage (m odd) runs
// there. The flag is set on no other pass so that only the kernels that
// run it carry its second listing: compiled into every pass, a branch
// for it made the encoding's rows of 2^19 slower on an H200
// (BENCHMARKS.md). A pair on bits 1 and 0 (m = 4·r + 2) keeps its
// products.
func (ps pass) unitTwiddles() bool {
	return ps.lo == 0 && (ps.m >= 4 && ps.m%4 == 0 || ps.m%2 == 1)
}

// stridedTrips is how many times a DIF pass above the low bits, of m
// stages, writes its tile to workgroup memory: once for each step
// (passSteps) but the last where it stores itself (storesItself; else the
// tile is stored after it), and once more for its loads where no round
// reads them itself (m < 4). A pass of 4 stages, one round, never touches
// it.
func stridedTrips(m int) int {
	n := passSteps(m)
	if (pass{lo: 1, m: m}).storesItself() {
		n--
	}
	if m < 4 {
		n++
	}
	return n
}

// tableLayout places the tables in the Plan's table buffer: word offsets
// of the forward and inverse twiddles (A, B, O of each, A of 2^aLog
// entries) and of the four scales S (SA, SB, SA of 2^saLog entries): the
// coset's powers g^i for the forward transform on it, 1/n for the
// inverse, g^-i/n for the inverse on it, and g^i/n for an inverse fused
// with the forward transform on the coset (fuse).
type tableLayout struct {
	twA, twB [2]uint32 // [0] forward, [1] inverse
	twO      [2]uint32 // O of each: w^(t·2^(k-4)), t < 8, for the radix-16 rounds
	aLog     uint32
	scA, scB [4]uint32 // [0] coset, [1] inverse, [2] inverse on the coset, [3] the inverse's and the coset's at once
	saLog    uint32
	words    uint32
}

// NewPlan compiles the kernels for rows of 2^logN elements of f on t's
// GPU (a Context or a Group of one) and computes the tables for o's roots
// on the device.
func NewPlan[E field.Element](t wgpu.Target, f field.Field[E], logN int, o PlanOptions) (*Plan, error) {
	ctx, fi, err := deviceAndField(t, f, "a Plan")
	if err != nil {
		return nil, err
	}
	return newPlan(ctx, fi, logN, o)
}

// newPlan is NewPlan on a fieldImpl.
func newPlan(ctx *wgpu.Context, fi fieldImpl, logN int, o PlanOptions) (*Plan, error) {
	if ctx == nil {
		return nil, fmt.Errorf("ntt: a Plan needs a GPU Context: a nil Context runs Transform on the CPU")
	}
	r, err := rootsOf(fi, logN, Options{Root: o.Root, Shift: o.Shift, Coset: true})
	if err != nil {
		return nil, err
	}
	return newPlanWith(ctx, fi, logN, r, policy(ctx, fi, logN), fixedPasses(ctx.Info()))
}

// policy is the tuning policy of ctx's Plans for rows of 2^logN of fi.
func policy(ctx *wgpu.Context, fi fieldImpl, logN int) config {
	return configFor(ctx.Limits(), fi.elemBytes()).forSize(logN, ctx.Info().Software())
}

// fixedPasses reports whether the Plans on an adapter compile each pass's
// flags into its kernel (Plan.fixed): not on software ones. The tests
// replace it to run the fixed kernels there too.
var fixedPasses = func(a wgpu.AdapterInfo) bool { return !a.Software() }

// anyFlags is ntt.wgsl's NT_FLAGS_ANY: a kernel that reads its flags.
const anyFlags = ^uint32(0)

// newPlanWith is newPlan on roots r with the tuning policy cfg, each
// pass's flags compiled into its kernel where fixed.
func newPlanWith(ctx *wgpu.Context, fi fieldImpl, logN int, r roots, cfg config, fixed bool) (*Plan, error) {
	p := &Plan{ctx: ctx, fi: fi, logN: logN, r: r, cfg: cfg, fixed: fixed, passes: map[passKind]*wgpu.Kernel{}}
	var err error
	if !fixed {
		// The two kernels every pass runs, made with the Plan.
		for _, inPlace := range []bool{false, true} {
			if _, err = p.passKernel(inPlace, 0, passIO{}); err != nil {
				return nil, err
			}
		}
	}
	// The other entry points read no flags: the module that reads them.
	mod := p.module(false, anyFlags, passIO{})
	kernel := func(entry string) (*wgpu.Kernel, error) {
		return p.kernel(mod, entry, passIO{})
	}
	if p.bitrev, err = kernel("ntt_bitrev"); err != nil {
		return nil, err
	}
	if p.tiles, err = kernel("ntt_bitrev_tiles"); err != nil {
		return nil, err
	}
	table, err := kernel("ntt_table")
	if err != nil {
		return nil, err
	}
	if p.spare, err = ctx.NewBuffer("ntt unused bindings", spareBytes); err != nil {
		return nil, fmt.Errorf("ntt: %w", err)
	}
	if err := p.makeTables(table); err != nil {
		p.spare.Release()
		return nil, err
	}
	return p, nil
}

// module returns ntt.wgsl over the Plan's field and tile, its passes in
// place or not, with flags compiled in (anyFlags: read from NtParams),
// binding what io says.
func (p *Plan) module(inPlace bool, flags uint32, io passIO) wgsl.Module {
	return ntModule(p.fi, p.cfg, inPlace, flags, io)
}

// ntModule is ntt.wgsl over fi's file with the prelude of policy cfg,
// passes in place or not, flags compiled in (anyFlags: none), the
// check's file (ntt_check.wgsl where io.checked, else ntt_nocheck.wgsl)
// and the output's (ntt_tiles.wgsl where io.tilesLog > 0, else
// ntt_rows.wgsl).
func ntModule(fi fieldImpl, cfg config, inPlace bool, flags uint32, io passIO) wgsl.Module {
	adapter, consts := fi.module()
	check, put := "ntt_nocheck.wgsl", "ntt_rows.wgsl"
	if io.checked {
		check = "ntt_check.wgsl"
	}
	if io.tilesLog > 0 {
		put = "ntt_tiles.wgsl"
	}
	storage, _ := io.storage()
	return wgsl.Module{Library: shaders, Files: []string{adapter, check, put, "ntt.wgsl"}, Consts: append(append([]wgsl.Const(nil), consts...),
		wgsl.Const{Name: "NT_PARAMS_AT", Value: uint32(storage)},
		wgsl.Const{Name: "NT_TILES_LOG", Value: uint32(io.tilesLog)},
		wgsl.Const{Name: "NTT_TILE", Value: uint32(1) << cfg.tileLog},
		wgsl.Const{Name: "NTT_WG", Value: cfg.wg},
		wgsl.Const{Name: "NT_IN_PLACE", Value: inPlace},
		wgsl.Const{Name: "NT_FLAGS", Value: flags},
		wgsl.Const{Name: "NT_BUTTERFLIES", Value: !cfg.bare})}
}

// kernel compiles mod's entry point as a kernel of the Plan's bindings
// and those io adds (mod is then made for them).
func (p *Plan) kernel(mod wgsl.Module, entry string, io passIO) (*wgpu.Kernel, error) {
	return ntKernel(p.ctx, p.fi, mod, entry, io)
}

// ntKernel compiles mod's entry point on ctx as a kernel of ntt.wgsl's
// bindings (nt_src, nt_data, nt_tab, nt_aux, then those io adds, and
// NtParams).
func ntKernel(ctx *wgpu.Context, fi fieldImpl, mod wgsl.Module, entry string, io passIO) (*wgpu.Kernel, error) {
	file := mod.Files[len(mod.Files)-1]
	storage, readOnly := io.storage()
	k, err := ctx.Kernel(wgpu.KernelSpec{Label: file + ":" + entry + " (" + fi.Name() + ")", Module: mod, Entry: entry, Storage: storage, Uniform: true,
		ReadOnly: readOnly})
	if err != nil {
		return nil, fmt.Errorf("ntt: %w", err)
	}
	return k, nil
}

// passKernel returns the ntt_pass kernel for a pass of these flags, in
// place or not, binding what io says: where the Plan is fixed, the one
// made for the flags, else the one that reads them.
func (p *Plan) passKernel(inPlace bool, flags uint32, io passIO) (*wgpu.Kernel, error) {
	kind := passKind{inPlace, flags, io}
	if !p.fixed {
		kind.flags = anyFlags
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if k := p.passes[kind]; k != nil {
		return k, nil
	}
	k, err := p.kernel(p.module(inPlace, kind.flags, io), "ntt_pass", io)
	if err != nil {
		return nil, err
	}
	p.passes[kind] = k
	return k, nil
}

// topStages returns the stages of the pass on a row's top bits: a DIT
// transform's last, whose last radix-16 round (where it has four
// stages or more) is the only round whose stores know their column
// tiles (ntt_tiles.wgsl's nt_slot).
func (p *Plan) topStages() int {
	return planPasses(p.logN, p.cfg)[0].m
}

// isPass reports whether d is one of the Plan's ntt_pass dispatches.
func (p *Plan) isPass(d wgpu.Dispatch) bool {
	if len(d.Params) != paramWords {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, k := range p.passes {
		if d.Kernel == k {
			return true
		}
	}
	return false
}

// spareBytes is the size of a Plan's spare buffer.
const spareBytes = 256

// unused returns what a dispatch binds at a read-only binding that its
// kernel does not touch: the spare buffer, as WebGPU refuses a buffer
// that a dispatch binds writable (the rows, the tables as ntt_table
// writes them) at any other binding of it.
func (p *Plan) unused() wgpu.Binding {
	return wgpu.Bind(p.spare)
}

// passDispatch returns the ntt_pass dispatch that reads in and writes
// out, with aux (where the flags name NT_AUX) at nt_aux, and its loads
// checked into check where that is not empty (ntt_check.wgsl): the
// kernel in place where in and out are the same rows, which it binds
// once. Where out.tilesLog > 0 the pass writes out's tiles (the last
// pass of a tiled output).
func (p *Plan) passDispatch(in wgpu.Binding, out output, aux, check wgpu.Binding, flags uint32, params []uint32, groups [3]uint32) (wgpu.Dispatch, error) {
	if flags&flagAux == 0 {
		aux = p.unused()
	}
	io := passIO{checked: check.Buffer != nil, tilesLog: out.tilesLog}
	if io.tilesLog > 0 && len(out.tiles) != 1<<maxTilesLog {
		return wgpu.Dispatch{}, fmt.Errorf("ntt: internal: %d tile bindings, want %d", len(out.tiles), 1<<maxTilesLog)
	}
	inPlace := same(in, out.rows)
	k, err := p.passKernel(inPlace, flags, io)
	if err != nil {
		return wgpu.Dispatch{}, err
	}
	if inPlace {
		in = p.unused()
	}
	bind := []wgpu.Binding{in, out.rows, wgpu.Bind(p.tables), aux}
	switch {
	case io.checked:
		bind = append(bind, check)
	case io.tilesLog > 0:
		bind = append(bind, p.unused())
	}
	if io.tilesLog > 0 {
		bind = append(bind, out.tiles[1:]...)
	}
	return wgpu.Dispatch{Kernel: k, Bindings: bind, Params: params, Groups: groups}, nil
}

// input returns what the ntt_pass dispatch d reads.
func (p *Plan) input(d wgpu.Dispatch) wgpu.Binding {
	if same(d.Bindings[0], p.unused()) { // in place: the rows at nt_data
		return d.Bindings[1]
	}
	return d.Bindings[0]
}

// makeTables lays out the tables, allocates their buffer and fills it on
// the device, each table by one ntt_table dispatch.
func (p *Plan) makeTables(table *wgpu.Kernel) error {
	fi, r, k := p.fi, p.r, p.logN
	a := k / 2 // ceil((k-1)/2): the exponents of twiddles have k-1 bits
	sa := (k + 1) / 2
	t := &p.tab
	t.aLog, t.saLog = uint32(a), uint32(sa)
	type entry struct {
		base, scale uint64
		count       uint32
	}
	var list []entry
	place := func(base, scale uint64, logCount int) uint32 {
		off := t.words
		list = append(list, entry{base, scale, 1 << logCount})
		t.words += 1 << logCount
		return off
	}
	for i, w := range []uint64{r.w, r.wInv} {
		t.twA[i] = place(w, 1, a)
		t.twB[i] = place(fi.exp(w, 1<<a), 1, k-1-a)
		t.twO[i] = place(fi.exp(w, 1<<max(k-4, 0)), 1, 3)
	}
	for i, s := range [][2]uint64{{r.g, 1}, {1, r.nInv}, {r.gInv, r.nInv}, {r.g, r.nInv}} {
		t.scA[i] = place(s[0], s[1], sa)
		t.scB[i] = place(fi.exp(s[0], 1<<sa), 1, k-sa)
	}
	buf, err := p.ctx.NewBuffer("ntt tables", uint64(fi.elemBytes())*uint64(t.words))
	if err != nil {
		return fmt.Errorf("ntt: tables: %w", err)
	}
	var ds []wgpu.Dispatch
	off := uint32(0)
	for _, e := range list {
		params := make([]uint32, paramWords)
		params[7], params[1] = off, e.count // tw_a: where, units: how many
		params[17], params[18] = fi.kernel(e.base)
		params[19], params[20] = fi.kernel(e.scale)
		ds = append(ds, wgpu.Dispatch{Kernel: table, Bindings: []wgpu.Binding{p.unused(), wgpu.Bind(buf), p.unused(), p.unused()}, Params: params,
			Groups: p.ctx.Grid(uint64(e.count), p.cfg.wg)})
		off += e.count
	}
	if _, err := p.ctx.Run(ds...); err != nil {
		buf.Release()
		return fmt.Errorf("ntt: tables: %w", err)
	}
	p.tables = buf
	return nil
}

// Release frees the Plan's tables; its kernels stay cached by the
// Context.
func (p *Plan) Release() {
	if p != nil && p.spare != nil {
		p.spare.Release()
		p.spare = nil
	}
	if p != nil && p.tables != nil {
		p.tables.Release()
		p.tables = nil
	}
}

// LogN returns k, the Plan's rows being 2^k elements.
func (p *Plan) LogN() int { return p.logN }

// paramWords is the size of ntt.wgsl's NtParams in words.
const paramWords = 29

// Words of NtParams that fuse reads and writes.
const (
	paramLo        = 2
	paramCLog      = 4
	paramFlags     = 6
	paramTwA       = 7
	paramScA       = 10
	paramFuseTwA   = 21
	paramTwO       = 25
	paramFuseTwO   = 26
	paramCheckSlot = 27 // and check_base after it
)

// Flags of ntt.wgsl's NtParams.flags.
const (
	flagDIT      = 1
	flagEnter    = 2
	flagLeave    = 4
	flagScaleIn  = 8
	flagScaleOut = 16
	flagRevIn    = 32
	flagRevOut   = 64
	flagAux      = 128
	flagFuse     = 256
	flagDIFOut   = 512
	flagDITIn    = 1024
	flagUnit     = 2048
)

// pieceRows returns how many rows one binding holds: within the device's
// storage binding size and u32 indices, and a multiple of what keeps
// each piece's offset 256-byte aligned (WebGPU's largest storage offset
// alignment).
func (p *Plan) pieceRows() (int, error) {
	rowBytes := uint64(p.fi.elemBytes()) << p.logN
	limit := min(p.ctx.Limits().MaxStorageBindingSize, 1<<33)
	if rowBytes > limit {
		return 0, fmt.Errorf("ntt: a row of 2^%d elements (%d bytes) exceeds the device's storage binding size of %d bytes", p.logN, rowBytes, limit)
	}
	n := int(limit / rowBytes)
	if rowBytes < 256 {
		per := int(256 / rowBytes)
		n -= n % per
	}
	return n, nil
}

// Dispatches returns the dispatches that transform the rows in data (a
// binding at a 256-byte aligned offset, rows of 2^LogN elements held in
// form) in place as o says; o.Root and o.Shift are zero or the Plan's. Run them
// in one submission (wgpu orders them), before anything that reads the
// rows.
func (p *Plan) Dispatches(data wgpu.Binding, rows int, o Options, form Form) ([]wgpu.Dispatch, error) {
	if err := p.sameRoots(o); err != nil {
		return nil, err
	}
	if data.Offset%256 != 0 {
		return nil, fmt.Errorf("ntt: data bound at offset %d: the offset must be a multiple of 256 bytes", data.Offset)
	}
	rowBytes := uint64(p.fi.elemBytes()) << p.logN
	if rows < 0 || !data.Holds(uint64(rows)*rowBytes) {
		return nil, fmt.Errorf("ntt: %d rows of 2^%d elements do not fit the binding", rows, p.logN)
	}
	per, err := p.pieceRows()
	if err != nil {
		return nil, err
	}
	var ds []wgpu.Dispatch
	for r0 := 0; r0 < rows; r0 += per {
		nr := min(per, rows-r0)
		b := wgpu.Binding{Buffer: data.Buffer, Offset: data.Offset + uint64(r0)*rowBytes, Size: uint64(nr) * rowBytes}
		more, err := p.sequence(stream{src: b, work: b, dst: b, outLog: p.logN, stride: 1, enter: form == Canonical, leave: form == Canonical}, nr, o)
		if err != nil {
			return nil, err
		}
		ds = append(ds, more...)
	}
	return ds, nil
}

// sameRoots returns an error unless o's roots, where given, are the
// Plan's.
func (p *Plan) sameRoots(o Options) error {
	if !o.Root.IsZero() {
		w, err := o.Root.resolve(p.fi, "root")
		if err != nil {
			return err
		}
		if w != p.r.w {
			return fmt.Errorf("ntt: the options' root %s is not the Plan's (%d): make a Plan with it", o.Root, p.r.w)
		}
	}
	if o.Coset && !o.Shift.IsZero() {
		g, err := o.Shift.resolve(p.fi, "shift")
		if err != nil {
			return err
		}
		if g != p.r.g {
			return fmt.Errorf("ntt: the options' shift %s is not the Plan's (%d): make a Plan with it", o.Shift, p.r.g)
		}
	}
	return nil
}

// stream says where one transform of rows that one binding holds reads
// and writes: its first pass reads src, the passes after it work in work
// (rows of 2^k), and the last writes dst, element pos of row r at
// r·2^outLog + pos·stride + off, with aux's element beside it at
// auxOff where useAux. A bit reversal runs in place: before the passes on
// src, which must then be work, or after them on work, which must then be
// dst as it is laid out. enter and leave say whether the first pass
// reads canonical values and the last writes them; the first pass checks
// what it reads as check says.
//
// Where tilesLog > 0 the last pass writes the output row cut into
// 2^tilesLog column tiles of 2^outLog columns: tiles (dst is tiles[0]),
// as output says. It must then be a DIT pass of whole rounds on the top
// bits, the only pass whose stores know their tile.
type stream struct {
	src, work, dst, aux  wgpu.Binding
	outLog, stride, off  int
	auxOff               int
	useAux, enter, leave bool
	check                inputCheck
	tiles                []wgpu.Binding
	tilesLog             int
}

// output is where a pass writes: rows, or where tilesLog > 0 (the last
// pass of a tiled output) the output row's 2^tilesLog column tiles,
// tiles[0] (which is rows) on, with spare buffers after them up to
// 2^maxTilesLog (bound, never written: the kernel names all eight).
type output struct {
	rows     wgpu.Binding
	tiles    []wgpu.Binding
	tilesLog int
}

// inputCheck is where a pass records the input it reads that is not
// reduced (ntt_check.wgsl): the smallest index, base plus the element's
// in the rows bound, of one goes into word slot of into; none where into
// is empty.
type inputCheck struct {
	into       wgpu.Binding
	slot, base int
}

// same reports whether a and b bind the same range.
func same(a, b wgpu.Binding) bool {
	return a.Buffer == b.Buffer && a.Offset == b.Offset
}

// sequence returns the dispatches of one transform as s and o say.
func (p *Plan) sequence(s stream, rows int, o Options) ([]wgpu.Dispatch, error) {
	k := p.logN
	passes := planPasses(k, p.cfg)
	dit := o.In == BitReversed && o.Out == Natural
	before := o.In == BitReversed && !dit
	after := o.In == Natural && o.Out == Natural
	identity := s.outLog == k && s.stride == 1 && s.off == 0 && s.tilesLog == 0
	if before && !same(s.src, s.work) || after && (!same(s.dst, s.work) || !identity || s.useAux) {
		return nil, fmt.Errorf("ntt: internal: a bit reversal in place needs its rows where the passes work")
	}
	if before && s.check.into.Buffer != nil {
		return nil, fmt.Errorf("ntt: internal: a checked transform's first pass reads its input: it takes no bit reversal before")
	}
	var ds []wgpu.Dispatch
	bitrev := func(b wgpu.Binding) {
		bind := []wgpu.Binding{p.unused(), b, wgpu.Bind(p.tables), p.unused()}
		if tl := p.cfg.tl; k >= 2*tl {
			tiles := uint64(rows) << (k - 2*tl)
			ds = append(ds, wgpu.Dispatch{Kernel: p.tiles, Bindings: bind, Params: p.params(k, uint32(tiles), pass{}, 0, 0, 0, 0, stream{outLog: k, stride: 1}),
				Groups: p.ctx.Grid(tiles*uint64(p.cfg.wg), p.cfg.wg)})
			return
		}
		units := uint64(rows) << k
		ds = append(ds, wgpu.Dispatch{Kernel: p.bitrev, Bindings: bind,
			Params: p.params(k, uint32(units), pass{}, 0, 0, 0, 0, stream{outLog: k, stride: 1}), Groups: p.ctx.Grid(units, p.cfg.wg)})
	}
	if before {
		bitrev(s.src)
	}
	if dit {
		for i, j := 0, len(passes)-1; i < j; i, j = i+1, j-1 {
			passes[i], passes[j] = passes[j], passes[i]
		}
	}
	dir := 0
	if o.Inverse {
		dir = 1
	}
	for i, ps := range passes {
		flags := uint32(0)
		if dit {
			flags |= flagDIT
			if ps.loadsItself() {
				flags |= flagDITIn
			}
		} else if ps.storesItself() {
			flags |= flagDIFOut
		}
		if ps.unitTwiddles() {
			flags |= flagUnit
		}
		in, out := s.work, s.work
		layout := stream{outLog: k, stride: 1}
		var check wgpu.Binding
		if i == 0 {
			in, check = s.src, s.check.into
			layout.check = s.check
			if s.enter {
				flags |= flagEnter
			}
			if o.Coset && !o.Inverse {
				flags |= flagScaleIn
				if dit {
					flags |= flagRevIn
				}
			}
		}
		var aux wgpu.Binding
		sc := 0
		put := output{rows: out}
		if i == len(passes)-1 {
			if !after {
				out, layout = s.dst, s
				put = output{rows: s.dst, tiles: s.tiles, tilesLog: s.tilesLog}
				if s.tilesLog > 0 && (!dit || p.topStages() < 4) {
					return nil, fmt.Errorf("ntt: internal: a tiled output needs a last pass of DIT rounds on the top bits")
				}
				if s.useAux {
					flags |= flagAux
					aux = s.aux
				}
			}
			if s.leave {
				flags |= flagLeave
			}
			if o.Inverse {
				flags |= flagScaleOut
				sc = 1
				if o.Coset {
					sc = 2
				}
				if !dit {
					flags |= flagRevOut
				}
			}
		}
		units := uint64(rows) << (k - ps.m - ps.c)
		qLog := p.cfg.tileLog - ps.m - ps.c
		groups := (units + 1<<qLog - 1) >> qLog
		d, err := p.passDispatch(in, put, aux, check, flags, p.params(k, uint32(units), ps, qLog, flags, dir, sc, layout), p.ctx.Grid(groups*uint64(p.cfg.wg), p.cfg.wg))
		if err != nil {
			return nil, err
		}
		ds = append(ds, d)
	}
	if after {
		bitrev(s.work)
	}
	return ds, nil
}

// params returns NtParams' words.
func (p *Plan) params(k int, units uint32, ps pass, qLog int, flags uint32, dir, sc int, layout stream) []uint32 {
	t := p.tab
	return []uint32{uint32(k), units, uint32(ps.lo), uint32(ps.m), uint32(ps.c), uint32(qLog), flags,
		t.twA[dir], t.twB[dir], t.aLog, t.scA[sc], t.scB[sc], t.saLog,
		uint32(layout.outLog), uint32(layout.stride), uint32(layout.off), uint32(layout.auxOff), 0, 0, 0, 0, 0, 0, 0, 0, t.twO[dir], 0,
		uint32(layout.check.slot), uint32(layout.check.base)}
}

// fuse returns one ntt_pass dispatch that runs inv, the last pass of an
// inverse transform into bit-reversed order, and then next, the first
// pass of a forward DIT transform of its output, on the same tiles (the
// low bits of the same rows) in workgroup memory: inv's input and
// twiddles, its 1/n scale at the reversed position, then next's scale,
// stages and stores (ntt.wgsl's NT_FUSE). inv is q's and next p's, Plans
// of one size and root, whose tables are laid out alike; ok is false
// where the two cannot be fused.
func (p *Plan) fuse(q *Plan, inv, next wgpu.Dispatch) (d wgpu.Dispatch, ok bool, err error) {
	if !q.isPass(inv) || !p.isPass(next) || q.fixed != p.fixed || q.cfg != p.cfg {
		return d, false, nil
	}
	// next writes tiles (the transform's only pass): the two run apart,
	// as the dispatch does not say how many tiles.
	if len(next.Bindings) == tiledStorage {
		return d, false, nil
	}
	fi, fn := inv.Params[paramFlags], next.Params[paramFlags]
	// inv: DIF, nothing but entering on its loads and its scale on its
	// stores; next: DIT, whose loads are inv's stores.
	if fi&^(flagEnter|flagUnit) != flagScaleOut|flagRevOut || fn&(flagDIT|flagEnter|flagFuse) != flagDIT {
		return d, false, nil
	}
	for i := range 6 { // log_n, units, lo, m, c_log, q_log
		if inv.Params[i] != next.Params[i] {
			return d, false, nil
		}
	}
	// The low bits' pass (lo = 0, c_log = 0), as the inverse's last and
	// the DIT's first are: nt_fuse_low takes blocks of consecutive
	// elements of a row.
	if inv.Params[paramLo] != 0 || inv.Params[paramCLog] != 0 {
		return d, false, nil
	}
	if !same(inv.Bindings[1], p.input(next)) {
		return d, false, nil
	}
	params := append([]uint32(nil), next.Params...)
	params[paramFlags] |= flagFuse | fi&flagEnter
	params[paramFuseTwA], params[paramFuseTwA+1] = inv.Params[paramTwA], inv.Params[paramTwA+1]
	params[paramFuseTwA+2], params[paramFuseTwA+3] = inv.Params[paramScA], inv.Params[paramScA+1]
	// 1/n and then g^i, both at the reversed position (next is DIT, so its
	// scale's index is reversed too): one product by g^i/n instead, a
	// table of p's laid out as q's.
	if inv.Params[paramScA] == q.tab.scA[1] && fn&(flagScaleIn|flagRevIn) == flagScaleIn|flagRevIn && next.Params[paramScA] == p.tab.scA[0] {
		params[paramFlags] &^= flagScaleIn | flagRevIn
		params[paramFuseTwA+2], params[paramFuseTwA+3] = p.tab.scA[3], p.tab.scB[3]
	}
	params[paramFuseTwO] = inv.Params[paramTwO]
	// A checked inverse's loads are the fused pass's.
	var check wgpu.Binding
	if len(inv.Bindings) > uncheckedStorage {
		check = inv.Bindings[uncheckedStorage]
		copy(params[paramCheckSlot:paramCheckSlot+2], inv.Params[paramCheckSlot:paramCheckSlot+2])
	}
	d, err = p.passDispatch(q.input(inv), output{rows: next.Bindings[1]}, next.Bindings[3], check, params[paramFlags], params, next.Groups)
	return d, err == nil, err
}

// Transform transforms rows of data on the device in place, as
// Dispatches, in one submission, and returns the kernels' timing.
func (p *Plan) Transform(data wgpu.Binding, rows int, o Options, form Form) (wgpu.Timing, error) {
	ds, err := p.Dispatches(data, rows, o, form)
	if err != nil {
		return wgpu.Timing{}, err
	}
	t, err := p.ctx.Run(ds...)
	if err != nil {
		return t, fmt.Errorf("ntt: transform 2^%d: %w", p.logN, err)
	}
	return t, nil
}

// transformHost transforms data (whole rows, held in form, canonical
// ones checked by the caller) in place through the kernel-family layer's
// dispatcher (sched.Job: pieces of rows uploaded while the previous
// piece's kernels run, read back into data). o.Timing, where set,
// receives the kernels' timing.
func transformHost[E field.Element](p *Plan, data []E, o Options, form Form) error {
	if _, err := p.pieceRows(); err != nil {
		return err
	}
	bytes := wgpu.Bytes(data)
	rowBytes := p.fi.elemBytes() << p.logN
	var failed error
	t, err := sched.Run(p.ctx, sched.Job{
		Label:  fmt.Sprintf("ntt %s 2^%d", p.fi.Name(), p.logN),
		Count:  len(bytes) / rowBytes,
		Inputs: []sched.Input{{Data: bytes, ItemBytes: rowBytes}},
		Output: sched.Output{Data: bytes, ItemBytes: rowBytes},
		Dispatches: func(n int, bind []wgpu.Binding) []wgpu.Dispatch {
			ds, err := p.copyDispatches(bind[0], bind[1], n, o, form)
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
	if o.Timing != nil {
		*o.Timing = t
	}
	return nil
}

// copyDispatches are Dispatches from the rows of in (left changed) into
// out, both of rows rows at offsets the dispatcher aligns: the first pass
// reads in, the others work in out, but where the input is bit-reversed
// in place first (bit-reversed order in and out).
func (p *Plan) copyDispatches(in, out wgpu.Binding, rows int, o Options, form Form) ([]wgpu.Dispatch, error) {
	s := stream{src: in, work: out, dst: out, outLog: p.logN, stride: 1, enter: form == Canonical, leave: form == Canonical}
	if o.In == BitReversed && o.Out == BitReversed {
		s.work = in
	}
	return p.sequence(s, rows, o)
}
