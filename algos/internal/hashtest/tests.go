package hashtest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// Vector is a known answer: Fn is "permutation" (In a state, Want the
// permuted state), "hash_elements" (Want the digest of In), "merge" (In
// one or more pairs, Want their digests in order) or "merklize" (In the
// leaves, Want the tree's nodes in heap order: the last level's parents
// at n..2n for n pairs of leaves).
type Vector struct {
	Fn       string
	In, Want []uint64
}

// MatchReference checks every implementation against the vectors, then
// against the Go reference on fresh random batches of odd sizes, large
// enough to span several pieces under small limits (1024 merges, 682
// states of a piece): merges (all p-1 and all zero first), permutations,
// hashes of f.HashLengths elements and zero-length hashes.
func MatchReference(t *testing.T, f *Family, vectors []Vector) {
	rng := NewRand(t, f.Stream)
	pairs := randPairs(rng, 1501)
	pairs[0] = [8]uint64{P - 1, P - 1, P - 1, P - 1, P - 1, P - 1, P - 1, P - 1}
	pairs[1] = [8]uint64{}
	wantMerge := make([][4]uint64, len(pairs))
	par.For(len(pairs), 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			wantMerge[i] = f.merge(pairs[i])
		}
	})
	states := randStates(rng, 801)
	wantStates := slices.Clone(states)
	par.For(len(states), 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			f.Permute(&wantStates[i])
		}
	})
	const hashes = 701
	inputs := map[int][]uint64{}
	wantHash := map[int][][4]uint64{}
	for _, m := range f.HashLengths {
		in := RandElements(rng, hashes*m)
		w := make([][4]uint64, hashes)
		for i := range w {
			w[i] = f.HashElements(in[i*m : (i+1)*m])
		}
		inputs[m], wantHash[m] = in, w
	}

	f.ForEachImpl(t, func(t *testing.T, ctx *wgpu.Context, v int) {
		for i, vec := range vectors {
			f.checkVector(t, ctx, v, i, vec)
		}

		got := make([][4]uint64, len(pairs))
		require.NoError(t, f.MergeMany(ctx, got, pairs, v, nil))
		for i := range got {
			if got[i] != wantMerge[i] {
				t.Fatalf("pair %d %v: got %v, want %v", i, pairs[i], got[i], wantMerge[i])
			}
		}
		st := slices.Clone(states)
		require.NoError(t, f.PermuteMany(ctx, st, v, nil))
		for i := range st {
			require.Equal(t, wantStates[i], st[i], "state %d", i)
		}
		for _, m := range f.HashLengths {
			dst := make([][4]uint64, hashes)
			require.NoError(t, f.HashElementsMany(ctx, dst, inputs[m], m, v, nil))
			for i := range dst {
				require.Equal(t, wantHash[m][i], dst[i], "m=%d input %d", m, i)
			}
		}
		// Zero-length inputs hash to the zero digest without a permutation.
		dst := [][4]uint64{{1, 2, 3, 4}, {5, 6, 7, 8}}
		require.NoError(t, f.HashElementsMany(ctx, dst, nil, 0, v, nil))
		require.Equal(t, [][4]uint64{{}, {}}, dst)
	})
}

// checkVector runs vector i on ctx with variant v.
func (f *Family) checkVector(t *testing.T, ctx *wgpu.Context, v, i int, vec Vector) {
	in, want := vec.In, vec.Want
	switch vec.Fn {
	case "permutation":
		st := [][12]uint64{[12]uint64(in)}
		require.NoError(t, f.PermuteMany(ctx, st, v, nil))
		require.Equal(t, want, st[0][:], "vector %d", i)
	case "hash_elements":
		dst := [][4]uint64{{1, 2, 3, 4}}
		require.NoError(t, f.HashElementsMany(ctx, dst, in, len(in), v, nil))
		require.Equal(t, want, dst[0][:], "vector %d (%d elements)", i, len(in))
	case "merge":
		dst := make([][4]uint64, len(in)/8)
		require.NoError(t, f.MergeMany(ctx, dst, pairsOf(in), v, nil))
		for k := range dst {
			require.Equal(t, want[4*k:4*k+4], dst[k][:], "vector %d pair %d", i, k)
		}
	case "merklize":
		// The last level of the tree: leaves merged pairwise.
		n := len(in) / 8
		dst := make([][4]uint64, n)
		require.NoError(t, f.MergeMany(ctx, dst, pairsOf(in), v, nil))
		for k := range dst {
			require.Equal(t, want[4*(n+k):4*(n+k)+4], dst[k][:], "vector %d node %d", i, n+k)
		}
	default:
		t.Fatalf("vector %d: unknown function %q", i, vec.Fn)
	}
}

// pairsOf copies els into pairs of eight.
func pairsOf(els []uint64) [][8]uint64 {
	ps := make([][8]uint64, len(els)/8)
	for k := range ps {
		ps[k] = [8]uint64(els[8*k:])
	}
	return ps
}

// Guard runs every operation of every variant under small limits with a
// sentinel item after each piece's output: a kernel that writes past its
// items fails the batch.
func Guard(t *testing.T, f *Family) {
	rng := NewRand(t, f.Stream)
	const n = 1100
	pairs := randPairs(rng, n)
	states := randStates(rng, n)
	const m = 13
	in := RandElements(rng, n*m)
	gputest.ForEachSmall(t, func(t *testing.T, ctx *wgpu.Context) {
		for v, name := range f.Variants {
			b, err := f.NewBatcher(ctx, v, nil)
			require.NoError(t, err)
			f.Guard(b)
			dst := make([][4]uint64, n)
			require.NoError(t, b.MergeMany(dst, pairs), "variant %s", name)
			require.Equal(t, f.merge(pairs[n-1]), dst[n-1])
			require.NoError(t, b.HashElementsMany(dst, in, m), "variant %s", name)
			require.Equal(t, f.HashElements(in[(n-1)*m:]), dst[n-1])
			st := slices.Clone(states)
			require.NoError(t, b.PermuteMany(st), "variant %s", name)
			want := states[n-1]
			f.Permute(&want)
			require.Equal(t, want, st[n-1])
			b.Release()
		}
	})
}

// MergeManyLarge merges f.LargeMerges pairs on every backend, with the
// default variant, in pieces the Batcher sizes itself.
func MergeManyLarge(t *testing.T, f *Family) {
	n := f.LargeMerges
	rng := NewRand(t, f.Stream)
	pairs := randPairs(rng, n)
	want := make([][4]uint64, n)
	var cpu wgpu.Timing
	require.NoError(t, f.MergeMany(nil, want, pairs, 0, &cpu))
	t.Logf("%d merges on the CPU backend in %v", n, cpu.Wall)
	for _, i := range []int{0, n / 2, n - 1} {
		require.Equal(t, f.merge(pairs[i]), want[i], "CPU backend, pair %d", i)
	}
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		got := make([][4]uint64, n)
		var tm wgpu.Timing
		start := time.Now()
		require.NoError(t, f.MergeMany(ctx, got, pairs, 0, &tm))
		t.Logf("%d merges in %v (kernel %v, measured %v)", n, time.Since(start), tm.Kernel, tm.Measured)
		require.NotZero(t, tm.Wall)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("pair %d %v: got %v, want %v", i, pairs[i], got[i], want[i])
			}
		}
	})
}

// BatcherReuse runs one resident Batcher per variant through every
// operation and several sizes, then checks Release frees its buffers.
func BatcherReuse(t *testing.T, f *Family) {
	rng := NewRand(t, f.Stream)
	f.ForEachImpl(t, func(t *testing.T, ctx *wgpu.Context, v int) {
		before := ctx.LiveBuffers()
		var tm wgpu.Timing
		b, err := f.NewBatcher(ctx, v, &tm)
		require.NoError(t, err)
		for _, n := range []int{3, 1100, 1} {
			pairs := randPairs(rng, n)
			dst := make([][4]uint64, n)
			tm = wgpu.Timing{}
			require.NoError(t, b.MergeMany(dst, pairs))
			require.NotZero(t, tm.Elapsed(), "n=%d", n)
			require.Equal(t, f.merge(pairs[n-1]), dst[n-1], "n=%d", n)
			in := RandElements(rng, n*11)
			require.NoError(t, b.HashElementsMany(dst, in, 11))
			require.Equal(t, f.HashElements(in[(n-1)*11:]), dst[n-1], "n=%d", n)
			st := randStates(rng, 1)
			want := st[0]
			f.Permute(&want)
			require.NoError(t, b.PermuteMany(st))
			require.Equal(t, want, st[0])
		}
		b.Release()
		require.Equal(t, before, ctx.LiveBuffers(), "buffers left after Release")
	})
}

// Timing checks that a merge reports its wall time on every backend, and
// measured kernel time where the device has timestamps.
func Timing(t *testing.T, f *Family) {
	pairs := make([][8]uint64, 100)
	dst := make([][4]uint64, len(pairs))
	check := func(t *testing.T, ctx *wgpu.Context) {
		var tm wgpu.Timing
		require.NoError(t, f.MergeMany(ctx, dst, pairs, 0, &tm))
		require.NotZero(t, tm.Wall)
		require.Equal(t, ctx != nil && ctx.Info().Timestamps, tm.Measured)
	}
	t.Run("cpu", func(t *testing.T) { check(t, nil) })
	gputest.ForEach(t, check)
}

// BadInput checks the errors of input the batch functions reject, before
// anything is written, on every backend, and that empty batches succeed.
func BadInput(t *testing.T, f *Family) {
	check := func(t *testing.T, ctx *wgpu.Context) {
		pairs := make([][8]uint64, 10)
		pairs[7][5] = P
		pairs[9][0] = ^uint64(0)
		dst := make([][4]uint64, 10)
		err := f.MergeMany(ctx, dst, pairs, 0, nil)
		require.ErrorContains(t, err, f.Name+": merge: pair 7 element 5")
		require.ErrorContains(t, err, "below p")
		require.Equal(t, make([][4]uint64, 10), dst, "nothing written on error")

		require.ErrorContains(t, f.MergeMany(ctx, dst[:3], pairs, 0, nil), "3 destination digests for 10 pairs")

		in := make([]uint64, 30)
		in[17] = P + 5
		err = f.HashElementsMany(ctx, make([][4]uint64, 3), in, 10, 0, nil)
		require.ErrorContains(t, err, f.Name+": hash: input 1 element 7")
		require.ErrorContains(t, f.HashElementsMany(ctx, make([][4]uint64, 3), in, 9, 0, nil), "need exactly 27")
		if f.MaxElements > 0 {
			require.ErrorContains(t, f.HashElementsMany(ctx, make([][4]uint64, 3), in, -1, 0, nil), "must be 0 to")
			require.ErrorContains(t, f.HashElementsMany(ctx, nil, nil, f.MaxElements+1, 0, nil), fmt.Sprintf("must be 0 to %d", f.MaxElements))
		} else {
			require.ErrorContains(t, f.HashElementsMany(ctx, make([][4]uint64, 3), in, -1, 0, nil), "zero or more")
			// 4 × 2^62 elements wrapped to 0, which no inputs matched.
			require.ErrorContains(t, f.HashElementsMany(ctx, make([][4]uint64, 4), nil, 1<<62, 0, nil),
				"4 inputs of 4611686018427387904 elements: 4 × 4611686018427387904 is more than 9223372036854775807 elements")
		}

		states := make([][12]uint64, 4)
		states[3][11] = P
		require.ErrorContains(t, f.PermuteMany(ctx, states, 0, nil), f.Name+": permute: state 3 element 11")

		err = f.MergeMany(ctx, make([][4]uint64, 1), make([][8]uint64, 1), 42, nil)
		require.ErrorContains(t, err, f.Name+`: unknown variant "42"`)
		_, err = f.NewBatcher(ctx, -1, nil)
		require.ErrorContains(t, err, "accepted are [fast")

		// Empty batches touch nothing.
		require.NoError(t, f.MergeMany(ctx, nil, nil, 0, nil))
		require.NoError(t, f.PermuteMany(ctx, nil, 0, nil))
		require.NoError(t, f.HashElementsMany(ctx, nil, nil, 5, 0, nil))
	}
	t.Run("cpu", func(t *testing.T) { check(t, nil) })
	gputest.ForEach(t, check)
}

// TooLargeForLimits asks for one input larger than a storage binding.
func TooLargeForLimits(t *testing.T, f *Family) {
	gputest.ForEachSmall(t, func(t *testing.T, ctx *wgpu.Context) {
		m := int(gputest.SmallLimits.MaxStorageBindingSize/8) + 1
		err := f.HashElementsMany(ctx, make([][4]uint64, 1), make([]uint64, m), m, 0, nil)
		require.ErrorContains(t, err, f.Name+": hash:")
		require.ErrorContains(t, err, "storage binding limit")
	})
}

// Variants checks that every registered variant can be selected by its
// name, that an unknown name is reported with the names accepted, and
// that the default is fast.
func Variants(t *testing.T, f *Family) {
	require.NotEmpty(t, f.Variants)
	for _, name := range f.Variants {
		require.NoError(t, f.Select(name))
	}
	err := f.Select("nope")
	require.ErrorContains(t, err, f.Name+`: unknown variant "nope"`)
	require.ErrorContains(t, err, "fast")
	require.Equal(t, "fast", f.Variants[0], "the default is fast")
}

// GroupSplits runs each operation split over Groups of 2, 3 and 7
// devices (gputest.ForEachGroup: members of different limits) on odd
// sizes, and compares with the CPU: the split must not change a digest.
func GroupSplits(t *testing.T, f *Family) {
	rng := NewRand(t, f.Stream)
	const n, m = 1003, 13
	pairs := randPairs(rng, n)
	states := randStates(rng, n)
	inputs := RandElements(rng, n*m)
	wantMerge := make([][4]uint64, n)
	wantHash := make([][4]uint64, n)
	wantPerm := slices.Clone(states)
	require.NoError(t, f.MergeMany(nil, wantMerge, pairs, 0, nil))
	require.NoError(t, f.HashElementsMany(nil, wantHash, inputs, m, 0, nil))
	require.NoError(t, f.PermuteMany(nil, wantPerm, 0, nil))
	gputest.ForEachGroup(t, func(t *testing.T, g *sched.Group) {
		var tm wgpu.Timing
		got := make([][4]uint64, n)
		require.NoError(t, f.MergeManyOn(g, got, pairs, 0, &tm))
		require.Equal(t, wantMerge, got)
		require.NotZero(t, tm.Wall)
		got = make([][4]uint64, n)
		require.NoError(t, f.HashElementsManyOn(g, got, inputs, m, 0, nil))
		require.Equal(t, wantHash, got)
		perm := slices.Clone(states)
		require.NoError(t, f.PermuteManyOn(g, perm, len(f.Variants)-1, nil))
		require.Equal(t, wantPerm, perm)
		// A bad element is named by its index in the whole input.
		bad := slices.Clone(pairs)
		bad[n-2][3] = P
		require.ErrorContains(t, f.MergeManyOn(g, got, bad, 0, nil), fmt.Sprintf("%s: merge: pair %d element 3", f.Name, n-2))
		for _, c := range g.Contexts() {
			require.Zero(t, c.LiveBuffers())
		}
	})
	// A nil Group is the CPU.
	got := make([][4]uint64, n)
	require.NoError(t, f.MergeManyOn(nil, got, pairs, 0, nil))
	require.Equal(t, wantMerge, got)
}

// NoLeaks checks that every operation, a rejected input and a resident
// Batcher, released, leave no device objects behind, with the default
// variant and f.LeakVariants.
func NoLeaks(t *testing.T, f *Family) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		gputest.NoLeaks(t, ctx, func() error {
			return f.MergeMany(ctx, make([][4]uint64, 101), make([][8]uint64, 101), 0, nil)
		})
		gputest.NoLeaks(t, ctx, func() error {
			return f.HashElementsMany(ctx, make([][4]uint64, 7), make([]uint64, 7*13), 13, 0, nil)
		})
		leak := []int{0}
		for _, name := range f.LeakVariants {
			v := slices.Index(f.Variants, name)
			require.GreaterOrEqual(t, v, 0, "LeakVariants: %s is not registered", name)
			leak = append(leak, v)
		}
		for _, v := range leak {
			gputest.NoLeaks(t, ctx, func() error {
				return f.PermuteMany(ctx, make([][12]uint64, 5), v, nil)
			})
			gputest.NoLeaks(t, ctx, func() error { // an element >= p is rejected
				pairs := make([][8]uint64, 3)
				pairs[2][5] = P
				return f.MergeMany(ctx, make([][4]uint64, 3), pairs, v, nil)
			})
			gputest.NoLeaks(t, ctx, func() error { // a resident Batcher, released
				b, err := f.NewBatcher(ctx, v, nil)
				if err != nil {
					return err
				}
				defer b.Release()
				if err := b.MergeMany(make([][4]uint64, 9), make([][8]uint64, 9)); err != nil {
					return err
				}
				return b.HashElementsMany(make([][4]uint64, 9), make([]uint64, 9*3), 3)
			})
		}
	})
}
