package main

import (
	"fmt"
	"runtime"

	"github.com/wgcompute/wgcompute/wgpu"
)

// rpoBench is RPO256 as the suites measure it.
var rpoBench = benchHashOf("rpo")

// benchRPO measures RPO256 as benchRescue measures Rp64_256, on the same
// ladder and inputs, with the CPU reference beside it, and at the largest
// size both hashes' merge kernels on the same pairs.
func benchRPO(ctx *wgpu.Context, cfg *benchConfig) ([]table, error) {
	return rpoBench.suite(ctx, cfg, elementSuite{
		seed:      11,
		cpuColumn: "CPU ref merges/s",
		notes: func(cpu float64) []string {
			return []string{
				fmt.Sprintf("hash_elements rows hash inputs of %d elements (two permutations each, the second block zero-padded), as many as fit in the merge input's elements.", benchHashElements),
				fmt.Sprintf("CPU reference (plain Go, %d goroutines on this host): %.3g merges/s.", runtime.GOMAXPROCS(0), cpu),
			}
		},
		last: rpoVersusRescue,
	})
}

// rpoVersusRescue times Rp64_256's default merge kernel on the pairs RPO
// merged at side², beside RPO's rate: the two share the kernel body and
// the round's layers and differ in constants, order and sponge.
func rpoVersusRescue(ctx *wgpu.Context, cfg *benchConfig, pairs [][8]uint64, dst [][4]uint64, side int, rpoRate float64) (table, error) {
	n := len(pairs)
	cfg.step("rpo against rescue")
	clear(dst)
	kernel, _, err := rescueBench.merges(ctx, cfg, dst, pairs)
	if err != nil {
		return table{}, err
	}
	rescueRate := float64(n) / kernel.Seconds()
	return table{Title: fmt.Sprintf("RPO256 and Rp64_256: merge kernels at %d² inputs", side),
		Columns: []string{"hash", "merges/s (kernel)", "vs Rp64_256"},
		Rows: [][]string{
			{"RPO256 (rpo, fast)", fmt.Sprintf("%.3g", rpoRate), fmt.Sprintf("%.2f×", rpoRate/rescueRate)},
			{"Rp64_256 (rescue, fast)", fmt.Sprintf("%.3g", rescueRate), "1.00×"},
		},
		Notes: []string{"Kernel: " + timeKind(ctx) + ", median of the timed repeats; the same pairs, each hash's digests checked against its CPU reference."},
	}, nil
}
