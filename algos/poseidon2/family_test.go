package poseidon2

import (
	"math/rand/v2"
	"testing"

	"github.com/wgcompute/wgcompute/algos/internal/hashtest"
	"github.com/wgcompute/wgcompute/wgpu"
)

// family is Poseidon2 as the shared tests of package hashtest see it.
var family = hashtest.API[Variant, Options, *Batcher]{
	Options:      func(v Variant, t *wgpu.Timing) Options { return Options{Variant: v, Timing: t} },
	ParseVariant: ParseVariant, NewBatcher: NewBatcher,
	MergeMany: MergeMany, HashElementsMany: HashElementsMany, PermuteMany: PermuteMany,
	MergeManyOn: MergeManyOn, HashElementsManyOn: HashElementsManyOn, PermuteManyOn: PermuteManyOn,
}.Family(hashtest.Family{
	Name: "poseidon2", Stream: 0x9053_1d02, Variants: VariantNames(), MaxElements: maxBatchElements,
	HashLengths: []int{1, 7, 8, 9, 16, 17, 25}, LargeMerges: 100_001, LeakVariants: []int{int(MulDiag)},
	Merge: Merge, HashElements: HashElements, Permute: Permute,
	Guard: func(b hashtest.Batcher) { b.(*Batcher).b.Guard = true },
})

// randElements and newRand draw the tests' inputs (see package hashtest).
var randElements = hashtest.RandElements

func newRand(t testing.TB) *rand.Rand { return hashtest.NewRand(t, family.Stream) }

// TestFamily runs the tests every Goldilocks hash family shares.
func TestFamily(t *testing.T) { hashtest.Run(t, family) }

func BenchmarkMergeMany(b *testing.B) { hashtest.BenchmarkMergeMany(b, family) }

func BenchmarkHashElementsMany(b *testing.B) { hashtest.BenchmarkHashElementsMany(b, family) }

func BenchmarkMergeCPU(b *testing.B) { hashtest.BenchmarkMergeCPU(b, family) }

func BenchmarkHashElementsCPU(b *testing.B) { hashtest.BenchmarkHashElementsCPU(b, family, 1024) }
