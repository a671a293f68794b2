package eigen

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Variant picks the GPU kernels for the row sums and the max of a vector,
// after the articles' three variants. WGSL has no float atomics, so no
// variant adds with atomics: "atomics" below are atomicMax on the u32 bit
// patterns of positive floats.
type Variant int

const (
	// Auto, the zero value, is the default: V2.
	Auto Variant = iota
	// V0, global atomics: one invocation per row adds its row left to
	// right; the max is one atomicMax per element on a global word.
	V0
	// V1, workgroup reduction then one atomic per group: a 64-lane slice
	// of a workgroup per row (standing in for a subgroup, so that it runs
	// on adapters without subgroups) reduces in workgroup memory; the max is a workgroup tree
	// then one atomicMax per workgroup (in the method, one per slice, as
	// each row sum is stored).
	V1
	// V2, reduction in workgroup memory: a 256-invocation workgroup per row,
	// a tree in workgroup memory; the max is a tree with no atomics (in the
	// method, whose row sums are a workgroup's each, one atomicMax per row
	// sum as it is stored).
	V2
)

// Variants lists every variant Auto can stand for, in order.
var Variants = []Variant{V0, V1, V2}

// String names the variant as ParseVariant accepts it.
func (v Variant) String() string {
	if v == Auto {
		return "auto"
	}
	if slices.Contains(Variants, v) {
		return fmt.Sprintf("v%d", int(v)-1) // V0 is 1
	}
	return fmt.Sprintf("Variant(%d)", int(v))
}

// ParseVariant reads "v0", "v1", "v2" or "auto".
func ParseVariant(s string) (Variant, error) {
	for _, v := range append([]Variant{Auto}, Variants...) {
		if v.String() == s {
			return v, nil
		}
	}
	return Auto, fmt.Errorf("eigen: unknown variant %q: accepted are v0, v1, v2, auto", s)
}

// resolve returns the variant to run: the default policy, in one place.
// V2 is the fastest on the GPUs measured (BENCHMARKS.md).
func (v Variant) resolve() (Variant, error) {
	switch {
	case v == Auto:
		return V2, nil
	case slices.Contains(Variants, v):
		return v, nil
	}
	return v, fmt.Errorf("eigen: unknown variant %d: accepted are V0, V1, V2, Auto", int(v))
}

const (
	wg          = 256
	sliceRows   = 4 // rows per workgroup in rowsum_v1
	maxItems    = 4 // elements per invocation in max_v1 and max_v2_partial
	stHistBase  = 8
	stHist      = 256
	stWords     = stHistBase + 4*stHist // then, folded, n spread pairs
	modePlain   = 0
	modeXform   = 1
	modeWeight  = 2
	modeScaled  = 3
	gateNone    = 0 // the kernels on their own: no state
	gateFlag    = 1 // the unfolded method
	gateFold    = 2 // the folded method
	stStopped   = 0
	stConverged = 1
	stUpdates   = 2
	stValue     = 3
	stSpread    = 4
	stRounds    = 5
	stSuspect   = 6
	// alignRows keeps every block's byte offset a multiple of 256, the
	// largest storage-offset alignment WebGPU allows a device to require.
	alignRows = 64
)

// module is eigen.wgsl: every kernel of the method, one binding layout.
var module = wgsl.Module{Library: shaders, Files: []string{"eigen.wgsl"}}

func kernel(ctx *wgpu.Context, entry string) (*wgpu.Kernel, error) {
	k, err := ctx.Kernel(wgpu.KernelSpec{Label: "eigen.wgsl:" + entry, Module: module, Entry: entry, Storage: 5, Uniform: true})
	if err != nil {
		return nil, fmt.Errorf("eigen: %w", err)
	}
	return k, nil
}

// block is a range of rows bound as one storage binding.
type block struct{ row0, rows int }

// rowBlocks splits n rows of n float32 into blocks that each fit one
// storage binding under lim. Blocks start at multiples of alignRows rows.
func rowBlocks(n int, lim wgpu.Limits) ([]block, error) {
	per := sched.PieceItems(lim, 4*n)
	if per >= n {
		return []block{{0, n}}, nil
	}
	per -= per % alignRows
	if per == 0 {
		return nil, fmt.Errorf("eigen: n = %d: %d rows of %d bytes do not fit the device's storage binding limit of %d bytes, and M is split only into blocks of whole rows, %d at a time",
			n, alignRows, 4*n, lim.Binding(), alignRows)
	}
	var bs []block
	for r := 0; r < n; r += per {
		bs = append(bs, block{r, min(per, n-r)})
	}
	return bs, nil
}

// Solver keeps a matrix resident on a GPU and runs the method on it. Load
// a matrix, then Solve as often as wanted: with the default (implicit)
// transform the loaded matrix is never written; with Options.Explicit each
// Solve first copies it into a working matrix. Release frees the GPU
// memory. On the CPU backend (a nil Context) the matrix is kept in host
// memory and Solve runs Reference32 on it, which Load has checked. A
// Solver is not safe for concurrent use.
type Solver struct {
	ctx     *wgpu.Context
	n       int
	opts    Options
	host    []float32 // the loaded matrix, on the CPU backend
	blocks  []block
	a, work *wgpu.Buffer
	s       [2]*wgpu.Buffer
	v, st   *wgpu.Buffer
	loaded  bool
	// roundTime is how long a round took in the last submission that did
	// not stop, guessRoundTime before: it sizes the next submission (see
	// roundsFor).
	roundTime time.Duration
	// The kernels of a round: the row sums, the stop test queued after a
	// submission's rounds, and those of the options chosen (nil when not
	// used); the unfolded method's finish and max.
	rowsum, stopTest, copyRows, transform, finish, reduceMax *wgpu.Kernel
	// validate checks a loaded matrix (see checkAndUpload).
	validate *wgpu.Kernel
}

// NewSolver allocates GPU memory for an n×n matrix, after checking opts and
// CheckSize(t, n). M is bound in blocks of whole rows when it exceeds
// the device's storage binding limit. A nil t is the CPU backend.
func NewSolver(t wgpu.Target, n int, opts Options) (_ *Solver, err error) {
	ctx, err := sched.OneDevice(t)
	if err != nil {
		return nil, fmt.Errorf("eigen: a Solver %w", err)
	}
	if opts, err = opts.withDefaults(); err != nil {
		return nil, err
	}
	if err := CheckSize(ctx, n); err != nil {
		return nil, err
	}
	s := &Solver{ctx: ctx, n: n, opts: opts, roundTime: guessRoundTime(n)}
	if ctx == nil {
		return s, nil
	}
	if s.blocks, err = rowBlocks(n, ctx.Limits()); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			s.Release()
		}
	}()
	newBuffer := func(b **wgpu.Buffer, label string, size uint64) {
		if err == nil {
			if *b, err = ctx.NewBuffer(label, size); err != nil {
				err = fmt.Errorf("eigen: %w", err)
			}
		}
	}
	compile := func(k **wgpu.Kernel, entry string) {
		if err == nil {
			*k, err = kernel(ctx, entry)
		}
	}
	newBuffer(&s.a, "eigen matrix", uint64(n)*uint64(n)*4)
	if err == nil && opts.Explicit {
		err = s.explicitBuffers()
	}
	newBuffer(&s.s[0], "eigen row sums", uint64(n)*4)
	newBuffer(&s.s[1], "eigen row sums", uint64(n)*4)
	// The vector double-buffered (see round), the state with n words of
	// spread pairs.
	newBuffer(&s.v, "eigen vector", 2*uint64(n)*4)
	newBuffer(&s.st, "eigen state", (stWords+uint64(n))*4)
	compile(&s.rowsum, "rowsum_"+opts.Variant.String())
	compile(&s.validate, "validate")
	if opts.Unfused {
		compile(&s.transform, "transform")
	}
	if opts.unfolded {
		compile(&s.finish, "finish")
		if opts.Variant != V2 {
			compile(&s.reduceMax, "max_"+opts.Variant.String())
		}
	} else {
		compile(&s.stopTest, "stop_test")
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// explicitBuffers makes what the explicit form needs beside the matrix:
// the working matrix and the kernel that copies the matrix into it.
func (s *Solver) explicitBuffers() error {
	if s.work == nil {
		w, err := s.ctx.NewBuffer("eigen working matrix", s.a.Size())
		if err != nil {
			return fmt.Errorf("eigen: %w", err)
		}
		s.work = w
	}
	if s.copyRows == nil {
		k, err := kernel(s.ctx, "copy_rows")
		if err != nil {
			return err
		}
		s.copyRows = k
	}
	return nil
}

// Release frees the Solver's GPU memory; it is safe to call more than once.
func (s *Solver) Release() {
	for _, b := range []*wgpu.Buffer{s.st, s.v, s.s[1], s.s[0], s.work, s.a} {
		b.Release()
	}
	s.host, s.loaded = nil, false
}

// Load checks m (n×n, row-major, see Check) and uploads it (on the CPU
// backend: copies it).
func (s *Solver) Load(m []float32) error { return s.load(m, true) }

// load is Load; on the CPU backend it keeps m itself unless keep asks for
// a copy (MaxEigen solves before it returns).
func (s *Solver) load(m []float32, keep bool) error {
	s.loaded = false
	if s.ctx == nil {
		if err := Check(m, s.n); err != nil {
			return err
		}
		s.host = m
		if keep {
			s.host = slices.Clone(m)
		}
		s.loaded = true
		return nil
	}
	if len(m) != s.n*s.n {
		return Check(m, s.n) // the shape, before anything is uploaded
	}
	if err := s.checkAndUpload(m); err != nil {
		return err
	}
	s.loaded = true
	return nil
}

// checkAndUpload uploads m and checks it as Check does. The GPU reads the
// matrix once (validate) and the host checks it only when the GPU flags a
// row: on NVIDIA validate is far cheaper than reading the matrix on the host,
// which takes every core as long as the upload itself
// (bench/results/HISTORY.md, "Figures moved from code comments"). A matrix
// that fails leaves the device's copy unused, and Check names what is wrong.
func (s *Solver) checkAndUpload(m []float32) error {
	if err := s.ctx.Upload(s.a, 0, wgpu.Bytes(m)); err != nil {
		return fmt.Errorf("eigen: upload matrix: %w", err)
	}
	if err := s.clearState(); err != nil {
		return err
	}
	var ds []wgpu.Dispatch
	for _, b := range s.blocks {
		ds = append(ds, wgpu.Dispatch{Kernel: s.validate,
			Bindings: []wgpu.Binding{s.blockBinding(s.a, b), wgpu.Bind(s.s[0]), wgpu.Bind(s.s[1]), wgpu.Bind(s.v), wgpu.Bind(s.st)},
			Params:   []uint32{uint32(s.n), uint32(b.row0), uint32(b.rows), 0, 0, 0, 0, 0},
			Groups:   s.ctx.Grid(uint64(b.rows)*256, 256)})
	}
	// Queued, not waited for: the read-back of the flag waits for it.
	p, err := s.ctx.Submit(ds...)
	if err != nil {
		return fmt.Errorf("eigen: validate matrix: %w", err)
	}
	state := make([]uint32, 8)
	err = s.ctx.Download(wgpu.Bytes(state), s.st, 0)
	if _, werr := p.Wait(); err == nil {
		err = werr
	}
	if err != nil {
		return fmt.Errorf("eigen: validate matrix: %w", err)
	}
	if state[stSuspect] != 0 {
		return Check(m, s.n) // nil for a row sum between 2^126 and 2^127
	}
	return nil
}

// Solve runs the method on the loaded matrix and reports its timing to
// Options.Timing.
func (s *Solver) Solve() (Result, error) {
	r, t, err := s.solve()
	s.opts.report(t)
	return r, err
}

// solve runs the method on the loaded matrix A and, where that did not
// converge or ended with a number that is not finite, on A + σI (see
// Result.Shift): on the GPU the matrix is read back, shifted on the host
// as the references shift it, uploaded in A's place for the run, and A
// uploaded again after it.
func (s *Solver) solve() (Result, wgpu.Timing, error) {
	r, t, err := s.solveForm()
	if err != nil || !needsShift(r) {
		return r, t, err
	}
	a := s.host
	if s.ctx != nil {
		a = make([]float32, s.n*s.n)
		if err := s.ctx.Download(wgpu.Bytes(a), s.a, 0); err != nil {
			return Result{}, t, fmt.Errorf("eigen: read matrix back to shift it: %w", err)
		}
	}
	sigma := shiftFor(a, s.n)
	if sigma == 0 {
		r, err := pick(r, Result{})
		return r, t, err
	}
	if err := s.place(shifted(a, s.n, sigma)); err != nil {
		return Result{}, t, err
	}
	moved, t2, err := s.solveForm()
	t = t.Add(t2)
	if perr := s.place(a); err == nil {
		err = perr
	}
	if err != nil {
		return Result{}, t, err
	}
	subs := r.Submissions + moved.Submissions
	r, err = pick(r, unshift(moved, sigma))
	r.Submissions = subs
	return r, t, err
}

// place makes m the matrix the next run solves, without a check: A + σI
// for the shifted run, A again after it.
func (s *Solver) place(m []float32) error {
	if s.ctx == nil {
		s.host = m
		return nil
	}
	if err := s.ctx.Upload(s.a, 0, wgpu.Bytes(m)); err != nil {
		return fmt.Errorf("eigen: upload matrix: %w", err)
	}
	return nil
}

// solveForm runs the method in the form the options choose. The implicit form
// divides by the eigenvector's components, which float32 cannot hold
// when the matrix's entries span more than its range (a row of 4e37 and
// the rest 1e-30: components of 2.5e-68, flushed to 0); its row sums then
// are not finite, or unconverged from such components, and the explicit
// form, which never divides by them, solves the matrix again: its answer
// is the CPU's.
func (s *Solver) solveForm() (Result, wgpu.Timing, error) {
	r, t, err := s.run()
	if err != nil || s.ctx == nil || s.opts.Explicit || !vectorLost(r) {
		return r, t, err
	}
	if err := s.explicitBuffers(); err != nil {
		return Result{}, t, err
	}
	s.opts.Explicit = true
	defer func() { s.opts.Explicit = false }()
	again, t2, err := s.run()
	again.Submissions += r.Submissions
	return again, t.Add(t2), err
}

// vectorLost reports whether an implicit run's result may owe to
// eigenvector components below float32's normal range (2^-126).
func vectorLost(r Result) bool {
	if math.IsNaN(r.Value) || math.IsInf(r.Value, 0) || math.IsNaN(r.Spread) || math.IsInf(r.Spread, 0) {
		return true
	}
	if r.Converged {
		return false
	}
	for _, x := range r.Vector {
		if !(x >= 0x1p-126) {
			return true
		}
	}
	return false
}

// run runs the method once on the loaded matrix.
func (s *Solver) run() (Result, wgpu.Timing, error) {
	var total wgpu.Timing
	if !s.loaded {
		return Result{}, total, fmt.Errorf("eigen: solve: no matrix loaded")
	}
	if s.ctx == nil {
		// Load checked the matrix: Reference32 without its check.
		start := time.Now()
		r := iterate[float32](s.host, s.n, s.opts)
		return r, wgpu.Timing{Wall: time.Since(start)}, nil
	}
	ones := make([]float32, s.n)
	for i := range ones {
		ones[i] = 1
	}
	if err := s.ctx.Upload(s.v, 0, wgpu.Bytes(ones)); err != nil {
		return Result{}, total, fmt.Errorf("eigen: upload vector: %w", err)
	}
	if err := s.clearState(); err != nil {
		return Result{}, total, err
	}
	res := Result{Blocks: len(s.blocks)}
	state := make([]uint32, 8)
	rounds := s.opts.MaxIter + 1
	for k0 := 0; k0 < rounds && state[stStopped] == 0; {
		k1 := min(k0+roundsFor(s.roundTime, s.opts.target, s.opts.Batch), rounds)
		var ds []wgpu.Dispatch
		for k := k0; k < k1; k++ {
			ds = s.round(ds, k)
		}
		if !s.opts.unfolded {
			// Round k1 - 1's stop test, which round k1 would make: the
			// state read back below then says whether it stopped. After
			// round MaxIter it always stops.
			ds = append(ds, wgpu.Dispatch{Kernel: s.stopTest, Bindings: s.bindings(s.blockBinding(s.a, s.blocks[0]), k1),
				Params: s.params(k1, s.blocks[0], modePlain), Groups: s.ctx.Grid(uint64(s.n), wg)})
		}
		t, err := s.ctx.Run(ds...)
		total = total.Add(t)
		res.Submissions++
		if err != nil {
			return Result{}, total, fmt.Errorf("eigen: rounds %d..%d: %w", k0, k1-1, err)
		}
		if err := s.ctx.Download(wgpu.Bytes(state), s.st, 0); err != nil {
			return Result{}, total, fmt.Errorf("eigen: read state: %w", err)
		}
		if state[stStopped] == 0 { // rounds after a stop return at once: no measure
			s.roundTime = t.Elapsed() / time.Duration(k1-k0)
		}
		k0 = k1
	}
	if state[stStopped] == 0 || state[stRounds] != state[stUpdates]+1 {
		return Result{}, total, fmt.Errorf("eigen: internal error: after %d rounds the GPU's state is %v", rounds, state)
	}
	// Folded, the vector after round k's update is round k + 1's (see
	// round).
	half := uint64(0)
	if !s.opts.unfolded {
		half = uint64(state[stUpdates]+1) % 2
	}
	v := make([]float32, s.n)
	if err := s.ctx.Download(wgpu.Bytes(v), s.v, half*uint64(s.n)*4); err != nil {
		return Result{}, total, fmt.Errorf("eigen: read vector: %w", err)
	}
	res.Value = float64(math.Float32frombits(state[stValue]))
	res.Vector = normalise(v)
	res.Iterations = int(state[stUpdates])
	res.Converged = state[stConverged] != 0
	res.Spread = float64(math.Float32frombits(state[stSpread]))
	return res, total, nil
}

// clearState zeroes the state buffer with a queued write (4 KiB, and the
// spread pairs' 4n bytes), ordered before the next submission, rather
// than a clear that waits for the queue: each wait is a round trip to the
// device.
func (s *Solver) clearState() error {
	if err := s.ctx.Upload(s.st, 0, make([]byte, s.st.Size())); err != nil {
		return fmt.Errorf("eigen: clear state: %w", err)
	}
	return nil
}

// roundsFor is how many rounds one submission holds when a round takes
// perRound: as many as fit target, at least one and at most limit. With
// the time of a Solver's rounds measured as they run (the measure includes
// a submission's fixed costs, so it errs long), this is the time bound of
// Options.Batch.
func roundsFor(perRound, target time.Duration, limit int) int {
	if perRound <= 0 {
		return 1
	}
	fit := float64(target) / float64(perRound)
	if fit >= float64(limit) {
		return limit
	}
	return max(1, int(fit))
}

// guessRoundTime is a round's time before one is measured: M read at
// 100 MB/s, below what lavapipe reads on a busy 2-core machine even at
// small n, where a round's fixed costs weigh (bench/results/HISTORY.md,
// "Figures moved from code comments"). The first submission of a small matrix
// then holds a whole Batch, that of a large one a single round.
func guessRoundTime(n int) time.Duration {
	return time.Duration(n) * time.Duration(n) * 4 * 10 * time.Nanosecond
}

func (s *Solver) blockBinding(buf *wgpu.Buffer, b block) wgpu.Binding {
	rowBytes := uint64(s.n) * 4
	return wgpu.Binding{Buffer: buf, Offset: uint64(b.row0) * rowBytes, Size: uint64(b.rows) * rowBytes}
}

// params are the kernels' parameters in round k for block b.
func (s *Solver) params(k int, b block, mode int) []uint32 {
	o := s.opts
	gate := gateFold
	if o.unfolded {
		gate = gateFlag
	}
	return []uint32{uint32(s.n), uint32(b.row0), uint32(b.rows), uint32(mode), uint32(k), uint32(o.MaxIter), math.Float32bits(float32(o.Eps)), uint32(gate)}
}

// bindings are the kernels' bindings in round k, with m bound as the
// matrix: round k reads round k - 1's row sums and writes its own.
func (s *Solver) bindings(m wgpu.Binding, k int) []wgpu.Binding {
	return []wgpu.Binding{m, wgpu.Bind(s.s[(k+1)%2]), wgpu.Bind(s.s[k%2]), wgpu.Bind(s.v), wgpu.Bind(s.st)}
}

// round appends the dispatches of round k. Folded (the default), a round
// is its row sums alone: round k's kernels make round k - 1's stop test,
// scale its vector into v_k (in the half k % 2 of the vector's buffer,
// the other half holding v_{k-1}), and fold their own sums into round k's
// max and spread. Unfolded, a single-workgroup finish kernel after the row
// sums takes the max (V0 and V1 in a kernel of their own before it),
// updates the vector in place and makes the stop test.
func (s *Solver) round(ds []wgpu.Dispatch, k int) []wgpu.Dispatch {
	n := s.n
	o := s.opts
	mat := s.a
	if o.Explicit {
		mat = s.work
	}
	if k == 0 && o.Explicit {
		for _, b := range s.blocks {
			ds = append(ds, wgpu.Dispatch{Kernel: s.copyRows, Bindings: []wgpu.Binding{s.blockBinding(s.work, b), s.blockBinding(s.a, b), wgpu.Bind(s.s[0]), wgpu.Bind(s.v), wgpu.Bind(s.st)},
				Params: s.params(k, b, modePlain), Groups: s.ctx.Grid(uint64(b.rows)*uint64(n), wg)})
		}
	}
	mode := modePlain
	switch {
	case k == 0:
	case !o.Explicit && o.unfolded:
		mode = modeWeight
	case !o.Explicit:
		mode = modeScaled
	case o.Unfused:
		for _, b := range s.blocks {
			ds = append(ds, wgpu.Dispatch{Kernel: s.transform, Bindings: s.bindings(s.blockBinding(mat, b), k),
				Params: s.params(k, b, modePlain), Groups: s.ctx.Grid(uint64(b.rows)*uint64(n), wg)})
		}
	default:
		mode = modeXform
	}
	for _, b := range s.blocks {
		ds = append(ds, wgpu.Dispatch{Kernel: s.rowsum, Bindings: s.bindings(s.blockBinding(mat, b), k),
			Params: s.params(k, b, mode), Groups: rowGroups(s.ctx, o.Variant, b.rows)})
	}
	if !o.unfolded {
		return ds
	}
	first := s.bindings(s.blockBinding(mat, s.blocks[0]), k)
	finishMode := 1
	switch o.Variant {
	case V0:
		ds = append(ds, wgpu.Dispatch{Kernel: s.reduceMax, Bindings: first, Params: s.params(k, s.blocks[0], 0), Groups: s.ctx.Grid(uint64(n), wg)})
	case V1:
		ds = append(ds, wgpu.Dispatch{Kernel: s.reduceMax, Bindings: first, Params: s.params(k, s.blocks[0], 0), Groups: s.ctx.Grid(uint64(n), wg*maxItems)})
	default:
		finishMode = 0
	}
	return append(ds, wgpu.Dispatch{Kernel: s.finish, Bindings: first, Params: s.params(k, s.blocks[0], finishMode), Groups: [3]uint32{1, 1, 1}})
}

// rowGroups is the grid of a row-sum kernel over rows rows.
func rowGroups(ctx *wgpu.Context, v Variant, rows int) [3]uint32 {
	switch v {
	case V0:
		return ctx.Grid(uint64(rows), wg)
	case V1:
		return ctx.Grid(uint64(rows), sliceRows)
	}
	return ctx.Grid(uint64(rows), 1)
}
