package poseidon2

import (
	"math/rand/v2"
	"testing"

	"github.com/wgcompute/wgcompute/algos/internal/hashtest"
)

// family is Poseidon2 as the shared tests of package hashtest see it.
var family = hashtest.Of(hashtest.Family{
	Stream: 0x9053_1d02, MaxElements: maxBatchElements,
	HashLengths: []int{1, 7, 8, 9, 16, 17, 25}, LargeMerges: 100_001, LeakVariants: []string{"muldiag"},
	Merge: Merge, HashElements: HashElements, Permute: Permute,
}, Batch)

// randElements and newRand draw the tests' inputs (see package hashtest).
var randElements = hashtest.RandElements

func newRand(t testing.TB) *rand.Rand { return hashtest.NewRand(t, family.Stream) }

// TestFamily runs the tests every Goldilocks hash family shares.
func TestFamily(t *testing.T) { hashtest.Run(t, family) }

func BenchmarkMergeMany(b *testing.B) { hashtest.BenchmarkMergeMany(b, family) }

// BenchmarkMergeManyBatches compares end-to-end merges from host slices
// with the pieces in host memory and in device memory:
// go test -run - -bench 'MergeManyBatches/.*/16777216' ./algos/poseidon2/
func BenchmarkMergeManyBatches(b *testing.B) { hashtest.BenchmarkMergeManyBatches(b, family) }

func BenchmarkHashElementsMany(b *testing.B) { hashtest.BenchmarkHashElementsMany(b, family) }

func BenchmarkMergeCPU(b *testing.B) { hashtest.BenchmarkMergeCPU(b, family) }

func BenchmarkHashElementsCPU(b *testing.B) { hashtest.BenchmarkHashElementsCPU(b, family, 1024) }
