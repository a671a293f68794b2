package rescue

import (
	"embed"

	"github.com/wgcompute/wgcompute/algos/internal/rescueprime"
	"github.com/wgcompute/wgcompute/wgsl"
)

//go:embed *.wgsl
var shaderFiles embed.FS

// shaders are this package's kernels, the .wgsl files beside it; they
// include the kernel body and round layers Rescue shares with RPO
// (rescueprime.Shaders) and the shared libraries by name.
var shaders = wgsl.NewLibrary("algos/rescue", shaderFiles, rescueprime.Shaders)

// measuredFiles are the kernels kept to be measured against the
// product's (rescue_main_fast.wgsl), apart from the product's files: the
// variants' entry files and what only they include, in their library,
// measured, over the product's. Only measuredVariants, forced by name
// through internal/base/impl ("rescue"), compile them.
//
//go:embed measured/*.wgsl
var measuredFiles embed.FS

// measured is the library of measuredFiles.
var measured = wgsl.NewSubLibrary("algos/rescue/measured", measuredFiles, "measured", shaders)
