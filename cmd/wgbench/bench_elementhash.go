package main

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"runtime"
	"time"
	"unsafe"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/field/u64emu"
	"github.com/wgcompute/wgcompute/algos/registry"
	"github.com/wgcompute/wgcompute/internal/base/impl"
	"github.com/wgcompute/wgcompute/wgpu"
)

// benchHashElements is the element count per input in the hash_elements
// rows of the rescue, rpo and poseidon2 suites: a full state width, two
// permutations per input.
const benchHashElements = 12

// benchField is a hash of the registry over a field, of elements E,
// digests D, pairs P and states S, as the element-hash suites measure it.
type benchField[E batch.Element, D comparable, P, S any] struct {
	registry.Hash
	// variant returns the batch functions on the kernel variant named.
	variant func(name string) (*batch.Family[E, D, P, S], error)
	// merge and hashElements are the reference, the suites' checks.
	merge        func(pair P) D
	hashElements func(els []E) D
	// p is the field's prime.
	p uint64
}

// benchHash is a Goldilocks hash of the registry as the rescue, rpo and
// poseidon2 suites measure it.
type benchHash = benchField[uint64, [4]uint64, [8]uint64, [12]uint64]

// benchHashOf returns the registry's Goldilocks hash named name; the
// suites name only hashes the registry lists, which TestBenchSuitesHashes
// checks.
func benchHashOf(name string) benchHash {
	h, _ := registry.Lookup(name)
	r, _ := registry.ReferenceOf[uint64, [4]uint64, [12]uint64](h)
	return benchHash{Hash: h, variant: variantOf[*batch.Goldilocks](h), p: u64emu.P, hashElements: r.HashElements,
		merge: func(p [8]uint64) [4]uint64 { return r.Merge([4]uint64(p[:4]), [4]uint64(p[4:])) }}
}

// benchHash31Of returns h, a hash over a 31-bit field, as the suites
// measure it.
func benchHash31Of(h registry.Hash) benchField[uint32, [8]uint32, [16]uint32, [16]uint32] {
	r, _ := registry.ReferenceOf[uint32, [8]uint32, [16]uint32](h)
	p := registry.BatchOf[uint32, [8]uint32, [16]uint32, [16]uint32](h).Modulus()
	return benchField[uint32, [8]uint32, [16]uint32, [16]uint32]{Hash: h, variant: variantOf[*batch.Monty31](h), p: p, hashElements: r.HashElements,
		merge: func(p [16]uint32) [8]uint32 { return r.Merge([8]uint32(p[:8]), [8]uint32(p[8:])) }}
}

// variants returns the names of h's kernel variants, the default first.
func (h benchField[E, D, P, S]) variants() []string { return impl.List(h.Name) }

// variantOf returns the function that gives h's batch functions, of type
// T, on the kernel variant named.
func variantOf[T any](h registry.Hash) func(name string) (T, error) {
	return func(name string) (T, error) { return impl.Select[T](h.Name, name) }
}

// benchElements views a slice of arrays of E as its elements, without
// copying.
func benchElements[E batch.Element, T any](s []T) []E {
	var e E
	return unsafe.Slice((*E)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])/unsafe.Sizeof(e)))
}

// mergeMany is MergeMany on the v-th kernel variant.
func (h benchField[E, D, P, S]) mergeMany(ctx *wgpu.Context, dst []D, pairs []P, v int, t *wgpu.Timing) error {
	f, err := h.variant(h.variants()[v])
	if err != nil {
		return err
	}
	return f.MergeMany(ctx, dst, pairs, batch.Options{Timing: t})
}

// hashMany is HashElementsMany on the default kernels.
func (h benchField[E, D, P, S]) hashMany(ctx *wgpu.Context, dst []D, els []E, m int, t *wgpu.Timing) error {
	f, err := h.variant(h.variants()[0])
	if err != nil {
		return err
	}
	return f.HashElementsMany(ctx, dst, els, m, batch.Options{Timing: t})
}

// elementHashSuites returns a suite for every hash of the registry with
// batch functions, named after it: its own where ownElementSuites has
// one, else the shared table and every kernel variant at the largest
// size.
func elementHashSuites() []suite {
	own := ownElementSuites()
	var suites []suite
	for _, h := range registry.Batched() {
		s, ok := own[h.Name]
		switch {
		case ok:
		case h.ElementBits() == 32:
			s = benchHash31Of(h).defaultSuite()
		default:
			s = benchHashOf(h.Name).defaultSuite()
		}
		suites = append(suites, s)
	}
	return suites
}

// ownElementSuites are the suites that measure more than the default one
// (published figures beside, another hash against), by hash: their run and
// what their table has beside the default's, titled from the registry.
func ownElementSuites() map[string]suite {
	own := map[string]struct {
		beside string
		run    func(ctx *wgpu.Context, cfg *benchConfig) ([]table, error)
	}{
		"poseidon2": {"CPU backend on all cores; every kernel variant at 4096²", benchPoseidon2},
		"rescue":    {"CPU reference on all cores; every kernel variant at 4096²", benchRescue},
		"rpo":       {"CPU reference on all cores; against Rp64_256 at 4096²", benchRPO},
	}
	suites := map[string]suite{}
	for name, o := range own {
		title := name
		if h, err := registry.Lookup(name); err == nil {
			title = h.Title
		}
		suites[name] = suite{name: name, about: title + " merges and hash_elements per second, 128² to 4096² inputs, " + o.beside, run: o.run}
	}
	return suites
}

// defaultSuite is the suite of a hash without one of its own: the shared
// table, with the CPU backend beside, and every kernel variant at the
// largest size.
func (h benchField[E, D, P, S]) defaultSuite() suite {
	seed := fnv.New64a()
	seed.Write([]byte(h.Name))
	return suite{name: h.Name,
		about: h.Title + " merges and hash_elements per second, 128² to 4096² inputs, CPU backend on all cores; every kernel variant at 4096²",
		run: func(ctx *wgpu.Context, cfg *benchConfig) ([]table, error) {
			return h.suite(ctx, cfg, elementSuiteOf[D, P]{
				seed:      seed.Sum64(),
				cpuColumn: "CPU merges/s",
				notes: func(cpu float64) []string {
					return []string{
						fmt.Sprintf("hash_elements rows hash inputs of %d elements, as many as fit in the merge input's elements.", benchHashElements),
						fmt.Sprintf("CPU (the CPU backend, plain Go, %d goroutines on this host): %.3g merges/s.", runtime.GOMAXPROCS(0), cpu),
					}
				},
				last: func(ctx *wgpu.Context, cfg *benchConfig, pairs []P, dst []D, side int, _ float64) (table, error) {
					return h.variantTable(ctx, cfg, pairs, dst, side)
				},
			})
		}}
}

// elementSuiteOf is what one suite of a benchField adds to the table that
// suite shares: merges and hash_elements per second over the ladder of
// 128² to 4096² inputs (64² and 128² with --quick), the CPU backend
// beside them.
type elementSuiteOf[D, P any] struct {
	// seed is the second word of the pairs' generator.
	seed uint64
	// cpuColumn heads the CPU backend's rate: "CPU ref merges/s".
	cpuColumn string
	// extraColumns follow the hash_elements rates, extraCells(side,
	// rate) filling them for the row of side² inputs merged at rate.
	extraColumns []string
	extraCells   func(side int, rate float64) []string
	// notes follow the note on the timings, given the CPU rate.
	notes func(cpu float64) []string
	// last measures the pairs of the largest size (their digests in
	// dst), merged at rate, into the suite's second table.
	last func(ctx *wgpu.Context, cfg *benchConfig, pairs []P, dst []D, side int, rate float64) (table, error)
}

// elementSuite is elementSuiteOf for a Goldilocks hash.
type elementSuite = elementSuiteOf[[4]uint64, [8]uint64]

// suite runs s for h and returns its two tables.
func (h benchField[E, D, P, S]) suite(ctx *wgpu.Context, cfg *benchConfig, s elementSuiteOf[D, P]) ([]table, error) {
	sides := []int{128, 256, 512, 1024, 2048, 4096}
	if cfg.quick {
		// Smoke-test sizes: a software adapter merges only tens of
		// thousands a second (bench/results/HISTORY.md, "Full results:
		// lavapipe").
		sides = []int{64, 128}
	}
	rng := rand.New(rand.NewPCG(7, s.seed))
	t := table{Title: h.Title + ": merges and hash_elements per second", XLabel: "inputs", YLabel: "merges/s (kernel)", LogX: true,
		Columns: append(append([]string{"inputs", "merge ns (kernel)", "merges/s (kernel)", "merges/s (end to end)", fmt.Sprintf("hash_elements(%d)/s (kernel)", benchHashElements), "hash_elements/s (end to end)"},
			s.extraColumns...), s.cpuColumn+" ("+hostCPU()+")", "kernel vs CPU", "checked")}
	cpu, err := h.cpuRate(1 << 16)
	if err != nil {
		return nil, err
	}
	var last table
	for _, side := range sides {
		n := side * side
		pairs := make([]P, n)
		els := benchElements[E](pairs)
		for i := range els {
			els[i] = E(rng.Uint64N(h.p))
		}
		dst := make([]D, n)
		// Each step names the case before it is timed, as its timings are
		// named in bench --json.
		cfg.step(fmt.Sprintf("%s merge %d", h.Name, n))
		mergeKernel, mergeE2E, err := h.merges(ctx, cfg, dst, pairs)
		if err != nil {
			return nil, err
		}
		cfg.step(fmt.Sprintf("%s hash_elements, %d² inputs", h.Name, side))
		hn, hashKernel, hashE2E, err := h.hashes(ctx, cfg, pairs)
		if err != nil {
			return nil, err
		}
		rate := float64(n) / mergeKernel.Seconds()
		row := []string{fmt.Sprintf("%d² = %d", side, n),
			fmt.Sprintf("%.2f", float64(mergeKernel.Nanoseconds())/float64(n)),
			fmt.Sprintf("%.3g", rate), fmt.Sprintf("%.3g", float64(n)/mergeE2E.Seconds()),
			fmt.Sprintf("%.3g", float64(hn)/hashKernel.Seconds()), fmt.Sprintf("%.3g", float64(hn)/hashE2E.Seconds())}
		if s.extraCells != nil {
			row = append(row, s.extraCells(side, rate)...)
		}
		t.Rows = append(t.Rows, append(row, fmt.Sprintf("%.3g", cpu), fmt.Sprintf("%.1f×", rate/cpu), "up to 4096 merges (evenly spaced) and the last hash equal to the CPU reference"))
		t.Points = append(t.Points, point{X: float64(n), Y: rate})
		if side == sides[len(sides)-1] {
			if last, err = s.last(ctx, cfg, pairs, dst, side, rate); err != nil {
				return nil, err
			}
		}
	}
	t.Notes = []string{"Kernel: " + timeKind(ctx) + ", summed over the dispatches of a call. End to end: validation, upload, kernels and read-back of host slices."}
	if ctx != nil {
		t.Notes = append(t.Notes, batchMemoryNote(ctx))
	}
	t.Notes = append(t.Notes, s.notes(cpu)...)
	return []table{t, last}, nil
}

// batchMemoryNote says where the batches' pieces were, which the
// --staging-batches flag chooses.
func batchMemoryNote(ctx *wgpu.Context) string {
	if ctx.HostBatches() {
		return "Pieces in host memory, read and written in place by the kernels, so kernel times include the transfers (--staging-batches)."
	}
	return "Pieces staged in device memory: uploaded, then the kernels, then read back, in turn on the device's one queue."
}

// merges checks the merges of pairs into dst against the CPU reference
// and returns their median kernel and end-to-end times.
func (h benchField[E, D, P, S]) merges(ctx *wgpu.Context, cfg *benchConfig, dst []D, pairs []P) (kernel, e2e time.Duration, err error) {
	if err := h.mergeMany(ctx, dst, pairs, 0, nil); err != nil {
		return 0, 0, err
	}
	if _, err := h.checkMerges(dst, pairs); err != nil {
		return 0, 0, fmt.Errorf("%s merge %d: %w", h.Name, len(pairs), err)
	}
	var tm wgpu.Timing
	merge := func() error { return h.mergeMany(ctx, dst, pairs, 0, &tm) }
	if kernel, err = cfg.gpuTime(&tm, merge); err != nil {
		return 0, 0, err
	}
	e2e, err = cfg.wallTime(merge)
	return kernel, e2e, err
}

// checkMerges compares up to 4096 evenly spaced merges in dst with the CPU
// reference and returns how many it compared.
func (h benchField[E, D, P, S]) checkMerges(dst []D, pairs []P) (int, error) {
	step := max(1, len(pairs)/4096)
	for i := 0; i < len(pairs); i += step {
		if dst[i] != h.merge(pairs[i]) {
			return 0, fmt.Errorf("pair %d differs from the CPU reference", i)
		}
	}
	return (len(pairs) + step - 1) / step, nil
}

// hashes times hash_elements over as many inputs of benchHashElements
// elements as the pairs' elements fill, and checks the last against the
// CPU reference. It returns the number of inputs and the median kernel
// and end-to-end times.
func (h benchField[E, D, P, S]) hashes(ctx *wgpu.Context, cfg *benchConfig, pairs []P) (hn int, kernel, e2e time.Duration, err error) {
	const m = benchHashElements
	all := benchElements[E](pairs)
	hn = len(all) / m
	els := append([]E(nil), all[:hn*m]...)
	hdst := make([]D, hn)
	var tm wgpu.Timing
	hash := func() error { return h.hashMany(ctx, hdst, els, m, &tm) }
	if kernel, err = cfg.gpuTime(&tm, hash); err != nil {
		return 0, 0, 0, err
	}
	if e2e, err = cfg.wallTime(hash); err != nil {
		return 0, 0, 0, err
	}
	if hdst[hn-1] != h.hashElements(els[(hn-1)*m:]) {
		return 0, 0, 0, fmt.Errorf("%s hash %d: last input differs from the CPU reference", h.Name, hn)
	}
	return hn, kernel, e2e, nil
}

// variantTable times every kernel variant on the same pairs, side² of
// them, and checks a sample of each variant's digests; notes follow the
// note on the timings.
func (h benchField[E, D, P, S]) variantTable(ctx *wgpu.Context, cfg *benchConfig, pairs []P, dst []D, side int, notes ...string) (table, error) {
	n := len(pairs)
	variants := h.variants()
	t := table{Title: fmt.Sprintf("%s: merge kernel variants at %d² inputs", h.Title, side),
		Columns: []string{"variant", "kernel ms", "merge ns (kernel)", "merges/s (kernel)", "vs " + variants[0], "checked"}}
	var fast float64
	for v, name := range variants {
		cfg.step(fmt.Sprintf("%s variant %s", h.Name, name))
		clear(dst)
		var tm wgpu.Timing
		merge := func() error { return h.mergeMany(ctx, dst, pairs, v, &tm) }
		if err := merge(); err != nil {
			return t, fmt.Errorf("%s variant %s: %w", h.Name, name, err)
		}
		checked, err := h.checkMerges(dst, pairs)
		if err != nil {
			return t, fmt.Errorf("%s variant %s: %w", h.Name, name, err)
		}
		mk, err := cfg.gpuTime(&tm, merge)
		if err != nil {
			return t, fmt.Errorf("%s variant %s: %w", h.Name, name, err)
		}
		rate := float64(n) / mk.Seconds()
		if v == 0 {
			fast = rate
		}
		t.Rows = append(t.Rows, []string{name, fmt.Sprintf("%.3f", float64(mk.Microseconds())/1e3),
			fmt.Sprintf("%.2f", float64(mk.Nanoseconds())/float64(n)), fmt.Sprintf("%.3g", rate),
			fmt.Sprintf("%.2f×", rate/fast), fmt.Sprintf("%d evenly spaced merges equal to the CPU reference", checked)})
	}
	t.Notes = append([]string{"Kernel: " + timeKind(ctx) + ", median of the timed repeats."}, notes...)
	return t, nil
}

// cpuRate is the CPU backend's merges per second (the reference on all
// cores).
func (h benchField[E, D, P, S]) cpuRate(n int) (float64, error) {
	pairs := make([]P, n)
	els := benchElements[E](pairs)
	w := len(els) / n // a pair's elements; a digest is half
	for i := range n {
		els[i*w], els[i*w+w/2], els[i*w+w/2+1] = E(i), E(i), 1
	}
	var t wgpu.Timing
	err := h.mergeMany(nil, make([]D, n), pairs, 0, &t)
	return float64(n) / t.Wall.Seconds(), err
}
