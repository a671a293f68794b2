package rpo

import (
	"embed"

	"github.com/wgcompute/wgcompute/algos/internal/rescueprime"
	"github.com/wgcompute/wgcompute/wgsl"
)

//go:embed *.wgsl
var shaderFiles embed.FS

// shaders are this package's kernels, the .wgsl files beside it; they
// include the kernel body and round layers RPO shares with Rescue
// (rescueprime.Shaders) and the shared libraries by name.
var shaders = wgsl.NewLibrary("algos/rpo", shaderFiles, rescueprime.Shaders)
