package eigen

// This file keeps the names cmd/wgbench uses until it moves to the API
// above; delete it then, together with NewSolver's trailing ...GPU
// parameter and its legacyGPU call.
//
//	MaxEigenGPU(ctx, m, n, opts, GPU{...})    -> MaxEigen(ctx, m, n, opts) with the GPU fields in opts
//	NewSolver(ctx, n, opts, GPU{...})         -> NewSolver(ctx, n, opts) likewise
//	s.Run() (Result, Stats, error)            -> s.Solve() (Result, error)
//	Stats.Kernel, .Measured, .Wall            -> Options{Timing: &t}: t.Kernel, t.Measured, t.Wall (t.Elapsed())
//	Stats.Submits, .Blocks, .Rounds           -> Result.Submissions, Result.Blocks, Result.Iterations+1
//	RowSumsBuffer(ctx, dst, m, n, v)          -> NewKernels(ctx, Options{Variant: v, Timing: &t}), k.RowSums(dst, m, n)
//	MaxBuffer(ctx, x, n, v)                   -> NewKernels(...), k.Max(x, n)

import (
	"time"

	"github.com/wgcompute/wgcompute/wgpu"
)

// GPU holds the GPU fields of Options.
//
// Deprecated: set Variant, Explicit, Unfused and Batch in Options.
type GPU struct {
	Variant           Variant
	Explicit, Unfused bool
	Batch             int
}

// legacyGPU returns opts with the GPU fields of g's last element, if any.
func legacyGPU(opts Options, g []GPU) Options {
	if len(g) > 0 {
		x := g[len(g)-1]
		opts.Variant, opts.Explicit, opts.Unfused, opts.Batch = x.Variant, x.Explicit, x.Unfused, x.Batch
	}
	return opts
}

// Stats describe one GPU run.
//
// Deprecated: the timing is Options.Timing's, the counts Result's.
type Stats struct {
	Kernel          time.Duration
	Measured        bool
	Wall            time.Duration
	Submits, Rounds int
	Blocks          int
}

func stats(r Result, t wgpu.Timing) Stats {
	return Stats{Kernel: t.Kernel, Measured: t.Measured, Wall: t.Wall, Submits: r.Submissions, Rounds: r.Iterations + 1, Blocks: r.Blocks}
}

// MaxEigenGPU is MaxEigen with the GPU fields apart, returning Stats.
//
// Deprecated: use MaxEigen with the fields in Options.
func MaxEigenGPU(ctx *wgpu.Context, m []float32, n int, opts Options, g GPU) (Result, Stats, error) {
	var t wgpu.Timing
	opts = legacyGPU(opts, []GPU{g})
	opts.Timing = &t
	r, err := MaxEigen(ctx, m, n, opts)
	return r, stats(r, t), err
}

// Run is Solve, returning Stats.
//
// Deprecated: use Solve and Options.Timing.
func (s *Solver) Run() (Result, Stats, error) {
	r, t, err := s.solve()
	s.opts.report(t)
	return r, stats(r, t), err
}

// RowSumsBuffer is Kernels.RowSums with a Kernels of its own.
//
// Deprecated: use NewKernels and Kernels.RowSums.
func RowSumsBuffer(ctx *wgpu.Context, dst, m *wgpu.Buffer, n int, v Variant) (wgpu.Timing, error) {
	var t wgpu.Timing
	k, err := NewKernels(ctx, Options{Variant: v, Timing: &t})
	if err != nil {
		return t, err
	}
	defer k.Release()
	err = k.RowSums(dst, m, n)
	return t, err
}

// MaxBuffer is Kernels.Max with a Kernels of its own.
//
// Deprecated: use NewKernels and Kernels.Max.
func MaxBuffer(ctx *wgpu.Context, x *wgpu.Buffer, count int, v Variant) (float32, wgpu.Timing, error) {
	var t wgpu.Timing
	k, err := NewKernels(ctx, Options{Variant: v, Timing: &t})
	if err != nil {
		return 0, t, err
	}
	defer k.Release()
	m, err := k.Max(x, count)
	return m, t, err
}
