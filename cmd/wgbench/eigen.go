package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/eigen"
	"github.com/wgcompute/wgcompute/wgpu"
)

func newEigenCmd(g *globals) *cobra.Command {
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
				ctx, openErr := g.openContext()
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
	return cmd
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
