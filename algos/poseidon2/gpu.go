package poseidon2

import (
	"errors"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/wgcompute/wgcompute/internal/par"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Variant selects how the GPU kernels compute the permutation. Every
// variant gives the same digests; they exist to be measured against each
// other. The zero value, Fast, is the default.
type Variant int

const (
	// Fast is the default: the state as 12 vec2<u32> values in registers,
	// round constants as literals, the external layer by additions, and the
	// internal layer by additions for the diagonal's integers and five
	// gl_mul for its fractions (1/2, -1/2, 1/4, -1/4, 1/8).
	Fast Variant = iota
	// MulDiag computes the internal layer as the plain product by its
	// diagonal: twelve gl_mul per partial round (Plonky3's generic
	// matmul_internal).
	MulDiag
)

// Variants lists every Variant, Fast first.
var Variants = []Variant{Fast, MulDiag}

// variantSpec is a variant's entry file, which includes the kernels and
// defines the permutation they call (see wgsl/poseidon2_main.wgsl).
type variantSpec struct {
	name string
	file string
}

var variantSpecs = [...]variantSpec{
	Fast:    {"fast", "poseidon2_main_fast.wgsl"},
	MulDiag: {"muldiag", "poseidon2_main_muldiag.wgsl"},
}

// String names the variant as the benchmarks and wgbench do.
func (v Variant) String() string {
	if v >= 0 && int(v) < len(variantSpecs) {
		return variantSpecs[v].name
	}
	return fmt.Sprintf("Variant(%d)", int(v))
}

// VariantNames returns the names of Variants, in order.
func VariantNames() []string {
	names := make([]string, len(Variants))
	for i, v := range Variants {
		names[i] = v.String()
	}
	return names
}

// ParseVariant is the inverse of Variant.String.
func ParseVariant(s string) (Variant, error) {
	for _, v := range Variants {
		if v.String() == s {
			return v, nil
		}
	}
	return 0, fmt.Errorf("poseidon2: unknown variant %q: accepted are %v", s, VariantNames())
}

// Options tune the batch functions; the zero value runs Fast and reports
// no timing.
type Options struct {
	Variant Variant
	// Timing, when not nil, receives each call's timing, summed over its
	// submissions (on the CPU path, a nil Context, the host time as Wall).
	Timing *wgpu.Timing
}

// op is one kernel of wgsl/poseidon2_main.wgsl: its entry point, and the
// operation's name in errors.
type op int

const (
	opPermute op = iota
	opMerge
	opHash
	numOps
)

var opEntries = [numOps]string{opPermute: "permute", opMerge: "merge", opHash: "hash_elements"}
var opNames = [numOps]string{opPermute: "permute", opMerge: "merge", opHash: "hash"}

// workgroup is P2_WG in wgsl/poseidon2_main.wgsl.
const workgroup = 64

// maxBatchElements bounds the elements of one hash input: the kernel
// indexes a piece's elements with u32 words.
const maxBatchElements = 1 << 31

// Batcher runs Poseidon2 batches of one variant on one Context, holding the
// variant's kernels (compiled on first use, once per Context) and one
// piece's device buffers until Release. With a nil Context it runs Merge,
// HashElements or Permute on all cores (a twin of the reference with field
// operations that do not branch on their data and the internal layer by
// additions and halvings, twice its speed; the tests hold the two equal)
// and holds nothing.
// A Batcher is not safe for concurrent use.
type Batcher struct {
	ctx     *wgpu.Context
	opts    Options
	spec    variantSpec
	kernels [numOps]*wgpu.Kernel
	batch   *wgpu.Batcher
	// guard places a sentinel item after each piece's output (tests).
	guard bool
}

// NewBatcher returns a Batcher for opts.Variant on ctx; ctx may be nil, the
// CPU backend.
func NewBatcher(ctx *wgpu.Context, opts Options) (*Batcher, error) {
	if opts.Variant < 0 || int(opts.Variant) >= len(variantSpecs) {
		return nil, fmt.Errorf("poseidon2: unknown variant %d: accepted are %v (0..%d)", int(opts.Variant), VariantNames(), len(variantSpecs)-1)
	}
	b := &Batcher{ctx: ctx, opts: opts, spec: variantSpecs[opts.Variant]}
	if ctx != nil {
		b.batch = ctx.NewBatcher()
	}
	return b, nil
}

// Release frees the Batcher's device memory; the Batcher must not be used
// after.
func (b *Batcher) Release() {
	if b.batch != nil {
		b.batch.Release()
	}
}

// kernel returns o's kernel of the Batcher's variant, compiling it on first
// use.
func (b *Batcher) kernel(o op) (*wgpu.Kernel, error) {
	if k := b.kernels[o]; k != nil {
		return k, nil
	}
	s := b.spec
	k, err := b.ctx.Kernel(wgpu.KernelSpec{Label: s.file + ":" + opEntries[o], Module: wgsl.Module{Files: []string{s.file}},
		Entry: opEntries[o], Storage: 2, Uniform: true, ReadOnly: []bool{true, false}})
	if err != nil {
		return nil, fmt.Errorf("variant %s: %w", s.name, err)
	}
	b.kernels[o] = k
	return k, nil
}

// MergeMany is
//
//	for k := range pairs { dst[k] = Merge(pairs[k][0:4], pairs[k][4:8]) }
//
// len(dst) must equal len(pairs), and every element must be below P (the
// error names the first pair and element that is not).
func (b *Batcher) MergeMany(dst [][4]uint64, pairs [][8]uint64) error {
	if err := checkMerge(dst, pairs); err != nil {
		return err
	}
	return b.merge(dst, pairs)
}

func checkMerge(dst [][4]uint64, pairs [][8]uint64) error {
	if len(dst) != len(pairs) {
		return fmt.Errorf("poseidon2: merge: %d destination digests for %d pairs: they must be equal", len(dst), len(pairs))
	}
	if i := firstNonCanonical(flat(pairs)); i >= 0 {
		return fmt.Errorf("poseidon2: merge: pair %d element %d is %d, not a field element (must be below p = %d)", i/8, i%8, pairs[i/8][i%8], uint64(P))
	}
	return nil
}

// merge is MergeMany on checked input.
func (b *Batcher) merge(dst [][4]uint64, pairs [][8]uint64) error {
	return b.run(opMerge, len(pairs), 0, flat(pairs), wgpu.Bytes(dst), func(lo, hi int) {
		for k := lo; k < hi; k++ {
			dst[k] = mergeFast([4]uint64(pairs[k][:4]), [4]uint64(pairs[k][4:]))
		}
	})
}

// HashElementsMany is
//
//	for k := range dst { dst[k] = hashElementsFast(inputs[k*m : (k+1)*m]) }
//
// len(inputs) must be len(dst)*m, m at most 2^31, and every element must
// be below P (the error names the first input and element that is not).
// The kernel hashes each input in one invocation, block after block.
func (b *Batcher) HashElementsMany(dst [][4]uint64, inputs []uint64, m int) error {
	if err := checkHash(dst, inputs, m); err != nil {
		return err
	}
	return b.hash(dst, inputs, m)
}

func checkHash(dst [][4]uint64, inputs []uint64, m int) error {
	if m < 0 || m > maxBatchElements {
		return fmt.Errorf("poseidon2: hash: %d elements per input: must be 0 to %d", m, maxBatchElements)
	}
	if uint64(len(dst))*uint64(m) != uint64(len(inputs)) {
		return fmt.Errorf("poseidon2: hash: %d elements for %d inputs of %d elements: need exactly %d", len(inputs), len(dst), m, uint64(len(dst))*uint64(m))
	}
	if i := firstNonCanonical(inputs); i >= 0 {
		return fmt.Errorf("poseidon2: hash: input %d element %d is %d, not a field element (must be below p = %d)", i/m, i%m, inputs[i], uint64(P))
	}
	return nil
}

// hash is HashElementsMany on checked input.
func (b *Batcher) hash(dst [][4]uint64, inputs []uint64, m int) error {
	if m == 0 {
		// HashElements of nothing permutes never: the zero digest.
		clear(dst)
		b.report(wgpu.Timing{})
		return nil
	}
	return b.run(opHash, len(dst), m, inputs, wgpu.Bytes(dst), func(lo, hi int) {
		for k := lo; k < hi; k++ {
			dst[k] = hashElementsFast(inputs[k*m : (k+1)*m])
		}
	})
}

// PermuteMany is
//
//	for k := range states { Permute(&states[k]) }
//
// Every element must be below P (the error names the first state and
// element that is not).
func (b *Batcher) PermuteMany(states [][12]uint64) error {
	if err := checkPermute(states); err != nil {
		return err
	}
	return b.permute(states)
}

func checkPermute(states [][12]uint64) error {
	els := flat(states)
	if i := firstNonCanonical(els); i >= 0 {
		return fmt.Errorf("poseidon2: permute: state %d element %d is %d, not a field element (must be below p = %d)", i/12, i%12, els[i], uint64(P))
	}
	return nil
}

// permute is PermuteMany on checked input.
func (b *Batcher) permute(states [][12]uint64) error {
	els := flat(states)
	return b.run(opPermute, len(states), 0, els, wgpu.Bytes(els), func(lo, hi int) {
		for k := lo; k < hi; k++ {
			permuteFast(&states[k])
		}
	})
}

// run runs o on count items, the elements of in split evenly among them,
// writing out, on the GPU, or cpu over [0, count) on all cores when the
// Context is nil, and reports the timing.
func (b *Batcher) run(o op, count, m int, in []uint64, out []byte, cpu func(lo, hi int)) error {
	name := opNames[o]
	if b.ctx == nil {
		start := time.Now()
		par.For(count, 64, cpu)
		b.report(wgpu.Timing{Wall: time.Since(start)})
		return nil
	}
	if count == 0 {
		b.report(wgpu.Timing{})
		return nil
	}
	k, err := b.kernel(o)
	if err != nil {
		return fmt.Errorf("poseidon2: %s: %w", name, err)
	}
	t, err := b.batch.Run(wgpu.Batch{
		Label:  "poseidon2 " + name,
		Count:  count,
		Inputs: []wgpu.BatchInput{{Data: wgpu.Bytes(in), ItemBytes: 8 * len(in) / count}},
		Output: wgpu.BatchOutput{Data: out, ItemBytes: len(out) / count},
		Guard:  b.guard,
		Dispatches: func(n int, bind []wgpu.Binding) []wgpu.Dispatch {
			return []wgpu.Dispatch{{Kernel: k, Bindings: bind, Params: []uint32{uint32(n), uint32(m)}, Groups: b.ctx.Grid(uint64(n), workgroup)}}
		},
	})
	b.report(t)
	if err != nil {
		return fmt.Errorf("poseidon2: %s: %w", name, err)
	}
	return nil
}

// report hands a call's timing to the options that asked for it.
func (b *Batcher) report(t wgpu.Timing) {
	if b.opts.Timing != nil {
		*b.opts.Timing = t
	}
}

// MergeMany runs Batcher.MergeMany once with a Batcher of its own: on the
// GPU, or on all cores when ctx is nil.
func MergeMany(ctx *wgpu.Context, dst [][4]uint64, pairs [][8]uint64, opts Options) error {
	return withBatcher(ctx, opts, func(b *Batcher) error { return b.MergeMany(dst, pairs) })
}

// HashElementsMany runs Batcher.HashElementsMany once with a Batcher of its
// own: on the GPU, or on all cores when ctx is nil.
func HashElementsMany(ctx *wgpu.Context, dst [][4]uint64, inputs []uint64, m int, opts Options) error {
	return withBatcher(ctx, opts, func(b *Batcher) error { return b.HashElementsMany(dst, inputs, m) })
}

// PermuteMany runs Batcher.PermuteMany once with a Batcher of its own: on
// the GPU, or on all cores when ctx is nil.
func PermuteMany(ctx *wgpu.Context, states [][12]uint64, opts Options) error {
	return withBatcher(ctx, opts, func(b *Batcher) error { return b.PermuteMany(states) })
}

// withBatcher runs fn with a Batcher for ctx and opts, released after.
func withBatcher(ctx *wgpu.Context, opts Options, fn func(*Batcher) error) error {
	b, err := NewBatcher(ctx, opts)
	if err != nil {
		return err
	}
	defer b.Release()
	return fn(b)
}

// flat views a slice of uint64 arrays as its elements, without copying.
func flat[T [4]uint64 | [8]uint64 | [12]uint64](s []T) []uint64 {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice(&s[0][0], len(s)*len(s[0]))
}

// firstNonCanonical returns the index of the first element >= P, or -1.
// Large inputs are scanned by all cores, since validation runs before every
// upload.
func firstNonCanonical(els []uint64) int {
	return par.First(len(els), 1<<20, func(i int) bool { return els[i] >= P })
}

// MergeManyOn is MergeMany with the pairs split into one contiguous range
// per device of g, each device with a Batcher of its own, all at once. The
// digests are the same as on one device. opts.Timing receives the
// devices' timings side by side (Timing.Parallel: the slowest device's).
func MergeManyOn(g *wgpu.Group, dst [][4]uint64, pairs [][8]uint64, opts Options) error {
	if err := checkMerge(dst, pairs); err != nil {
		return err
	}
	return onGroup(g, len(pairs), opts, func(b *Batcher, lo, hi int) error { return b.merge(dst[lo:hi], pairs[lo:hi]) })
}

// HashElementsManyOn is HashElementsMany split over the devices of g, as
// MergeManyOn splits MergeMany.
func HashElementsManyOn(g *wgpu.Group, dst [][4]uint64, inputs []uint64, m int, opts Options) error {
	if err := checkHash(dst, inputs, m); err != nil {
		return err
	}
	return onGroup(g, len(dst), opts, func(b *Batcher, lo, hi int) error { return b.hash(dst[lo:hi], inputs[lo*m:hi*m], m) })
}

// PermuteManyOn is PermuteMany split over the devices of g, as MergeManyOn
// splits MergeMany.
func PermuteManyOn(g *wgpu.Group, states [][12]uint64, opts Options) error {
	if err := checkPermute(states); err != nil {
		return err
	}
	return onGroup(g, len(states), opts, func(b *Batcher, lo, hi int) error { return b.permute(states[lo:hi]) })
}

// onGroup runs fn on one contiguous range of [0, n) per device of g, each
// with a Batcher of its own, and reports the timings side by side.
func onGroup(g *wgpu.Group, n int, opts Options, fn func(b *Batcher, lo, hi int) error) error {
	if g == nil {
		return errors.New("poseidon2: no Group given: open one with wgpu.OpenGroup or wgpu.NewGroup")
	}
	var mu sync.Mutex
	var total wgpu.Timing
	err := g.Split(n, 1, func(_ int, ctx *wgpu.Context, lo, hi int) error {
		var t wgpu.Timing
		o := opts
		o.Timing = &t
		b, err := NewBatcher(ctx, o)
		if err != nil {
			return err
		}
		defer b.Release()
		err = fn(b, lo, hi)
		mu.Lock()
		total = total.Parallel(t)
		mu.Unlock()
		return err
	})
	if opts.Timing != nil {
		*opts.Timing = total
	}
	if err != nil {
		return fmt.Errorf("poseidon2: %w", err)
	}
	return nil
}
