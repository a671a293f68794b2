package rpo

import (
	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/internal/rescueprime"
)

// Batch is RPO256's batch functions: MergeMany, HashElementsMany and
// PermuteMany compute Merge, HashElements and Permute of many inputs on
// the GPU (one dispatch per block of Rate elements, all in one
// submission), on all cores with the Go reference when the Context is nil,
// or split over a sched.Group (each given as the target); NewBatcher returns the
// resident object that holds the kernel and one piece's buffers.
//
// The kernel (rpo_main.wgsl, which includes what it needs) is Rescue's
// fast kernel with RPO's constants and order, its kernel body built for
// miden-crypto's sponge: the state as 12 vec2<u32> values, round
// constants as literals in the code, the MDS product by the matrix's small
// constants in 16-bit limbs, and the inverse S-box by the
// 72-multiplication addition chain. The variants that lost to it on every
// GPU measured live in package rescue.
var Batch *batch.Goldilocks = rescueprime.NewBatch("rpo", Permute, Merge, HashElements,
	rescueprime.Variant("rpo", "fast", rescueprime.NewKernel(shaders, "rpo_main.wgsl", true)))
