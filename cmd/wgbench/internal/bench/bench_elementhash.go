package bench

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"runtime"
	"time"
	"unsafe"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/field/u64emu"
	"github.com/wgcompute/wgcompute/algos/registry"
	"github.com/wgcompute/wgcompute/cmd/internal/results"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/internal/base/impl"
	"github.com/wgcompute/wgcompute/wgpu"
)

// benchHashElements is the element count per input in the hash_elements
// rows of the rescue, rpo and poseidon2 suites: a full state width, two
// permutations per input.
const benchHashElements = 12

// benchField is a hash of the registry over a field, of elements E,
// digests D, pairs P and states S, as the element-hash suites measure it.
type benchField[E field.Element, D comparable, P, S any] struct {
	registry.Hash
	// variant returns the batch functions on the kernel variant named.
	variant func(name string) (*batch.Family[E, D, P, S], error)
	// merge and hashElements are the reference, the suites' checks.
	merge        func(pair P) D
	hashElements func(els []E) D
	// p is the field's prime.
	p uint64
}

// benchHash is a Goldilocks hash of the registry as the suites measure it.
type benchHash = benchField[uint64, [4]uint64, [8]uint64, [12]uint64]

// benchHashOf returns h, a hash over Goldilocks, as the suites measure it.
func benchHashOf(h registry.Hash) benchHash {
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
func benchElements[E field.Element, T any](s []T) []E {
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
// batch functions, named after it: the shared table of merges and
// hash_elements per second, and at the largest size every kernel variant
// (or another hash, suiteExtras' against), with what suiteExtras adds.
func elementHashSuites() []suite {
	var suites []suite
	for _, h := range registry.Batched() {
		x := suiteExtras[h.Name]
		if h.ElementBits() == 32 {
			suites = append(suites, elementHashSuite(h, x, benchHash31Of))
		} else {
			suites = append(suites, elementHashSuite(h, x, benchHashOf))
		}
	}
	return suites
}

// extras is what one hash's suite shows beside the shared table: its
// published figures, notes on its kernels, another hash measured against
// it. The zero value adds nothing.
type extras struct {
	// seed is the second word of the pairs' generator; 0: the FNV-1a hash
	// of the hash's name.
	seed uint64
	// reference: the CPU rate is the plain-Go reference's, headed "CPU
	// ref", rather than the CPU backend's.
	reference bool
	// perInput says, in the hash_elements note, what one input of
	// benchHashElements elements costs.
	perInput string
	// notes follow the note on the CPU rate.
	notes []string
	// published is a published rate at one size, set beside the kernel's.
	published *published
	// variantNotes follow the variant table's note on the timings.
	variantNotes string
	// against names a hash of the same field whose default merge kernel
	// the second table times on the same pairs, instead of the variants;
	// short names each of the two in that table.
	against, short string
}

// published is a rate someone published for a hash: merges per second on
// side² inputs, on device.
type published struct {
	device string
	side   int
	rate   float64
	// cell is the rate as its column shows it; ref labels the plot's
	// reference line at it.
	cell, ref string
}

// suiteExtras are the hashes whose suites show more than the shared
// table, by name; a hash added to the registry needs no row.
var suiteExtras = map[string]extras{
	"rescue": {
		seed: 11, reference: true, perInput: "two permutations each", short: "Rp64_256",
		notes:     []string{"Published: Tesla V100 (SYCL) 49.3 ns per merge, 2.03e7 merges/s at 4096²; Xeon 8358 about 1.4e6/s. Target here: 4e7 merges/s at 4096²."},
		published: &published{device: "V100", side: 4096, rate: 2.03e7, cell: "2.03e+07 (49.3 ns)", ref: "V100 (article, SYCL), 4096²"},
		variantNotes: "fast: 12 vec2<u32> values, round constants as literals, MDS by small constants in 16-bit limbs, inverse S-box by the addition chain. " +
			"densemds: MDS by full field products. libinv: the field library's inverse S-box. vec4: the state as three vec4 pairs (low words, high words). " +
			"arkstorage, arkuniform, arkworkgroup: round constants read from a storage buffer, from the parameters' uniform buffer, or from workgroup memory filled from a storage buffer at kernel start.",
	},
	"rpo": {
		// The same ladder and inputs as Rp64_256's, with which it shares
		// the kernel body and the round's layers, and differs in
		// constants, order and sponge.
		seed: 11, reference: true, perInput: "two permutations each, the second block zero-padded",
		against: "rescue", short: "RPO256",
	},
	"poseidon2": {
		seed: 13, perInput: "two permutations each, in one invocation",
		notes: []string{"Poseidon2 is Plonky3's default_goldilocks_poseidon2_12: 8 full rounds and 22 partial rounds, 582 field products per permutation in the fast kernel (118 S-boxes of 4, and 5 per partial round), where Rescue's Rp64_256 takes 6384."},
		variantNotes: "fast: 12 vec2<u32> values in registers, round constants as literals, the internal layer's integers (-2, 1, 2, 3, 4, -3, -4) by additions and its fractions (1/2, -1/2, 1/4, -1/4, 1/8) by five goldilocks_mul. " +
			"muldiag: the internal layer as twelve goldilocks_mul by its diagonal.",
	},
}

// elementHashSuite is the suite of h, measured as of returns a hash of its
// field, with x beside the shared table.
func elementHashSuite[E field.Element, D comparable, P, S any](h registry.Hash, x extras, of func(registry.Hash) benchField[E, D, P, S]) suite {
	cpu, last := "CPU backend", "every kernel variant"
	if x.reference {
		cpu = "CPU reference"
	}
	var against benchField[E, D, P, S]
	if x.against != "" {
		o, _ := registry.Lookup(x.against)
		against = of(o)
		last = "against " + suiteExtras[x.against].short
	}
	if x.seed == 0 {
		seed := fnv.New64a()
		seed.Write([]byte(h.Name))
		x.seed = seed.Sum64()
	}
	b := of(h)
	return suite{name: h.Name,
		about: fmt.Sprintf("%s merges and hash_elements per second, 128² to 4096² inputs, %s on all cores; %s at 4096²", h.Title, cpu, last),
		run: func(ctx *wgpu.Context, cfg *benchConfig) ([]results.Table, error) {
			return b.suite(ctx, cfg, x, func(pairs []P, dst []D, side int, rate float64) (results.Table, error) {
				if x.against != "" {
					return b.versusTable(ctx, cfg, pairs, dst, side, rate, x.short, against)
				}
				var notes []string
				if x.variantNotes != "" {
					notes = append(notes, x.variantNotes)
				}
				return b.variantTable(ctx, cfg, pairs, dst, side, notes...)
			})
		}}
}

// suite runs h's suite with x beside the shared table and returns its two
// tables: merges and hash_elements per second over the ladder of 128² to
// 4096² inputs (64² and 128² with --quick), the CPU backend beside them,
// and last's table of the pairs of the largest size (their digests in
// dst), merged at rate.
func (h benchField[E, D, P, S]) suite(ctx *wgpu.Context, cfg *benchConfig, x extras, last func(pairs []P, dst []D, side int, rate float64) (results.Table, error)) ([]results.Table, error) {
	sides := []int{128, 256, 512, 1024, 2048, 4096}
	if cfg.quick {
		// Smoke-test sizes: a software adapter merges only tens of
		// thousands a second (bench/results/HISTORY.md, "Full results:
		// lavapipe").
		sides = []int{64, 128}
	}
	rng := rand.New(rand.NewPCG(7, x.seed))
	cpuColumn, extraColumns := "CPU merges/s", []string(nil)
	if x.reference {
		cpuColumn = "CPU ref merges/s"
	}
	if p := x.published; p != nil {
		extraColumns = []string{p.device + " (article) merges/s", "kernel vs " + p.device}
	}
	t := results.Table{Title: h.Title + ": merges and hash_elements per second", Axes: results.Axes{XLabel: "inputs", YLabel: "merges/s (kernel)", LogX: true},
		Columns: append(append([]string{"inputs", "merge ns (kernel)", "merges/s (kernel)", "merges/s (end to end)", fmt.Sprintf("hash_elements(%d)/s (kernel)", benchHashElements), "hash_elements/s (end to end)"},
			extraColumns...), cpuColumn+" ("+cli.HostCPU()+")", "kernel vs CPU", "checked")}
	cpu, err := h.cpuRate(1 << 16)
	if err != nil {
		return nil, err
	}
	var second results.Table
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
		if p := x.published; p != nil && side == p.side {
			row = append(row, p.cell, fmt.Sprintf("%.2f×", rate/p.rate))
		} else if p != nil {
			row = append(row, "-", "-")
		}
		t.Rows = append(t.Rows, append(row, fmt.Sprintf("%.3g", cpu), fmt.Sprintf("%.1f×", rate/cpu), "up to 4096 merges (evenly spaced) and the last hash equal to the CPU reference"))
		t.Points = append(t.Points, results.Point{X: float64(n), Y: rate})
		if side == sides[len(sides)-1] {
			if second, err = last(pairs, dst, side, rate); err != nil {
				return nil, err
			}
		}
	}
	t.Notes = []string{"Kernel: " + timeKind(ctx) + ", summed over the dispatches of a call. End to end: validation, upload, kernels and read-back of host slices."}
	if ctx != nil {
		t.Notes = append(t.Notes, batchMemoryNote(ctx))
	}
	t.Notes = append(t.Notes, x.cpuNotes(cpu)...)
	if p := x.published; p != nil {
		t.Refs = []results.Ref{{Label: p.ref, Y: p.rate}}
	}
	return []results.Table{t, second}, nil
}

// cpuNotes are the notes of a table whose CPU rate is cpu: what
// hash_elements hashed, what the CPU ran, and x's notes.
func (x extras) cpuNotes(cpu float64) []string {
	perInput, what := "", "CPU (the CPU backend, plain Go"
	if x.perInput != "" {
		perInput = " (" + x.perInput + ")"
	}
	if x.reference {
		what = "CPU reference (plain Go"
	}
	return append([]string{
		fmt.Sprintf("hash_elements rows hash inputs of %d elements%s, as many as fit in the merge input's elements.", benchHashElements, perInput),
		fmt.Sprintf("%s, %d goroutines on this host): %.3g merges/s.", what, runtime.GOMAXPROCS(0), cpu),
	}, x.notes...)
}

// batchMemoryNote says where the batches' pieces were, which the
// --staging-batches flag chooses.
func batchMemoryNote(ctx *wgpu.Context) string {
	if ctx.HostPieces() {
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
func (h benchField[E, D, P, S]) variantTable(ctx *wgpu.Context, cfg *benchConfig, pairs []P, dst []D, side int, notes ...string) (results.Table, error) {
	n := len(pairs)
	variants := h.variants()
	t := results.Table{Title: fmt.Sprintf("%s: merge kernel variants at %d² inputs", h.Title, side),
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

// versusTable times other's default merge kernel on the pairs h merged at
// side², beside h's rate: for hashes that share a kernel body and differ in
// constants (RPO256 and Rp64_256), named short and other's short.
func (h benchField[E, D, P, S]) versusTable(ctx *wgpu.Context, cfg *benchConfig, pairs []P, dst []D, side int, rate float64, short string, other benchField[E, D, P, S]) (results.Table, error) {
	n := len(pairs)
	cfg.step(h.Name + " against " + other.Name)
	clear(dst)
	kernel, _, err := other.merges(ctx, cfg, dst, pairs)
	if err != nil {
		return results.Table{}, err
	}
	otherRate, otherShort := float64(n)/kernel.Seconds(), suiteExtras[other.Name].short
	return results.Table{Title: fmt.Sprintf("%s and %s: merge kernels at %d² inputs", short, otherShort, side),
		Columns: []string{"hash", "merges/s (kernel)", "vs " + otherShort},
		Rows: [][]string{
			{fmt.Sprintf("%s (%s, %s)", short, h.Name, h.variants()[0]), fmt.Sprintf("%.3g", rate), fmt.Sprintf("%.2f×", rate/otherRate)},
			{fmt.Sprintf("%s (%s, %s)", otherShort, other.Name, other.variants()[0]), fmt.Sprintf("%.3g", otherRate), "1.00×"},
		},
		Notes: []string{"Kernel: " + timeKind(ctx) + ", median of the timed repeats; the same pairs, each hash's digests checked against its CPU reference."},
	}, nil
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
