package poseidon2

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/internal/gputest"
	"github.com/wgcompute/wgcompute/internal/par"
	"github.com/wgcompute/wgcompute/wgpu"
)

func TestMain(m *testing.M) { os.Exit(gputest.Main(m)) }

// randElement draws canonical elements with the edges over-represented:
// p-1 and values just below p, small values, a high word of 2^32-2.
func randElement(rng *rand.Rand) uint64 {
	switch rng.IntN(8) {
	case 0:
		return P - 1 - rng.Uint64N(64)
	case 1:
		return rng.Uint64N(64)
	case 2:
		return P - 1
	case 3:
		return uint64(rng.Uint32()) | 0xFFFF_FFFE_0000_0000
	}
	return rng.Uint64N(P)
}

// newRand returns a generator of a fresh seed, logged so that a failure
// can be replayed.
func newRand(t testing.TB) *rand.Rand {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, 0x9053_1d02))
}

func randElements(rng *rand.Rand, n int) []uint64 {
	els := make([]uint64, n)
	for i := range els {
		els[i] = randElement(rng)
	}
	return els
}

// forEachImpl runs fn on every implementation: the CPU backend (a nil
// Context), and every variant on every GPU backend, with the device's
// limits and with gputest.SmallLimits, under which the tests' batches
// span several pieces.
func forEachImpl(t *testing.T, fn func(t *testing.T, ctx *wgpu.Context, opts Options)) {
	t.Run("cpu", func(t *testing.T) { fn(t, nil, Options{}) })
	variants := func(t *testing.T, ctx *wgpu.Context) {
		for _, v := range Variants {
			t.Run(v.String(), func(t *testing.T) { fn(t, ctx, Options{Variant: v}) })
		}
	}
	gputest.ForEach(t, variants)
	gputest.ForEachSmall(t, variants)
}

// hashLengths are the hash inputs' lengths: below, at and past the rate,
// and several blocks with a partial last one.
var hashLengths = []int{1, 7, 8, 9, 16, 17, 25}

// TestImplementationsMatchReference checks every implementation against
// the Go reference: the vectors of testdata, then fresh random batches of
// odd sizes, large enough to span several pieces under small limits (1024
// merges, 682 states of a piece).
func TestImplementationsMatchReference(t *testing.T) {
	rng := newRand(t)
	spec := loadSpec(t)
	pairs := make([][8]uint64, 1501)
	for i := range pairs {
		pairs[i] = [8]uint64(randElements(rng, 8))
	}
	pairs[0] = [8]uint64{P - 1, P - 1, P - 1, P - 1, P - 1, P - 1, P - 1, P - 1}
	pairs[1] = [8]uint64{}
	wantMerge := make([][4]uint64, len(pairs))
	par.For(len(pairs), 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			wantMerge[i] = Merge([4]uint64(pairs[i][:4]), [4]uint64(pairs[i][4:]))
		}
	})
	states := make([][12]uint64, 801)
	for i := range states {
		states[i] = [12]uint64(randElements(rng, 12))
	}
	wantStates := slices.Clone(states)
	par.For(len(states), 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			Permute(&wantStates[i])
		}
	})
	const hashes = 701
	inputs := map[int][]uint64{}
	wantHash := map[int][][4]uint64{}
	for _, m := range hashLengths {
		in := randElements(rng, hashes*m)
		w := make([][4]uint64, hashes)
		for i := range w {
			w[i] = HashElements(in[i*m : (i+1)*m])
		}
		inputs[m], wantHash[m] = in, w
	}

	forEachImpl(t, func(t *testing.T, ctx *wgpu.Context, opts Options) {
		for i, v := range allVectors(spec) {
			in, want := nums(t, v.Input), nums(t, v.Output)
			switch v.Fn {
			case "permutation":
				st := [][12]uint64{[12]uint64(in)}
				require.NoError(t, PermuteMany(ctx, st, opts))
				require.Equal(t, want, st[0][:], "vector %d", i)
			case "hash_elements":
				dst := [][4]uint64{{1, 2, 3, 4}}
				require.NoError(t, HashElementsMany(ctx, dst, in, len(in), opts))
				require.Equal(t, want, dst[0][:], "vector %d (%d elements)", i, len(in))
			case "merge":
				dst := make([][4]uint64, 1)
				require.NoError(t, MergeMany(ctx, dst, [][8]uint64{[8]uint64(in)}, opts))
				require.Equal(t, want, dst[0][:], "vector %d", i)
			}
		}

		got := make([][4]uint64, len(pairs))
		require.NoError(t, MergeMany(ctx, got, pairs, opts))
		for i := range got {
			if got[i] != wantMerge[i] {
				t.Fatalf("pair %d %v: got %v, want %v", i, pairs[i], got[i], wantMerge[i])
			}
		}
		s := slices.Clone(states)
		require.NoError(t, PermuteMany(ctx, s, opts))
		for i := range s {
			require.Equal(t, wantStates[i], s[i], "state %d", i)
		}
		for _, m := range hashLengths {
			dst := make([][4]uint64, hashes)
			require.NoError(t, HashElementsMany(ctx, dst, inputs[m], m, opts))
			for i := range dst {
				require.Equal(t, wantHash[m][i], dst[i], "m=%d input %d", m, i)
			}
		}
		// Zero-length inputs hash to the zero digest without a permutation.
		dst := [][4]uint64{{1, 2, 3, 4}, {5, 6, 7, 8}}
		require.NoError(t, HashElementsMany(ctx, dst, nil, 0, opts))
		require.Equal(t, [][4]uint64{{}, {}}, dst)
	})
}

// TestGuard runs every operation under small limits with a sentinel item
// after each piece's output: a kernel that writes past its items fails the
// batch.
func TestGuard(t *testing.T) {
	rng := newRand(t)
	const n = 1100
	pairs := make([][8]uint64, n)
	states := make([][12]uint64, n)
	for i := range pairs {
		pairs[i] = [8]uint64(randElements(rng, 8))
		states[i] = [12]uint64(randElements(rng, 12))
	}
	const m = 13
	in := randElements(rng, n*m)
	gputest.ForEachSmall(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, v := range Variants {
			b, err := NewBatcher(ctx, Options{Variant: v})
			require.NoError(t, err)
			b.b.Guard = true
			dst := make([][4]uint64, n)
			require.NoError(t, b.MergeMany(dst, pairs), "variant %s", v)
			require.Equal(t, Merge([4]uint64(pairs[n-1][:4]), [4]uint64(pairs[n-1][4:])), dst[n-1])
			require.NoError(t, b.HashElementsMany(dst, in, m), "variant %s", v)
			require.Equal(t, HashElements(in[(n-1)*m:]), dst[n-1])
			st := slices.Clone(states)
			require.NoError(t, b.PermuteMany(st), "variant %s", v)
			want := states[n-1]
			Permute(&want)
			require.Equal(t, want, st[n-1])
			b.Release()
		}
	})
}

// TestMergeManyLarge merges 100k pairs on every backend, with the
// default variant, in pieces the Batcher sizes itself.
func TestMergeManyLarge(t *testing.T) {
	const n = 100_001
	rng := newRand(t)
	pairs := make([][8]uint64, n)
	for i := range pairs {
		pairs[i] = [8]uint64(randElements(rng, 8))
	}
	want := make([][4]uint64, n)
	var cpu wgpu.Timing
	require.NoError(t, MergeMany(nil, want, pairs, Options{Timing: &cpu}))
	t.Logf("%d merges on the CPU backend in %v", n, cpu.Wall)
	for _, i := range []int{0, n / 2, n - 1} {
		require.Equal(t, Merge([4]uint64(pairs[i][:4]), [4]uint64(pairs[i][4:])), want[i], "CPU backend, pair %d", i)
	}
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		got := make([][4]uint64, n)
		var tm wgpu.Timing
		start := time.Now()
		require.NoError(t, MergeMany(ctx, got, pairs, Options{Timing: &tm}))
		t.Logf("%d merges in %v (kernel %v, measured %v)", n, time.Since(start), tm.Kernel, tm.Measured)
		require.NotZero(t, tm.Wall)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("pair %d %v: got %v, want %v", i, pairs[i], got[i], want[i])
			}
		}
	})
}

// TestBatcherReuse runs one resident Batcher per variant through every
// operation and several sizes, then checks Release frees its buffers.
func TestBatcherReuse(t *testing.T) {
	rng := newRand(t)
	forEachImpl(t, func(t *testing.T, ctx *wgpu.Context, opts Options) {
		before := ctx.LiveBuffers()
		var tm wgpu.Timing
		opts.Timing = &tm
		b, err := NewBatcher(ctx, opts)
		require.NoError(t, err)
		for _, n := range []int{3, 1100, 1} {
			pairs := make([][8]uint64, n)
			for i := range pairs {
				pairs[i] = [8]uint64(randElements(rng, 8))
			}
			dst := make([][4]uint64, n)
			tm = wgpu.Timing{}
			require.NoError(t, b.MergeMany(dst, pairs))
			require.NotZero(t, tm.Elapsed(), "n=%d", n)
			require.Equal(t, Merge([4]uint64(pairs[n-1][:4]), [4]uint64(pairs[n-1][4:])), dst[n-1], "n=%d", n)
			in := randElements(rng, n*11)
			require.NoError(t, b.HashElementsMany(dst, in, 11))
			require.Equal(t, HashElements(in[(n-1)*11:]), dst[n-1], "n=%d", n)
			st := [][12]uint64{[12]uint64(randElements(rng, 12))}
			want := st[0]
			Permute(&want)
			require.NoError(t, b.PermuteMany(st))
			require.Equal(t, want, st[0])
		}
		b.Release()
		require.Equal(t, before, ctx.LiveBuffers(), "buffers left after Release")
	})
}

func TestTiming(t *testing.T) {
	pairs := make([][8]uint64, 100)
	dst := make([][4]uint64, len(pairs))
	check := func(t *testing.T, ctx *wgpu.Context) {
		var tm wgpu.Timing
		require.NoError(t, MergeMany(ctx, dst, pairs, Options{Timing: &tm}))
		require.NotZero(t, tm.Wall)
		require.Equal(t, ctx != nil && ctx.Info().Timestamps, tm.Measured)
	}
	t.Run("cpu", func(t *testing.T) { check(t, nil) })
	gputest.ForEach(t, check)
}

func TestBadInput(t *testing.T) {
	check := func(t *testing.T, ctx *wgpu.Context) {
		pairs := make([][8]uint64, 10)
		pairs[7][5] = P
		pairs[9][0] = ^uint64(0)
		dst := make([][4]uint64, 10)
		err := MergeMany(ctx, dst, pairs, Options{})
		require.ErrorContains(t, err, "poseidon2: merge: pair 7 element 5")
		require.ErrorContains(t, err, "below p")
		require.Equal(t, make([][4]uint64, 10), dst, "nothing written on error")

		require.ErrorContains(t, MergeMany(ctx, dst[:3], pairs, Options{}), "3 destination digests for 10 pairs")

		in := make([]uint64, 30)
		in[17] = P + 5
		err = HashElementsMany(ctx, make([][4]uint64, 3), in, 10, Options{})
		require.ErrorContains(t, err, "input 1 element 7")
		require.ErrorContains(t, HashElementsMany(ctx, make([][4]uint64, 3), in, 9, Options{}), "need exactly 27")
		require.ErrorContains(t, HashElementsMany(ctx, make([][4]uint64, 3), in, -1, Options{}), "must be 0 to")
		require.ErrorContains(t, HashElementsMany(ctx, nil, nil, 1<<31+1, Options{}), "must be 0 to 2147483648")

		states := make([][12]uint64, 4)
		states[3][11] = P
		require.ErrorContains(t, PermuteMany(ctx, states, Options{}), "state 3 element 11")

		err = MergeMany(ctx, make([][4]uint64, 1), make([][8]uint64, 1), Options{Variant: Variant(42)})
		require.ErrorContains(t, err, "unknown variant 42")
		_, err = NewBatcher(ctx, Options{Variant: -1})
		require.ErrorContains(t, err, "accepted are [fast")

		// Empty batches touch nothing.
		require.NoError(t, MergeMany(ctx, nil, nil, Options{}))
		require.NoError(t, PermuteMany(ctx, nil, Options{}))
		require.NoError(t, HashElementsMany(ctx, nil, nil, 5, Options{}))
	}
	t.Run("cpu", func(t *testing.T) { check(t, nil) })
	gputest.ForEach(t, check)
}

// TestTooLargeForLimits asks for one input larger than a storage binding.
func TestTooLargeForLimits(t *testing.T) {
	gputest.ForEachSmall(t, func(t *testing.T, ctx *wgpu.Context) {
		m := int(gputest.SmallLimits.MaxStorageBindingSize/8) + 1
		err := HashElementsMany(ctx, make([][4]uint64, 1), make([]uint64, m), m, Options{})
		require.ErrorContains(t, err, "poseidon2: hash:")
		require.ErrorContains(t, err, "storage binding limit")
	})
}

func TestParseVariant(t *testing.T) {
	for _, v := range Variants {
		got, err := ParseVariant(v.String())
		require.NoError(t, err)
		require.Equal(t, v, got)
	}
	_, err := ParseVariant("nope")
	require.ErrorContains(t, err, "fast")
	require.True(t, strings.HasPrefix(Variant(9).String(), "Variant("))
	require.Equal(t, Fast, Variant(0), "the zero value is the default")
	require.Equal(t, []string{"fast", "muldiag"}, VariantNames())
}

// TestGroupSplits runs each operation split over Groups of 2, 3 and 7
// devices (gputest.ForEachGroup: members of different limits) on odd
// sizes, and compares with the CPU: the split must not change a digest.
func TestGroupSplits(t *testing.T) {
	rng := newRand(t)
	const n, m = 1003, 13
	pairs := make([][8]uint64, n)
	states := make([][12]uint64, n)
	for i := range pairs {
		pairs[i] = [8]uint64(randElements(rng, 8))
		states[i] = [12]uint64(randElements(rng, 12))
	}
	inputs := randElements(rng, n*m)
	wantMerge := make([][4]uint64, n)
	wantHash := make([][4]uint64, n)
	wantPerm := slices.Clone(states)
	require.NoError(t, MergeMany(nil, wantMerge, pairs, Options{}))
	require.NoError(t, HashElementsMany(nil, wantHash, inputs, m, Options{}))
	require.NoError(t, PermuteMany(nil, wantPerm, Options{}))
	gputest.ForEachGroup(t, func(t *testing.T, g *wgpu.Group) {
		var tm wgpu.Timing
		got := make([][4]uint64, n)
		require.NoError(t, MergeManyOn(g, got, pairs, Options{Timing: &tm}))
		require.Equal(t, wantMerge, got)
		require.NotZero(t, tm.Wall)
		got = make([][4]uint64, n)
		require.NoError(t, HashElementsManyOn(g, got, inputs, m, Options{}))
		require.Equal(t, wantHash, got)
		perm := slices.Clone(states)
		require.NoError(t, PermuteManyOn(g, perm, Options{Variant: MulDiag}))
		require.Equal(t, wantPerm, perm)
		// A bad element is named by its index in the whole input.
		bad := slices.Clone(pairs)
		bad[n-2][3] = P
		require.ErrorContains(t, MergeManyOn(g, got, bad, Options{}), fmt.Sprintf("pair %d element 3", n-2))
		for _, c := range g.Contexts() {
			require.Zero(t, c.LiveBuffers())
		}
	})
	require.ErrorContains(t, MergeManyOn(nil, nil, nil, Options{}), "no Group")
}
