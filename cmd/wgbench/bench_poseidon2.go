package main

import (
	"fmt"
	"runtime"

	"github.com/wgcompute/wgcompute/wgpu"
)

// poseidon2Bench is Poseidon2 as the suites measure it.
var poseidon2Bench = benchHashOf("poseidon2")

// benchPoseidon2 is the poseidon2 suite: merges and hash_elements per
// second over the Rescue suite's ladder of sizes, the CPU backend beside
// them, and every kernel variant at the largest size.
func benchPoseidon2(ctx *wgpu.Context, cfg *benchConfig) ([]table, error) {
	return poseidon2Bench.suite(ctx, cfg, elementSuite{
		seed:      13,
		cpuColumn: "CPU merges/s",
		notes: func(cpu float64) []string {
			return []string{
				fmt.Sprintf("hash_elements rows hash inputs of %d elements (two permutations each, in one invocation), as many as fit in the merge input's elements.", benchHashElements),
				fmt.Sprintf("CPU (the CPU backend, plain Go, %d goroutines on this host): %.3g merges/s.", runtime.GOMAXPROCS(0), cpu),
				"Poseidon2 is Plonky3's default_goldilocks_poseidon2_12: 8 full rounds and 22 partial rounds, 582 field products per permutation in the fast kernel (118 S-boxes of 4, and 5 per partial round), where Rescue's Rp64_256 takes 6384.",
			}
		},
		last: func(ctx *wgpu.Context, cfg *benchConfig, pairs [][8]uint64, dst [][4]uint64, side int, _ float64) (table, error) {
			return poseidon2Bench.variantTable(ctx, cfg, pairs, dst, side,
				"fast: 12 vec2<u32> values in registers, round constants as literals, the internal layer's integers (-2, 1, 2, 3, 4, -3, -4) by additions and its fractions (1/2, -1/2, 1/4, -1/4, 1/8) by five goldilocks_mul. "+
					"muldiag: the internal layer as twelve goldilocks_mul by its diagonal.")
		},
	})
}
