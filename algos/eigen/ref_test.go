package eigen

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// known3 is the articles' 3×3 example; its dominant eigenvalue is
// about 7.531 (7.5311288741...; the default eps stops at 7.53114).
var known3 = []float32{1, 1, 2, 2, 1, 3, 2, 3, 5}

// hilbertCounts are the published iteration counts for Hilbert matrices.
var hilbertCounts = map[int]int{128: 9, 256: 10, 512: 12, 1024: 13, 2048: 14, 4096: 15, 8192: 17}

// residual is max_r |(A v)[r] - λ v[r]| for the float64 values of a.
func residual(a []float32, n int, r Result) float64 {
	var worst float64
	for i := 0; i < n; i++ {
		var acc float64
		for j := 0; j < n; j++ {
			acc += float64(a[i*n+j]) * r.Vector[j]
		}
		worst = math.Max(worst, math.Abs(acc-r.Value*r.Vector[i]))
	}
	return worst
}

func TestReferenceKnown3x3(t *testing.T) {
	for name, ref := range map[string]func([]float32, int, Options) (Result, error){"float64": Reference64, "float32": Reference32} {
		r, err := ref(known3, 3, Options{})
		require.NoError(t, err, name)
		require.True(t, r.Converged, name)
		require.InDelta(t, 7.531, r.Value, 1e-3, name)
		require.InDelta(t, 1.0, r.Vector[2], 0, name)
		require.Less(t, residual(known3, 3, r), 1e-2, name)
	}
	// A tighter eps in float64 reaches the eigenvalue to its digits.
	r, err := Reference64(known3, 3, Options{Eps: 1e-9})
	require.NoError(t, err)
	require.InDelta(t, 7.5311288741, r.Value, 1e-8)
	require.Less(t, residual(known3, 3, r), 1e-8)
}

func TestReferenceHilbertCounts(t *testing.T) {
	for _, n := range []int{128, 256, 512, 1024, 2048, 4096, 8192} {
		h := Hilbert(n)
		r64, err := Reference64(h, n, Options{})
		require.NoError(t, err)
		require.True(t, r64.Converged)
		require.Equal(t, hilbertCounts[n], r64.Iterations, "float64, n=%d", n)
		if n <= 2048 {
			r32, err := Reference32(h, n, Options{})
			require.NoError(t, err)
			require.Equal(t, hilbertCounts[n], r32.Iterations, "float32, n=%d", n)
			require.InEpsilon(t, r64.Value, r32.Value, 1e-5)
		}
	}
}

func TestReferenceAgreesWithResidual(t *testing.T) {
	for _, n := range []int{1, 2, 5, 31, 100} {
		a := Random(n, uint64(n))
		r, err := Reference64(a, n, Options{Eps: 1e-9})
		require.NoError(t, err)
		require.True(t, r.Converged)
		require.Less(t, residual(a, n, r), 1e-8, "n=%d", n)
	}
}

func TestReferenceNotConverged(t *testing.T) {
	h := Hilbert(128)
	r, err := Reference64(h, 128, Options{MaxIter: 3})
	require.NoError(t, err)
	require.False(t, r.Converged)
	require.Equal(t, 3, r.Iterations)
	require.GreaterOrEqual(t, r.Spread, DefaultEps)
}

func TestCheck(t *testing.T) {
	good := []float32{1, 2, 3, 4}
	require.NoError(t, Check(good, 2))
	for _, tc := range []struct {
		m    []float32
		n    int
		want string
	}{
		{good, 3, "4 entries for n = 3"},
		{good, 0, "n = 0"},
		{[]float32{1, 2, 0, 4}, 2, "row 1, column 0 is zero"},
		{[]float32{1, -2, 3, 4}, 2, "row 0, column 1 is negative"},
		{[]float32{1, 2, 3, float32(math.NaN())}, 2, "row 1, column 1 is NaN"},
		{[]float32{float32(math.Inf(1)), 2, 3, 4}, 2, "row 0, column 0 is infinite"},
		// Row sums past 2^127: the first such row, unless an earlier row has
		// a bad entry.
		{[]float32{1, 2, 1e38, 1e38}, 2, "row 1 sums to 2e+38, over the largest row sum accepted, 2^127 ≈ 1.701e+38"},
		{[]float32{1, 2, 3e38, 3e38}, 2, "row 1 sums to 6e+38"},
		{[]float32{3e38, 3e38, 0, 1}, 2, "row 0 sums to 6e+38"},
		{[]float32{1, 0, 3e38, 3e38}, 2, "row 0, column 1 is zero"},
		{Hilbert(3), 2, "9 entries for n = 2"},
	} {
		err := Check(tc.m, tc.n)
		require.Error(t, err)
		require.True(t, errors.Is(err, ErrInput))
		require.Contains(t, err.Error(), tc.want)
		_, err = Reference64(tc.m, tc.n, Options{})
		require.ErrorContains(t, err, tc.want)
	}
	// The first bad entry in row-major order is named, however the rows
	// are split between cores.
	big := Random(100, 1)
	big[90*100+3] = 0
	big[10*100+7] = -1
	require.ErrorContains(t, Check(big, 100), "row 10, column 7 is negative")
	big[5*100+99] = 2e38
	require.ErrorContains(t, Check(big, 100), "row 5 sums to 2e+38")
	// 2^127 itself is accepted, and the reference computes with it.
	edge := []float32{0x1p126, 0x1p126, 1, 1}
	require.NoError(t, Check(edge, 2))
	r, err := Reference32(edge, 2, Options{})
	require.NoError(t, err)
	require.False(t, math.IsNaN(r.Value) || math.IsInf(r.Value, 0), "eigenvalue %v", r.Value)
	_, err = Reference64(good, 2, Options{Eps: -1})
	require.ErrorContains(t, err, "eps")
	_, err = Reference64(good, 2, Options{MaxIter: -1})
	require.ErrorContains(t, err, "max-iter")
}

func TestRowBlocks(t *testing.T) {
	lim := func(binding uint64) wgpu.Limits {
		return wgpu.Limits{MaxStorageBindingSize: binding, MaxBufferSize: 1 << 40}
	}
	bs, err := rowBlocks(100, lim(1<<20))
	require.NoError(t, err)
	require.Equal(t, []block{{0, 100}}, bs)
	// 200 rows of 800 bytes, 51200-byte bindings: 64 rows each.
	bs, err = rowBlocks(200, lim(51200+799))
	require.NoError(t, err)
	require.Equal(t, []block{{0, 64}, {64, 64}, {128, 64}, {192, 8}}, bs)
	for _, b := range bs {
		require.Zero(t, uint64(b.row0)*800%256, "block offsets stay 256-byte aligned")
	}
	// gputest.SmallLimits: 64 KiB bindings hold 64 rows of 256 floats.
	bs, err = rowBlocks(256, gputest.SmallLimits)
	require.NoError(t, err)
	require.Equal(t, []block{{0, 64}, {64, 64}, {128, 64}, {192, 64}}, bs)
	// lavapipe's 128 MiB bindings hold 5792 rows of 5792 floats but not 5793.
	bs, err = rowBlocks(5792, lim(128<<20))
	require.NoError(t, err)
	require.Len(t, bs, 1)
	bs, err = rowBlocks(8192, lim(128<<20))
	require.NoError(t, err)
	require.Equal(t, []block{{0, 4096}, {4096, 4096}}, bs)
	_, err = rowBlocks(1000, lim(63*4000))
	require.ErrorContains(t, err, "storage binding limit of 252000 bytes")
}
