package rescue

import (
	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
)

// MerkleMerge is Rescue Prime (Rp64_256) as the 2-to-1 merge of package
// merkle's trees (a merkle.Hash), as winterfell builds them: a digest is
// DigestSize field elements, each a little-endian uint64 below P, and the
// parent of two digests is Merge of their elements; a row of a matrix
// commitment hashes to HashElements of it (HashRow).
//
// Pass it to package merkle (merkle.Build(ctx, leaves, MerkleMerge{},
// opts)); field.GoldilocksLeaf and GoldilocksDigest convert between the
// digests of every Goldilocks hash here and leaves. Its methods (Name,
// Merge, CheckDigest, HashRow, ConvertDigest, the WGSL modules and the
// tuning answers) are those of every Goldilocks hash here, written once
// over Rescue's parameters; MergeModule, RowModule, ConvertModule and the
// tuning answers are package merkle's side of the merkle.Hash and
// merkle.RowHash interfaces and of the optional methods merkle.Hash lists
// (tuning, host width), for hash authors: they hand merkle the WGSL of the
// merge and its tuning, and a program has no use for them.
type MerkleMerge struct{ merkleMerge }

// merkleMerge is the implementation MerkleMerge embeds.
type merkleMerge = goldilocks.Tuned[hashSpec]

// hashSpec names Rescue's parameters.
type hashSpec struct{}

// Hash returns Rescue's parameters.
func (hashSpec) Hash() *goldilocks.Hash { return &hashParams }
