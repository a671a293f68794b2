package poseidon2

import (
	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
)

// MerkleMerge is Poseidon2 as the 2-to-1 merge of package merkle's trees (a
// merkle.Hash), the compression of Plonky3's Merkle trees over Goldilocks
// (TruncatedPermutation<_, 2, 4, 12>): a digest is DigestSize field
// elements, each a little-endian uint64 below P, and the parent of two
// digests is Merge of their elements; a row of a matrix commitment hashes
// to HashElements of it (HashRow), as Plonky3 commits a matrix's rows with
// its PaddingFreeSponge.
//
// Pass it to package merkle (merkle.Build(ctx, leaves, MerkleMerge{},
// opts)); field.GoldilocksLeaf and GoldilocksDigest convert between its
// digests and leaves. Its
// methods are those of every Goldilocks hash here, written once over
// Poseidon2's parameters (see rescue.MerkleMerge); MergeModule,
// RowModule, ConvertModule and MerkleHostWidth are package merkle's side
// of the merkle.Hash and merkle.RowHash interfaces and of the optional
// methods merkle.Hash's doc lists, for hash authors: they hand merkle the WGSL of the merge and
// its tuning, and a program has no use for them.
type MerkleMerge struct{ merkleMerge }

// merkleMerge is the implementation MerkleMerge embeds: it has none of
// the tuning methods merkle.Hash's doc lists, so merkle's defaults.
type merkleMerge = goldilocks.Merkle[hashSpec]

// hashSpec names Poseidon2's parameters.
type hashSpec struct{}

// Hash returns Poseidon2's parameters.
func (hashSpec) Hash() *goldilocks.Hash { return &hashParams }
