package eigen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// sumStrided is the kernels' fixed order for one row: lane l adds
// row[l], row[l+lanes], ... left to right, then the lanes are added in a
// pairwise tree (lane i += lane i+k for k = lanes/2, ..., 1).
func sumStrided(row []float32, lanes int) float32 {
	part := make([]float32, lanes)
	for l := 0; l < lanes; l++ {
		for c := l; c < len(row); c += lanes {
			part[l] += row[c]
		}
	}
	for k := lanes / 2; k > 0; k /= 2 {
		for i := 0; i < k; i++ {
			part[i] += part[i+k]
		}
	}
	return part[0]
}

var laneCount = map[Variant]int{V0: 1, V1: 64, V2: 256}

// TestRowSums checks every variant bit for bit against the order it
// promises, on odd sizes, with sentinels after the result; under the small
// limits the matrix is bound in row blocks from n = 65 on.
func TestRowSums(t *testing.T) {
	forEach(t, func(t *testing.T, ctx *wgpu.Context) {
		rng := rand.New(rand.NewPCG(rand.Uint64(), 1))
		for _, n := range []int{1, 3, 65, 256, 257, 700} {
			if uint64(n*n*4) > ctx.Limits().MaxBufferSize {
				continue
			}
			m := make([]float32, n*n)
			for i := range m {
				m[i] = rng.Float32() + 1e-3
			}
			mb, err := ctx.NewBuffer("matrix", uint64(n*n)*4)
			require.NoError(t, err)
			require.NoError(t, ctx.Upload(mb, 0, wgpu.Bytes(m)))
			const guard = 16
			db, err := ctx.NewBuffer("sums", uint64(n+guard)*4)
			require.NoError(t, err)
			for _, v := range Variants {
				init := make([]uint32, n+guard)
				for i := range init {
					init[i] = 0xdeadbeef
				}
				require.NoError(t, ctx.Upload(db, 0, wgpu.Bytes(init)))
				var tm wgpu.Timing
				k, err := NewKernels(ctx, Options{Variant: v, Timing: &tm})
				require.NoError(t, err)
				require.NoError(t, k.RowSums(db, mb, n))
				k.Release()
				require.Positive(t, tm.Wall)
				got := make([]uint32, n+guard)
				require.NoError(t, ctx.Download(wgpu.Bytes(got), db, 0))
				for r := 0; r < n; r++ {
					want := sumStrided(m[r*n:r*n+n], laneCount[v])
					if got[r] != math.Float32bits(want) {
						t.Fatalf("n=%d %s: row %d sum %v, want %v", n, v, r, math.Float32frombits(got[r]), want)
					}
				}
				for i := n; i < n+guard; i++ {
					require.Equal(t, uint32(0xdeadbeef), got[i], "n=%d %s: sentinel %d overwritten", n, v, i-n)
				}
			}
			db.Release()
			mb.Release()
		}
	})
}

// maxOf runs Kernels.Max on x.
func maxOf(t *testing.T, k *Kernels, ctx *wgpu.Context, x []float32) (float32, error) {
	b, err := ctx.NewBuffer("vector", uint64(len(x))*4)
	require.NoError(t, err)
	defer b.Release()
	require.NoError(t, ctx.Upload(b, 0, wgpu.Bytes(x)))
	return k.Max(b, len(x))
}

func TestMax(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		rng := rand.New(rand.NewPCG(rand.Uint64(), 2))
		for _, v := range Variants {
			k, err := NewKernels(ctx, Options{Variant: v})
			require.NoError(t, err)
			// One Kernels for every call: the partials grow, the result
			// of one call does not leak into the next.
			for _, n := range []int{100_003, 1, 5, 1023, 1024, 1025} {
				x := make([]float32, n)
				for i := range x {
					x[i] = rng.Float32() * 1000
				}
				// The max somewhere random, once at each end.
				for _, at := range []int{rng.IntN(n), 0, n - 1} {
					y := append([]float32(nil), x...)
					y[at] = 2000 + float32(at)
					got, err := maxOf(t, k, ctx, y)
					require.NoError(t, err)
					require.Equal(t, y[at], got, fmt.Sprintf("n=%d at=%d %s", n, at, v))
				}
			}
			b, err := ctx.NewBuffer("short", 8)
			require.NoError(t, err)
			_, err = k.Max(b, 3)
			require.ErrorContains(t, err, "3 elements need 12 bytes")
			// 2^62 × 4 bytes wrapped to 0, which passed both checks.
			_, err = k.Max(b, 1<<62)
			require.ErrorContains(t, err, "4611686018427387904 elements need 4611686018427387904 × 4 is more than 9223372036854775807 bytes")
			require.ErrorContains(t, k.RowSums(b, b, 1<<31), "n = 2147483648: the matrix's bytes, 2147483648 × 2147483648 × 4 is more than")
			b.Release()
			k.Release()
		}
	})
	gputest.ForEachSmall(t, func(t *testing.T, ctx *wgpu.Context) {
		k, err := NewKernels(ctx, Options{})
		require.NoError(t, err)
		defer k.Release()
		got, err := maxOf(t, k, ctx, []float32{3, 9, 2})
		require.NoError(t, err)
		require.Equal(t, float32(9), got)
		_, err = maxOf(t, k, ctx, make([]float32, 20000))
		require.ErrorContains(t, err, "20000 elements (80000 bytes) exceed the device's storage binding limit of 65536 bytes")
	})
}
