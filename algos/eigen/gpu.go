package eigen

import (
	"fmt"
	"math"
	"time"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Variant picks the GPU kernels for the row sums and the max of a vector,
// after the articles' three variants. WGSL has no float atomics, so no
// variant adds with atomics: "atomics" below are atomicMax on the u32 bit
// patterns of positive floats.
type Variant int

const (
	// Auto is V2.
	Auto Variant = iota
	// V0, global atomics: one invocation per row adds its row left to
	// right; the max is one atomicMax per element on a global word.
	V0
	// V1, workgroup reduction then one atomic per group: a 64-lane slice
	// of a workgroup per row (standing in for a subgroup, which wgpu 0.17's
	// WGSL lacks) reduces in workgroup memory; the max is a workgroup tree
	// then one atomicMax per workgroup.
	V1
	// V2, reduction in workgroup memory: a 256-invocation workgroup per row,
	// a tree in workgroup memory; the max is a tree with no atomics (in the
	// method, inside the single-workgroup finish kernel).
	V2
)

// String names the variant as the CLI accepts it.
func (v Variant) String() string {
	switch v {
	case Auto:
		return "auto"
	case V0:
		return "v0"
	case V1:
		return "v1"
	case V2:
		return "v2"
	}
	return fmt.Sprintf("Variant(%d)", int(v))
}

// ParseVariant reads "v0", "v1", "v2" or "auto".
func ParseVariant(s string) (Variant, error) {
	for _, v := range []Variant{Auto, V0, V1, V2} {
		if v.String() == s {
			return v, nil
		}
	}
	return Auto, fmt.Errorf("eigen: unknown variant %q: accepted are v0, v1, v2, auto", s)
}

func (v Variant) resolve() (Variant, error) {
	switch v {
	case Auto:
		return V2, nil
	case V0, V1, V2:
		return v, nil
	}
	return v, fmt.Errorf("eigen: unknown variant %d: accepted are V0, V1, V2, Auto", int(v))
}

// GPU tuning: fields of Options that only the GPU path reads.
type GPU struct {
	// Variant picks the row-sum and max kernels.
	Variant Variant
	// Explicit transforms M in place, as the articles do, fused with the
	// next round's row sums. The default (false) never writes M: round k's
	// row sums of V⁻¹AV are Σ_c A[r][c]·v[c] / v[r], which are the same
	// numbers (D⁻¹MD composed over the rounds is V⁻¹AV, the scalars m
	// cancelling) for half the memory traffic.
	Explicit bool
	// Unfused, with Explicit, runs the transform as its own kernel before
	// the row sums, to measure what fusing saves.
	Unfused bool
	// Batch is the number of rounds encoded per submission; the host reads
	// the stop flag back once per batch, and kernels of rounds after the
	// stop return at once. Zero means DefaultBatch.
	Batch int
	// maxBinding, when nonzero, lowers the storage binding limit (tests use
	// it to exercise the split of M into row blocks).
	maxBinding uint64
}

// DefaultBatch is the default of GPU.Batch.
const DefaultBatch = 16

// Stats describe one GPU run.
type Stats struct {
	// Kernel is the GPU time of all submissions (timestamp queries);
	// Measured is false where the adapter has none (GL).
	Kernel   time.Duration
	Measured bool
	// Wall is the host time from the first submission to the last result.
	Wall time.Duration
	// Submits is the number of submissions, Rounds the rounds the GPU
	// finished (Iterations + 1).
	Submits, Rounds int
	// Blocks is the number of row blocks M was bound in.
	Blocks int
}

const (
	wg          = 256
	sliceRows   = 4 // rows per workgroup in rowsum_v1
	maxItems    = 4 // elements per invocation in max_v1 and max_v2_partial
	stHistBase  = 8
	stHist      = 256
	stWords     = stHistBase + 4*stHist
	modePlain   = 0
	modeXform   = 1
	modeWeight  = 2
	stStopped   = 0
	stConverged = 1
	stUpdates   = 2
	stValue     = 3
	stSpread    = 4
	stRounds    = 5
	// alignRows keeps every block's byte offset a multiple of 256, the
	// largest storage-offset alignment WebGPU allows a device to require.
	alignRows = 64
)

func kernel(ctx *wgpu.Context, entry string) (*wgpu.Kernel, error) {
	src, err := wgsl.Source("eigen.wgsl")
	if err != nil {
		return nil, err
	}
	k, err := ctx.Kernel(wgpu.KernelSpec{Label: "eigen.wgsl:" + entry, Source: src, Entry: entry, Storage: 5, Uniform: true})
	if err != nil {
		return nil, fmt.Errorf("eigen: %w", err)
	}
	return k, nil
}

// block is a range of rows bound as one storage binding.
type block struct{ row0, rows int }

// rowBlocks splits n rows of n float32 into blocks that each fit a storage
// binding of maxBinding bytes. Blocks start at multiples of alignRows rows.
func rowBlocks(n int, maxBinding uint64) ([]block, error) {
	rowBytes := uint64(n) * 4
	per := maxBinding / rowBytes
	if per >= uint64(n) {
		return []block{{0, n}}, nil
	}
	per -= per % alignRows
	if per == 0 {
		return nil, fmt.Errorf("eigen: n = %d: %d rows of %d bytes do not fit the device's storage binding limit of %d bytes, and M is split only into blocks of whole rows, %d at a time",
			n, alignRows, rowBytes, maxBinding, alignRows)
	}
	var bs []block
	for r := 0; r < n; r += int(per) {
		bs = append(bs, block{r, min(int(per), n-r)})
	}
	return bs, nil
}

// Solver keeps a matrix resident on the GPU and runs the method on it. Load
// a matrix, then Run as often as wanted: with the default (implicit)
// transform the loaded matrix is never written; with GPU.Explicit each Run
// first copies it into a working matrix. Release frees the GPU memory.
type Solver struct {
	ctx     *wgpu.Context
	n       int
	opts    Options
	gpu     GPU
	blocks  []block
	a, work *wgpu.Buffer
	s       [2]*wgpu.Buffer
	v, st   *wgpu.Buffer
	loaded  bool
	k       map[string]*wgpu.Kernel
}

// NewSolver allocates GPU memory for an n×n matrix. M is bound in blocks of
// whole rows when it exceeds the device's storage binding limit; a matrix
// larger than the device's largest buffer is an error naming that limit.
func NewSolver(ctx *wgpu.Context, n int, opts Options, g GPU) (_ *Solver, err error) {
	if opts, err = opts.withDefaults(); err != nil {
		return nil, err
	}
	if g.Variant, err = g.Variant.resolve(); err != nil {
		return nil, err
	}
	if g.Batch == 0 {
		g.Batch = DefaultBatch
	}
	if g.Batch < 0 {
		return nil, fmt.Errorf("eigen: batch %d: must be positive", g.Batch)
	}
	if g.Unfused && !g.Explicit {
		return nil, fmt.Errorf("eigen: unfused needs the explicit transform: the implicit one has no transform kernel to separate")
	}
	if n <= 0 {
		return nil, fmt.Errorf("%w: n = %d: the size must be at least 1", ErrInput, n)
	}
	lim := ctx.Limits()
	bytes := uint64(n) * uint64(n) * 4
	if bytes > lim.MaxBufferSize {
		return nil, fmt.Errorf("eigen: n = %d: the matrix takes %d bytes, over the device's largest buffer of %d bytes (n ≤ %d here)",
			n, bytes, lim.MaxBufferSize, int(math.Sqrt(float64(lim.MaxBufferSize/4))))
	}
	maxBinding := lim.MaxStorageBindingSize
	if g.maxBinding != 0 {
		maxBinding = min(maxBinding, g.maxBinding)
	}
	blocks, err := rowBlocks(n, maxBinding)
	if err != nil {
		return nil, err
	}
	s := &Solver{ctx: ctx, n: n, opts: opts, gpu: g, blocks: blocks, k: map[string]*wgpu.Kernel{}}
	defer func() {
		if err != nil {
			s.Release()
		}
	}()
	if s.a, err = ctx.NewBuffer("eigen matrix", bytes); err != nil {
		return nil, fmt.Errorf("eigen: %w", err)
	}
	if g.Explicit {
		if s.work, err = ctx.NewBuffer("eigen working matrix", bytes); err != nil {
			return nil, fmt.Errorf("eigen: %w", err)
		}
	}
	for i := range s.s {
		if s.s[i], err = ctx.NewBuffer("eigen row sums", uint64(n)*4); err != nil {
			return nil, fmt.Errorf("eigen: %w", err)
		}
	}
	if s.v, err = ctx.NewBuffer("eigen vector", uint64(n)*4); err != nil {
		return nil, fmt.Errorf("eigen: %w", err)
	}
	if s.st, err = ctx.NewBuffer("eigen state", stWords*4); err != nil {
		return nil, fmt.Errorf("eigen: %w", err)
	}
	for _, e := range []string{"rowsum_" + g.Variant.String(), "finish", "copy_rows", "transform", "max_v0", "max_v1"} {
		if s.k[e], err = kernel(ctx, e); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Release frees the Solver's GPU memory; it is safe to call more than once.
func (s *Solver) Release() {
	for _, b := range []*wgpu.Buffer{s.st, s.v, s.s[1], s.s[0], s.work, s.a} {
		b.Release()
	}
}

// Load checks m (n×n, row-major, every entry positive and finite) and
// uploads it.
func (s *Solver) Load(m []float32) error {
	if err := Check(m, s.n); err != nil {
		return err
	}
	if err := s.ctx.Upload(s.a, 0, wgpu.Bytes(m)); err != nil {
		return fmt.Errorf("eigen: upload matrix: %w", err)
	}
	s.loaded = true
	return nil
}

func (s *Solver) blockBinding(buf *wgpu.Buffer, b block) wgpu.Binding {
	rowBytes := uint64(s.n) * 4
	return wgpu.Binding{Buffer: buf, Offset: uint64(b.row0) * rowBytes, Size: uint64(b.rows) * rowBytes}
}

// round appends the dispatches of round k.
func (s *Solver) round(ds []wgpu.Dispatch, k int) []wgpu.Dispatch {
	n := s.n
	g := s.gpu
	sOut, sIn := s.s[k%2], s.s[(k+1)%2]
	mat := s.a
	if g.Explicit {
		mat = s.work
	}
	params := func(b block, mode int) []uint32 {
		return []uint32{uint32(n), uint32(b.row0), uint32(b.rows), uint32(mode), uint32(k), uint32(s.opts.MaxIter), math.Float32bits(float32(s.opts.Eps)), 1}
	}
	bind := func(m wgpu.Binding, in *wgpu.Buffer) []wgpu.Binding {
		return []wgpu.Binding{m, wgpu.Bind(in), wgpu.Bind(sOut), wgpu.Bind(s.v), wgpu.Bind(s.st)}
	}
	if k == 0 && g.Explicit {
		for _, b := range s.blocks {
			ds = append(ds, wgpu.Dispatch{Kernel: s.k["copy_rows"], Bindings: []wgpu.Binding{s.blockBinding(s.work, b), s.blockBinding(s.a, b), wgpu.Bind(sOut), wgpu.Bind(s.v), wgpu.Bind(s.st)},
				Params: params(b, modePlain), Groups: s.ctx.Grid(uint64(b.rows)*uint64(n), wg)})
		}
	}
	mode := modePlain
	switch {
	case k == 0:
	case !g.Explicit:
		mode = modeWeight
	case g.Unfused:
		for _, b := range s.blocks {
			ds = append(ds, wgpu.Dispatch{Kernel: s.k["transform"], Bindings: bind(s.blockBinding(mat, b), sIn),
				Params: params(b, modePlain), Groups: s.ctx.Grid(uint64(b.rows)*uint64(n), wg)})
		}
	default:
		mode = modeXform
	}
	for _, b := range s.blocks {
		ds = append(ds, wgpu.Dispatch{Kernel: s.k["rowsum_"+g.Variant.String()], Bindings: bind(s.blockBinding(mat, b), sIn),
			Params: params(b, mode), Groups: rowGroups(s.ctx, g.Variant, b.rows)})
	}
	first := s.blockBinding(mat, s.blocks[0])
	finishMode := 1
	switch g.Variant {
	case V0:
		ds = append(ds, wgpu.Dispatch{Kernel: s.k["max_v0"], Bindings: bind(first, sIn), Params: params(s.blocks[0], 0), Groups: s.ctx.Grid(uint64(n), wg)})
	case V1:
		ds = append(ds, wgpu.Dispatch{Kernel: s.k["max_v1"], Bindings: bind(first, sIn), Params: params(s.blocks[0], 0), Groups: s.ctx.Grid(uint64(n), wg*maxItems)})
	default:
		finishMode = 0
	}
	return append(ds, wgpu.Dispatch{Kernel: s.k["finish"], Bindings: bind(first, sIn), Params: params(s.blocks[0], finishMode), Groups: [3]uint32{1, 1, 1}})
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

// Run runs the method on the loaded matrix.
func (s *Solver) Run() (Result, Stats, error) {
	var stats Stats
	stats.Blocks = len(s.blocks)
	if !s.loaded {
		return Result{}, stats, fmt.Errorf("eigen: run: no matrix loaded")
	}
	ones := make([]float32, s.n)
	for i := range ones {
		ones[i] = 1
	}
	if err := s.ctx.Upload(s.v, 0, wgpu.Bytes(ones)); err != nil {
		return Result{}, stats, fmt.Errorf("eigen: upload vector: %w", err)
	}
	if err := s.ctx.Clear(s.st, 0, 0); err != nil {
		return Result{}, stats, fmt.Errorf("eigen: clear state: %w", err)
	}
	state := make([]uint32, 8)
	start := time.Now()
	rounds := s.opts.MaxIter + 1
	for k0 := 0; k0 < rounds; k0 += s.gpu.Batch {
		var ds []wgpu.Dispatch
		for k := k0; k < min(k0+s.gpu.Batch, rounds); k++ {
			ds = s.round(ds, k)
		}
		t, err := s.ctx.Run(ds...)
		if err != nil {
			return Result{}, stats, fmt.Errorf("eigen: rounds %d..%d: %w", k0, k0+s.gpu.Batch-1, err)
		}
		stats.Submits++
		stats.Kernel += t.Kernel
		stats.Measured = t.Measured
		if err := s.ctx.Download(wgpu.Bytes(state), s.st, 0); err != nil {
			return Result{}, stats, fmt.Errorf("eigen: read state: %w", err)
		}
		if state[stStopped] != 0 {
			break
		}
	}
	if state[stStopped] == 0 {
		return Result{}, stats, fmt.Errorf("eigen: internal error: %d rounds ran and the GPU never stopped", rounds)
	}
	v := make([]float32, s.n)
	if err := s.ctx.Download(wgpu.Bytes(v), s.v, 0); err != nil {
		return Result{}, stats, fmt.Errorf("eigen: read vector: %w", err)
	}
	stats.Wall = time.Since(start)
	stats.Rounds = int(state[stRounds])
	return Result{
		Value:      float64(math.Float32frombits(state[stValue])),
		Vector:     normalise(v),
		Iterations: int(state[stUpdates]),
		Converged:  state[stConverged] != 0,
		Spread:     float64(math.Float32frombits(state[stSpread])),
	}, stats, nil
}

// MaxEigen returns the dominant eigenpair of the n×n row-major positive
// matrix m, computed on ctx's GPU in float32 with the default kernels. An
// invalid matrix is an error; not converging within opts.MaxIter updates
// is not (Result.Converged is false).
func MaxEigen(ctx *wgpu.Context, m []float32, n int, opts Options) (Result, error) {
	r, _, err := MaxEigenGPU(ctx, m, n, opts, GPU{})
	return r, err
}

// MaxEigenGPU is MaxEigen with GPU tuning, returning the run's Stats.
func MaxEigenGPU(ctx *wgpu.Context, m []float32, n int, opts Options, g GPU) (Result, Stats, error) {
	if n <= 0 || len(m) != n*n {
		// Fail on the shape before allocating; Load scans the entries.
		return Result{}, Stats{}, Check(m, n)
	}
	s, err := NewSolver(ctx, n, opts, g)
	if err != nil {
		return Result{}, Stats{}, err
	}
	defer s.Release()
	if err := s.Load(m); err != nil {
		return Result{}, Stats{}, err
	}
	return s.Run()
}
