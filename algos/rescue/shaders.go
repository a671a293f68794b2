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
var shaders = wgsl.NewLibrary("algos/rescue", shaderFiles, rescueprime.Shaders, wgsl.Shared)
