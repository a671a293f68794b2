package goldilocks

import (
	"embed"

	"github.com/wgcompute/wgcompute/wgsl"
)

//go:embed *.wgsl
var shaderFiles embed.FS

// shaders are this package's kernels, the .wgsl files beside it: the
// digest conversion every Goldilocks hash's ConvertModule names.
var shaders = wgsl.NewLibrary("algos/internal/goldilocks", shaderFiles, wgsl.Shared)
