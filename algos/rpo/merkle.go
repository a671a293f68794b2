package rpo

import (
	"time"

	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
)

// MerkleMerge is RPO256 as the 2-to-1 merge of package merkle's trees (a
// merkle.Hash), as miden-crypto's MerkleTree merges nodes: a digest is
// DigestSize field elements, each a little-endian uint64 below P, and the
// parent of two digests is Merge of their elements; a row of a matrix
// commitment hashes to HashElements of it (HashRow).
//
// Pass it to package merkle (merkle.Build(ctx, leaves, MerkleMerge{},
// opts)); LeafOf and DigestOf convert between its digests and leaves. Its
// methods are those of every Goldilocks hash here, written once over
// RPO's parameters (see rescue.MerkleMerge); MergeModule, RowModule,
// ConvertModule and the tuning answers are package merkle's side of the
// merkle.Hash and merkle.RowHash interfaces and of the optional methods
// merkle.Hash lists (tuning, host width), for hash authors: they hand
// merkle the WGSL of the merge and its tuning, and a program has no use
// for them.
type MerkleMerge struct{ merkleMerge }

// merkleMerge is the implementation MerkleMerge embeds.
type merkleMerge = goldilocks.Tuned[hashSpec]

// hashSpec names RPO's parameters.
type hashSpec struct{}

// Hash returns RPO's parameters.
func (hashSpec) Hash() *goldilocks.Hash { return &hashParams }

// hashParams are RPO's parameters: merkle_rpo.wgsl defines merge_node
// with rpo_lib.wgsl's rpo_merge, and rpo_row.wgsl hash_row with its
// permutation.
//
// A dispatch per level, as for Rescue: RPO's merge is as large as
// Rp64_256's (the same layers and state, other constants and order), for
// which it was the fastest approach at every size measured on NVIDIA
// (BENCHMARKS.md, "Merkle trees"). Not measured for RPO itself.
//
// The host levels' model is Rescue's: RPO's merge has Rp64_256's layers
// and state, so its GPU level is taken as Rescue's, and its CPU merge as
// Rescue's scaled by the two merges' ratio through the batch functions'
// CPU path (BENCHMARKS.md, "The CPU path"; the ratio in
// bench/results/HISTORY.md, "Figures moved from code comments"). Not
// measured for RPO's trees themselves.
var hashParams = goldilocks.Hash{
	Name: "rpo", Title: "RPO", Merge: Merge, HashElements: HashElements,
	MergeFile: "merkle_rpo.wgsl", RowFile: "rpo_row.wgsl", Shaders: shaders,
	CPUMerge: 16 * time.Microsecond, GPULevel: 350 * time.Microsecond,
	Approach: "level-per-dispatch",
}

// LeafOf returns the RPO256 digest d as a Merkle leaf or node: the 32 bytes
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
