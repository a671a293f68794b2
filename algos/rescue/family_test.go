package rescue

import (
	"testing"

	"github.com/wgcompute/wgcompute/algos/internal/hashtest"
)

// family is Rp64_256 as the shared tests of package hashtest see it.
var family = hashtest.Of(hashtest.Family{
	Stream: 0x5e5c, MaxElements: 0,
	HashLengths: []int{1, 8, 9, 17}, LargeMerges: 100_001, LeakVariants: []string{"arkstorage", "arkuniform", "arkworkgroup"},
	Merge: Merge, HashElements: HashElements, Permute: Permute,
}, Batch)

// TestFamily runs the tests every Goldilocks hash family shares.
func TestFamily(t *testing.T) { hashtest.Run(t, family) }

func BenchmarkMergeMany(b *testing.B) { hashtest.BenchmarkMergeMany(b, family) }

func BenchmarkHashElementsMany(b *testing.B) { hashtest.BenchmarkHashElementsMany(b, family) }

func BenchmarkMergeCPU(b *testing.B) { hashtest.BenchmarkMergeCPU(b, family) }

func BenchmarkHashElementsCPU(b *testing.B) { hashtest.BenchmarkHashElementsCPU(b, family, 512) }
