package bench

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/wgcompute/wgcompute/algos/eigen"
	"github.com/wgcompute/wgcompute/cmd/internal/results"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/wgpu"
	"gonum.org/v1/gonum/mat"
)

// benchEigen measures the eigen kernels and the whole method over the
// articles' ladders.
func benchEigen(ctx *wgpu.Context, cfg *benchConfig) ([]results.Table, error) {
	sizes := []int{128, 256, 512, 1024, 2048, 4096, 8192}
	vecs := []int{16, 17, 18, 19, 20, 21, 22, 23, 24, 25}
	gonumMax := 1024
	if cfg.quick {
		sizes, vecs, gonumMax = []int{128, 256, 512}, []int{16, 18, 20}, 256
	}
	rows, err := eigenRowSumsTable(ctx, cfg, sizes)
	if err != nil {
		return nil, err
	}
	maxes, err := eigenMaxTable(ctx, cfg, vecs)
	if err != nil {
		return nil, err
	}
	method, err := eigenMethodTable(ctx, cfg, sizes, gonumMax)
	if err != nil {
		return nil, err
	}
	return []results.Table{rows, maxes, method}, nil
}

// eigenRowSumsTable times the row-sum kernels on N×N Hilbert matrices.
func eigenRowSumsTable(ctx *wgpu.Context, cfg *benchConfig, sizes []int) (results.Table, error) {
	t := results.Table{Title: "Eigen: row sums of an N×N float32 matrix", Axes: results.Axes{XLabel: "N", YLabel: "fastest variant's GB/s", LogX: true},
		Columns: []string{"N", "v0 ms", "v1 ms", "v2 ms", "best GB/s", "checked"},
		Notes:   []string{"v0: one invocation per row; v1: 64 lanes per row, 4 rows per workgroup, tree in workgroup memory; v2: 256 invocations per row, tree in workgroup memory. Times: " + timeKind(ctx) + "; sums are never atomic (WGSL has no float atomics)."}}
	for _, n := range sizes {
		times, err := eigenRowSums(ctx, cfg, n)
		if err != nil {
			return t, err
		}
		addVariantRow(&t, fmt.Sprint(n), float64(n), int64(n*n)*4, times, "float64 sums within 1e-5")
	}
	return t, nil
}

// addVariantRow adds to t the row of one size of an eigen kernel: its
// name, the variants' times, the best throughput over bytes and what was
// checked; and the point (x, the best throughput).
func addVariantRow(t *results.Table, name string, x float64, bytes int64, times []time.Duration, checked string) {
	best := gbps(bytes, slices.Min(times))
	row := []string{name}
	for _, d := range times {
		row = append(row, ms(d))
	}
	t.Rows = append(t.Rows, append(row, fmt.Sprintf("%.1f", best), checked))
	t.Points = append(t.Points, results.Point{X: x, Y: best})
}

// eigenRowSums times each variant's row sums of the n×n Hilbert matrix,
// resident on the GPU, and checks them.
func eigenRowSums(ctx *wgpu.Context, cfg *benchConfig, n int) ([]time.Duration, error) {
	h := eigen.Hilbert(n)
	m, err := residentBuffer(ctx, "bench eigen matrix", wgpu.Bytes(h))
	if err != nil {
		return nil, err
	}
	defer m.Release()
	dst, err := ctx.NewBuffer("bench eigen sums", uint64(n)*4)
	if err != nil {
		return nil, err
	}
	defer dst.Release()
	return eigenKernelTimes(cfg, ctx, fmt.Sprintf("row sums n=%d", n),
		func(k *eigen.Kernels) error { return k.RowSums(dst, m, n) },
		func() error { return checkRowSums(ctx, dst, h, n) })
}

// eigenKernelTimes returns the median GPU time of run with each variant's
// Kernels, in the order of eigen.Variants, and calls check after each
// variant's runs.
func eigenKernelTimes(cfg *benchConfig, ctx *wgpu.Context, what string, run func(*eigen.Kernels) error, check func() error) ([]time.Duration, error) {
	var times []time.Duration
	for _, v := range eigen.Variants {
		cfg.step(fmt.Sprintf("eigen %s %s", what, v))
		var tm wgpu.Timing
		k, err := eigen.NewKernels(ctx, eigen.Options{Variant: v, Timing: &tm})
		if err != nil {
			return nil, err
		}
		d, err := cfg.gpuTime(&tm, func() error { return run(k) })
		k.Release()
		if err == nil {
			err = check()
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", what, v, err)
		}
		times = append(times, d)
	}
	return times, nil
}

// eigenMaxTable times the max kernels on vectors of 2^k elements.
func eigenMaxTable(ctx *wgpu.Context, cfg *benchConfig, vecs []int) (results.Table, error) {
	t := results.Table{Title: "Eigen: max of a float32 vector", Axes: results.Axes{XLabel: "elements", YLabel: "fastest variant's GB/s", LogX: true},
		Columns: []string{"elements", "v0 ms", "v1 ms", "v2 ms", "best GB/s", "checked"},
		Notes:   []string{"v0: atomicMax per element on one word; v1: tree per workgroup, one atomicMax per workgroup; v2: tree per workgroup into partials, then one workgroup, no atomics. Times: " + timeKind(ctx) + "."}}
	for _, k := range vecs {
		n := 1 << k
		times, err := eigenMax(ctx, cfg, k)
		if err != nil {
			return t, err
		}
		addVariantRow(&t, fmt.Sprintf("2^%d", k), float64(n), int64(n)*4, times, "equal to Go's max")
	}
	return t, nil
}

// eigenMax times each variant's max of 2^k elements, resident on the GPU,
// and checks it.
func eigenMax(ctx *wgpu.Context, cfg *benchConfig, k int) ([]time.Duration, error) {
	n := 1 << k
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i%1000003) + 1
	}
	want := slices.Max(x)
	buf, err := residentBuffer(ctx, "bench eigen vector", wgpu.Bytes(x))
	if err != nil {
		return nil, err
	}
	defer buf.Release()
	var got float32
	return eigenKernelTimes(cfg, ctx, fmt.Sprintf("max of 2^%d", k),
		func(kernels *eigen.Kernels) (err error) {
			got, err = kernels.Max(buf, n)
			return err
		},
		func() error {
			if got != want {
				return fmt.Errorf("max of 2^%d elements = %v, want %v", k, got, want)
			}
			return nil
		})
}

// publishedEigen are the published times of the whole method at 8192²,
// drawn across the plot of the sizes measured.
var publishedEigen = []results.Ref{
	{Label: "Xeon E5-2686 v4, 8192² (published)", Y: 4052},
	{Label: "Iris Xe MAX, 8192² (published)", Y: 2373},
	{Label: "Xeon 8358, 128 threads, 8192² (published)", Y: 126},
}

// eigenMethodTable times the whole method on N×N Hilbert matrices against
// the CPU reference and, for small N, gonum.
func eigenMethodTable(ctx *wgpu.Context, cfg *benchConfig, sizes []int, gonumMax int) (results.Table, error) {
	published := map[int]string{8192: "4052 (Xeon E5-2686 v4), 2373 (Iris Xe MAX), 126 (128-thread Xeon 8358)"}
	t := results.Table{Title: "Eigen: whole method on N×N Hilbert matrices", Axes: results.Axes{XLabel: "N", YLabel: "GPU ms", LogX: true},
		Columns: []string{"N", "iterations", "GPU ms (resident)", "wall ms (resident)", "end-to-end ms", "v0 / v1 / v2-explicit GPU ms", "published ms", "CPU ref ms (" + cli.HostCPU() + ")", "gonum Eigen ms", "eigenvalue (GPU / CPU / gonum)"},
		Notes:   []string{"Resident: the matrix already on the GPU, default kernels (v2, implicit transform, " + fmt.Sprint(eigen.DefaultBatch) + " rounds per submission); wall adds submissions and the read-backs of the stop flag and the vector. End-to-end: from host memory, input check, upload and allocation included. CPU ref: the float64 reference on all cores. gonum: mat.Eigen (all eigenvalues, no vectors), O(N³), small N only. Each size is checked against the float64 CPU reference: the same iteration count (the tests hold the reference to the published counts), the eigenvalue within 1e-4."}}
	for _, n := range sizes {
		cfg.step(fmt.Sprintf("eigen method n=%d", n))
		h := eigen.Hilbert(n)
		cpuStart := time.Now()
		ref, err := eigen.Reference64(h, n, eigen.Options{})
		if err != nil {
			return t, err
		}
		cpu := time.Since(cpuStart)
		kernel, wall, r, err := eigenResident(ctx, cfg, h, n, ref, eigen.Options{})
		if err != nil {
			return t, err
		}
		var others []string
		for _, o := range []eigen.Options{{Variant: eigen.V0}, {Variant: eigen.V1}, {Variant: eigen.V2, Explicit: true}} {
			k, _, _, err := eigenResident(ctx, cfg, h, n, ref, o)
			if err != nil {
				return t, err
			}
			others = append(others, ms(k))
		}
		e2e, err := cfg.wallTime(func() error {
			_, err := eigen.MaxEigen(ctx, h, n, eigen.Options{})
			return err
		})
		if err != nil {
			return t, err
		}
		gonumMS, gonumVal := "-", "-"
		if n <= gonumMax {
			d, top, err := gonumTop(h, n)
			if err != nil {
				return t, err
			}
			gonumMS, gonumVal = ms(d), fmt.Sprintf("%.6f", top)
		}
		pub := published[n]
		if pub == "" {
			pub = "-"
		} else {
			t.Refs = publishedEigen
		}
		t.Rows = append(t.Rows, []string{fmt.Sprint(n), fmt.Sprint(r.Iterations), ms(kernel), ms(wall), ms(e2e),
			fmt.Sprintf("%s / %s / %s", others[0], others[1], others[2]), pub, ms(cpu), gonumMS,
			fmt.Sprintf("%.6f / %.6f / %s", r.Value, ref.Value, gonumVal)})
		t.Points = append(t.Points, results.Point{X: float64(n), Y: float64(kernel) / 1e6})
	}
	return t, nil
}

// eigenResident times the method on the n×n matrix h resident on the GPU,
// with the kernels opts chooses, and checks each run against ref. It
// returns the median GPU time (or wall time, without timestamps), the
// median wall time and the last result.
func eigenResident(ctx *wgpu.Context, cfg *benchConfig, h []float32, n int, ref eigen.Result, opts eigen.Options) (kernel, wall time.Duration, r eigen.Result, err error) {
	var tm wgpu.Timing
	opts.Timing = &tm
	s, err := eigen.NewSolver(ctx, n, opts)
	if err != nil {
		return 0, 0, r, err
	}
	defer s.Release()
	if err := s.Load(h); err != nil {
		return 0, 0, r, err
	}
	// Warm the GPU up to its clocks first: a few short runs after an idle
	// spell measure the ramp, not the kernels.
	for start := time.Now(); time.Since(start) < 200*time.Millisecond; {
		if _, err := s.Solve(); err != nil {
			return 0, 0, r, err
		}
	}
	var walls []time.Duration
	kernel, err = cfg.gpuTime(&tm, func() error {
		start := time.Now()
		r, err = s.Solve()
		walls = append(walls, time.Since(start))
		if err == nil && (r.Iterations != ref.Iterations || math.Abs(r.Value-ref.Value) > 1e-4*ref.Value) {
			err = fmt.Errorf("n=%d variant %s explicit %v: GPU gives %v after %d iterations, the CPU reference %v after %d", n, opts.Variant, opts.Explicit, r.Value, r.Iterations, ref.Value, ref.Iterations)
		}
		return err
	})
	if err != nil {
		// Interrupted before the first timed run, walls may be empty.
		return 0, 0, r, err
	}
	slices.Sort(walls)
	return kernel, walls[len(walls)/2], r, nil
}

// gonumTop times gonum's eigendecomposition of the n×n matrix h and
// returns its largest real eigenvalue.
func gonumTop(h []float32, n int) (time.Duration, float64, error) {
	d := make([]float64, len(h))
	for i, x := range h {
		d[i] = float64(x)
	}
	start := time.Now()
	var e mat.Eigen
	if !e.Factorize(mat.NewDense(n, n, d), mat.EigenNone) {
		return 0, 0, fmt.Errorf("gonum eigen of Hilbert %d failed", n)
	}
	var top float64
	for _, v := range e.Values(nil) {
		top = max(top, real(v))
	}
	return time.Since(start), top, nil
}

// checkRowSums compares GPU row sums with float64 sums of h.
func checkRowSums(ctx *wgpu.Context, dst *wgpu.Buffer, h []float32, n int) error {
	got := make([]float32, n)
	if err := ctx.Download(wgpu.Bytes(got), dst, 0); err != nil {
		return err
	}
	for r := 0; r < n; r++ {
		var want float64
		for _, x := range h[r*n : r*n+n] {
			want += float64(x)
		}
		if math.Abs(float64(got[r])-want) > 1e-5*want {
			return fmt.Errorf("row sum %d of Hilbert %d: GPU %v, float64 %v", r, n, got[r], want)
		}
	}
	return nil
}
