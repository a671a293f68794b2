// Command gen31 writes wgsl/poseidon2_31_*.wgsl, the layers of Poseidon2
// over BabyBear and KoalaBear, from the Go constants.
//
//	go run ./algos/poseidon2/internal/gen31 -dir wgsl
//
// A test in algos/poseidon2 fails when a committed file differs from what
// this program writes.
package main

import (
	"fmt"
	"os"

	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
	"github.com/wgcompute/wgcompute/algos/poseidon2/internal/params31"
)

func main() {
	files, err := params31.Files()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen31:", err)
		os.Exit(1)
	}
	goldilocks.Generate(files)
}
