package eigen

import (
	"errors"
	"fmt"
	"math"

	"github.com/wgcompute/wgcompute/internal/base/par"
)

// The method is the power method in disguise: the vector after an update
// is A·v scaled, so its error shrinks each round by |λ₂|/λ, the ratio of
// A's second largest eigenvalue in modulus to the largest. A positive
// matrix can have λ₂ close to -λ: [[1e-3, 1], [1e3, 1e-3]] has the
// eigenvalues 31.623 and -31.621, a ratio of 0.99994, and its row sums
// swap between about 1 and 1000 for tens of thousands of rounds while the
// vector's components are scaled towards 0 by up to 1000 each round,
// below float64's range within 1000 rounds. A shift removes that case:
// A + σI has the same eigenvectors and the eigenvalues λᵢ + σ, and for
// σ > 0 every |λᵢ + σ| with λᵢ ≠ λ is below λ + σ, by the most where σ is
// near λ. Every row sum bound λ (min ≤ λ ≤ max, Collatz–Wielandt), so σ
// is taken from A's smallest and largest row sums.

// ErrNotFinite is returned for an accepted matrix whose eigenpair the
// method could not compute in finite numbers, on A and on A + σI; no
// matrix is known to need it, and a Result is never returned with a
// number that is not finite.
var ErrNotFinite = errors.New("eigen: the method's numbers are not finite")

// finite reports whether every number of r is finite.
func finite(r Result) bool {
	ok := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	if !ok(r.Value) || !ok(r.Spread) {
		return false
	}
	for _, x := range r.Vector {
		if !ok(x) {
			return false
		}
	}
	return true
}

// needsShift reports whether the run on A answered nothing usable: it did
// not converge, or a number of it is not finite.
func needsShift(r Result) bool { return !r.Converged || !finite(r) }

// shiftFor returns σ for A + σI: the power of two nearest the geometric
// mean of A's smallest and largest row sums (added in float64, each row
// left to right, so that every path finds the same σ), at most what keeps
// every row sum of A + σI within MaxRowSum. It returns 0 when no shift
// fits. A power of two, so that σ rounds alike wherever it is computed and
// its removal from the eigenvalue is exact.
func shiftFor(a []float32, n int) float64 {
	sums := make([]float64, n)
	par.For(n, max(1, 1<<14/n), func(lo, hi int) {
		for r := lo; r < hi; r++ {
			var acc float64
			for _, x := range a[r*n : r*n+n] {
				acc += float64(x)
			}
			sums[r] = acc
		}
	})
	lo, hi := math.Inf(1), 0.0
	for _, x := range sums {
		lo, hi = min(lo, x), max(hi, x)
	}
	sigma := math.Exp2(math.Round(math.Log2(math.Sqrt(lo) * math.Sqrt(hi))))
	// Room below MaxRowSum, rounded down to a power of two.
	if room := MaxRowSum - hi; sigma > room {
		if room <= 0 {
			return 0
		}
		sigma = math.Exp2(math.Floor(math.Log2(room)))
	}
	return sigma
}

// shifted returns A + σI in float32 (a new matrix; a is not modified).
func shifted(a []float32, n int, sigma float64) []float32 {
	b := make([]float32, len(a))
	copy(b, a)
	for r := 0; r < n; r++ {
		b[r*n+r] += float32(sigma)
	}
	return b
}

// pick returns the answer of a run on A (plain) and, when plain needed
// it, of the run on A + σI (moved, its eigenvalue already less σ): the
// shifted run where it converged or the plain one has numbers that are
// not finite, else the plain one; an error if the one chosen is not
// finite.
func pick(plain, moved Result) (Result, error) {
	r := plain
	if moved.Converged || !finite(plain) {
		r = moved
	}
	if !finite(r) {
		return Result{}, fmt.Errorf("%w: eigenvalue %g, spread %g after %d updates, also on A + %gI; please report the matrix as an issue", ErrNotFinite, r.Value, r.Spread, r.Iterations, moved.Shift)
	}
	return r, nil
}

// unshift makes a run on A + σI a result for A.
func unshift(r Result, sigma float64) Result {
	r.Value -= sigma
	r.Shift = sigma
	return r
}
