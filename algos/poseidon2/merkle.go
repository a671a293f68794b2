package poseidon2

import (
	"time"

	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgsl"
)

// MerkleMerge is Poseidon2 as the 2-to-1 merge of package merkle's trees (a
// merkle.Hash), the compression of Plonky3's Merkle trees over Goldilocks
// (TruncatedPermutation<_, 2, 4, 12>): a digest is DigestSize field
// elements, each a little-endian uint64 below P, and the parent of two
// digests is Merge of their elements.
//
// Pass it to package merkle (merkle.Build(ctx, leaves, MerkleMerge{},
// opts)); LeafOf and DigestOf convert between its digests and leaves. Its
// other methods (MergeModule, RowModule, ConvertModule, MerkleHostWidth)
// are package merkle's side of the merkle.Hash, merkle.RowHash and
// merkle.HostTop interfaces, the interfaces for hash authors: they hand
// merkle the WGSL of the merge and its tuning, and a program has no use
// for them.
type MerkleMerge struct{}

// Name returns "poseidon2".
func (MerkleMerge) Name() string { return "poseidon2" }

// Merge returns Merge of the digests' elements, as a digest.
func (MerkleMerge) Merge(left, right [32]byte) [32]byte {
	return goldilocks.DigestBytes(Merge(goldilocks.DigestElements(left), goldilocks.DigestElements(right)))
}

// CheckDigest returns an error naming the first element of d that is not a
// field element (not below P).
func (MerkleMerge) CheckDigest(d [32]byte) error { return goldilocks.CheckDigest("Poseidon2", d) }

// MergeModule returns merkle_poseidon2.wgsl, which defines merge_node with
// poseidon2_lib.wgsl's p2_merge.
func (MerkleMerge) MergeModule() wgpu.Module {
	return wgsl.Module{Files: []string{"merkle_poseidon2.wgsl"}}
}

// MerkleHostWidth returns the width from which a tree's levels are built
// on a GPU, the narrower ones above on cores host cores, from the model
// rescue.MerkleMerge's uses (goldilocks.MerkleHostWidth). Poseidon2's
// merge takes 4.5 µs on one core through the batch functions' CPU path
// against Rescue's 18.7 (BENCHMARKS.md), so about 3.1 µs alone; its GPU
// level was not measured, and is taken as Rescue's 350 µs scaled the same
// (85 µs): a merge's latency on a GPU follows its chain of products as
// its time on a core does. A model, not a measurement.
func (MerkleMerge) MerkleHostWidth(cores int) int {
	return goldilocks.MerkleHostWidth(cores, 3100*time.Nanosecond, 85*time.Microsecond)
}
