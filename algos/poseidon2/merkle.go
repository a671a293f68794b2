package poseidon2

import (
	"time"

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
// opts)); LeafOf and DigestOf convert between its digests and leaves. Its
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

// hashParams are Poseidon2's parameters: merkle_poseidon2.wgsl defines
// merge_node with poseidon2_lib.wgsl's p2_merge, and poseidon2_row.wgsl
// hash_row with its permutation.
//
// The host levels' model is Rescue's (goldilocks.MerkleHostWidth).
// CPUMerge is Rescue's scaled by the two merges' ratio on one core
// through the batch functions' CPU path (BENCHMARKS.md, "The CPU path";
// the ratio in bench/results/HISTORY.md, "Figures moved from code
// comments"); its GPU level was not measured, and is taken as Rescue's
// scaled the same: a merge's latency on a GPU follows its chain of
// products as its time on a core does. A model, not a measurement.
var hashParams = goldilocks.Hash{
	Name: "poseidon2", Title: "Poseidon2", Merge: Merge, HashElements: HashElements,
	MergeFile: "merkle_poseidon2.wgsl", RowFile: "poseidon2_row.wgsl", Shaders: shaders,
	CPUMerge: 3100 * time.Nanosecond, GPULevel: 85 * time.Microsecond,
}

// LeafOf returns the Poseidon2 digest d as a Merkle leaf or node: the 32 bytes
// MerkleMerge merges, d's elements in little-endian order. The digests
// that MergeMany and HashElementsMany compute become the leaves of a
// merkle.Build this way.
func LeafOf(d [DigestSize]uint64) [32]byte { return goldilocks.DigestBytes(d) }

// DigestOf returns the elements of a Merkle leaf or node, as LeafOf writes
// them. It does not check that they are field elements:
// MerkleMerge.CheckDigest does.
func DigestOf(leaf [32]byte) [DigestSize]uint64 { return goldilocks.DigestElements(leaf) }

// Leaves returns each of digests as LeafOf does, for merkle.Build.
func Leaves(digests [][DigestSize]uint64) [][32]byte { return goldilocks.Leaves(digests) }
