package main

import (
	"fmt"
	"runtime"

	"github.com/wgcompute/wgcompute/wgpu"
)

// rescueBench is Rp64_256 as the suites measure it.
var rescueBench = benchHashOf("rescue")

// benchRescue is the rescue suite: the shared table with the published
// V100 rate beside it, and every kernel variant at the largest size.
func benchRescue(ctx *wgpu.Context, cfg *benchConfig) ([]table, error) {
	tables, err := rescueBench.suite(ctx, cfg, elementSuite{
		seed:         11,
		cpuColumn:    "CPU ref merges/s",
		extraColumns: []string{"V100 (article) merges/s", "kernel vs V100"},
		extraCells: func(side int, rate float64) []string {
			if side == 4096 {
				return []string{"2.03e+07 (49.3 ns)", fmt.Sprintf("%.2f×", rate/2.03e7)}
			}
			return []string{"-", "-"}
		},
		notes: func(cpu float64) []string {
			return []string{
				fmt.Sprintf("hash_elements rows hash inputs of %d elements (two permutations each), as many as fit in the merge input's elements.", benchHashElements),
				fmt.Sprintf("CPU reference (plain Go, %d goroutines on this host): %.3g merges/s.", runtime.GOMAXPROCS(0), cpu),
				"Published: Tesla V100 (SYCL) 49.3 ns per merge, 2.03e7 merges/s at 4096²; Xeon 8358 about 1.4e6/s. Target here: 4e7 merges/s at 4096².",
			}
		},
		last: func(ctx *wgpu.Context, cfg *benchConfig, pairs [][8]uint64, dst [][4]uint64, side int, _ float64) (table, error) {
			return rescueBench.variantTable(ctx, cfg, pairs, dst, side,
				"fast: 12 vec2<u32> values, round constants as literals, MDS by small constants in 16-bit limbs, inverse S-box by the addition chain. "+
					"densemds: MDS by full field products. libinv: the field library's inverse S-box. vec4: the state as three vec4 pairs (low words, high words). "+
					"arkstorage, arkuniform, arkworkgroup: round constants read from a storage buffer, from the parameters' uniform buffer, or from workgroup memory filled from a storage buffer at kernel start.")
		},
	})
	if err == nil && len(tables) > 0 {
		tables[0].Refs = []refLine{{Label: "V100 (article, SYCL), 4096²", Y: 2.03e7}}
	}
	return tables, err
}
