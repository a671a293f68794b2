package eigencmd

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/eigen"
	"github.com/wgcompute/wgcompute/cmd/internal/bytesize"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/internal/base/checked"
	"github.com/wgcompute/wgcompute/wgpu"
)

// New returns the eigen command.
func New(g *cli.Globals) *cobra.Command {
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
after printing, with converged false. --backend cpu runs the same float32
arithmetic on all CPU cores; --cpu runs the float64 CPU reference instead.`,
		Args: cli.NoArgs,
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
			if !(eps > 0) || math.IsInf(eps, 0) {
				return fmt.Errorf("eigen: --eps %v: must be a positive finite number", eps)
			}
			if maxIter < 1 {
				return fmt.Errorf("eigen: --max-iter %d: must be at least 1", maxIter)
			}
			if batch < 1 {
				return fmt.Errorf("eigen: --batch %d: must be at least 1 round per submission", batch)
			}
			flag, size := "--random", random
			switch {
			case in != "":
				if n == 0 {
					return fmt.Errorf("eigen: --in needs --n N, the matrix order (N ≥ 1)")
				}
				flag, size = "--n", n
			case hilbert != 0:
				flag, size = "--hilbert", hilbert
			}
			if err := checkOrder(flag, size); err != nil {
				return err
			}
			if random != 0 && !cmd.Flags().Changed("seed") {
				return fmt.Errorf("eigen: --random needs --seed S, so that the matrix can be made again")
			}
			v, err := eigen.ParseVariant(variant)
			if err != nil {
				return err
			}
			var ctx *wgpu.Context
			if !cpuReference {
				if ctx, err = g.OpenContext(); err != nil {
					return err
				}
				defer g.CloseContext(ctx)
			}
			if err := checkMatrixFits(g, ctx, cpuReference, flag, size); err != nil {
				return err
			}
			var m []float32
			switch {
			case in != "":
				if m, err = readMatrix(in, n); err != nil {
					return err
				}
			case hilbert != 0:
				m = eigen.Hilbert(hilbert)
			default:
				m = eigen.Random(random, seed)
			}
			var t wgpu.Timing
			opts := eigen.Options{Eps: eps, MaxIter: maxIter, Variant: v, Explicit: explicit, Unfused: unfused, Batch: batch, Timing: &t}
			var r eigen.Result
			start := time.Now()
			if cpuReference {
				r, err = eigen.Reference64(m, size, opts)
			} else {
				r, err = eigen.MaxEigen(ctx, m, size, opts)
			}
			if err == nil {
				err = finiteResult(r)
			}
			if err != nil {
				return err
			}
			elapsed := time.Since(start)
			where := "CPU reference (float64, " + cli.HostCPU() + ")"
			switch {
			case ctx != nil:
				where = ctx.Info().Name + " (" + ctx.Info().Backend + ")"
			case !cpuReference:
				where = "CPU backend (float32, " + cli.HostCPU() + ")"
			}
			out := cmd.OutOrStdout()
			if asJSON {
				err = json.NewEncoder(out).Encode(eigenJSON{r.Value, r.Vector, r.Iterations, r.Converged})
			} else {
				printEigen(out, r, where, elapsed, t)
			}
			if err != nil {
				return err
			}
			if !r.Converged {
				return cli.ExitError{Code: 1}
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
	return cmd
}

// printEigen prints r as text: where it ran and how long it took
// (elapsed, and t on the GPU), and the start of the eigenvector.
func printEigen(out io.Writer, r eigen.Result, where string, elapsed time.Duration, t wgpu.Timing) {
	fmt.Fprintf(out, "eigenvalue  %.9g\niterations  %d\nconverged   %v (largest adjacent row-sum difference %.3g)\n", r.Value, r.Iterations, r.Converged, r.Spread)
	fmt.Fprintf(out, "on          %s, %.3f ms", where, float64(elapsed)/1e6)
	if r.Submissions > 0 {
		fmt.Fprintf(out, " including upload")
	}
	if t.Measured {
		fmt.Fprintf(out, ", GPU %.3f ms in %d submissions", float64(t.Kernel)/1e6, r.Submissions)
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

// finiteResult returns an error unless every number of r is finite: JSON
// has no NaN, and a table of NaN answers nothing. The library solves a
// matrix it accepted to finite numbers; this keeps a failure of that
// from being printed as a result.
func finiteResult(r eigen.Result) error {
	bad := func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }
	switch {
	case bad(r.Value):
		return fmt.Errorf("eigen: the method ended with eigenvalue %g after %d updates, not a number: nothing printed (the library should have solved it or refused it: please report the matrix as an issue)", r.Value, r.Iterations)
	case bad(r.Spread):
		return fmt.Errorf("eigen: the method ended with row sums differing by %g after %d updates, not a number: nothing printed (the library should have solved it or refused it: please report the matrix as an issue)", r.Spread, r.Iterations)
	}
	for i, x := range r.Vector {
		if bad(x) {
			return fmt.Errorf("eigen: eigenvector component %d is %g, not a number: nothing printed (the library should have solved it or refused it: please report the matrix as an issue)", i, x)
		}
	}
	return nil
}

// eigenJSON is what eigen --json prints.
type eigenJSON struct {
	Eigenvalue  float64   `json:"eigenvalue"`
	Eigenvector []float64 `json:"eigenvector"`
	Iterations  int       `json:"iterations"`
	Converged   bool      `json:"converged"`
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

// checkMatrixFits checks, before the matrix is built, that an N×N
// float32 matrix fits the host memory available (twice over on the CPU
// backend, which works on a copy; three times for the float64 CPU
// reference) and the device (eigen.CheckSize).
func checkMatrixFits(g *cli.Globals, ctx *wgpu.Context, reference64 bool, flag string, n int) error {
	copies, what := uint64(1), "the matrix takes"
	switch {
	case reference64:
		copies, what = 3, "the matrix and the CPU reference's float64 copy take"
	case ctx == nil:
		copies, what = 2, "the matrix and the CPU backend's copy take"
	}
	host, err := checked.Mul(uint64(n), uint64(n), 4, copies)
	if err != nil {
		return fmt.Errorf("eigen: %s %d: %s %w bytes of host memory", flag, n, what, err)
	}
	if avail := g.HostMemory(); host > uint64(avail) {
		return fmt.Errorf("eigen: %s %d: %s %s of host memory, over the %s available (N ≤ %d here)",
			flag, n, what, bytesize.Tenths(int64(host)), bytesize.Tenths(avail), int(math.Sqrt(float64(avail)/float64(copies*4))))
	}
	return eigen.CheckSize(ctx, n)
}

// readMatrix reads an n×n row-major little-endian float32 file: exactly
// n·n·4 bytes, from a regular file, a pipe or a FIFO.
func readMatrix(path string, n int) ([]float32, error) {
	m := make([]float32, n*n)
	raw := wgpu.Bytes(m)
	if err := cli.ReadExactly(path, raw, fmt.Sprintf("a %d×%d float32 matrix", n, n)); err != nil {
		return nil, fmt.Errorf("eigen: %w", err)
	}
	for i := range m { // in place; a no-op on little-endian hosts
		m[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return m, nil
}
