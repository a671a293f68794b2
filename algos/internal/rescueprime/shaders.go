package rescueprime

import (
	"embed"

	"github.com/wgcompute/wgcompute/wgsl"
)

//go:embed *.wgsl
var shaderFiles embed.FS

// Shaders are the files Rp64_256 and RPO256 share, beside this package:
// the layers of a round (rescue_round.wgsl, with the generated MDS
// products of rescue_mds.wgsl) and the one kernel body (rescue.wgsl,
// rescue_entry.wgsl). Each hash's library builds on it.
var Shaders = wgsl.NewLibrary("algos/internal/rescueprime", shaderFiles, wgsl.Shared)
