package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/eigen"
	"github.com/wgcompute/wgcompute/wgpu"
	"gonum.org/v1/gonum/mat"
)

func init() {
	var (
		in           string
		n, hilbert   int
		random       int
		seed         uint64
		eps          float64
		maxIter      int
		asJSON       bool
		variant      string
		explicit     bool
		unfused      bool
		batch        int
		cpuReference bool
	)
	cmd := &cobra.Command{
		Use:   "eigen (--in FILE --n N | --hilbert N | --random N --seed S) [--eps E] [--max-iter K] [--json]",
		Short: "Dominant eigenvalue and eigenvector of a positive matrix",
		Long: `eigen finds the dominant eigenvalue and eigenvector of a positive N×N matrix by
iterative similarity transformation, on the GPU in float32.

The matrix is one of: FILE, raw little-endian float32 in row-major order
(--in FILE --n N); the Hilbert matrix 1/(r+c+1) (--hilbert N); uniform random
entries in (0, 1]/N from a seeded generator (--random N --seed S).

The iteration stops when every pair of cyclically adjacent row sums differs
by less than --eps (absolute), or after --max-iter updates; then it exits 1
after printing, with converged false. --cpu, or WGCOMPUTE_BACKEND=cpu, runs the
float64 CPU reference instead.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			chosen := 0
			for _, set := range []bool{in != "", hilbert != 0, random != 0} {
				if set {
					chosen++
				}
			}
			if chosen != 1 {
				return fmt.Errorf("eigen: give exactly one of --in FILE --n N, --hilbert N, --random N --seed S")
			}
			var m []float32
			size := 0
			switch {
			case in != "":
				if n == 0 {
					return fmt.Errorf("eigen: --in needs --n N, the matrix order (N ≥ 1)")
				}
				if err := checkOrder("--n", n); err != nil {
					return err
				}
				var err error
				if m, err = readMatrix(in, n); err != nil {
					return err
				}
				size = n
			case hilbert != 0:
				if err := checkOrder("--hilbert", hilbert); err != nil {
					return err
				}
				size, m = hilbert, eigen.Hilbert(hilbert)
			default:
				if err := checkOrder("--random", random); err != nil {
					return err
				}
				if !cmd.Flags().Changed("seed") {
					return fmt.Errorf("eigen: --random needs --seed S, so that the matrix can be made again")
				}
				size, m = random, eigen.Random(random, seed)
			}
			v, err := eigen.ParseVariant(variant)
			if err != nil {
				return err
			}
			opts := eigen.Options{Eps: eps, MaxIter: maxIter}
			var r eigen.Result
			start := time.Now()
			where := "CPU reference (float64, " + hostCPU() + ")"
			var stats eigen.Stats
			if cpuReference {
				r, err = eigen.Reference64(m, size, opts)
			} else {
				ctx, openErr := openContext()
				switch {
				case errors.Is(openErr, wgpu.ErrCPUBackend):
					r, err = eigen.Reference64(m, size, opts)
				case openErr != nil:
					return openErr
				default:
					defer ctx.Close()
					where = ctx.Info().Name + " (" + ctx.Info().Backend + ")"
					r, stats, err = eigen.MaxEigenGPU(ctx, m, size, opts, eigen.GPU{Variant: v, Explicit: explicit, Unfused: unfused, Batch: batch})
				}
			}
			if err != nil {
				return err
			}
			elapsed := time.Since(start)
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				if err := enc.Encode(struct {
					Eigenvalue  float64   `json:"eigenvalue"`
					Eigenvector []float64 `json:"eigenvector"`
					Iterations  int       `json:"iterations"`
					Converged   bool      `json:"converged"`
				}{r.Value, r.Vector, r.Iterations, r.Converged}); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(out, "eigenvalue  %.9g\niterations  %d\nconverged   %v (largest adjacent row-sum difference %.3g)\n", r.Value, r.Iterations, r.Converged, r.Spread)
				fmt.Fprintf(out, "on          %s, %.3f ms", where, float64(elapsed)/1e6)
				if stats.Submits > 0 {
					fmt.Fprintf(out, " including upload")
				}
				if stats.Measured {
					fmt.Fprintf(out, ", GPU %.3f ms in %d submissions", float64(stats.Kernel)/1e6, stats.Submits)
				}
				fmt.Fprintln(out)
				const show = 8
				fmt.Fprintf(out, "eigenvector (largest component 1)")
				for i, x := range r.Vector {
					if i == show && len(r.Vector) > show+1 {
						fmt.Fprintf(out, " ... (%d more; --json prints all)", len(r.Vector)-show)
						break
					}
					fmt.Fprintf(out, " %.6g", x)
				}
				fmt.Fprintln(out)
			}
			if !r.Converged {
				return exitError{1}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&in, "in", "", "matrix file: raw little-endian float32, row-major, N*N*4 bytes")
	f.IntVar(&n, "n", 0, "order of the matrix in --in")
	f.IntVar(&hilbert, "hilbert", 0, "use the N×N Hilbert matrix")
	f.IntVar(&random, "random", 0, "use an N×N random positive matrix (needs --seed)")
	f.Uint64Var(&seed, "seed", 0, "seed of --random")
	f.Float64Var(&eps, "eps", eigen.DefaultEps, "stop when adjacent row sums differ by less than this")
	f.IntVar(&maxIter, "max-iter", eigen.DefaultMaxIter, "most updates of the matrix")
	f.BoolVar(&asJSON, "json", false, `print {"eigenvalue", "eigenvector", "iterations", "converged"}`)
	f.StringVar(&variant, "variant", "auto", "GPU kernels: v0 (global atomics), v1 (workgroup reduction + atomic per group), v2 (workgroup-memory reduction), auto")
	f.BoolVar(&explicit, "explicit", false, "transform M in place each round, as the articles do (default: the implicit form, M never written)")
	f.BoolVar(&unfused, "unfused", false, "with --explicit: run the transform as its own kernel")
	f.IntVar(&batch, "batch", eigen.DefaultBatch, "rounds per GPU submission (the stop flag is read back once per batch)")
	f.BoolVar(&cpuReference, "cpu", false, "run the float64 CPU reference instead of the GPU")
	rootCmd.AddCommand(cmd)
	registerSuite(suite{name: "eigen", about: "dominant eigenpair: row-sum and max kernels, the whole method on Hilbert matrices", run: benchEigen})
}

// maxOrder bounds N. Its matrix takes 4·N² = 256 GiB, more than any GPU
// holds; past it N² overflows, and a matrix sized from it came out empty
// and passed the size checks.
const maxOrder = 1 << 18

func checkOrder(flag string, n int) error {
	if n < 1 || n > maxOrder {
		return fmt.Errorf("eigen: %s %d: the matrix order N must be 1 to %d", flag, n, maxOrder)
	}
	return nil
}

// readMatrix reads an n×n row-major little-endian float32 file.
func readMatrix(path string, n int) ([]float32, error) {
	want := int64(n) * int64(n) * 4
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("eigen: %w", err)
	}
	if fi.Size() != want {
		return nil, fmt.Errorf("eigen: %s has %d bytes; a %d×%d float32 matrix has %d", path, fi.Size(), n, n, want)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("eigen: %w", err)
	}
	m := make([]float32, n*n)
	for i := range m {
		m[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return m, nil
}

// benchEigen measures the eigen kernels and the whole method over the
// articles' ladders.
func benchEigen(ctx *wgpu.Context, cfg *benchConfig) ([]table, error) {
	sizes := []int{128, 256, 512, 1024, 2048, 4096, 8192}
	vecs := []int{16, 17, 18, 19, 20, 21, 22, 23, 24, 25}
	gonumMax := 1024
	if cfg.quick {
		sizes, vecs, gonumMax = []int{128, 256, 512}, []int{16, 18, 20}, 256
	}
	variants := []eigen.Variant{eigen.V0, eigen.V1, eigen.V2}
	// gpuTime is the median GPU time of fn, or its wall time where the
	// adapter has no timestamps.
	gpuTime := func(fn func() (wgpu.Timing, error)) (time.Duration, error) {
		return median(cfg.repeats, func() (time.Duration, error) {
			t, err := fn()
			if t.Measured {
				return t.Kernel, err
			}
			return t.Wall, err
		})
	}
	timeKind := "GPU kernel time (timestamp queries)"
	if !ctx.Info().Timestamps {
		timeKind = "wall time of the submission (this adapter has no timestamp queries)"
	}

	rows := table{Title: "Eigen: row sums of an N×N float32 matrix, ms", XLabel: "N", YLabel: "v2 GB/s", LogX: true,
		Columns: []string{"N", "v0 ms", "v1 ms", "v2 ms", "best GB/s", "checked"},
		Notes:   []string{"v0: one invocation per row; v1: 64 lanes per row, 4 rows per workgroup, tree in workgroup memory; v2: 256 invocations per row, tree in workgroup memory. Times: " + timeKind + "; sums are never atomic (WGSL has no float atomics)."}}
	for _, n := range sizes {
		h := eigen.Hilbert(n)
		m, err := ctx.NewBuffer("bench eigen matrix", uint64(n*n)*4)
		if err != nil {
			return nil, err
		}
		dst, err := ctx.NewBuffer("bench eigen sums", uint64(n)*4)
		if err != nil {
			m.Release()
			return nil, err
		}
		row := []string{fmt.Sprint(n)}
		best := time.Duration(math.MaxInt64)
		err = ctx.Upload(m, 0, wgpu.Bytes(h))
		for _, v := range variants {
			if err != nil {
				break
			}
			cfg.step(fmt.Sprintf("eigen row sums %s n=%d", v, n))
			var d time.Duration
			d, err = gpuTime(func() (wgpu.Timing, error) { return eigen.RowSumsBuffer(ctx, dst, m, n, v) })
			if err == nil {
				err = checkRowSums(ctx, dst, h, n)
			}
			best = min(best, d)
			row = append(row, ms(d))
		}
		dst.Release()
		m.Release()
		if err != nil {
			return nil, err
		}
		row = append(row, fmt.Sprintf("%.1f", gbps(int64(n*n)*4, best)), "float64 sums within 1e-5")
		rows.Rows = append(rows.Rows, row)
		rows.Points = append(rows.Points, point{X: float64(n), Y: gbps(int64(n*n)*4, best)})
	}

	maxes := table{Title: "Eigen: max of a float32 vector, ms", XLabel: "elements", YLabel: "best GB/s", LogX: true,
		Columns: []string{"elements", "v0 ms", "v1 ms", "v2 ms", "best GB/s", "checked"},
		Notes:   []string{"v0: atomicMax per element on one word; v1: tree per workgroup, one atomicMax per workgroup; v2: tree per workgroup into partials, then one workgroup, no atomics. Times: " + timeKind + "."}}
	for _, k := range vecs {
		n := 1 << k
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(i%1000003) + 1
		}
		want := slices.Max(x)
		buf, err := ctx.NewBuffer("bench eigen vector", uint64(n)*4)
		if err != nil {
			return nil, err
		}
		err = ctx.Upload(buf, 0, wgpu.Bytes(x))
		row := []string{fmt.Sprintf("2^%d", k)}
		best := time.Duration(math.MaxInt64)
		for _, v := range variants {
			if err != nil {
				break
			}
			cfg.step(fmt.Sprintf("eigen max %s 2^%d", v, k))
			var d time.Duration
			d, err = gpuTime(func() (wgpu.Timing, error) {
				got, t, err := eigen.MaxBuffer(ctx, buf, n, v)
				if err == nil && got != want {
					err = fmt.Errorf("max %s of 2^%d elements = %v, want %v", v, k, got, want)
				}
				return t, err
			})
			best = min(best, d)
			row = append(row, ms(d))
		}
		buf.Release()
		if err != nil {
			return nil, err
		}
		row = append(row, fmt.Sprintf("%.1f", gbps(int64(n)*4, best)), "equal to Go's max")
		maxes.Rows = append(maxes.Rows, row)
		maxes.Points = append(maxes.Points, point{X: float64(n), Y: gbps(int64(n)*4, best)})
	}

	published := map[int]string{8192: "4052 (Xeon E5-2686 v4), 2373 (Iris Xe MAX), 126 (128-thread Xeon 8358)"}
	method := table{Title: "Eigen: whole method on N×N Hilbert matrices", XLabel: "N", YLabel: "GPU ms", LogX: true,
		Columns: []string{"N", "iterations", "GPU ms (resident)", "wall ms (resident)", "end-to-end ms", "v0 / v1 / v2-explicit GPU ms", "published ms", "CPU ref ms (" + hostCPU() + ")", "gonum Eigen ms", "eigenvalue (GPU / CPU / gonum)"},
		Notes:   []string{"Resident: the matrix already on the GPU, default kernels (v2, implicit transform, " + fmt.Sprint(eigen.DefaultBatch) + " rounds per submission); wall adds submissions and the read-backs of the stop flag and the vector. End-to-end: from host memory, input check, upload and allocation included. CPU ref: the float64 reference on all cores. gonum: mat.Eigen (all eigenvalues, no vectors), O(N³), small N only. Each size is checked against the float64 CPU reference: the same iteration count (the tests hold the reference to the published counts), the eigenvalue within 1e-4."}}
	for _, n := range sizes {
		cfg.step(fmt.Sprintf("eigen method n=%d", n))
		h := eigen.Hilbert(n)
		cpuStart := time.Now()
		ref, err := eigen.Reference64(h, n, eigen.Options{})
		if err != nil {
			return nil, err
		}
		cpu := time.Since(cpuStart)
		resident := func(g eigen.GPU) (kernel, wall time.Duration, r eigen.Result, err error) {
			s, err := eigen.NewSolver(ctx, n, eigen.Options{}, g)
			if err != nil {
				return 0, 0, r, err
			}
			defer s.Release()
			if err := s.Load(h); err != nil {
				return 0, 0, r, err
			}
			// Warm the GPU up to its clocks first: a few short runs after
			// an idle spell measure the ramp, not the kernels.
			for start := time.Now(); time.Since(start) < 200*time.Millisecond; {
				if _, _, err := s.Run(); err != nil {
					return 0, 0, r, err
				}
			}
			var walls []time.Duration
			kernel, err = median(cfg.repeats, func() (time.Duration, error) {
				var st eigen.Stats
				start := time.Now()
				r, st, err = s.Run()
				walls = append(walls, time.Since(start))
				if err == nil && (r.Iterations != ref.Iterations || math.Abs(r.Value-ref.Value) > 1e-4*ref.Value) {
					err = fmt.Errorf("n=%d %+v: GPU gives %v after %d iterations, the CPU reference %v after %d", n, g, r.Value, r.Iterations, ref.Value, ref.Iterations)
				}
				if st.Measured {
					return st.Kernel, err
				}
				return st.Wall, err
			})
			slices.Sort(walls)
			return kernel, walls[len(walls)/2], r, err
		}
		kernel, wall, r, err := resident(eigen.GPU{})
		if err != nil {
			return nil, err
		}
		var others []string
		for _, g := range []eigen.GPU{{Variant: eigen.V0}, {Variant: eigen.V1}, {Variant: eigen.V2, Explicit: true}} {
			k, _, _, err := resident(g)
			if err != nil {
				return nil, err
			}
			others = append(others, ms(k))
		}
		e2e, err := median(cfg.repeats, func() (time.Duration, error) {
			start := time.Now()
			_, err := eigen.MaxEigen(ctx, h, n, eigen.Options{})
			return time.Since(start), err
		})
		if err != nil {
			return nil, err
		}
		gonumMS, gonumVal := "-", "-"
		if n <= gonumMax {
			d := make([]float64, len(h))
			for i, x := range h {
				d[i] = float64(x)
			}
			start := time.Now()
			var e mat.Eigen
			if !e.Factorize(mat.NewDense(n, n, d), mat.EigenNone) {
				return nil, fmt.Errorf("gonum eigen of Hilbert %d failed", n)
			}
			var top float64
			for _, v := range e.Values(nil) {
				top = max(top, real(v))
			}
			gonumMS, gonumVal = ms(time.Since(start)), fmt.Sprintf("%.6f", top)
		}
		pub := published[n]
		if pub == "" {
			pub = "-"
		}
		method.Rows = append(method.Rows, []string{fmt.Sprint(n), fmt.Sprint(r.Iterations), ms(kernel), ms(wall), ms(e2e),
			fmt.Sprintf("%s / %s / %s", others[0], others[1], others[2]), pub, ms(cpu), gonumMS,
			fmt.Sprintf("%.6f / %.6f / %s", r.Value, ref.Value, gonumVal)})
		method.Points = append(method.Points, point{X: float64(n), Y: float64(kernel) / 1e6})
	}
	return []table{rows, maxes, method}, nil
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
