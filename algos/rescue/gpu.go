package rescue

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/wgcompute/wgcompute/algos/rescue/internal/params"
	"github.com/wgcompute/wgcompute/internal/par"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Variant selects how the GPU kernels compute the permutation. Every
// variant gives the same digests; they exist to be measured against each
// other. The zero value, Fast, is the default.
type Variant int

const (
	// Fast is the default: the state as 12 vec2<u32> values, round
	// constants as literals in the code, the MDS product as sums of 64-bit
	// values times the matrix's 5-bit constants in 16-bit limbs with one
	// 96-bit reduction per output, and the inverse S-box by winterfell's
	// 72-multiplication addition chain.
	Fast Variant = iota
	// DenseMDS computes the MDS product with twelve full field
	// multiplications per output (gl_mul).
	DenseMDS
	// LibInvSbox computes the inverse S-box with the field library's
	// gl_inv_pow7 instead of the addition chain.
	LibInvSbox
	// Vec4 holds the state as three vec4 pairs (low words, high words of
	// four elements each), so that every field operation, the MDS product
	// included, works on four elements at once.
	Vec4
	// ArkStorage reads the round constants from a storage buffer.
	ArkStorage
	// ArkUniform reads the round constants from the uniform buffer that
	// carries the kernel's parameters.
	ArkUniform
	// ArkWorkgroup copies the round constants from a storage buffer into
	// workgroup memory at the start of every workgroup and reads them there.
	ArkWorkgroup
)

// Variants lists every Variant, Fast first.
var Variants = []Variant{Fast, DenseMDS, LibInvSbox, Vec4, ArkStorage, ArkUniform, ArkWorkgroup}

// variantSpec is a variant's kernel: its entry file, which includes what
// it needs and defines the permutation it calls (see wgsl/rescue.wgsl),
// and its bindings.
type variantSpec struct {
	name string
	file string
	// storage is the number of storage bindings: input, output and, for
	// the constants in a buffer, arkWords at binding 2.
	storage int
	// arkParams: arkWords follow the four parameter words in the uniform.
	arkParams bool
}

var variantSpecs = [...]variantSpec{
	Fast:         {"fast", "rescue_main_fast.wgsl", 2, false},
	DenseMDS:     {"densemds", "rescue_main_densemds.wgsl", 2, false},
	LibInvSbox:   {"libinv", "rescue_main_libinv.wgsl", 2, false},
	Vec4:         {"vec4", "rescue_main_vec4.wgsl", 2, false},
	ArkStorage:   {"arkstorage", "rescue_main_arkstorage.wgsl", 3, false},
	ArkUniform:   {"arkuniform", "rescue_main_arkuniform.wgsl", 2, true},
	ArkWorkgroup: {"arkworkgroup", "rescue_main_arkworkgroup.wgsl", 3, false},
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
	return 0, fmt.Errorf("rescue: unknown variant %q: accepted are %v", s, VariantNames())
}

// arkWords are the round constants as the ark variants read them: ARK1 row
// by row, then ARK2, each element as (low, high) u32 words (RP_ARK2_BASE
// and RP_ARK_LEN in wgsl/rescue_consts.wgsl).
var arkWords = func() []uint32 {
	w := make([]uint32, 0, 2*2*Rounds*Width)
	for _, ark := range []*[Rounds][Width]uint64{&params.ARK1, &params.ARK2} {
		for r := range ark {
			for _, c := range ark[r] {
				w = append(w, uint32(c), uint32(c>>32))
			}
		}
	}
	return w
}()

// Options tune the batch functions; the zero value runs Fast and reports
// no timing.
type Options struct {
	Variant Variant
	// Timing, when not nil, receives each call's timing, summed over its
	// submissions (on the CPU path, a nil Context, the host time as Wall).
	Timing *wgpu.Timing
}

// Operation codes of params.op in wgsl/rescue.wgsl.
const (
	opPermute uint32 = 0
	opMerge   uint32 = 1
	opAbsorb  uint32 = 2 // one block of HashElements
)

// workgroup is WG in wgsl/rescue.wgsl.
const workgroup = 64

// Batcher runs Rescue batches of one variant on one Context, holding the
// variant's kernel, one piece's device buffers and, for the variants that
// read the round constants from a buffer, that buffer until Release. With
// a nil Context it runs the Go reference (Merge, HashElements, Permute) on
// all cores and holds nothing. A Batcher is not safe for concurrent use.
type Batcher struct {
	ctx    *wgpu.Context
	opts   Options
	spec   variantSpec
	kernel *wgpu.Kernel
	ark    *wgpu.Buffer // the round constants, bound after the output
	batch  *wgpu.Batcher
}

// NewBatcher compiles opts.Variant's kernel on ctx (once per Context) and
// returns a Batcher for it; ctx may be nil, the CPU backend.
func NewBatcher(ctx *wgpu.Context, opts Options) (*Batcher, error) {
	if opts.Variant < 0 || int(opts.Variant) >= len(variantSpecs) {
		return nil, fmt.Errorf("rescue: unknown variant %d: accepted are %v (0..%d)", int(opts.Variant), VariantNames(), len(variantSpecs)-1)
	}
	b := &Batcher{ctx: ctx, opts: opts, spec: variantSpecs[opts.Variant]}
	if ctx == nil {
		return b, nil
	}
	s := b.spec
	k, err := ctx.Kernel(wgpu.KernelSpec{Label: s.file, Module: wgsl.Module{Files: []string{s.file}}, Entry: "main",
		Storage: s.storage, Uniform: true, ReadOnly: []bool{true, false, true}[:s.storage]})
	if err != nil {
		return nil, fmt.Errorf("rescue: variant %s: %w", s.name, err)
	}
	b.kernel = k
	if s.storage == 3 {
		if b.ark, err = ctx.NewBuffer("rescue round constants", uint64(4*len(arkWords))); err != nil {
			return nil, fmt.Errorf("rescue: round constants: %w", err)
		}
		if err := ctx.Upload(b.ark, 0, wgpu.Bytes(arkWords)); err != nil {
			b.ark.Release()
			return nil, fmt.Errorf("rescue: round constants: %w", err)
		}
	}
	b.batch = ctx.NewBatcher()
	return b, nil
}

// Release frees the Batcher's device memory; the Batcher must not be used
// after.
func (b *Batcher) Release() {
	if b.batch != nil {
		b.batch.Release()
	}
	if b.ark != nil {
		b.ark.Release()
		b.ark = nil
	}
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
		return fmt.Errorf("rescue: merge: %d destination digests for %d pairs: they must be equal", len(dst), len(pairs))
	}
	if i := firstNonCanonical(flat(pairs)); i >= 0 {
		return fmt.Errorf("rescue: merge: pair %d element %d is %d, not a field element (must be below p = %d)", i/8, i%8, pairs[i/8][i%8], uint64(P))
	}
	return nil
}

// merge is MergeMany on checked input.
func (b *Batcher) merge(dst [][4]uint64, pairs [][8]uint64) error {
	return b.run(opMerge, "merge", len(pairs), 0, flat(pairs), wgpu.BatchOutput{Data: wgpu.Bytes(dst), ItemBytes: 8 * DigestSize}, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			dst[k] = Merge([4]uint64(pairs[k][:4]), [4]uint64(pairs[k][4:]))
		}
	})
}

// HashElementsMany is
//
//	for k := range dst { dst[k] = HashElements(inputs[k*m : (k+1)*m]) }
//
// len(inputs) must be len(dst)*m, and every element must be below P (the
// error names the first input and element that is not). The kernel takes
// one dispatch per block of Rate elements, all in one submission.
func (b *Batcher) HashElementsMany(dst [][4]uint64, inputs []uint64, m int) error {
	if err := checkHash(dst, inputs, m); err != nil {
		return err
	}
	return b.hash(dst, inputs, m)
}

func checkHash(dst [][4]uint64, inputs []uint64, m int) error {
	if m < 0 {
		return fmt.Errorf("rescue: hash: %d elements per input: must be zero or more", m)
	}
	if uint64(len(dst))*uint64(m) != uint64(len(inputs)) {
		return fmt.Errorf("rescue: hash: %d elements for %d inputs of %d elements: need exactly %d", len(inputs), len(dst), m, uint64(len(dst))*uint64(m))
	}
	if i := firstNonCanonical(inputs); i >= 0 {
		return fmt.Errorf("rescue: hash: input %d element %d is %d, not a field element (must be below p = %d)", i/m, i%m, inputs[i], uint64(P))
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
	// The kernel leaves whole states; the digest is elements 4..8.
	gather := func(lo, n int, raw []byte) {
		for i := range n {
			for e := range dst[lo+i] {
				dst[lo+i][e] = binary.LittleEndian.Uint64(raw[8*(i*Width+4+e):])
			}
		}
	}
	return b.run(opAbsorb, "hash", len(dst), m, inputs, wgpu.BatchOutput{ItemBytes: 8 * Width, Gather: gather}, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			dst[k] = HashElements(inputs[k*m : (k+1)*m])
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
		return fmt.Errorf("rescue: permute: state %d element %d is %d, not a field element (must be below p = %d)", i/12, i%12, els[i], uint64(P))
	}
	return nil
}

// permute is PermuteMany on checked input.
func (b *Batcher) permute(states [][12]uint64) error {
	els := flat(states)
	return b.run(opPermute, "permute", len(states), 0, els, wgpu.BatchOutput{Data: wgpu.Bytes(els), ItemBytes: 8 * Width}, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			Permute(&states[k])
		}
	})
}

// run runs op on count items, the elements of in split evenly among them,
// on the GPU, or cpu over [0, count) on all cores when the Context is nil,
// and reports the timing.
func (b *Batcher) run(op uint32, name string, count, m int, in []uint64, out wgpu.BatchOutput, cpu func(lo, hi int)) error {
	if b.ctx == nil {
		start := time.Now()
		par.For(count, 64, cpu)
		b.report(wgpu.Timing{Wall: time.Since(start)})
		return nil
	}
	blocks := 1
	if op == opAbsorb {
		blocks = (m + Rate - 1) / Rate
	}
	var extra []wgpu.Binding
	if b.ark != nil {
		extra = []wgpu.Binding{wgpu.Bind(b.ark)}
	}
	t, err := b.batch.Run(wgpu.Batch{
		Label:  "rescue " + name,
		Count:  count,
		Inputs: []wgpu.BatchInput{{Data: wgpu.Bytes(in), ItemBytes: 8 * len(in) / max(count, 1)}},
		Output: out,
		Extra:  extra,
		Dispatches: func(n int, bind []wgpu.Binding) []wgpu.Dispatch {
			ds := make([]wgpu.Dispatch, blocks)
			for j := range ds {
				p := []uint32{uint32(n), uint32(m), op, uint32(j * Rate)}
				if b.spec.arkParams {
					p = append(p, arkWords...)
				}
				ds[j] = wgpu.Dispatch{Kernel: b.kernel, Bindings: bind, Params: p, Groups: b.ctx.Grid(uint64(n), workgroup)}
			}
			return ds
		},
	})
	b.report(t)
	if err != nil {
		return fmt.Errorf("rescue: %s: %w", name, err)
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
		return errors.New("rescue: no Group given: open one with wgpu.OpenGroup or wgpu.NewGroup")
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
		return fmt.Errorf("rescue: %w", err)
	}
	return nil
}
