package poseidon2

import (
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
// other methods (MergeModule, RowModule, ConvertModule) are package
// merkle's side of the merkle.Hash and merkle.RowHash interfaces, the
// interfaces for hash authors: they
// hand merkle the WGSL of the merge, and a program has no use for them.
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
