package rpo

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/internal/hashtest"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

func TestMain(m *testing.M) { os.Exit(gputest.Main(m)) }

// TestImplementationsMatchReference checks every implementation against
// miden-crypto's vectors, the spec's merge chain as one batch (pair d is
// (chain[d], chain[d]), its digest chain[d+1]: the empty subtrees' roots),
// and the Go reference on odd batches of merges, permutations and hashes
// of lengths around the rate (hashtest.MatchReference).
func TestImplementationsMatchReference(t *testing.T) {
	s := loadSpec(t)
	vectors := hashtest.Vectors(t, s.Vectors)
	chain := s.chain(t)
	var in, want []uint64
	for d := range len(chain) - 1 {
		in = append(append(in, chain[d][:]...), chain[d][:]...)
		want = append(want, chain[d+1][:]...)
	}
	vectors = append(vectors, hashtest.Vector{Fn: "merge", In: in, Want: want})
	hashtest.MatchReference(t, family, vectors)
}

// TestHashElementsLengths hashes every length from 1 to 41 elements, one
// batch of 5 inputs each, on every implementation: each partial block
// size, and one to six blocks.
func TestHashElementsLengths(t *testing.T) {
	rng := newRand(t)
	const k = 5
	family.ForEachImpl(t, func(t *testing.T, ctx *wgpu.Context, v int) {
		for m := 1; m <= 41; m++ {
			in := randElements(rng, k*m)
			dst := make([][4]uint64, k)
			require.NoError(t, family.HashElementsMany(ctx, dst, in, m, v, nil))
			for i := range dst {
				require.Equal(t, HashElements(in[i*m:(i+1)*m]), dst[i], "m=%d input %d", m, i)
			}
		}
	})
}

// TestVariantNames checks the registered variants' names, the default
// first (the rest of the registry: TestFamily/Variants).
func TestVariantNames(t *testing.T) {
	require.Equal(t, []string{"fast"}, family.Variants)
}
