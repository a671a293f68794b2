package batch

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/field/u64emu"
	"github.com/wgcompute/wgcompute/internal/base/impl"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

const p = u64emu.P

// goldilocks is a Family of the Goldilocks shapes whose functions do
// nothing: the checks and the CPU path's plumbing are under test.
func goldilocks(name string, maxElements int) *Goldilocks {
	return New(Spec[uint64, [4]uint64, [8]uint64, [12]uint64]{Name: name, Modulus: p, MaxElements: maxElements, DigestAt: 4,
		Permute:      func(s *[12]uint64) { s[0]++ },
		Merge:        func(a, b [4]uint64) [4]uint64 { return [4]uint64{a[0], b[0], a[3], b[3]} },
		HashElements: func(els []uint64) [4]uint64 { return [4]uint64{uint64(len(els)), els[0]} },
		Variants:     []Variant{{Name: "fast"}, {Name: "slow"}}})
}

func TestChecks(t *testing.T) {
	h := goldilocks("h", 0)
	pairs := make([][8]uint64, 4)
	pairs[2][6] = p
	require.ErrorContains(t, h.CheckMerge(make([][4]uint64, 4), pairs), "h: merge: pair 2 element 6 is")
	require.ErrorContains(t, h.CheckMerge(nil, pairs), "h: merge: 0 destination digests for 4 pairs")
	in := make([]uint64, 12)
	in[7] = p + 1
	require.ErrorContains(t, h.CheckHash(make([][4]uint64, 4), in, 3), "h: hash: input 2 element 1")
	require.ErrorContains(t, h.CheckHash(make([][4]uint64, 4), in, 2), "need exactly 8")
	require.ErrorContains(t, h.CheckHash(nil, nil, -1), "zero or more")
	states := make([][12]uint64, 2)
	states[1][0] = ^uint64(0)
	require.ErrorContains(t, h.CheckPermute(states), "h: permute: state 1 element 0")
	require.NoError(t, h.CheckPermute(nil))

	bounded := goldilocks("b", 16)
	require.ErrorContains(t, bounded.CheckHash(nil, nil, 17), "b: hash: 17 elements per input: must be 0 to 16")
	require.ErrorContains(t, bounded.CheckHash(nil, nil, -1), "must be 0 to 16")
	require.NoError(t, bounded.CheckHash(make([][4]uint64, 1), make([]uint64, 16), 16))
}

// TestField31 runs the CPU path and the checks on the shapes of a 31-bit
// field (digests of 8 uint32, states of 16), where the element counts of
// the errors differ from Goldilocks'.
func TestField31(t *testing.T) {
	const bb = 15<<27 + 1 // BabyBear
	f := New(Spec[uint32, [8]uint32, [16]uint32, [16]uint32]{Name: "f31", Modulus: bb,
		Permute:      func(s *[16]uint32) { s[15] = s[0] },
		Merge:        func(a, b [8]uint32) [8]uint32 { return [8]uint32{a[7], b[0]} },
		HashElements: func(els []uint32) [8]uint32 { return [8]uint32{els[len(els)-1]} },
		Variants:     []Variant{{Name: "fast"}}})
	pairs := make([][16]uint32, 3)
	pairs[1][7], pairs[1][8] = 5, 6
	dst := make([][8]uint32, 3)
	var tm wgpu.Timing
	require.NoError(t, f.MergeMany(nil, dst, pairs, Options{Timing: &tm}))
	require.Equal(t, [8]uint32{5, 6}, dst[1])
	require.NotZero(t, tm.Wall)
	require.NoError(t, f.HashElementsMany(nil, dst[:2], []uint32{1, 2, 3, 4, 5, 6}, 3, Options{}))
	require.Equal(t, [][8]uint32{{3}, {6}}, dst[:2])
	states := [][16]uint32{{9}}
	require.NoError(t, f.PermuteMany(nil, states, Options{}))
	require.Equal(t, uint32(9), states[0][15])

	pairs[2][13] = bb
	require.ErrorContains(t, f.MergeMany(nil, dst, pairs, Options{}), "f31: merge: pair 2 element 13 is 2013265921")
	states[0][15] = bb
	require.ErrorContains(t, f.PermuteMany(nil, states, Options{}), "f31: permute: state 0 element 15")
}

// TestSpecShapes checks that a Spec whose types do not fit together gives
// a Family that fails every call saying why.
func TestSpecShapes(t *testing.T) {
	bad := New(Spec[uint64, [4]uint64, [6]uint64, [12]uint64]{Name: "bad", Modulus: p, Variants: []Variant{{Name: "fast"}}})
	require.ErrorContains(t, bad.MergeMany(nil, nil, nil, Options{}), "bad: a pair ([6]uint64) must be two digests ([4]uint64)")
	at := New(Spec[uint64, [4]uint64, [8]uint64, [12]uint64]{Name: "at", Modulus: p, DigestAt: 9, Variants: []Variant{{Name: "fast"}}})
	require.ErrorContains(t, at.PermuteMany(nil, nil, Options{}), "at: a digest at element 9 does not fit in a state of 12")
	none := New(Spec[uint64, [4]uint64, [8]uint64, [12]uint64]{Name: "none", Modulus: p})
	_, err := none.NewBatcher(nil, Options{})
	require.ErrorContains(t, err, "none: no kernel variant given")
	var zero Goldilocks
	require.EqualError(t, zero.MergeMany(nil, nil, nil, Options{}), "batch: a Family must come from batch.New")
	require.EqualError(t, zero.HashElementsMany(nil, nil, nil, 1, Options{}), "batch: a Family must come from batch.New")
	require.EqualError(t, zero.PermuteMany(nil, nil, Options{}), "batch: a Family must come from batch.New")
	two, err := sched.NewGroup(nil, nil) // a Group of several: the split path
	require.NoError(t, err)
	require.EqualError(t, zero.PermuteMany(two, nil, Options{}), "batch: a Family must come from batch.New")
}

// TestRegistered checks that New registers every variant, each a Family
// of its own that runs the same Go functions.
func TestRegistered(t *testing.T) {
	h := goldilocks("registered", 0)
	require.Equal(t, []string{"fast", "slow"}, impl.List("registered"))
	slow, err := impl.Select[*Goldilocks]("registered", "slow")
	require.NoError(t, err)
	require.Equal(t, 1, slow.v)
	require.Equal(t, h.Name(), slow.Name())
	_, err = impl.Select[*Goldilocks]("registered", "nope")
	require.EqualError(t, err, `registered: unknown variant "nope": accepted are [fast slow]`)
	var none *sched.Group // the CPU
	require.NoError(t, h.MergeMany(none, nil, nil, Options{}))
}

func TestFirstNonCanonical(t *testing.T) {
	for _, n := range []int{0, 1, 5, 3<<20 + 7} {
		els := make([]uint64, n)
		require.Equal(t, -1, FirstNonCanonical(els, p))
		if n == 0 {
			continue
		}
		for _, at := range []int{n - 1, n / 2, 0} {
			els[at] = p
			require.Equal(t, at, FirstNonCanonical(els, p), "n=%d", n)
		}
	}
}

func TestOpString(t *testing.T) {
	require.Equal(t, "permute", OpPermute.String())
	require.Equal(t, "merge", OpMerge.String())
	require.Equal(t, "hash", OpHash.String())
	require.Equal(t, "Op(7)", Op(7).String())
}
