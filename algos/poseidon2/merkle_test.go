package poseidon2

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/wgcompute/wgcompute/internal/base/impl"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// Compile-time check: MerkleMerge is a merkle.Hash (its MerkleHostWidth
// is asserted in package merkle's tests).
var _ merkle.Hash = MerkleMerge{}

func randLeaves(t *testing.T, n int) [][32]byte {
	rng := newRand(t)
	leaves := make([][32]byte, n)
	for i := range leaves {
		leaves[i] = field.GoldilocksLeaf([4]uint64(randElements(rng, 4)))
	}
	return leaves
}

// TestMerkleCPU checks merkle.Build on the CPU with MerkleMerge against Merge by
// hand, and its proofs.
func TestMerkleCPU(t *testing.T) {
	leaves := randLeaves(t, 4)
	tree, err := merkle.Build(nil, leaves, MerkleMerge{}, merkle.Options{})
	require.NoError(t, err)
	el := field.GoldilocksDigest
	l := Merge(el(leaves[0]), el(leaves[1]))
	r := Merge(el(leaves[2]), el(leaves[3]))
	require.Equal(t, field.GoldilocksLeaf(Merge(l, r)), tree.Root())
	for i := range leaves {
		p, err := tree.Proof(i)
		require.NoError(t, err)
		require.True(t, merkle.Verify(MerkleMerge{}, tree.Root(), len(leaves), p), "leaf %d", i)
		p.Leaf[3] ^= 1
		require.False(t, merkle.Verify(MerkleMerge{}, tree.Root(), len(leaves), p), "tampered leaf %d", i)
	}

	bad := randLeaves(t, 8)
	binary.LittleEndian.PutUint64(bad[5][16:], P)
	_, err = merkle.Build(nil, bad, MerkleMerge{}, merkle.Options{})
	require.ErrorContains(t, err, "leaf 5")
	require.ErrorContains(t, err, "element 2")
	require.ErrorContains(t, err, "Poseidon2 digests")
	require.Equal(t, "poseidon2", MerkleMerge{}.Name())
}

// TestMerkleGPU builds trees of several sizes with every approach on every
// backend, under the device's limits and small ones (subtrees split), and
// compares every node with merkle.Build on the CPU.
func TestMerkleGPU(t *testing.T) {
	sizes := []int{2, 4, 64, 1024, 4096}
	leaves := randLeaves(t, sizes[len(sizes)-1])
	want := map[int]*merkle.Tree{}
	for _, n := range sizes {
		tr, err := merkle.Build(nil, leaves[:n], MerkleMerge{}, merkle.Options{})
		require.NoError(t, err)
		want[n] = tr
	}
	fn := func(t *testing.T, ctx *wgpu.Context) {
		for _, a := range impl.List("merkle")[1:] { // merkle's approaches, forced
			set, err := impl.Select[func(merkle.Options) merkle.Options]("merkle", a)
			require.NoError(t, err)
			for _, n := range sizes {
				tr, err := merkle.Build(ctx, leaves[:n], MerkleMerge{}, set(merkle.Options{}))
				require.NoError(t, err, "%s, %d leaves", a, n)
				got, w := tr.Nodes(), want[n].Nodes()
				for i := 1; i < len(w); i++ {
					if got[i] != w[i] {
						t.Fatalf("%s, %d leaves: node %d differs", a, n, i)
					}
				}
			}
		}
	}
	gputest.ForEach(t, fn)
	gputest.ForEachSmall(t, fn)
}

// TestMerkleGroup computes a root split over several devices.
func TestMerkleGroup(t *testing.T) {
	leaves := randLeaves(t, 2048)
	want, err := merkle.Build(nil, leaves, MerkleMerge{}, merkle.Options{})
	require.NoError(t, err)
	gputest.ForEachGroup(t, func(t *testing.T, g *sched.Group) {
		root, err := merkle.Root(g, leaves, MerkleMerge{}, merkle.Options{})
		require.NoError(t, err)
		require.Equal(t, want.Root(), root, fmt.Sprintf("%d devices", len(g.Contexts())))
	})
}
