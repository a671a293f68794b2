// Package hashtest holds the tests that the Goldilocks hash families
// (packages rescue, rpo and poseidon2) share: their batch functions have
// the same shape, checks, CPU path and Group split, so one test body,
// given a Family, runs for each of them on the CPU backend and every GPU
// backend. Each package keeps a test function per shared test that calls
// it with its Family, and its own tests of what is its own (constants,
// vectors, references).
package hashtest

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// P is the Goldilocks prime.
const P = field.GoldilocksP

// Batcher is a family's resident Batcher.
type Batcher interface {
	MergeMany(dst [][4]uint64, pairs [][8]uint64) error
	HashElementsMany(dst [][4]uint64, inputs []uint64, m int) error
	PermuteMany(states [][12]uint64) error
	Release()
}

// Family is one hash family as the shared tests see it (Of fills the
// functions). The functions taking a variant v and a timing t run the
// v-th registered variant with Options{Timing: t}.
type Family struct {
	// Name starts the family's errors: "rescue".
	Name string
	// Stream is the second word of the tests' generators.
	Stream uint64
	// Variants names the registered variants, the default (0) first.
	Variants []string
	// Select returns the registry's error for the variant named name.
	Select func(name string) error
	// MaxElements is the bound the package's CheckHash names, or 0.
	MaxElements int
	// HashLengths are the hash input lengths MatchReference checks.
	HashLengths []int
	// LargeMerges is the size of MergeManyLarge's batch.
	LargeMerges int
	// LeakVariants name variants beside the default whose Batchers hold
	// more (a round constants' buffer) for NoLeaks to check.
	LeakVariants []string

	Merge        func(a, b [4]uint64) [4]uint64
	HashElements func(els []uint64) [4]uint64
	Permute      func(state *[12]uint64)

	NewBatcher       func(ctx *wgpu.Context, v int, t *wgpu.Timing) (Batcher, error)
	MergeMany        func(ctx *wgpu.Context, dst [][4]uint64, pairs [][8]uint64, v int, t *wgpu.Timing) error
	HashElementsMany func(ctx *wgpu.Context, dst [][4]uint64, inputs []uint64, m int, v int, t *wgpu.Timing) error
	PermuteMany      func(ctx *wgpu.Context, states [][12]uint64, v int, t *wgpu.Timing) error

	MergeManyOn        func(g *sched.Group, dst [][4]uint64, pairs [][8]uint64, v int, t *wgpu.Timing) error
	HashElementsManyOn func(g *sched.Group, dst [][4]uint64, inputs []uint64, m int, v int, t *wgpu.Timing) error
	PermuteManyOn      func(g *sched.Group, states [][12]uint64, v int, t *wgpu.Timing) error

	// Guard turns on a Batcher's sentinel after each piece's output.
	Guard func(b Batcher)
}

// RandElement draws canonical elements with the edges over-represented:
// p-1 and values just below p, small values, a high word of 2^32-2.
func RandElement(rng *rand.Rand) uint64 {
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

// RandElements returns n elements of RandElement.
func RandElements(rng *rand.Rand, n int) []uint64 {
	els := make([]uint64, n)
	for i := range els {
		els[i] = RandElement(rng)
	}
	return els
}

// NewRand returns a generator of a fresh seed and the given stream, the
// seed logged so that a failure can be replayed.
func NewRand(t testing.TB, stream uint64) *rand.Rand {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, stream))
}

// Nums parses decimal or "0x..." elements of a test vector file.
func Nums(t testing.TB, ss []string) []uint64 {
	t.Helper()
	out := make([]uint64, len(ss))
	for i, s := range ss {
		v, err := strconv.ParseUint(s, 0, 64)
		require.NoError(t, err)
		out[i] = v
	}
	return out
}

// ForEachImpl runs fn on every implementation of f: the CPU backend (a
// nil Context), and every variant on every GPU backend, with the device's
// limits and with gputest.SmallLimits, under which the tests' batches
// span several pieces.
func (f *Family) ForEachImpl(t *testing.T, fn func(t *testing.T, ctx *wgpu.Context, v int)) {
	t.Run("cpu", func(t *testing.T) { fn(t, nil, 0) })
	variants := func(t *testing.T, ctx *wgpu.Context) {
		for v, name := range f.Variants {
			t.Run(name, func(t *testing.T) { fn(t, ctx, v) })
		}
	}
	gputest.ForEach(t, variants)
	gputest.ForEachSmall(t, variants)
}

// merge is f.Merge of a pair.
func (f *Family) merge(p [8]uint64) [4]uint64 {
	return f.Merge([4]uint64(p[:4]), [4]uint64(p[4:]))
}

// randPairs returns n pairs of RandElements.
func randPairs(rng *rand.Rand, n int) [][8]uint64 {
	pairs := make([][8]uint64, n)
	for i := range pairs {
		pairs[i] = [8]uint64(RandElements(rng, 8))
	}
	return pairs
}

// randStates returns n states of RandElements.
func randStates(rng *rand.Rand, n int) [][12]uint64 {
	states := make([][12]uint64, n)
	for i := range states {
		states[i] = [12]uint64(RandElements(rng, 12))
	}
	return states
}
