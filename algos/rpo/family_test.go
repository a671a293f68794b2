package rpo

import (
	"math/rand/v2"
	"testing"

	"github.com/wgcompute/wgcompute/algos/internal/hashtest"
)

// family is RPO256 as the shared tests of package hashtest see it.
var family = hashtest.Of(hashtest.Family{
	Stream: 0x4290, MaxElements: 0,
	HashLengths: []int{1, 7, 8, 9, 15, 17}, LargeMerges: 50_001,
	Merge: Merge, HashElements: HashElements, Permute: Permute,
}, Batch)

// randElements and newRand draw the tests' inputs (see package hashtest).
var randElements = hashtest.RandElements

func newRand(t testing.TB) *rand.Rand { return hashtest.NewRand(t, family.Stream) }

// TestFamily runs the tests every Goldilocks hash family shares.
func TestFamily(t *testing.T) { hashtest.Run(t, family) }

func BenchmarkMergeMany(b *testing.B) { hashtest.BenchmarkMergeMany(b, family) }

func BenchmarkHashElementsMany(b *testing.B) { hashtest.BenchmarkHashElementsMany(b, family) }

func BenchmarkMergeCPU(b *testing.B) { hashtest.BenchmarkMergeCPU(b, family) }

func BenchmarkHashElementsCPU(b *testing.B) { hashtest.BenchmarkHashElementsCPU(b, family, 512) }
