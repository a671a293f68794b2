package eigen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/internal/gputest"
	"github.com/wgcompute/wgcompute/wgpu"
)

func TestMain(m *testing.M) { os.Exit(gputest.Main(m)) }

// requireMatches holds a GPU result to the float64 reference: eigenvalue
// within 1e-4 relative, vector within 1e-3, the same iteration count.
func requireMatches(t *testing.T, want, got Result, what string) {
	t.Helper()
	require.Equal(t, want.Converged, got.Converged, "%s: converged", what)
	require.Equal(t, want.Iterations, got.Iterations, "%s: iterations", what)
	require.InEpsilon(t, want.Value, got.Value, 1e-4, "%s: eigenvalue", what)
	require.Len(t, got.Vector, len(want.Vector))
	for i := range want.Vector {
		if math.Abs(want.Vector[i]-got.Vector[i]) > 1e-3 {
			t.Fatalf("%s: vector[%d] = %v, want %v within 1e-3", what, i, got.Vector[i], want.Vector[i])
		}
	}
}

// configs are the GPU paths every matrix is run through.
var configs = []struct {
	name string
	g    GPU
}{
	{"v2", GPU{}},
	{"v0", GPU{Variant: V0}},
	{"v1", GPU{Variant: V1}},
	{"v2-explicit", GPU{Variant: V2, Explicit: true}},
	{"v0-explicit-unfused", GPU{Variant: V0, Explicit: true, Unfused: true}},
	{"v1-explicit-batch3", GPU{Variant: V1, Explicit: true, Batch: 3}},
	{"v2-batch1", GPU{Batch: 1}},
}

func TestGPUKnown3x3(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		want, err := Reference64(known3, 3, Options{})
		require.NoError(t, err)
		for _, c := range configs {
			got, _, err := MaxEigenGPU(ctx, known3, 3, Options{}, c.g)
			require.NoError(t, err)
			require.InDelta(t, 7.531, got.Value, 1e-3)
			requireMatches(t, want, got, c.name)
		}
	})
}

func TestGPUHilbert(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, n := range []int{128, 256, 512, 200} {
			h := Hilbert(n)
			want, err := Reference64(h, n, Options{})
			require.NoError(t, err)
			got, err := MaxEigen(ctx, h, n, Options{})
			require.NoError(t, err)
			requireMatches(t, want, got, fmt.Sprintf("hilbert %d", n))
			if c, ok := hilbertCounts[n]; ok {
				require.Equal(t, c, got.Iterations, "published count, n=%d", n)
			}
		}
		// Every kernel path on one size that is not a power of two.
		n := 129
		h := Hilbert(n)
		want, err := Reference64(h, n, Options{})
		require.NoError(t, err)
		for _, c := range configs {
			got, _, err := MaxEigenGPU(ctx, h, n, Options{}, c.g)
			require.NoError(t, err)
			requireMatches(t, want, got, fmt.Sprintf("hilbert %d %s", n, c.name))
		}
	})
}

func TestGPURandom(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		seed := rand.Uint64()
		for i, n := range []int{1, 2, 7, 64, 100, 257, 333} {
			a := Random(n, seed+uint64(i))
			opts := Options{Eps: 1e-5}
			want, err := Reference64(a, n, opts)
			require.NoError(t, err)
			c := configs[i%len(configs)]
			got, _, err := MaxEigenGPU(ctx, a, n, opts, c.g)
			require.NoError(t, err)
			requireMatches(t, want, got, fmt.Sprintf("random %d seed %d %s", n, seed+uint64(i), c.name))
		}
	})
}

// TestGPUBlocks splits M into row blocks by lowering the binding limit, as
// a matrix past the device's limit would be.
func TestGPUBlocks(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		n := 200
		a := Random(n, 7)
		want, err := Reference64(a, n, Options{Eps: 1e-5})
		require.NoError(t, err)
		for _, c := range configs[:5] {
			g := c.g
			g.maxBinding = 64 * 800
			got, st, err := MaxEigenGPU(ctx, a, n, Options{Eps: 1e-5}, g)
			require.NoError(t, err)
			require.Equal(t, 4, st.Blocks)
			requireMatches(t, want, got, "blocks "+c.name)
		}
	})
}

func TestGPUNotConverged(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		h := Hilbert(128)
		for _, k := range []int{0, 3, 8} {
			want, err := Reference64(h, 128, Options{MaxIter: max(k, 1)})
			require.NoError(t, err)
			got, st, err := MaxEigenGPU(ctx, h, 128, Options{MaxIter: max(k, 1)}, GPU{Batch: 4})
			require.NoError(t, err)
			require.False(t, got.Converged)
			requireMatches(t, want, got, fmt.Sprintf("max-iter %d", k))
			require.Equal(t, max(k, 1)+1, st.Rounds)
		}
	})
}

// TestGPUDeterministic: the same input gives the same bits, run after run.
func TestGPUDeterministic(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		n := 300
		a := Random(n, 11)
		for _, c := range configs[:4] {
			first, _, err := MaxEigenGPU(ctx, a, n, Options{Eps: 1e-6}, c.g)
			require.NoError(t, err)
			for i := 0; i < 2; i++ {
				again, _, err := MaxEigenGPU(ctx, a, n, Options{Eps: 1e-6}, c.g)
				require.NoError(t, err)
				require.Equal(t, math.Float64bits(first.Value), math.Float64bits(again.Value), c.name)
				require.Equal(t, first.Vector, again.Vector, c.name)
			}
		}
	})
}

func TestGPUErrors(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		_, err := MaxEigen(ctx, []float32{1, 2, 3}, 2, Options{})
		require.ErrorContains(t, err, "3 entries for n = 2")
		_, err = MaxEigen(ctx, []float32{1, 2, 3, -4}, 2, Options{})
		require.ErrorContains(t, err, "row 1, column 1 is negative")
		_, err = MaxEigen(ctx, []float32{1, 0, 3, 4}, 2, Options{})
		require.ErrorContains(t, err, "row 0, column 1 is zero")
		_, err = MaxEigen(ctx, []float32{1, 2, float32(math.Inf(1)), 4}, 2, Options{})
		require.ErrorContains(t, err, "row 1, column 0 is infinite")
		_, err = MaxEigen(ctx, []float32{float32(math.NaN()), 2, 3, 4}, 2, Options{})
		require.ErrorContains(t, err, "row 0, column 0 is NaN")
		_, _, err = MaxEigenGPU(ctx, known3, 3, Options{}, GPU{Unfused: true})
		require.ErrorContains(t, err, "unfused needs the explicit")
		lim := ctx.Limits().MaxBufferSize
		big := int(math.Sqrt(float64(lim/4))) + 1
		_, err = NewSolver(ctx, big, Options{}, GPU{})
		require.ErrorContains(t, err, "largest buffer")
		s, err := NewSolver(ctx, 3, Options{}, GPU{})
		require.NoError(t, err)
		defer s.Release()
		_, _, err = s.Run()
		require.ErrorContains(t, err, "no matrix loaded")
		require.ErrorContains(t, s.Load(known3[:8]), "8 entries")
	})
}

// TestSolverResident runs twice on one loaded matrix: the loaded matrix must
// survive a run in both transform modes.
func TestSolverResident(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		n := 150
		h := Hilbert(n)
		want, err := Reference64(h, n, Options{})
		require.NoError(t, err)
		for _, explicit := range []bool{false, true} {
			s, err := NewSolver(ctx, n, Options{}, GPU{Explicit: explicit})
			require.NoError(t, err)
			require.NoError(t, s.Load(h))
			for i := 0; i < 2; i++ {
				got, st, err := s.Run()
				require.NoError(t, err)
				requireMatches(t, want, got, fmt.Sprintf("resident explicit=%v run %d", explicit, i))
				require.Equal(t, got.Iterations+1, st.Rounds)
				require.Equal(t, ctx.Info().Timestamps, st.Measured)
			}
			s.Release()
		}
	})
}
