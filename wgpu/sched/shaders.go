package sched

import (
	"embed"

	"github.com/wgcompute/wgcompute/wgsl"
)

//go:embed *.wgsl
var shaderFiles embed.FS

// shaders are this package's kernels (warm.wgsl, the warm-up's
// arithmetic), the .wgsl files beside it.
var shaders = wgsl.NewLibrary("wgpu/sched", shaderFiles)
