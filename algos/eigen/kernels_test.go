package eigen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/internal/gputest"
	"github.com/wgcompute/wgcompute/wgpu"
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
// promises, on odd sizes, with sentinels after the result.
func TestRowSums(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		rng := rand.New(rand.NewPCG(rand.Uint64(), 1))
		for _, n := range []int{1, 3, 65, 257, 700} {
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
			for _, v := range []Variant{V0, V1, V2} {
				init := make([]uint32, n+guard)
				for i := range init {
					init[i] = 0xdeadbeef
				}
				require.NoError(t, ctx.Upload(db, 0, wgpu.Bytes(init)))
				_, err := RowSumsBuffer(ctx, db, mb, n, v)
				require.NoError(t, err)
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
		dst := make([]float32, 3)
		require.NoError(t, RowSums(ctx, dst, known3, 3, V1))
		require.Equal(t, []float32{4, 6, 10}, dst)
		require.ErrorContains(t, RowSums(ctx, dst, known3[:8], 3, V1), "needs 9 matrix entries")
	})
}

func TestMax(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		rng := rand.New(rand.NewPCG(rand.Uint64(), 2))
		for _, n := range []int{1, 5, 1023, 1024, 1025, 100_003} {
			x := make([]float32, n)
			for i := range x {
				x[i] = rng.Float32() * 1000
			}
			// The max somewhere random, once at each end.
			for _, at := range []int{rng.IntN(n), 0, n - 1} {
				y := append([]float32(nil), x...)
				y[at] = 2000 + float32(at)
				for _, v := range []Variant{V0, V1, V2} {
					got, err := Max(ctx, y, v)
					require.NoError(t, err)
					require.Equal(t, y[at], got, fmt.Sprintf("n=%d at=%d %s", n, at, v))
				}
			}
		}
		_, err := Max(ctx, []float32{1, -1}, V0)
		require.ErrorContains(t, err, "element 1 is -1")
		_, err = Max(ctx, nil, V0)
		require.ErrorContains(t, err, "empty")
	})
}
