package main

import (
	"fmt"
	"math/rand/v2"
	"runtime"

	"github.com/wgcompute/wgcompute/algos/rpo"
	"github.com/wgcompute/wgcompute/wgpu"
)

// rpoBench is RPO256's default variant.
var rpoBench = benchHash{
	name: "rpo",
	mergeMany: func(ctx *wgpu.Context, dst [][4]uint64, pairs [][8]uint64, t *wgpu.Timing) error {
		return rpo.MergeMany(ctx, dst, pairs, rpo.Options{Timing: t})
	},
	hashMany: func(ctx *wgpu.Context, dst [][4]uint64, els []uint64, m int, t *wgpu.Timing) error {
		return rpo.HashElementsMany(ctx, dst, els, m, rpo.Options{Timing: t})
	},
	merge:        rpo.Merge,
	hashElements: rpo.HashElements,
}

// benchRPO measures RPO256 as benchRescue measures Rp64_256, on the same
// ladder and inputs, with the CPU reference beside it, and at the largest
// size both hashes' merge kernels on the same pairs.
func benchRPO(ctx *wgpu.Context, cfg *benchConfig) ([]table, error) {
	sides := []int{128, 256, 512, 1024, 2048, 4096}
	if cfg.quick {
		sides = []int{64, 128}
	}
	rng := rand.New(rand.NewPCG(7, 11))
	t := table{Title: "RPO256 (miden-crypto Rpo256): merges and hash_elements per second", XLabel: "inputs", YLabel: "merges/s (kernel)", LogX: true,
		Columns: []string{"inputs", "merge ns (kernel)", "merges/s (kernel)", "merges/s (end to end)", fmt.Sprintf("hash_elements(%d)/s (kernel)", rescueHashElements), "hash_elements/s (end to end)", "CPU ref merges/s (" + hostCPU() + ")", "kernel vs CPU", "checked"}}
	cpu, err := rpoBench.cpuRate(1 << 16)
	if err != nil {
		return nil, err
	}
	var vs table
	for _, side := range sides {
		n := side * side
		pairs := make([][8]uint64, n)
		for i := range pairs {
			for j := range pairs[i] {
				pairs[i][j] = rng.Uint64N(rpo.P)
			}
		}
		dst := make([][4]uint64, n)
		mergeKernel, mergeE2E, err := rpoBench.merges(ctx, cfg, dst, pairs)
		if err != nil {
			return nil, err
		}
		cfg.step(fmt.Sprintf("rpo merge %d", n))
		hn, hashKernel, hashE2E, err := rpoBench.hashes(ctx, cfg, pairs)
		if err != nil {
			return nil, err
		}
		cfg.step(fmt.Sprintf("rpo hash %d", hn))
		rate := float64(n) / mergeKernel.Seconds()
		t.Rows = append(t.Rows, []string{fmt.Sprintf("%d² = %d", side, n),
			fmt.Sprintf("%.2f", float64(mergeKernel.Nanoseconds())/float64(n)),
			fmt.Sprintf("%.3g", rate), fmt.Sprintf("%.3g", float64(n)/mergeE2E.Seconds()),
			fmt.Sprintf("%.3g", float64(hn)/hashKernel.Seconds()), fmt.Sprintf("%.3g", float64(hn)/hashE2E.Seconds()),
			fmt.Sprintf("%.3g", cpu), fmt.Sprintf("%.1f×", rate/cpu), "up to 4096 merges (evenly spaced) and the last hash equal to the CPU reference"})
		t.Points = append(t.Points, point{X: float64(n), Y: rate})
		if side == sides[len(sides)-1] {
			if vs, err = rpoVersusRescue(ctx, cfg, pairs, dst, side, rate); err != nil {
				return nil, err
			}
		}
	}
	t.Notes = []string{
		"Kernel: " + timeKind(ctx) + ", summed over the dispatches of a call. End to end: validation, upload, kernels and read-back of host slices.",
		fmt.Sprintf("hash_elements rows hash inputs of %d elements (two permutations each, the second block zero-padded), as many as fit in the merge input's elements.", rescueHashElements),
		fmt.Sprintf("CPU reference (plain Go, %d goroutines on this host): %.3g merges/s.", runtime.GOMAXPROCS(0), cpu),
	}
	return []table{t, vs}, nil
}

// rpoVersusRescue times Rp64_256's default merge kernel on the pairs RPO
// merged at side², beside RPO's rate: the two share the kernel body and
// the round's layers and differ in constants, order and sponge.
func rpoVersusRescue(ctx *wgpu.Context, cfg *benchConfig, pairs [][8]uint64, dst [][4]uint64, side int, rpoRate float64) (table, error) {
	n := len(pairs)
	clear(dst)
	kernel, _, err := rescueBench.merges(ctx, cfg, dst, pairs)
	if err != nil {
		return table{}, err
	}
	cfg.step("rpo against rescue")
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
