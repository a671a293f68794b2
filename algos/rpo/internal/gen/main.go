// Command gen writes algos/rpo/rpo_consts.wgsl from the Go RPO256 constants.
//
//	go run ./algos/rpo/internal/gen -dir algos/rpo
//
// A test in algos/rpo fails when the committed file differs from what
// this program writes.
package main

import (
	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
	"github.com/wgcompute/wgcompute/algos/rpo/internal/params"
)

func main() { goldilocks.Generate(params.Files()) }
