package rpo

import (
	"time"

	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgsl"
)

// MerkleMerge is RPO256 as the 2-to-1 merge of package merkle's trees (a
// merkle.Hash), as miden-crypto's MerkleTree merges nodes: a digest is
// DigestSize field elements, each a little-endian uint64 below P, and the
// parent of two digests is Merge of their elements.
//
// Pass it to package merkle (merkle.Build(ctx, leaves, MerkleMerge{},
// opts)); LeafOf and DigestOf convert between its digests and leaves. Its
// other methods (MergeModule, RowModule, ConvertModule and the tuning
// answers) are package merkle's side of the merkle.Hash, merkle.RowHash,
// merkle.Tuning and merkle.HostTop interfaces, the interfaces for hash
// authors: they hand merkle the WGSL of the merge and its tuning, and a
// program has no use for them.
type MerkleMerge struct{}

// Name returns "rpo".
func (MerkleMerge) Name() string { return "rpo" }

// Merge returns Merge of the digests' elements, as a digest.
func (MerkleMerge) Merge(left, right [32]byte) [32]byte {
	return goldilocks.DigestBytes(Merge(goldilocks.DigestElements(left), goldilocks.DigestElements(right)))
}

// CheckDigest returns an error naming the first element of d that is not a
// field element (not below P).
func (MerkleMerge) CheckDigest(d [32]byte) error { return goldilocks.CheckDigest("RPO", d) }

// MergeModule returns merkle_rpo.wgsl, which defines merge_node with
// rpo_lib.wgsl's rpo_merge.
func (MerkleMerge) MergeModule() wgpu.Module {
	return wgsl.Module{Files: []string{"merkle_rpo.wgsl"}}
}

// MerkleApproach returns a dispatch per level, as rescue.MerkleMerge does:
// RPO's merge is as large as Rp64_256's (the same layers and state, other
// constants and order), for which it was the fastest approach at every
// size measured on an H200 (2026-11-23, BENCHMARKS.md). Not measured for
// RPO itself.
func (MerkleMerge) MerkleApproach(int) string { return "level-per-dispatch" }

// MerkleWorkgroupSize returns 0: merkle's default for every approach.
func (MerkleMerge) MerkleWorkgroupSize(string) int { return 0 }

// MerkleHostWidth returns the width from which a tree's levels are built
// on a GPU, as rescue.MerkleMerge's does, from the same model
// (goldilocks.MerkleHostWidth): RPO's merge has Rp64_256's layers and
// state, so its GPU level is taken as Rescue's (about 350 µs on an H200),
// and its CPU merge as 1.2 times Rescue's 13 µs (22.8 against 18.7 µs a
// merge through the batch functions' CPU path, BENCHMARKS.md). Not
// measured for RPO's trees themselves.
func (MerkleMerge) MerkleHostWidth(cores int) int {
	return goldilocks.MerkleHostWidth(cores, 16*time.Microsecond, 350*time.Microsecond)
}
