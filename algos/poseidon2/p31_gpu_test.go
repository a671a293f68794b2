package poseidon2

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// randStates31 returns n random states of p, the field's edges mixed in.
func randStates31(p *Permutation31, rng *rand.Rand, n int) []uint32 {
	f := p.Field()
	out := make([]uint32, n*p.Width())
	for i := range out {
		switch rng.IntN(8) {
		case 0:
			out[i] = f.P() - 1 - rng.Uint32N(4)
		case 1:
			out[i] = rng.Uint32N(4)
		default:
			out[i] = rng.Uint32N(f.P())
		}
	}
	return out
}

// checkPermute31 holds the GPU's permutations on ctx to the vectors and to
// the reference on random states of odd counts.
func checkPermute31(t *testing.T, ctx *wgpu.Context) {
	s := loadSpec31(t)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, v := range s.Vectors {
		p := perm31(t, v.Permutation)
		st := append([]uint32(nil), v.Input...)
		_, err := p.permuteMany31(ctx, st)
		require.NoError(t, err)
		require.Equal(t, v.Output, st, "%s vector on the GPU", p.Name())
		for _, n := range []int{1, 3, 67, 1001} {
			in := randStates31(p, rng, n)
			got := append([]uint32(nil), in...)
			_, err := p.permuteMany31(ctx, got)
			require.NoError(t, err)
			for i := range n {
				w := p.Width()
				want := append([]uint32(nil), in[i*w:(i+1)*w]...)
				require.NoError(t, p.Permute(want))
				require.Equal(t, want, got[i*w:(i+1)*w], "%s, %d states, state %d", p.Name(), n, i)
			}
		}
	}
}

func TestPermute31GPU(t *testing.T) {
	gputest.ForEach(t, checkPermute31)
	gputest.ForEachSmall(t, checkPermute31)
}

// TestPermute31WebGPULimits runs the kernels under WebGPU's default
// limits, what a browser guarantees.
func TestPermute31WebGPULimits(t *testing.T) {
	for _, b := range gputest.Backends() {
		t.Run(b, func(t *testing.T) { checkPermute31(t, gputest.Limited(t, b, wgpu.WebGPULimits)) })
	}
}

func TestPermute31GPUBadInput(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		_, err := BabyBear16.permuteMany31(ctx, make([]uint32, 17))
		require.ErrorContains(t, err, "multiple of 16")
		st := make([]uint32, 32)
		st[20] = BabyBear16.Field().P()
		_, err = BabyBear16.permuteMany31(ctx, st)
		require.ErrorContains(t, err, "state 1, element 4")
	})
}
