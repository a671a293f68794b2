package poseidon2

import (
	"embed"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/wgsl"
)

// measuredFiles are the Goldilocks kernels kept to be measured against
// the product's (poseidon2_main_fast.wgsl), apart from the product's
// files. Only measuredVariants, forced by name through internal/base/impl
// ("poseidon2"), compile them.
//
//go:embed measured/*.wgsl
var measuredFiles embed.FS

// measured is the library of measuredFiles, whose files include the
// product's.
var measured = wgsl.NewSubLibrary("algos/poseidon2/measured", measuredFiles, "measured", shaders)

// measuredVariants are Batch's kernel variants beside fast, kept to be
// measured against it.
var measuredVariants = []batch.Variant{
	// The internal layer as the plain product by its diagonal: twelve
	// goldilocks_mul per partial round (Plonky3's generic matmul_internal).
	variant(measured, "muldiag"),
}
