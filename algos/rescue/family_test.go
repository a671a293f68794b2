package rescue

import (
	"testing"

	"github.com/wgcompute/wgcompute/algos/internal/hashtest"
	"github.com/wgcompute/wgcompute/wgpu"
)

// family is Rp64_256 as the shared tests of package hashtest see it.
var family = hashtest.API[Variant, Options, *Batcher]{
	Options:      func(v Variant, t *wgpu.Timing) Options { return Options{Variant: v, Timing: t} },
	ParseVariant: ParseVariant, NewBatcher: NewBatcher,
	MergeMany: MergeMany, HashElementsMany: HashElementsMany, PermuteMany: PermuteMany,
	MergeManyOn: MergeManyOn, HashElementsManyOn: HashElementsManyOn, PermuteManyOn: PermuteManyOn,
}.Family(hashtest.Family{
	Name: "rescue", Stream: 0x5e5c, Variants: VariantNames(), MaxElements: 0,
	HashLengths: []int{1, 8, 9, 17}, LargeMerges: 100_001, LeakVariants: []int{int(ArkStorage), int(ArkUniform), int(ArkWorkgroup)},
	Merge: Merge, HashElements: HashElements, Permute: Permute,
	Guard: func(b hashtest.Batcher) { b.(*Batcher).b.Guard = true },
})

// TestFamily runs the tests every Goldilocks hash family shares.
func TestFamily(t *testing.T) { hashtest.Run(t, family) }

func BenchmarkMergeMany(b *testing.B) { hashtest.BenchmarkMergeMany(b, family) }

func BenchmarkHashElementsMany(b *testing.B) { hashtest.BenchmarkHashElementsMany(b, family) }

func BenchmarkMergeCPU(b *testing.B) { hashtest.BenchmarkMergeCPU(b, family) }

func BenchmarkHashElementsCPU(b *testing.B) { hashtest.BenchmarkHashElementsCPU(b, family, 512) }
