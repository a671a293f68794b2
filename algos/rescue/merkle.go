package rescue

import (
	"time"

	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
)

// MerkleMerge is Rescue Prime (Rp64_256) as the 2-to-1 merge of package
// merkle's trees (a merkle.Hash), as winterfell builds them: a digest is
// DigestSize field elements, each a little-endian uint64 below P, and the
// parent of two digests is Merge of their elements; a row of a matrix
// commitment hashes to HashElements of it (HashRow).
//
// Pass it to package merkle (merkle.Build(ctx, leaves, MerkleMerge{},
// opts)); LeafOf and DigestOf convert between its digests and leaves. Its
// methods (Name, Merge, CheckDigest, HashRow, ConvertDigest, the WGSL
// modules and the tuning answers) are those of every Goldilocks hash here,
// written once over Rescue's parameters; MergeModule, RowModule,
// ConvertModule and the tuning answers are package merkle's side of the
// merkle.Hash and merkle.RowHash interfaces and of the optional methods
// merkle.Hash lists (tuning, host width), for hash authors: they hand
// merkle the WGSL of the merge and its tuning, and a program has no use
// for them.
type MerkleMerge struct{ merkleMerge }

// merkleMerge is the implementation MerkleMerge embeds.
type merkleMerge = goldilocks.Tuned[hashSpec]

// hashSpec names Rescue's parameters.
type hashSpec struct{}

// Hash returns Rescue's parameters.
func (hashSpec) Hash() *goldilocks.Hash { return &hashParams }

// hashParams are Rescue's parameters: merkle_rescue.wgsl defines
// merge_node with rescue_lib.wgsl's rp_merge, and rescue_row.wgsl hash_row
// with its permutation.
//
// A dispatch per level is the fastest approach for Rescue at every size
// measured on NVIDIA (BENCHMARKS.md, "Merkle trees"): its large merge
// keeps few warps per SM and so pays for the idle invocations of
// in-workgroup levels.
//
// The host levels' model (goldilocks.MerkleHostWidth) takes CPUMerge and
// GPULevel from an NVIDIA GPU and one of its host's cores: GPULevel is a
// tree's fixed cost split over its levels too narrow to fill the GPU,
// each waiting for one merge's latency, fitted to two tree sizes, and
// CPUMerge is one merge (a permutation) on one core (BENCHMARKS.md,
// "Merkle trees"; the fit in bench/results/HISTORY.md, "Figures moved
// from code comments"). With them the host takes the top levels, more of
// them the more cores it has.
var hashParams = goldilocks.Hash{
	Name: "rescue", Title: "Rescue", Merge: Merge, HashElements: HashElements,
	MergeFile: "merkle_rescue.wgsl", RowFile: "rescue_row.wgsl", Shaders: shaders,
	CPUMerge: 13 * time.Microsecond, GPULevel: 350 * time.Microsecond,
	Approach: "level-per-dispatch",
}

// LeafOf returns the Rescue digest d as a Merkle leaf or node: the 32 bytes
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
