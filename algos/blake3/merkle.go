package blake3

import (
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgsl"
)

// MerkleMerge is BLAKE3 as the 2-to-1 merge of package merkle's trees (a
// merkle.Hash): the parent of two 32-byte digests is BLAKE3 of their 64
// concatenated bytes (Merge). Every 32 bytes are a digest.
type MerkleMerge struct{}

// Name returns "blake3".
func (MerkleMerge) Name() string { return "blake3" }

// Merge returns Merge(left, right).
func (MerkleMerge) Merge(left, right [32]byte) [32]byte { return Merge(left, right) }

// CheckDigest returns nil: BLAKE3 accepts every 32 bytes.
func (MerkleMerge) CheckDigest([32]byte) error { return nil }

// AcceptsAnyDigest reports that CheckDigest accepts every 32 bytes, so
// that merkle skips checking leaves.
func (MerkleMerge) AcceptsAnyDigest() bool { return true }

// MergeModule returns merkle_blake3.wgsl, which defines merge_node with
// blake3_lib.wgsl's b3_merge.
func (MerkleMerge) MergeModule() wgpu.Module {
	return wgsl.Module{Library: shaders, Files: []string{"merkle_blake3.wgsl"}}
}

// MerkleApproach returns the fastest tree-building approach for the given
// leaves: on NVIDIA (wgbench bench merkle) subtrees of 256 invocations won
// up to 2^22 leaves and a dispatch per level won from 2^23
// (BENCHMARKS.md, "Merkle trees"; the figures in bench/results/HISTORY.md,
// "Merkle tree, blake3 merge").
func (MerkleMerge) MerkleApproach(leaves int) string {
	if leaves >= 1<<23 {
		return "level-per-dispatch"
	}
	return "subtrees"
}

// MerkleWorkgroupSize returns 256 for subtrees, the fastest measured, and
// 0 (merkle's default) for the other approaches.
func (MerkleMerge) MerkleWorkgroupSize(approach string) int {
	if approach == "subtrees" {
		return 256
	}
	return 0
}
