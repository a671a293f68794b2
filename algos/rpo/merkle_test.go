package rpo_test

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/wgcompute/wgcompute/internal/base/impl"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/internal/hashtest"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/rpo"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// MerkleMerge is a merkle.Hash without importing merkle (its optional
// methods are asserted in package merkle's tests).
var _ merkle.Hash = rpo.MerkleMerge{}

// emptyRoots returns testdata/rpo256.json's merge chain as digests: the
// root of 2^d all-zero leaves is emptyRoots[d] (miden-crypto's
// EMPTY_SUBTREES).
func emptyRoots(t testing.TB) [][32]byte {
	t.Helper()
	var s struct {
		MergeChain struct {
			Chain [][]string `json:"chain"`
		} `json:"merge_chain"`
	}
	hashtest.LoadJSON(t, "../../testdata/rpo256.json", &s)
	roots := make([][32]byte, len(s.MergeChain.Chain))
	for d, el := range s.MergeChain.Chain {
		roots[d] = field.GoldilocksLeaf([4]uint64(hashtest.Nums(t, el)))
	}
	return roots
}

func randomLeaves(rng *rand.Rand, n int) [][32]byte {
	leaves := make([][32]byte, n)
	for i := range leaves {
		for j := 0; j < 4; j++ {
			v := rng.Uint64N(rpo.P)
			if rng.IntN(8) == 0 {
				v = rpo.P - 1
			}
			binary.LittleEndian.PutUint64(leaves[i][8*j:], v)
		}
	}
	return leaves
}

// TestMerkleTrees builds RPO trees on every backend, with every approach,
// of random leaves and of zero leaves, and holds them to merkle.Build on the CPU
// and to miden-crypto's roots of empty trees.
func TestMerkleTrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	h := rpo.MerkleMerge{}
	roots := emptyRoots(t)
	sizes := []int{2, 4, 64, 1024, 4096}
	random := randomLeaves(rng, sizes[len(sizes)-1])
	zero := make([][32]byte, sizes[len(sizes)-1])
	want := map[int]*merkle.Tree{}
	for _, n := range sizes {
		tr, err := merkle.Build(nil, random[:n], h, merkle.Options{})
		require.NoError(t, err)
		want[n] = tr
		z, err := merkle.Build(nil, zero[:n], h, merkle.Options{})
		require.NoError(t, err)
		d := 0
		for 1<<d < n {
			d++
		}
		require.Equal(t, roots[d], z.Root(), "reference: root of %d zero leaves", n)
	}
	check := func(t *testing.T, ctx *wgpu.Context, opts merkle.Options) {
		for _, n := range sizes {
			got, err := merkle.Build(ctx, random[:n], h, opts)
			require.NoError(t, err, "%d leaves", n)
			require.Equal(t, want[n].Nodes(), got.Nodes(), "%d leaves", n)
			z, err := merkle.Root(ctx, zero[:n], h, opts)
			require.NoError(t, err)
			d := 0
			for 1<<d < n {
				d++
			}
			require.Equal(t, roots[d], z, "root of %d zero leaves", n)
		}
		p, err := want[64].Proof(37)
		require.NoError(t, err)
		require.True(t, merkle.Verify(h, want[64].Root(), 64, p))
		p.Leaf[3] ^= 1
		require.False(t, merkle.Verify(h, want[64].Root(), 64, p))
	}
	t.Run("cpu", func(t *testing.T) { check(t, nil, merkle.Options{}) })
	each := func(t *testing.T, ctx *wgpu.Context) {
		for _, a := range impl.List("merkle")[1:] { // merkle's approaches, forced
			set, err := impl.Select[func(merkle.Options) merkle.Options]("merkle", a)
			require.NoError(t, err)
			t.Run(a, func(t *testing.T) { check(t, ctx, set(merkle.Options{})) })
		}
	}
	gputest.ForEach(t, each)
	gputest.ForEachSmall(t, func(t *testing.T, ctx *wgpu.Context) { check(t, ctx, merkle.Options{}) })
}

// TestMerkleRejectsNonCanonical: a leaf element >= p is an error naming
// it, on the CPU and the GPU.
func TestMerkleRejectsNonCanonical(t *testing.T) {
	h := rpo.MerkleMerge{}
	leaves := randomLeaves(rand.New(rand.NewPCG(1, 1)), 16)
	binary.LittleEndian.PutUint64(leaves[11][16:], rpo.P)
	_, err := merkle.Build(nil, leaves, h, merkle.Options{})
	require.ErrorContains(t, err, "leaf 11")
	require.ErrorContains(t, err, "element 2")
	require.ErrorContains(t, err, "RPO digests are 4 little-endian uint64 values below p")
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		_, err := merkle.Build(ctx, leaves, h, merkle.Options{})
		require.ErrorContains(t, err, "leaf 11")
	})
	require.Equal(t, "rpo", h.Name())
	require.Equal(t, "level-per-dispatch", h.MerkleApproach(1<<20))
}
