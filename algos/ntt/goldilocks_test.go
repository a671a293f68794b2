package ntt

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/field/goldilocks"
	glfft "github.com/consensys/gnark-crypto/field/goldilocks/fft"
	"github.com/consensys/gnark-crypto/utils"
	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// randGoldilocks returns rows·2^logN random Goldilocks elements, the
// field's edges mixed in.
func randGoldilocks(rng *rand.Rand, rows, logN int) []uint64 {
	out := make([]uint64, rows<<logN)
	for i := range out {
		switch rng.IntN(8) {
		case 0:
			out[i] = field.GoldilocksP - 1 - rng.Uint64N(3)
		case 1:
			out[i] = rng.Uint64N(3)
		case 2:
			out[i] = 0xffffffff00000000 - rng.Uint64N(3) // just below p's high word
		default:
			out[i] = rng.Uint64N(field.GoldilocksP)
		}
	}
	return out
}

// gnarkGoldilocks is gnarkRows for Goldilocks: gnark-crypto's goldilocks
// fft.Domain as written.
func gnarkGoldilocks(t testing.TB, data []uint64, logN int, o Options) []uint64 {
	t.Helper()
	n := 1 << logN
	out := make([]uint64, len(data))
	a := make([]goldilocks.Element, n)
	for lo := 0; lo < len(data); lo += n {
		for i := range a {
			a[i].SetUint64(data[lo+i])
		}
		d := glfft.NewDomain(uint64(n))
		dec := glfft.DIF
		if o.In == BitReversed {
			dec = glfft.DIT
		}
		var opts []glfft.Option
		if o.Coset {
			opts = append(opts, glfft.OnCoset())
		}
		if o.Inverse {
			d.FFTInverse(a, dec, opts...)
		} else {
			d.FFT(a, dec, opts...)
		}
		if o.In == o.Out {
			utils.BitReverse(a)
		}
		for i := range a {
			out[lo+i] = a[i].Uint64()
		}
	}
	return out
}

func equal64(a, b []uint64) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

func checkGoldilocks(t *testing.T, maxLog int, transform func(data []uint64, logN int, o Options) error) {
	rng := rand.New(rand.NewPCG(31, 32))
	for k := 1; k <= maxLog; k++ {
		for _, rows := range rowsFor(k) {
			for _, o := range cases() {
				in := randGoldilocks(rng, rows, k)
				want := gnarkGoldilocks(t, in, k, o)
				got := append([]uint64(nil), in...)
				require.NoError(t, transform(got, k, o))
				if i := equal64(want, got); i >= 0 {
					t.Fatalf("goldilocks 2^%d x %d rows %s: first difference at %d", k, rows, name(o), i)
				}
			}
		}
	}
}

func TestGoldilocksReference(t *testing.T) {
	checkGoldilocks(t, 11, func(data []uint64, logN int, o Options) error { return Reference(field.Goldilocks{}, data, logN, o) })
}

func TestGoldilocksCPU(t *testing.T) {
	checkGoldilocks(t, 14, func(data []uint64, logN int, o Options) error {
		return Transform(nil, field.Goldilocks{}, data, logN, o)
	})
}

// TestGoldilocksGPU runs every size up to 2^14, and up to 2^12 on
// llvmpipe's GL, whose runs of the emulated 64-bit arithmetic take the
// longest: both past a tile of 2^11 (two passes), and GL's module is the
// WGSL that lavapipe runs at every size.
func TestGoldilocksGPU(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		maxLog := 14
		if softwareGL(ctx.Info()) {
			maxLog = 12
		}
		checkGoldilocks(t, maxLog, func(data []uint64, logN int, o Options) error {
			return Transform(ctx, field.Goldilocks{}, data, logN, o)
		})
	})
	gputest.ForEachSmall(t, func(t *testing.T, ctx *wgpu.Context) {
		checkGoldilocks(t, 12, func(data []uint64, logN int, o Options) error {
			return Transform(ctx, field.Goldilocks{}, data, logN, o)
		})
	})
}

func TestGoldilocksGPULarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large transforms")
	}
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		rng := rand.New(rand.NewPCG(33, 34))
		for _, k := range []int{18, 20} {
			for _, o := range []Options{{}, {Inverse: true, Coset: true, In: BitReversed, Out: BitReversed}, {Coset: true, In: BitReversed}} {
				in := randGoldilocks(rng, 1, k)
				got := append([]uint64(nil), in...)
				require.NoError(t, Transform(ctx, field.Goldilocks{}, got, k, o))
				require.Equal(t, -1, equal64(gnarkGoldilocks(t, in, k, o), got), "2^%d %s", k, name(o))
			}
		}
	})
}

// TestGoldilocksExtend holds Goldilocks' extension on the CPU and the GPU
// to Reference's inverse, zeros, and forward transform.
func TestGoldilocksExtend(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	run := func(t *testing.T, ctx *wgpu.Context) {
		for _, k := range []int{1, 6, 12} {
			for _, o := range []ExtendOptions{{Rate: 2}, {Rate: 4, Coset: true}, {Rate: 8, Out: BitReversed}, {Rate: 16, Coset: true, Out: BitReversed}} {
				src := randGoldilocks(rng, 3, k)
				rateLog, small, big, shift, err := extendRoots(over[uint64]{field.Goldilocks{}}, k, o)
				require.NoError(t, err)
				coef := append([]uint64(nil), src...)
				require.NoError(t, Reference(field.Goldilocks{}, coef, k, Options{Inverse: true, Root: Value(small)}))
				want := make([]uint64, len(src)*o.Rate)
				for r := range 3 {
					copy(want[r*o.Rate<<k:], coef[r<<k:(r+1)<<k])
				}
				require.NoError(t, Reference(field.Goldilocks{}, want, k+rateLog, Options{Root: Value(big), Coset: o.Coset, Shift: Value(shift), Out: o.Out}))
				got := make([]uint64, len(want))
				require.NoError(t, Extend(ctx, field.Goldilocks{}, got, src, k, o))
				require.Equal(t, -1, equal64(want, got), "2^%d %+v", k, o)
			}
		}
	}
	t.Run("cpu", func(t *testing.T) { run(t, nil) })
	gputest.ForEach(t, run)
}

func TestGoldilocksBadInput(t *testing.T) {
	for _, ctx := range []*wgpu.Context{nil, gputest.Context(t, gputest.Backends()[0])} {
		bad := make([]uint64, 8)
		bad[5] = field.GoldilocksP
		require.ErrorContains(t, Transform(ctx, field.Goldilocks{}, bad, 3, Options{}), "element 5: 18446744069414584321 is not a goldilocks element")
		require.ErrorContains(t, Transform(ctx, field.Goldilocks{}, make([]uint64, 2), 33, Options{}), "goldilocks takes 2^1 up to 2^32")
	}
}
