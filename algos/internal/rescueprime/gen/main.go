// Command gen writes algos/internal/rescueprime/rescue_mds.wgsl, the MDS products that Rp64_256
// and RPO256 share, from package rescueprime.
//
//	go run ./algos/internal/rescueprime/gen -dir algos/internal/rescueprime
//
// A test in algos/internal/rescueprime fails when the committed file
// differs from what this program writes.
package main

import (
	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
	"github.com/wgcompute/wgcompute/algos/internal/rescueprime"
)

func main() { goldilocks.Generate(rescueprime.Files()) }
