package rpo

import (
	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/internal/rescueprime"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Batch is RPO256's batch functions: MergeMany, HashElementsMany and
// PermuteMany compute Merge, HashElements and Permute of many inputs on
// the GPU (one dispatch per block of Rate elements, all in one
// submission), on all cores with the Go reference when the Context is nil,
// or split over a sched.Group (the *On forms); NewBatcher returns the
// resident object that holds the kernel and one piece's buffers.
//
// The kernel is Rescue's fast kernel with RPO's constants and order: the
// state as 12 vec2<u32> values, round constants as literals in the code,
// the MDS product by the matrix's small constants in 16-bit limbs, and the
// inverse S-box by the 72-multiplication addition chain. The variants that
// lost to it on every GPU measured live in package rescue.
var Batch = batch.New(batch.Spec[uint64, [4]uint64, [8]uint64, [12]uint64]{
	Name: "rpo", Modulus: P, DigestAt: Width - Rate,
	Permute: Permute, Merge: Merge, HashElements: HashElements,
	Variants: []batch.Variant{{Name: "fast", Kernels: kernels}},
})

// kernels describes RPO's kernel to the batch runner RPO shares with
// Rescue: its entry file, which includes what it needs (see
// rpo_main.wgsl), with the kernel body built for miden-crypto's
// sponge.
func kernels(ctx *wgpu.Context) (batch.Kernels, error) {
	const file = "rpo_main.wgsl"
	return rescueprime.Kernels(ctx, "rpo", rescueprime.Kernel{Label: file,
		Module: wgsl.Module{Library: shaders, Files: []string{file}, Consts: []wgsl.Const{rescueprime.SpongeConst(true)}}})
}
