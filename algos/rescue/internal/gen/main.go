// Command gen writes algos/rescue/rescue_consts.wgsl and
// algos/rescue/measured/rescue_consts_vec4.wgsl from the Go Rp64_256
// constants.
//
//	go run ./algos/rescue/internal/gen -dir algos/rescue
//
// A test in algos/rescue fails when a committed file differs from what this
// program writes.
package main

import (
	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
	"github.com/wgcompute/wgcompute/algos/rescue/internal/params"
)

func main() { goldilocks.Generate(params.Files()) }
