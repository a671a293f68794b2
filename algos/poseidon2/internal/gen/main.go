// Command gen writes algos/poseidon2/poseidon2_consts.wgsl from the Go Poseidon2
// constants.
//
//	go run ./algos/poseidon2/internal/gen -dir algos/poseidon2
//
// A test in algos/poseidon2 fails when the committed file differs from what
// this program writes.
package main

import (
	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
	"github.com/wgcompute/wgcompute/algos/poseidon2/internal/params"
)

func main() { goldilocks.Generate(params.Files()) }
