package eigen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
	"gonum.org/v1/gonum/mat"
)

// badlyScaled are positive matrices with an eigenvalue near -λ, on which
// the method, the power method in disguise, converged too slowly to stop:
// every path ended the first with a NaN eigenvector, and the float64
// reference stopped the second unconverged at 8.016 (λ = 10.01).
var badlyScaled = []struct {
	name string
	a    []float32
}{
	{"1e-3,1;1e3,1e-3", []float32{1e-3, 1, 1e3, 1e-3}},
	{"1e-2,1;100,1e-2", []float32{1e-2, 1, 100, 1e-2}},
	{"1e-3,1;1e6,1e-3", []float32{1e-3, 1, 1e6, 1e-3}},
	// A 3-cycle with small entries elsewhere: eigenvalues near λ·e^(±2πi/3).
	{"cycle3", []float32{1e-3, 1, 1e-3, 1e-3, 1e-3, 50, 20, 1e-3, 1e-3}},
	{"bipartite70", bipartite(70, 7)},
}

// bipartite returns an n×n matrix, n even, whose halves feed each other:
// entries between the halves drawn from [0.5, 1.5) (first half's rows) and
// [500, 1500) (second half's), 1e-3 within a half; its eigenvalues come in
// pairs near ±λ. At n ≥ 65 gputest.SmallLimits binds it in row blocks.
func bipartite(n int, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 1))
	a := make([]float32, n*n)
	h := n / 2
	for r := 0; r < n; r++ {
		for c := 0; c < n; c++ {
			switch {
			case (r < h) == (c < h):
				a[r*n+c] = 1e-3
			case r < h:
				a[r*n+c] = float32(0.5 + rng.Float64())
			default:
				a[r*n+c] = float32(500 + 1000*rng.Float64())
			}
		}
	}
	return a
}

// gonumPerron returns the eigenvalue of a with the largest real part and
// its eigenvector scaled so that its largest component is 1, by gonum's
// general eigensolver, in float64.
func gonumPerron(t *testing.T, a []float32, n int) (float64, []float64) {
	t.Helper()
	d := make([]float64, len(a))
	for i, x := range a {
		d[i] = float64(x)
	}
	var e mat.Eigen
	require.True(t, e.Factorize(mat.NewDense(n, n, d), mat.EigenRight))
	vals := e.Values(nil)
	best := 0
	for i, v := range vals {
		if real(v) > real(vals[best]) {
			best = i
		}
	}
	require.InDelta(t, 0, imag(vals[best]), 1e-9)
	var vecs mat.CDense
	e.VectorsTo(&vecs)
	v := make([]float64, n)
	top := 0.0
	for i := range v {
		v[i] = real(vecs.At(i, best))
		if math.Abs(v[i]) > math.Abs(top) {
			top = v[i]
		}
	}
	for i := range v {
		v[i] /= top
	}
	return real(vals[best]), v
}

// requireGonum holds r to gonum's eigenpair: every number finite,
// converged, the eigenvalue within what eps allows, the vector within tol.
func requireGonum(t *testing.T, a []float32, n int, r Result, tol float64, what string) {
	t.Helper()
	want, vec := gonumPerron(t, a, n)
	require.True(t, finite(r), "%s: %+v", what, r)
	require.True(t, r.Converged, "%s: converged (%+v)", what, r)
	require.InEpsilon(t, want, r.Value, 1e-4, "%s: eigenvalue", what)
	for i := range vec {
		require.InDelta(t, vec[i], r.Vector[i], tol, "%s: vector[%d]", what, i)
	}
}

// TestReferenceShift: both references solve the badly scaled matrices,
// through the shift, and agree with gonum.
func TestReferenceShift(t *testing.T) {
	for _, c := range badlyScaled {
		n := int(math.Sqrt(float64(len(c.a))))
		for name, ref := range map[string]func([]float32, int, Options) (Result, error){"float64": Reference64, "float32": Reference32} {
			r, err := ref(c.a, n, Options{})
			require.NoError(t, err, "%s %s", name, c.name)
			require.Positive(t, r.Shift, "%s %s: the shifted run answered", name, c.name)
			requireGonum(t, c.a, n, r, 1e-4, name+" "+c.name)
		}
		// A tight eps in float64 reaches gonum's digits.
		r, err := Reference64(c.a, n, Options{Eps: 1e-10})
		require.NoError(t, err)
		requireGonum(t, c.a, n, r, 1e-9, "float64 eps 1e-10 "+c.name)
	}
	// A matrix the plain method solves is not shifted.
	r, err := Reference64(known3, 3, Options{})
	require.NoError(t, err)
	require.Zero(t, r.Shift)
}

// TestShift: every backend (the CPU, each GPU variant and transform, in
// one block and in blocks of rows) solves the badly scaled matrices as the
// float64 reference does, and a Solver's later solves see A, not A + σI.
func TestShift(t *testing.T) {
	forEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, c := range badlyScaled {
			n := int(math.Sqrt(float64(len(c.a))))
			want, err := Reference64(c.a, n, Options{})
			require.NoError(t, err)
			for _, cf := range configs() {
				what := fmt.Sprintf("%s %s", cf.name, c.name)
				got := solve(t, ctx, cf, c.a, n, Options{})
				requireGonum(t, c.a, n, got, 1e-3, what)
				require.Equal(t, want.Shift, got.Shift, what)
				requireNear(t, want, got, 2, what)
			}
		}
		// The Solver keeps A: a matrix loaded after a shifted solve, and
		// the same solved twice, answer as on their own.
		s, err := NewSolver(ctx, 2, Options{})
		require.NoError(t, err)
		defer s.Release()
		a := badlyScaled[0].a
		require.NoError(t, s.Load(a))
		first, err := s.Solve()
		require.NoError(t, err)
		again, err := s.Solve()
		require.NoError(t, err)
		require.Equal(t, first.Value, again.Value)
		require.Equal(t, first.Vector, again.Vector)
		easy := []float32{2, 1, 1, 2}
		require.NoError(t, s.Load(easy))
		r, err := s.Solve()
		require.NoError(t, err)
		require.Zero(t, r.Shift)
		require.InDelta(t, 3, r.Value, 1e-6)
	})
}

// TestPick: the shifted run answers where it converged or the plain one is
// not finite; a result that is not finite is an error, never returned.
func TestPick(t *testing.T) {
	nan := math.NaN()
	plain := Result{Value: 2, Vector: []float64{1, 0.5}, Spread: 1}
	moved := Result{Value: 3, Vector: []float64{1, 0.25}, Converged: true, Shift: 4}
	r, err := pick(plain, moved)
	require.NoError(t, err)
	require.Equal(t, moved, r)
	moved.Converged = false
	r, err = pick(plain, moved)
	require.NoError(t, err)
	require.Equal(t, plain, r)
	lost := Result{Value: 2, Vector: []float64{nan, 1}, Spread: 1}
	r, err = pick(lost, moved)
	require.NoError(t, err)
	require.Equal(t, moved, r)
	for _, bad := range []Result{{Value: nan, Vector: []float64{1}}, {Value: 1, Spread: math.Inf(1), Vector: []float64{1}}, {Value: 1, Vector: []float64{nan}}} {
		_, err = pick(lost, bad)
		require.ErrorIs(t, err, ErrNotFinite)
	}
	_, err = pick(lost, Result{}) // no shift fitted: the zero Result
	require.NoError(t, err)
}

// TestShiftFor: σ is the power of two nearest the geometric mean of the
// smallest and largest row sums, and leaves every row sum of A + σI within
// MaxRowSum, or is 0 where nothing fits.
func TestShiftFor(t *testing.T) {
	require.Equal(t, 32.0, shiftFor([]float32{1e-3, 1, 1e3, 1e-3}, 2))  // √(1.001·1000) ≈ 31.6
	require.Equal(t, 8.0, shiftFor([]float32{1e-2, 1, 100, 1e-2}, 2))   // √(1.01·100) ≈ 10.05: 2^3.33
	require.Equal(t, 1.0, shiftFor([]float32{0.5, 0.5, 0.25, 0.75}, 2)) // equal row sums of 1
	big := float32(MaxRowSum / 2)
	require.Equal(t, 0.0, shiftFor([]float32{big, big, 1, 1}, 2)) // a row at MaxRowSum: no room
	s := shiftFor([]float32{big, big / 2, 1, 1}, 2)               // room of 2^125 below 2^127
	require.Positive(t, s)
	require.LessOrEqual(t, float64(big)*1.5+s, MaxRowSum)
}
