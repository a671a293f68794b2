package poseidon2

import (
	"embed"

	"github.com/wgcompute/wgcompute/wgsl"
)

//go:embed *.wgsl
var shaderFiles embed.FS

// generatedFiles are the files each 31-bit instance generates from its
// row when its first module is made (Permutation31.module), and
// generated their library.
var (
	generatedFiles wgsl.Generated
	generated      = wgsl.NewLibrary("algos/poseidon2/generated", &generatedFiles, wgsl.Shared)
)

// shaders are this package's kernels, the .wgsl files beside it; they
// include the shared libraries (the fields' arithmetic) and the
// instances' generated files by name.
var shaders = wgsl.NewLibrary("algos/poseidon2", shaderFiles, generated, wgsl.Shared)

// measuredFiles are the Goldilocks kernels kept to be measured against
// the product's (poseidon2_main_fast.wgsl), apart from the product's
// files, in their library, measured, over the product's. Only the
// variants Batch lists after fast, forced by name through
// internal/base/impl ("poseidon2"), compile them.
//
//go:embed measured/*.wgsl
var measuredFiles embed.FS

// measured is the library of measuredFiles.
var measured = wgsl.NewSubLibrary("algos/poseidon2/measured", measuredFiles, "measured", shaders)
