package rescue

import (
	"time"

	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgsl"
)

// MerkleMerge is Rescue Prime (Rp64_256) as the 2-to-1 merge of package
// merkle's trees (a merkle.Hash), as winterfell builds them: a digest is
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

// Name returns "rescue".
func (MerkleMerge) Name() string { return "rescue" }

// Merge returns Merge of the digests' elements, as a digest.
func (MerkleMerge) Merge(left, right [32]byte) [32]byte {
	return goldilocks.DigestBytes(Merge(goldilocks.DigestElements(left), goldilocks.DigestElements(right)))
}

// CheckDigest returns an error naming the first element of d that is not a
// field element (not below P).
func (MerkleMerge) CheckDigest(d [32]byte) error { return goldilocks.CheckDigest("Rescue", d) }

// MergeModule returns merkle_rescue.wgsl, which defines merge_node with
// rescue_lib.wgsl's rp_merge.
func (MerkleMerge) MergeModule() wgpu.Module {
	return wgsl.Module{Files: []string{"merkle_rescue.wgsl"}}
}

// MerkleApproach returns a dispatch per level, the fastest for Rescue at
// every size measured on an H200 (2026-11-23, BENCHMARKS.md): its large
// merge keeps few warps per SM and so pays for the idle invocations of
// in-workgroup levels.
func (MerkleMerge) MerkleApproach(int) string { return "level-per-dispatch" }

// MerkleWorkgroupSize returns 0: merkle's default for every approach.
func (MerkleMerge) MerkleWorkgroupSize(string) int { return 0 }

// MerkleHostWidth returns the width from which a tree's levels are built
// on a GPU, the narrower ones above on cores host cores: a model
// (goldilocks.MerkleHostWidth), not a measurement of each host. Its
// figures, measured on an H200 and one of its host's cores (BENCHMARKS.md,
// 2026-11-26): one GPU's kernels took 38.73 ms for 2^22 leaves and 138.86
// ms for 2^24, 7.96 ns a leaf plus about 5.3 ms a tree, about 350 µs for
// each of its levels too narrow to fill the GPU, each waiting for one
// merge's latency; one merge (a permutation) takes about 13 µs on one
// core. So 2^10 on 32 cores, 2^6 on 2.
func (MerkleMerge) MerkleHostWidth(cores int) int {
	return goldilocks.MerkleHostWidth(cores, 13*time.Microsecond, 350*time.Microsecond)
}
