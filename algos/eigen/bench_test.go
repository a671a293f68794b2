package eigen

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"gonum.org/v1/gonum/mat"
)

// The size ladders of the articles' tables.
var (
	matrixSizes = []int{128, 256, 512, 1024, 2048, 4096, 8192}
	vectorSizes = []int{1 << 16, 1 << 17, 1 << 18, 1 << 19, 1 << 20, 1 << 21, 1 << 22, 1 << 23, 1 << 24, 1 << 25}
)

var hilbertCache = map[int][]float32{}

func hilbertOf(n int) []float32 {
	if h, ok := hilbertCache[n]; ok {
		return h
	}
	h := Hilbert(n)
	hilbertCache[n] = h
	return h
}

// reportKernel reports GPU kernel time per op (timestamp queries) beside
// the end-to-end ns/op that the benchmark measures.
func reportKernel(b *testing.B, t wgpu.Timing, bytes int64) {
	if !t.Measured {
		return
	}
	per := t.Kernel.Seconds() / float64(b.N)
	b.ReportMetric(per*1e3, "kernel-ms/op")
	if bytes > 0 {
		b.ReportMetric(float64(bytes)/per/1e9, "kernel-GB/s")
	}
}

func BenchmarkRowSums(b *testing.B) {
	ctx := gputest.Context(b, gputest.Backends()[0])
	for _, n := range matrixSizes {
		m, err := ctx.NewBuffer("matrix", uint64(n)*uint64(n)*4)
		if err != nil {
			b.Fatal(err)
		}
		if err := ctx.Upload(m, 0, wgpu.Bytes(hilbertOf(n))); err != nil {
			b.Fatal(err)
		}
		dst, err := ctx.NewBuffer("sums", uint64(n)*4)
		if err != nil {
			b.Fatal(err)
		}
		for _, v := range Variants {
			b.Run(fmt.Sprintf("%s/n=%d", v, n), func(b *testing.B) {
				var t, sum wgpu.Timing
				k, err := NewKernels(ctx, Options{Variant: v, Timing: &t})
				if err != nil {
					b.Fatal(err)
				}
				defer k.Release()
				b.SetBytes(int64(n) * int64(n) * 4)
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if err := k.RowSums(dst, m, n); err != nil {
						b.Fatal(err)
					}
					sum = sum.Add(t)
				}
				reportKernel(b, sum, int64(n)*int64(n)*4)
			})
		}
		dst.Release()
		m.Release()
	}
}

func BenchmarkMax(b *testing.B) {
	ctx := gputest.Context(b, gputest.Backends()[0])
	for _, n := range vectorSizes {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(i%1000003) + 1
		}
		want := slices.Max(x)
		buf, err := ctx.NewBuffer("vector", uint64(n)*4)
		if err != nil {
			b.Fatal(err)
		}
		if err := ctx.Upload(buf, 0, wgpu.Bytes(x)); err != nil {
			b.Fatal(err)
		}
		for _, v := range Variants {
			b.Run(fmt.Sprintf("%s/n=2^%d", v, log2(n)), func(b *testing.B) {
				var t, sum wgpu.Timing
				k, err := NewKernels(ctx, Options{Variant: v, Timing: &t})
				if err != nil {
					b.Fatal(err)
				}
				defer k.Release()
				b.SetBytes(int64(n) * 4)
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					got, err := k.Max(buf, n)
					if err != nil {
						b.Fatal(err)
					}
					if got != want {
						b.Fatalf("max = %v, want %v", got, want)
					}
					sum = sum.Add(t)
				}
				reportKernel(b, sum, int64(n)*4)
			})
		}
		buf.Release()
	}
}

func log2(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}

// methodConfigs are the whole-method variants of the benchmark table.
var methodConfigs = []struct {
	name string
	opts Options
}{
	{"v2", Options{Variant: V2}},
	{"v1", Options{Variant: V1}},
	{"v0", Options{Variant: V0}},
	{"v2-explicit", Options{Variant: V2, Explicit: true}},
	{"v2-explicit-unfused", Options{Variant: V2, Explicit: true, Unfused: true}},
	{"v2-unfolded", Options{Variant: V2, unfolded: true}},
}

// BenchmarkMaxEigenHilbert is the whole method with the matrix resident on
// the GPU: ns/op is the host's time for Solver.Solve (submissions, waits,
// the state and vector read back), kernel-ms/op the GPU's. Beside them,
// measured in the same run on the same matrix, pass-ms is one row-sum pass
// of the variant's kernel (modePlain, the median of 21) and passes/op the
// method's kernel time in such passes: what a round costs beyond reading
// M. v2-unfolded is the method with a finish kernel after each round's
// row sums, as it ran before the stop test was folded into the next round.
func BenchmarkMaxEigenHilbert(b *testing.B) {
	ctx := gputest.Context(b, gputest.Backends()[0])
	for _, n := range matrixSizes {
		for _, c := range methodConfigs {
			b.Run(fmt.Sprintf("%s/n=%d", c.name, n), func(b *testing.B) {
				benchSolver(b, ctx, n, c.opts)
			})
		}
	}
}

// BenchmarkBatch measures the rounds-per-submission trade-off: fewer
// read-backs against more early-out dispatches after the stop.
func BenchmarkBatch(b *testing.B) {
	ctx := gputest.Context(b, gputest.Backends()[0])
	for _, n := range []int{1024, 8192} {
		for _, k := range []int{1, 2, 4, 8, 16, 32} {
			b.Run(fmt.Sprintf("n=%d/K=%d", n, k), func(b *testing.B) {
				benchSolver(b, ctx, n, Options{Batch: k})
			})
		}
	}
}

func benchSolver(b *testing.B, ctx *wgpu.Context, n int, opts Options) {
	h := hilbertOf(n)
	var t, sum wgpu.Timing
	opts.Timing = &t
	s, err := NewSolver(ctx, n, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Release()
	if err := s.Load(h); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(n) * int64(n) * 4)
	b.ReportAllocs()
	b.ResetTimer()
	var r Result
	for i := 0; i < b.N; i++ {
		if r, err = s.Solve(); err != nil {
			b.Fatal(err)
		}
		sum = sum.Add(t)
	}
	b.StopTimer()
	if c, ok := hilbertCounts[n]; ok && r.Iterations != c {
		b.Fatalf("n=%d: %d iterations, published %d", n, r.Iterations, c)
	}
	reportKernel(b, sum, 0)
	if sum.Measured {
		pass := rowSumPass(b, ctx, s, opts.Variant)
		b.ReportMetric(pass.Seconds()*1e3, "pass-ms")
		b.ReportMetric(sum.Kernel.Seconds()/float64(b.N)/pass.Seconds(), "passes/op")
	}
	b.ReportMetric(float64(r.Iterations), "iterations")
	b.ReportMetric(float64(r.Submissions), "submits")
	b.ReportMetric(r.Value, "eigenvalue")
}

// rowSumPass is the median kernel time of 21 plain row-sum passes over the
// Solver's resident matrix with variant v's kernel.
func rowSumPass(b *testing.B, ctx *wgpu.Context, s *Solver, v Variant) time.Duration {
	var t wgpu.Timing
	k, err := NewKernels(ctx, Options{Variant: v, Timing: &t})
	if err != nil {
		b.Fatal(err)
	}
	defer k.Release()
	dst, err := ctx.NewBuffer("sums", uint64(s.n)*4)
	if err != nil {
		b.Fatal(err)
	}
	defer dst.Release()
	times := make([]time.Duration, 21)
	for i := range times {
		if err := k.RowSums(dst, s.a, s.n); err != nil {
			b.Fatal(err)
		}
		times[i] = t.Kernel
	}
	slices.Sort(times)
	return times[len(times)/2]
}

// BenchmarkMaxEigenEndToEnd is MaxEigen from host memory: check, allocate,
// upload, run, read back, release.
func BenchmarkMaxEigenEndToEnd(b *testing.B) {
	ctx := gputest.Context(b, gputest.Backends()[0])
	for _, n := range matrixSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			h := hilbertOf(n)
			b.SetBytes(int64(n) * int64(n) * 4)
			b.ReportAllocs()
			var t, sum wgpu.Timing
			for i := 0; i < b.N; i++ {
				if _, err := MaxEigen(ctx, h, n, Options{Timing: &t}); err != nil {
					b.Fatal(err)
				}
				sum = sum.Add(t)
			}
			reportKernel(b, sum, 0)
		})
	}
}

// BenchmarkReference64 is the float64 reference on all cores.
func BenchmarkReference64(b *testing.B) {
	for _, n := range matrixSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			h := hilbertOf(n)
			b.SetBytes(int64(n) * int64(n) * 4)
			b.ReportAllocs()
			var r Result
			for i := 0; i < b.N; i++ {
				var err error
				if r, err = Reference64(h, n, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(r.Iterations), "iterations")
			b.ReportMetric(r.Value, "eigenvalue")
		})
	}
}

// BenchmarkReference32 is the float32 reference on all cores.
func BenchmarkReference32(b *testing.B) {
	for _, n := range matrixSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			h := hilbertOf(n)
			b.SetBytes(int64(n) * int64(n) * 4)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Reference32(h, n, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGonumEigen is gonum's general eigensolver (LAPACK dgeev in Go,
// all eigenvalues, no vectors) on the same Hilbert matrices: O(n³), so small
// n only.
func BenchmarkGonumEigen(b *testing.B) {
	for _, n := range []int{128, 256, 512, 1024} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			h := hilbertOf(n)
			d := make([]float64, len(h))
			for i, x := range h {
				d[i] = float64(x)
			}
			a := mat.NewDense(n, n, d)
			b.SetBytes(int64(n) * int64(n) * 4)
			b.ReportAllocs()
			var top float64
			for i := 0; i < b.N; i++ {
				var e mat.Eigen
				if !e.Factorize(a, mat.EigenNone) {
					b.Fatal("gonum: factorisation failed")
				}
				top = 0
				for _, v := range e.Values(nil) {
					top = max(top, real(v))
				}
			}
			b.ReportMetric(top, "eigenvalue")
		})
	}
}
