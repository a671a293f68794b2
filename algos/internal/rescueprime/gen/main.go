// Command gen writes wgsl/rescue_mds.wgsl, the MDS products that Rp64_256
// and RPO256 share, from package rescueprime.
//
//	go run ./algos/internal/rescueprime/gen -dir wgsl
//
// A test in algos/internal/rescueprime fails when the committed file
// differs from what this program writes.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
	"github.com/wgcompute/wgcompute/algos/internal/rescueprime"
)

func main() {
	dir := flag.String("dir", "wgsl", "directory of the generated .wgsl files")
	flag.Parse()
	if err := goldilocks.WriteFiles(*dir, rescueprime.Files()); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
