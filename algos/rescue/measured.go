package rescue

import (
	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/rescue/internal/params"
)

// measuredVariants are the kernel variants beside fast, which lost to it
// on every GPU measured (BENCHMARKS.md, "Rescue Prime"); they stay to be
// measured.
var measuredVariants = []batch.Variant{
	// The MDS product with twelve full field multiplications per
	// output (goldilocks_mul).
	variant(measured, "densemds"),
	// The inverse S-box by the field library's goldilocks_inv_pow7 instead of
	// the addition chain.
	variant(measured, "libinv"),
	// The state as three vec4 pairs (low words, high words of four
	// elements each), so that every field operation, the MDS product
	// included, works on four elements at once.
	variant(measured, "vec4"),
	// Round constants read from a storage buffer, from the uniform
	// buffer after the kernel's parameters, or copied from a storage
	// buffer into workgroup memory at the start of every workgroup.
	variant(measured, "arkstorage"), variant(measured, "arkuniform"), variant(measured, "arkworkgroup"),
}

// arkWords are the round constants as the ark variants read them: ARK1 row
// by row, then ARK2, each element as (low, high) u32 words (RP_ARK2_BASE
// and RP_ARK_LEN in rescue_consts.wgsl).
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
