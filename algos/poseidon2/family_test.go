package poseidon2

import (
	"math/rand/v2"
	"testing"

	"github.com/wgcompute/wgcompute/algos/internal/hashtest"
	"github.com/wgcompute/wgcompute/wgpu"
)

// opts are the Options of variant v reporting to t.
func opts(v int, t *wgpu.Timing) Options { return Options{Variant: Variant(v), Timing: t} }

// family is Poseidon2 as the shared tests of package hashtest see it.
var family = &hashtest.Family{
	Name:     "poseidon2",
	Stream:   0x9053_1d02,
	Variants: VariantNames(),
	ParseVariant: func(s string) (int, error) {
		v, err := ParseVariant(s)
		return int(v), err
	},
	VariantString: func(v int) string { return Variant(v).String() },
	MaxElements:   maxBatchElements,
	HashLengths:   []int{1, 7, 8, 9, 16, 17, 25},
	LargeMerges:   100_001,
	LeakVariants:  []int{int(MulDiag)},
	Merge:         Merge,
	HashElements:  HashElements,
	Permute:       Permute,
	NewBatcher: func(ctx *wgpu.Context, v int, t *wgpu.Timing) (hashtest.Batcher, error) {
		return NewBatcher(ctx, opts(v, t))
	},
	MergeMany: func(ctx *wgpu.Context, dst [][4]uint64, pairs [][8]uint64, v int, t *wgpu.Timing) error {
		return MergeMany(ctx, dst, pairs, opts(v, t))
	},
	HashElementsMany: func(ctx *wgpu.Context, dst [][4]uint64, inputs []uint64, m int, v int, t *wgpu.Timing) error {
		return HashElementsMany(ctx, dst, inputs, m, opts(v, t))
	},
	PermuteMany: func(ctx *wgpu.Context, states [][12]uint64, v int, t *wgpu.Timing) error {
		return PermuteMany(ctx, states, opts(v, t))
	},
	MergeManyOn: func(g *wgpu.Group, dst [][4]uint64, pairs [][8]uint64, v int, t *wgpu.Timing) error {
		return MergeManyOn(g, dst, pairs, opts(v, t))
	},
	HashElementsManyOn: func(g *wgpu.Group, dst [][4]uint64, inputs []uint64, m int, v int, t *wgpu.Timing) error {
		return HashElementsManyOn(g, dst, inputs, m, opts(v, t))
	},
	PermuteManyOn: func(g *wgpu.Group, states [][12]uint64, v int, t *wgpu.Timing) error {
		return PermuteManyOn(g, states, opts(v, t))
	},
	Guard: func(b hashtest.Batcher) { b.(*Batcher).b.Guard = true },
}

// randElements and newRand draw the tests' inputs (see
// package hashtest).
var randElements = hashtest.RandElements

func newRand(t testing.TB) *rand.Rand { return hashtest.NewRand(t, family.Stream) }

// forEachImpl runs fn on the CPU backend and every variant on every GPU
// backend, under the device's and small limits (hashtest.ForEachImpl).
func forEachImpl(t *testing.T, fn func(t *testing.T, ctx *wgpu.Context, opts Options)) {
	family.ForEachImpl(t, func(t *testing.T, ctx *wgpu.Context, v int) { fn(t, ctx, Options{Variant: Variant(v)}) })
}

func TestGuard(t *testing.T) { hashtest.Guard(t, family) }

func TestMergeManyLarge(t *testing.T) { hashtest.MergeManyLarge(t, family) }

func TestBatcherReuse(t *testing.T) { hashtest.BatcherReuse(t, family) }

func TestTiming(t *testing.T) { hashtest.Timing(t, family) }

func TestBadInput(t *testing.T) { hashtest.BadInput(t, family) }

func TestTooLargeForLimits(t *testing.T) { hashtest.TooLargeForLimits(t, family) }

func TestGroupSplits(t *testing.T) { hashtest.GroupSplits(t, family) }

func TestNoLeaks(t *testing.T) { hashtest.NoLeaks(t, family) }

func BenchmarkMergeMany(b *testing.B) { hashtest.BenchmarkMergeMany(b, family) }

func BenchmarkHashElementsMany(b *testing.B) { hashtest.BenchmarkHashElementsMany(b, family) }

func BenchmarkMergeCPU(b *testing.B) { hashtest.BenchmarkMergeCPU(b, family) }

func BenchmarkHashElementsCPU(b *testing.B) { hashtest.BenchmarkHashElementsCPU(b, family, 1024) }
