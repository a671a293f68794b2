package eigen

import (
	"math"

	"github.com/wgcompute/wgcompute/internal/base/par"
)

// Reference64 is the method in float64 arithmetic, in plain Go, on all
// CPU cores: the oracle the GPU is tested against. m is n×n row-major; it is
// not modified. Row r's sum is always added left to right, so the result
// does not depend on the number of cores. Where the method does not
// converge on A, or ends with numbers that are not finite, it runs again
// on A + σI (see Result.Shift).
func Reference64(m []float32, n int, opts Options) (Result, error) {
	return reference[float64](m, n, opts)
}

// Reference32 is Reference64 in float32 arithmetic, the precision the GPU
// kernels work in: the CPU backend of MaxEigen and Solver.
func Reference32(m []float32, n int, opts Options) (Result, error) {
	return reference[float32](m, n, opts)
}

func reference[F float32 | float64](a []float32, n int, opts Options) (Result, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return Result{}, err
	}
	if err := Check(a, n); err != nil {
		return Result{}, err
	}
	r := iterate[F](a, n, opts)
	if !needsShift(r) {
		return r, nil
	}
	sigma := shiftFor(a, n)
	if sigma == 0 {
		return pick(r, Result{})
	}
	return pick(r, unshift(iterate[F](shifted(a, n, sigma), n, opts), sigma))
}

// iterate is the method in F arithmetic on a matrix that Check accepts,
// with opts' defaults filled in (a Solver's, whose Load checked it).
func iterate[F float32 | float64](a []float32, n int, opts Options) Result {
	m := make([]F, len(a))
	for i, x := range a {
		m[i] = F(x)
	}
	s := make([]F, n)
	next := make([]F, n)
	v := make([]F, n)
	for i := range v {
		v[i] = 1
	}
	eps := F(opts.Eps)
	// The first round sums A; every later round transforms M with the
	// previous row sums and sums the new rows in the same sweep.
	grain := max(1, 1<<14/n) // rows of at least 16 Ki entries per goroutine
	par.For(n, grain, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			var acc F
			for _, x := range m[r*n : r*n+n] {
				acc += x
			}
			s[r] = acc
		}
	})
	updates := 0
	for {
		var top F
		for _, x := range s {
			top = max(top, x)
		}
		for i := range v {
			v[i] *= s[i] / top
		}
		spread := spreadOf(s)
		converged := spread < eps
		if converged || updates == opts.MaxIter {
			return Result{Value: float64(s[0]), Vector: normalise(v), Iterations: updates, Converged: converged, Spread: float64(spread)}
		}
		par.For(n, grain, func(lo, hi int) {
			for r := lo; r < hi; r++ {
				row := m[r*n : r*n+n]
				sr := s[r]
				var acc F
				for c, x := range row {
					// x/sr ≤ 1 first: x·s[c] could overflow float32.
					x = x / sr * s[c]
					row[c] = x
					acc += x
				}
				next[r] = acc
			}
		})
		s, next = next, s
		updates++
	}
}

// spreadOf is the largest |s[i] - s[(i+1) mod n]|; NaN if any is NaN, so
// that a broken iteration never looks converged.
func spreadOf[F float32 | float64](s []F) F {
	var d F
	for i := range s {
		j := i + 1
		if j == len(s) {
			j = 0
		}
		x := s[i] - s[j]
		if x < 0 {
			x = -x
		}
		if x != x {
			return F(math.NaN())
		}
		d = max(d, x)
	}
	return d
}
