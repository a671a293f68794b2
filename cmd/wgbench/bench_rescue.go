package main

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/wgpu"
)

// rescueHashElements is the element count per input in the hash_elements
// rows of the benchmark: a full state width, two permutations per input.
const rescueHashElements = 12

func benchRescue(ctx *wgpu.Context, cfg *benchConfig) ([]table, error) {
	sides := []int{128, 256, 512, 1024, 2048, 4096}
	if cfg.quick {
		// Smoke-test sizes: a software adapter merges about 4e4 per second.
		sides = []int{64, 128}
	}
	rng := rand.New(rand.NewPCG(7, 11))
	t := table{Title: "Rescue Prime Rp64_256: merges and hash_elements per second", XLabel: "inputs", YLabel: "merges/s (kernel)", LogX: true,
		Columns: []string{"inputs", "merge ns (kernel)", "merges/s (kernel)", "merges/s (end to end)", fmt.Sprintf("hash_elements(%d)/s (kernel)", rescueHashElements), "hash_elements/s (end to end)", "V100 (article) merges/s", "kernel vs V100", "CPU ref merges/s (" + hostCPU() + ")", "kernel vs CPU", "checked"}}
	cpu, err := rescueBench.cpuRate(1 << 16)
	if err != nil {
		return nil, err
	}
	var vt table
	for _, side := range sides {
		n := side * side
		pairs := make([][8]uint64, n)
		for i := range pairs {
			for j := range pairs[i] {
				pairs[i][j] = rng.Uint64N(rescue.P)
			}
		}
		dst := make([][4]uint64, n)
		mergeKernel, mergeE2E, err := rescueBench.merges(ctx, cfg, dst, pairs)
		if err != nil {
			return nil, err
		}
		cfg.step(fmt.Sprintf("rescue merge %d", n))
		hn, hashKernel, hashE2E, err := rescueBench.hashes(ctx, cfg, pairs)
		if err != nil {
			return nil, err
		}
		cfg.step(fmt.Sprintf("rescue hash %d", hn))
		rate := float64(n) / mergeKernel.Seconds()
		v100, vsV100 := "-", "-"
		if side == 4096 {
			v100, vsV100 = "2.03e+07 (49.3 ns)", fmt.Sprintf("%.2f×", rate/2.03e7)
		}
		t.Rows = append(t.Rows, []string{fmt.Sprintf("%d² = %d", side, n),
			fmt.Sprintf("%.2f", float64(mergeKernel.Nanoseconds())/float64(n)),
			fmt.Sprintf("%.3g", rate), fmt.Sprintf("%.3g", float64(n)/mergeE2E.Seconds()),
			fmt.Sprintf("%.3g", float64(hn)/hashKernel.Seconds()), fmt.Sprintf("%.3g", float64(hn)/hashE2E.Seconds()),
			v100, vsV100, fmt.Sprintf("%.3g", cpu), fmt.Sprintf("%.1f×", rate/cpu), "up to 4096 merges (evenly spaced) and the last hash equal to the CPU reference"})
		t.Points = append(t.Points, point{X: float64(n), Y: rate})
		if side == sides[len(sides)-1] {
			if vt, err = rescueVariantTable(ctx, cfg, pairs, dst, side); err != nil {
				return nil, err
			}
		}
	}
	t.Notes = []string{
		"Kernel: " + timeKind(ctx) + ", summed over the dispatches of a call. End to end: validation, upload, kernels and read-back of host slices.",
		fmt.Sprintf("hash_elements rows hash inputs of %d elements (two permutations each), as many as fit in the merge input's elements.", rescueHashElements),
		fmt.Sprintf("CPU reference (plain Go, %d goroutines on this host): %.3g merges/s.", runtime.GOMAXPROCS(0), cpu),
		"Published: Tesla V100 (SYCL) 49.3 ns per merge, 2.03e7 merges/s at 4096²; Xeon 8358 about 1.4e6/s. Target here: 4e7 merges/s at 4096².",
	}
	return []table{t, vt}, nil
}

// benchHash is a hash of Goldilocks elements as the rescue and rpo suites
// measure it: its batch functions with the default variant, and its
// reference.
type benchHash struct {
	name         string // starts errors: "rescue"
	mergeMany    func(ctx *wgpu.Context, dst [][4]uint64, pairs [][8]uint64, t *wgpu.Timing) error
	hashMany     func(ctx *wgpu.Context, dst [][4]uint64, els []uint64, m int, t *wgpu.Timing) error
	merge        func(a, b [4]uint64) [4]uint64
	hashElements func(els []uint64) [4]uint64
}

// rescueBench is Rp64_256's default variant.
var rescueBench = benchHash{
	name: "rescue",
	mergeMany: func(ctx *wgpu.Context, dst [][4]uint64, pairs [][8]uint64, t *wgpu.Timing) error {
		return rescue.MergeMany(ctx, dst, pairs, rescue.Options{Timing: t})
	},
	hashMany: func(ctx *wgpu.Context, dst [][4]uint64, els []uint64, m int, t *wgpu.Timing) error {
		return rescue.HashElementsMany(ctx, dst, els, m, rescue.Options{Timing: t})
	},
	merge:        rescue.Merge,
	hashElements: rescue.HashElements,
}

// merges checks the merges of pairs into dst against the CPU reference
// and returns their median kernel and end-to-end times.
func (h benchHash) merges(ctx *wgpu.Context, cfg *benchConfig, dst [][4]uint64, pairs [][8]uint64) (kernel, e2e time.Duration, err error) {
	if err := h.mergeMany(ctx, dst, pairs, nil); err != nil {
		return 0, 0, err
	}
	if _, err := h.checkMerges(dst, pairs); err != nil {
		return 0, 0, fmt.Errorf("%s merge %d: %w", h.name, len(pairs), err)
	}
	var tm wgpu.Timing
	merge := func() error { return h.mergeMany(ctx, dst, pairs, &tm) }
	if kernel, err = cfg.gpuTime(&tm, merge); err != nil {
		return 0, 0, err
	}
	e2e, err = cfg.wallTime(merge)
	return kernel, e2e, err
}

// checkMerges compares up to 4096 evenly spaced merges in dst with the CPU
// reference and returns how many it compared.
func (h benchHash) checkMerges(dst [][4]uint64, pairs [][8]uint64) (int, error) {
	step := max(1, len(pairs)/4096)
	for i := 0; i < len(pairs); i += step {
		if dst[i] != h.merge([4]uint64(pairs[i][:4]), [4]uint64(pairs[i][4:])) {
			return 0, fmt.Errorf("pair %d differs from the CPU reference", i)
		}
	}
	return (len(pairs) + step - 1) / step, nil
}

// hashes times hash_elements over as many inputs of rescueHashElements
// elements as the pairs' elements fill, and checks the last against the
// CPU reference. It returns the number of inputs and the median kernel
// and end-to-end times.
func (h benchHash) hashes(ctx *wgpu.Context, cfg *benchConfig, pairs [][8]uint64) (hn int, kernel, e2e time.Duration, err error) {
	hn = len(pairs) * 8 / rescueHashElements
	els := make([]uint64, 0, hn*rescueHashElements)
	for _, p := range pairs {
		els = append(els, p[:]...)
	}
	els = els[:hn*rescueHashElements]
	hdst := make([][4]uint64, hn)
	var tm wgpu.Timing
	hash := func() error { return h.hashMany(ctx, hdst, els, rescueHashElements, &tm) }
	if kernel, err = cfg.gpuTime(&tm, hash); err != nil {
		return 0, 0, 0, err
	}
	if e2e, err = cfg.wallTime(hash); err != nil {
		return 0, 0, 0, err
	}
	if hdst[hn-1] != h.hashElements(els[(hn-1)*rescueHashElements:]) {
		return 0, 0, 0, fmt.Errorf("%s hash %d: last input differs from the CPU reference", h.name, hn)
	}
	return hn, kernel, e2e, nil
}

// rescueVariantTable times every kernel variant on the same pairs, side²
// of them, and checks a sample of each variant's digests.
func rescueVariantTable(ctx *wgpu.Context, cfg *benchConfig, pairs [][8]uint64, dst [][4]uint64, side int) (table, error) {
	n := len(pairs)
	t := table{Title: fmt.Sprintf("Rescue Prime Rp64_256: merge kernel variants at %d² inputs", side),
		Columns: []string{"variant", "kernel ms", "merge ns (kernel)", "merges/s (kernel)", "vs " + rescue.Fast.String(), "checked"}}
	var fast float64
	for _, v := range rescue.Variants {
		clear(dst)
		var tm wgpu.Timing
		merge := func() error { return rescue.MergeMany(ctx, dst, pairs, rescue.Options{Variant: v, Timing: &tm}) }
		if err := merge(); err != nil {
			return t, fmt.Errorf("rescue variant %s: %w", v, err)
		}
		checked, err := rescueBench.checkMerges(dst, pairs)
		if err != nil {
			return t, fmt.Errorf("rescue variant %s: %w", v, err)
		}
		mk, err := cfg.gpuTime(&tm, merge)
		if err != nil {
			return t, fmt.Errorf("rescue variant %s: %w", v, err)
		}
		cfg.step(fmt.Sprintf("rescue variant %s", v))
		rate := float64(n) / mk.Seconds()
		if v == rescue.Fast {
			fast = rate
		}
		t.Rows = append(t.Rows, []string{v.String(), fmt.Sprintf("%.3f", float64(mk.Microseconds())/1e3),
			fmt.Sprintf("%.2f", float64(mk.Nanoseconds())/float64(n)), fmt.Sprintf("%.3g", rate),
			fmt.Sprintf("%.2f×", rate/fast), fmt.Sprintf("%d evenly spaced merges equal to the CPU reference", checked)})
	}
	t.Notes = []string{
		"Kernel: " + timeKind(ctx) + ", median of the timed repeats.",
		"fast: 12 vec2<u32> values, round constants as literals, MDS by small constants in 16-bit limbs, inverse S-box by the addition chain. " +
			"densemds: MDS by full field products. libinv: the field library's inverse S-box. vec4: the state as three vec4 pairs (low words, high words). " +
			"arkstorage, arkuniform, arkworkgroup: round constants read from a storage buffer, from the parameters' uniform buffer, or from workgroup memory filled from a storage buffer at kernel start.",
	}
	return t, nil
}

// cpuRate is the CPU backend's merges per second (the reference on all
// cores).
func (h benchHash) cpuRate(n int) (float64, error) {
	pairs := make([][8]uint64, n)
	for i := range pairs {
		pairs[i] = [8]uint64{uint64(i), 0, 0, 0, uint64(i), 1}
	}
	var t wgpu.Timing
	err := h.mergeMany(nil, make([][4]uint64, n), pairs, &t)
	return float64(n) / t.Wall.Seconds(), err
}
