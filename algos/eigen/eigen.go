// Package eigen finds the dominant eigenvalue and eigenvector of a positive
// square matrix by iterative similarity transformation, on the GPU and in
// plain Go.
//
// The method, for a positive N×N matrix A: start with M = A and v = ones,
// then repeat
//
//  1. s = the row sums of M;
//  2. m = max(s);
//  3. v *= s / m;
//  4. stop if every pair of cyclically adjacent row sums differs by less
//     than eps, or after MaxIter updates of M;
//  5. otherwise M = D⁻¹ M D with D = diag(s), that is M[r][c] *= s[c]/s[r].
//
// Each M is similar to A, and once its row sums are all equal to λ, M·1 = λ·1,
// so λ is A's dominant eigenvalue and v (the accumulated diagonal) its
// eigenvector. The eigenvalue reported is s[0] at the stop; the vector is
// scaled so that its largest component is 1; the iteration count is the
// number of updates of M.
//
// Reference64 and Reference32 are the plain-Go references (float64 and
// float32 arithmetic); MaxEigen and Solver run the same steps as WGSL kernels.
package eigen

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sync"
)

// Defaults of Options.
const (
	DefaultEps     = 1e-3
	DefaultMaxIter = 1000
)

// Options tune the iteration. The zero value means the defaults.
type Options struct {
	// Eps is the stop threshold: the iteration stops once every pair of
	// cyclically adjacent row sums differs by less than Eps (an absolute
	// difference, in the matrix's units). Zero means DefaultEps.
	Eps float64
	// MaxIter bounds the number of updates of M; reaching it without meeting
	// Eps returns Converged=false. Zero means DefaultMaxIter.
	MaxIter int
}

func (o Options) withDefaults() (Options, error) {
	if o.Eps == 0 {
		o.Eps = DefaultEps
	}
	if o.MaxIter == 0 {
		o.MaxIter = DefaultMaxIter
	}
	if !(o.Eps > 0) || math.IsInf(o.Eps, 0) {
		return o, fmt.Errorf("eigen: eps %v: must be a positive finite number", o.Eps)
	}
	if o.MaxIter < 0 {
		return o, fmt.Errorf("eigen: max-iter %d: must be positive", o.MaxIter)
	}
	return o, nil
}

// Result is the dominant eigenpair found.
type Result struct {
	// Value is the eigenvalue: row sum 0 of M at the stop.
	Value float64
	// Vector is the eigenvector, scaled so that its largest component is 1.
	Vector []float64
	// Iterations is the number of updates of M (similarity transforms).
	Iterations int
	// Converged says the stop criterion was met within MaxIter updates.
	Converged bool
	// Spread is the largest difference of cyclically adjacent row sums at
	// the stop; below Eps when Converged.
	Spread float64
}

// ErrInput is wrapped by every error about the matrix given.
var ErrInput = errors.New("eigen: invalid matrix")

// Check returns an error unless m is an n×n row-major matrix of positive
// finite entries, naming the first offending entry.
func Check[F float32 | float64](m []F, n int) error {
	if n <= 0 {
		return fmt.Errorf("%w: n = %d: the size must be at least 1", ErrInput, n)
	}
	if hi, lo := bits.Mul64(uint64(n), uint64(n)); hi != 0 || lo != uint64(len(m)) {
		return fmt.Errorf("%w: %d entries for n = %d: an n×n matrix has n² entries", ErrInput, len(m), n)
	}
	// Scan row ranges in parallel; the error names the first bad entry in
	// row-major order whatever the number of cores.
	first := make([]int, 0, 64)
	var mu sync.Mutex
	parallelRows(n, func(lo, hi int) {
		for i := lo * n; i < hi*n; i++ {
			if f := float64(m[i]); !(f > 0) || math.IsInf(f, 1) {
				mu.Lock()
				first = append(first, i)
				mu.Unlock()
				return
			}
		}
	})
	if len(first) == 0 {
		return nil
	}
	i := slices.Min(first)
	f := float64(m[i])
	what := "zero"
	switch {
	case math.IsNaN(f):
		what = "NaN"
	case math.IsInf(f, 0):
		what = "infinite"
	case f < 0:
		what = "negative"
	}
	return fmt.Errorf("%w: entry at row %d, column %d is %s (%v): every entry must be positive and finite", ErrInput, i/n, i%n, what, f)
}

// Hilbert returns the n×n Hilbert matrix, H[r][c] = 1/(r+c+1), rounded to
// float32.
func Hilbert(n int) []float32 {
	m := make([]float32, n*n)
	for r := 0; r < n; r++ {
		for c := 0; c < n; c++ {
			m[r*n+c] = float32(1 / float64(r+c+1))
		}
	}
	return m
}

// Random returns an n×n matrix of entries drawn uniformly from (0, 1]/n,
// from a PCG generator seeded with seed. Scaling by 1/n keeps the dominant
// eigenvalue near 1/2 at every n, so that an absolute Eps means the same
// relative precision at every size.
func Random(n int, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	m := make([]float32, n*n)
	scale := 1 / float64(n)
	for i := range m {
		m[i] = float32((1 - rng.Float64()) * scale) // 1 - [0,1) is (0,1]
	}
	return m
}

// normalise returns v scaled so that its largest component is 1.
func normalise[F float32 | float64](v []F) []float64 {
	out := make([]float64, len(v))
	var top float64
	for _, x := range v {
		top = math.Max(top, float64(x))
	}
	for i, x := range v {
		out[i] = float64(x) / top
	}
	return out
}
