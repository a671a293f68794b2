package main

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/wgpu"
)

// poseidon2HashElements is the element count per input in the
// hash_elements rows of the benchmark: a full state width, two
// permutations per input (as the Rescue rows).
const poseidon2HashElements = 12

// benchPoseidon2 is the poseidon2 suite: merges and hash_elements per
// second over the Rescue suite's ladder of sizes, the CPU backend beside
// them, and every kernel variant at the largest size.
func benchPoseidon2(ctx *wgpu.Context, cfg *benchConfig) ([]table, error) {
	sides := []int{128, 256, 512, 1024, 2048, 4096}
	if cfg.quick {
		sides = []int{64, 128}
	}
	rng := rand.New(rand.NewPCG(7, 13))
	t := table{Title: "Poseidon2 (Goldilocks, width 12): merges and hash_elements per second", XLabel: "inputs", YLabel: "merges/s (kernel)", LogX: true,
		Columns: []string{"inputs", "merge ns (kernel)", "merges/s (kernel)", "merges/s (end to end)", fmt.Sprintf("hash_elements(%d)/s (kernel)", poseidon2HashElements), "hash_elements/s (end to end)", "CPU merges/s (" + hostCPU() + ")", "kernel vs CPU", "checked"}}
	cpu, err := poseidon2CPURate(1 << 16)
	if err != nil {
		return nil, err
	}
	var vt table
	for _, side := range sides {
		n := side * side
		pairs := make([][8]uint64, n)
		for i := range pairs {
			for j := range pairs[i] {
				pairs[i][j] = rng.Uint64N(poseidon2.P)
			}
		}
		dst := make([][4]uint64, n)
		mergeKernel, mergeE2E, err := poseidon2Merges(ctx, cfg, dst, pairs)
		if err != nil {
			return nil, err
		}
		cfg.step(fmt.Sprintf("poseidon2 merge %d", n))
		hn, hashKernel, hashE2E, err := poseidon2Hashes(ctx, cfg, pairs)
		if err != nil {
			return nil, err
		}
		cfg.step(fmt.Sprintf("poseidon2 hash %d", hn))
		rate := float64(n) / mergeKernel.Seconds()
		t.Rows = append(t.Rows, []string{fmt.Sprintf("%d² = %d", side, n),
			fmt.Sprintf("%.2f", float64(mergeKernel.Nanoseconds())/float64(n)),
			fmt.Sprintf("%.3g", rate), fmt.Sprintf("%.3g", float64(n)/mergeE2E.Seconds()),
			fmt.Sprintf("%.3g", float64(hn)/hashKernel.Seconds()), fmt.Sprintf("%.3g", float64(hn)/hashE2E.Seconds()),
			fmt.Sprintf("%.3g", cpu), fmt.Sprintf("%.1f×", rate/cpu), "up to 4096 merges (evenly spaced) and the last hash equal to the CPU reference"})
		t.Points = append(t.Points, point{X: float64(n), Y: rate})
		if side == sides[len(sides)-1] {
			if vt, err = poseidon2VariantTable(ctx, cfg, pairs, dst, side); err != nil {
				return nil, err
			}
		}
	}
	t.Notes = []string{
		"Kernel: " + timeKind(ctx) + ", summed over the dispatches of a call. End to end: validation, upload, kernels and read-back of host slices.",
		fmt.Sprintf("hash_elements rows hash inputs of %d elements (two permutations each, in one invocation), as many as fit in the merge input's elements.", poseidon2HashElements),
		fmt.Sprintf("CPU (the CPU backend, plain Go, %d goroutines on this host): %.3g merges/s.", runtime.GOMAXPROCS(0), cpu),
		"Poseidon2 is Plonky3's default_goldilocks_poseidon2_12: 8 full rounds and 22 partial rounds, 582 field products per permutation in the fast kernel (118 S-boxes of 4, and 5 per partial round), where Rescue's Rp64_256 takes 6384.",
	}
	return []table{t, vt}, nil
}

// poseidon2Merges checks the merges of pairs into dst against the CPU
// reference and returns their median kernel and end-to-end times.
func poseidon2Merges(ctx *wgpu.Context, cfg *benchConfig, dst [][4]uint64, pairs [][8]uint64) (kernel, e2e time.Duration, err error) {
	if err := poseidon2.MergeMany(ctx, dst, pairs, poseidon2.Options{}); err != nil {
		return 0, 0, err
	}
	if _, err := checkPoseidon2Merges(dst, pairs); err != nil {
		return 0, 0, fmt.Errorf("poseidon2 merge %d: %w", len(pairs), err)
	}
	var tm wgpu.Timing
	merge := func() error { return poseidon2.MergeMany(ctx, dst, pairs, poseidon2.Options{Timing: &tm}) }
	if kernel, err = cfg.gpuTime(&tm, merge); err != nil {
		return 0, 0, err
	}
	e2e, err = cfg.wallTime(merge)
	return kernel, e2e, err
}

// checkPoseidon2Merges compares up to 4096 evenly spaced merges in dst
// with the reference and returns how many it compared.
func checkPoseidon2Merges(dst [][4]uint64, pairs [][8]uint64) (int, error) {
	step := max(1, len(pairs)/4096)
	for i := 0; i < len(pairs); i += step {
		if dst[i] != poseidon2.Merge([4]uint64(pairs[i][:4]), [4]uint64(pairs[i][4:])) {
			return 0, fmt.Errorf("pair %d differs from the CPU reference", i)
		}
	}
	return (len(pairs) + step - 1) / step, nil
}

// poseidon2Hashes times hash_elements over as many inputs of
// poseidon2HashElements elements as the pairs' elements fill, and checks
// the last against the reference. It returns the number of inputs and the
// median kernel and end-to-end times.
func poseidon2Hashes(ctx *wgpu.Context, cfg *benchConfig, pairs [][8]uint64) (hn int, kernel, e2e time.Duration, err error) {
	const m = poseidon2HashElements
	hn = len(pairs) * 8 / m
	els := make([]uint64, 0, hn*m)
	for _, p := range pairs {
		els = append(els, p[:]...)
	}
	els = els[:hn*m]
	hdst := make([][4]uint64, hn)
	var tm wgpu.Timing
	hash := func() error {
		return poseidon2.HashElementsMany(ctx, hdst, els, m, poseidon2.Options{Timing: &tm})
	}
	if kernel, err = cfg.gpuTime(&tm, hash); err != nil {
		return 0, 0, 0, err
	}
	if e2e, err = cfg.wallTime(hash); err != nil {
		return 0, 0, 0, err
	}
	if hdst[hn-1] != poseidon2.HashElements(els[(hn-1)*m:]) {
		return 0, 0, 0, fmt.Errorf("poseidon2 hash %d: last input differs from the CPU reference", hn)
	}
	return hn, kernel, e2e, nil
}

// poseidon2VariantTable times every kernel variant on the same pairs,
// side² of them, and checks a sample of each variant's digests.
func poseidon2VariantTable(ctx *wgpu.Context, cfg *benchConfig, pairs [][8]uint64, dst [][4]uint64, side int) (table, error) {
	n := len(pairs)
	t := table{Title: fmt.Sprintf("Poseidon2 (Goldilocks, width 12): merge kernel variants at %d² inputs", side),
		Columns: []string{"variant", "kernel ms", "merge ns (kernel)", "merges/s (kernel)", "vs " + poseidon2.Fast.String(), "checked"}}
	var fast float64
	for _, v := range poseidon2.Variants {
		clear(dst)
		var tm wgpu.Timing
		merge := func() error {
			return poseidon2.MergeMany(ctx, dst, pairs, poseidon2.Options{Variant: v, Timing: &tm})
		}
		if err := merge(); err != nil {
			return t, fmt.Errorf("poseidon2 variant %s: %w", v, err)
		}
		checked, err := checkPoseidon2Merges(dst, pairs)
		if err != nil {
			return t, fmt.Errorf("poseidon2 variant %s: %w", v, err)
		}
		mk, err := cfg.gpuTime(&tm, merge)
		if err != nil {
			return t, fmt.Errorf("poseidon2 variant %s: %w", v, err)
		}
		cfg.step(fmt.Sprintf("poseidon2 variant %s", v))
		rate := float64(n) / mk.Seconds()
		if v == poseidon2.Fast {
			fast = rate
		}
		t.Rows = append(t.Rows, []string{v.String(), fmt.Sprintf("%.3f", float64(mk.Microseconds())/1e3),
			fmt.Sprintf("%.2f", float64(mk.Nanoseconds())/float64(n)), fmt.Sprintf("%.3g", rate),
			fmt.Sprintf("%.2f×", rate/fast), fmt.Sprintf("%d evenly spaced merges equal to the CPU reference", checked)})
	}
	t.Notes = []string{
		"Kernel: " + timeKind(ctx) + ", median of the timed repeats.",
		"fast: 12 vec2<u32> values in registers, round constants as literals, the internal layer's integers (-2, 1, 2, 3, 4, -3, -4) by additions and its fractions (1/2, -1/2, 1/4, -1/4, 1/8) by five gl_mul. " +
			"muldiag: the internal layer as twelve gl_mul by its diagonal.",
	}
	return t, nil
}

// poseidon2CPURate is the CPU backend's merges per second (all cores).
func poseidon2CPURate(n int) (float64, error) {
	pairs := make([][8]uint64, n)
	for i := range pairs {
		pairs[i] = [8]uint64{uint64(i), 0, 0, 0, uint64(i), 1}
	}
	var t wgpu.Timing
	err := poseidon2.MergeMany(nil, make([][4]uint64, n), pairs, poseidon2.Options{Timing: &t})
	return float64(n) / t.Wall.Seconds(), err
}
