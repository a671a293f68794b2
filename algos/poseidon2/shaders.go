package poseidon2

import (
	"embed"

	"github.com/wgcompute/wgcompute/wgsl"
)

//go:embed *.wgsl
var shaderFiles embed.FS

// shaders are this package's kernels, the .wgsl files beside it; they
// include the shared libraries (the fields' arithmetic) by name, and the
// files each 31-bit instance generates from its row (wgsl.AddGenerated)
// are found through them too.
var shaders = wgsl.NewLibrary("algos/poseidon2", shaderFiles, wgsl.Shared)
