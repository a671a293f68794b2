// Command gen writes wgsl/rescue_consts.wgsl from the Go Rp64_256 constants.
//
//	go run ./algos/rescue/internal/gen -o wgsl/rescue_consts.wgsl
//
// A test in algos/rescue fails when the committed file differs from what
// this program writes.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/wgcompute/wgcompute/algos/rescue/internal/params"
)

func main() {
	out := flag.String("o", "wgsl/rescue_consts.wgsl", "output file")
	flag.Parse()
	if err := os.WriteFile(*out, params.WGSL(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
