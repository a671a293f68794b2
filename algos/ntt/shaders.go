package ntt

import (
	"embed"

	"github.com/wgcompute/wgcompute/wgsl"
)

//go:embed *.wgsl
var shaderFiles embed.FS

// shaders are this package's kernels, the .wgsl files beside it; they
// include the shared libraries (the fields' arithmetic) by name.
var shaders = wgsl.NewLibrary("algos/ntt", shaderFiles, wgsl.Shared)

// measuredFiles are kernels kept to be measured beside the product's,
// apart from its files: the ceiling kernel (ntt_ceiling.wgsl), which runs
// the passes' radix-16 arithmetic alone for the benchmark that says what
// the butterflies cost without memory traffic. Only the package's tests
// compile them.
//
//go:embed measured/*.wgsl
var measuredFiles embed.FS

// measured is the library of measuredFiles, over the product's.
var measured = wgsl.NewSubLibrary("algos/ntt/measured", measuredFiles, "measured", shaders)
