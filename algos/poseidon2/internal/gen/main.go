// Command gen writes wgsl/poseidon2_consts.wgsl from the Go Poseidon2
// constants.
//
//	go run ./algos/poseidon2/internal/gen -dir wgsl
//
// A test in algos/poseidon2 fails when the committed file differs from what
// this program writes.
package main

import (
	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
	"github.com/wgcompute/wgcompute/algos/poseidon2/internal/params"
)

func main() { goldilocks.Generate(params.Files()) }
