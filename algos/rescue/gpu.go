package rescue

import (
	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/internal/rescueprime"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Batch is Rp64_256's batch functions: MergeMany, HashElementsMany and
// PermuteMany compute Merge, HashElements and Permute of many inputs on
// the GPU (one dispatch per block of Rate elements, all in one
// submission), on all cores with the Go reference when the Context is nil,
// or split over a sched.Group (each given as the target); NewBatcher returns the
// resident object that holds the kernel and one piece's buffers.
//
// The kernel holds the state as 12 vec2<u32> values, round constants as
// literals in the code, computes the MDS product as sums of 64-bit values
// times the matrix's 5-bit constants in 16-bit limbs with one 96-bit
// reduction per output, and the inverse S-box by winterfell's
// 72-multiplication addition chain.
var Batch *batch.Goldilocks = rescueprime.NewBatch("rescue", Permute, Merge, HashElements,
	append([]batch.Variant{variant(shaders, "fast")}, measuredVariants...)...)

// variant describes the kernel variant name, of the library lib, to the
// batch runner that Rescue shares with RPO (package rescueprime): its
// entry file rescue_main_<name>.wgsl, which includes what it needs and
// defines the permutation it calls (see rescueprime's rescue.wgsl), built
// for winterfell's sponge, and where its round constants come from:
// literals, a storage buffer at binding 2 (arkstorage, arkworkgroup) or
// the words after the parameters in the uniform (arkuniform).
func variant(lib *wgsl.Library, name string) batch.Variant {
	k := rescueprime.NewKernel(lib, "rescue_main_"+name+".wgsl", false)
	switch name {
	case "arkstorage", "arkworkgroup", "arkuniform":
		k.Ark, k.ArkParams = arkWords, name == "arkuniform"
	}
	return rescueprime.Variant("rescue", name, k)
}
