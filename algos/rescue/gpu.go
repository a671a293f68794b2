package rescue

import (
	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/internal/rescueprime"
	"github.com/wgcompute/wgcompute/algos/rescue/internal/params"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Batch is Rp64_256's batch functions: MergeMany, HashElementsMany and
// PermuteMany compute Merge, HashElements and Permute of many inputs on
// the GPU (one dispatch per block of Rate elements, all in one
// submission), on all cores with the Go reference when the Context is nil,
// or split over a sched.Group (the *On forms); NewBatcher returns the
// resident object that holds the kernel and one piece's buffers.
//
// The kernel holds the state as 12 vec2<u32> values, round constants as
// literals in the code, computes the MDS product as sums of 64-bit values
// times the matrix's 5-bit constants in 16-bit limbs with one 96-bit
// reduction per output, and the inverse S-box by winterfell's
// 72-multiplication addition chain.
var Batch = batch.New(batch.Spec[uint64, [4]uint64, [8]uint64, [12]uint64]{
	Name: "rescue", Modulus: P, DigestAt: Width - Rate,
	Permute: Permute, Merge: Merge, HashElements: HashElements,
	Variants: []batch.Variant{
		variant("fast"),
		// The MDS product with twelve full field multiplications per
		// output (goldilocks_mul).
		variant("densemds"),
		// The inverse S-box by the field library's goldilocks_inv_pow7 instead of
		// the addition chain.
		variant("libinv"),
		// The state as three vec4 pairs (low words, high words of four
		// elements each), so that every field operation, the MDS product
		// included, works on four elements at once.
		variant("vec4"),
		// Round constants read from a storage buffer, from the uniform
		// buffer after the kernel's parameters, or copied from a storage
		// buffer into workgroup memory at the start of every workgroup.
		variant("arkstorage"), variant("arkuniform"), variant("arkworkgroup"),
	},
})

// arkWords are the round constants as the ark variants read them: ARK1 row
// by row, then ARK2, each element as (low, high) u32 words (RP_ARK2_BASE
// and RP_ARK_LEN in wgsl/rescue_consts.wgsl).
var arkWords = func() []uint32 {
	w := make([]uint32, 0, 2*2*Rounds*Width)
	for _, ark := range []*[Rounds][Width]uint64{&params.ARK1, &params.ARK2} {
		for r := range ark {
			for _, c := range ark[r] {
				w = append(w, uint32(c), uint32(c>>32))
			}
		}
	}
	return w
}()

// variant describes the kernel variant name to the batch runner that
// Rescue shares with RPO (package rescueprime): its entry file
// rescue_main_<name>.wgsl, which includes what it needs and defines the
// permutation it calls (see wgsl/rescue.wgsl), built for winterfell's
// sponge, and where its round constants come from: literals, a storage
// buffer at binding 2 (arkstorage, arkworkgroup) or the words after the
// parameters in the uniform (arkuniform). The variants beside fast lost
// to it on every GPU measured (BENCHMARKS.md, "Rescue Prime"); they stay
// to be measured.
func variant(name string) batch.Variant {
	file := "rescue_main_" + name + ".wgsl"
	k := rescueprime.Kernel{Label: file,
		Module: wgsl.Module{Files: []string{file}, Consts: []wgsl.Const{rescueprime.SpongeConst(false)}}}
	switch name {
	case "arkstorage", "arkworkgroup", "arkuniform":
		k.Ark, k.ArkParams = arkWords, name == "arkuniform"
	}
	return batch.Variant{Name: name, Kernels: func(ctx *wgpu.Context) (batch.Kernels, error) {
		return rescueprime.Kernels(ctx, "rescue", k)
	}}
}
