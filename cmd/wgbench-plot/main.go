// Command wgbench-plot draws the plots of 'wgbench bench --svg DIR' and
// 'wgbench bench plot --svg DIR', as SVG and PNG files, for wgbench,
// which runs it from beside its own executable or from PATH: 'wgbench-plot
// DIR' reads the plots as JSON on standard input (package plotdraw). It
// is a program of its own so that no wgbench command pays at start-up
// for the initializers of gonum/plot, its fonts and image encoders.
package main

import (
	"os"

	"github.com/wgcompute/wgcompute/cmd/internal/plotdraw"
)

func main() {
	os.Exit(plotdraw.Main(os.Args[1:], os.Stdin, os.Stderr))
}
