package u64emu

import (
	"embed"

	"github.com/wgcompute/wgcompute/wgsl"
)

//go:embed *.wgsl
var shaderFiles embed.FS

// shaders are this package's kernels, the .wgsl files beside it; they
// include the shared libraries (the fields' arithmetic) by name.
var shaders = wgsl.NewLibrary("algos/field/u64emu", shaderFiles, wgsl.Shared)
