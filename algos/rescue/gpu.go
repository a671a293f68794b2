package rescue

import (
	"slices"

	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
	"github.com/wgcompute/wgcompute/algos/internal/rescueprime"
	"github.com/wgcompute/wgcompute/algos/rescue/internal/params"
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

// variants names every Variant.
var variants = goldilocks.Variants{Hash: "rescue", Names: []string{
	Fast: "fast", DenseMDS: "densemds", LibInvSbox: "libinv", Vec4: "vec4",
	ArkStorage: "arkstorage", ArkUniform: "arkuniform", ArkWorkgroup: "arkworkgroup"}}

// String names the variant as the benchmarks and wgbench do.
func (v Variant) String() string { return variants.Name(int(v)) }

// VariantNames returns the names of Variants, in order.
func VariantNames() []string { return slices.Clone(variants.Names) }

// ParseVariant is the inverse of Variant.String.
func ParseVariant(s string) (Variant, error) {
	v, err := variants.Parse(s)
	return Variant(v), err
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

// kernel describes v's kernel to the batch runner that Rescue shares with
// RPO (package rescueprime): its entry file, which includes what it needs
// and defines the permutation it calls (see wgsl/rescue.wgsl), built for
// winterfell's sponge, and where its round constants come from: literals,
// a storage buffer at binding 2 (ArkStorage, ArkWorkgroup) or the words
// after the parameters in the uniform (ArkUniform).
func kernel(v Variant) rescueprime.Kernel {
	file := "rescue_main_" + v.String() + ".wgsl"
	k := rescueprime.Kernel{Variant: v.String(), Label: file,
		Module: wgsl.Module{Files: []string{file}, Consts: []wgsl.Const{rescueprime.SpongeConst(false)}}}
	switch v {
	case ArkStorage, ArkWorkgroup, ArkUniform:
		k.Ark, k.ArkParams = arkWords, v == ArkUniform
	}
	return k
}

// hash is Rp64_256 as the batch runner sees it.
var hash = &goldilocks.Hash{Name: "rescue", Permute: Permute, Merge: Merge, HashElements: HashElements}

// Options tune the batch functions; the zero value runs Fast and reports
// no timing.
type Options struct {
	// Variant is the kernel variant; the zero value is Fast.
	Variant Variant
	// Timing, when not nil, receives each call's timing, summed over its
	// submissions (on the CPU path, a nil Context, the host time as Wall).
	Timing *wgpu.Timing
}

// Batcher runs Rescue batches of one variant on one Context, holding the
// variant's kernel, one piece's device buffers and, for the variants that
// read the round constants from a buffer, that buffer until Release. With
// a nil Context it runs the Go reference (Merge, HashElements, Permute) on
// all cores and holds nothing. A Batcher is not safe for concurrent use.
type Batcher struct {
	b *goldilocks.Batcher
}

// NewBatcher compiles opts.Variant's kernel on ctx (once per Context) and
// returns a Batcher for it; ctx may be nil, the CPU backend.
func NewBatcher(ctx *wgpu.Context, opts Options) (*Batcher, error) {
	if err := variants.Check(int(opts.Variant)); err != nil {
		return nil, err
	}
	b, err := rescueprime.NewBatcher(ctx, hash, kernel(opts.Variant), opts.Timing)
	if err != nil {
		return nil, err
	}
	return &Batcher{b}, nil
}

// Release frees the Batcher's device memory; the Batcher must not be used
// after.
func (b *Batcher) Release() { b.b.Release() }

// MergeMany is
//
//	for k := range pairs { dst[k] = Merge(pairs[k][0:4], pairs[k][4:8]) }
//
// len(dst) must equal len(pairs), and every element must be below P (the
// error names the first pair and element that is not).
func (b *Batcher) MergeMany(dst [][4]uint64, pairs [][8]uint64) error {
	return b.b.MergeMany(dst, pairs)
}

// HashElementsMany is
//
//	for k := range dst { dst[k] = HashElements(inputs[k*m : (k+1)*m]) }
//
// len(inputs) must be len(dst)*m, and every element must be below P (the
// error names the first input and element that is not). The kernel takes
// one dispatch per block of Rate elements, all in one submission.
func (b *Batcher) HashElementsMany(dst [][4]uint64, inputs []uint64, m int) error {
	return b.b.HashElementsMany(dst, inputs, m)
}

// PermuteMany is
//
//	for k := range states { Permute(&states[k]) }
//
// Every element must be below P (the error names the first state and
// element that is not).
func (b *Batcher) PermuteMany(states [][12]uint64) error { return b.b.PermuteMany(states) }

// MergeMany runs Batcher.MergeMany once with a Batcher of its own: on the
// GPU, or on all cores when ctx is nil.
func MergeMany(ctx *wgpu.Context, dst [][4]uint64, pairs [][8]uint64, opts Options) error {
	return goldilocks.With(ctx, opts.open, opts.Timing, func(b *goldilocks.Batcher) error { return b.MergeMany(dst, pairs) })
}

// HashElementsMany runs Batcher.HashElementsMany once with a Batcher of its
// own: on the GPU, or on all cores when ctx is nil.
func HashElementsMany(ctx *wgpu.Context, dst [][4]uint64, inputs []uint64, m int, opts Options) error {
	return goldilocks.With(ctx, opts.open, opts.Timing, func(b *goldilocks.Batcher) error { return b.HashElementsMany(dst, inputs, m) })
}

// PermuteMany runs Batcher.PermuteMany once with a Batcher of its own: on
// the GPU, or on all cores when ctx is nil.
func PermuteMany(ctx *wgpu.Context, states [][12]uint64, opts Options) error {
	return goldilocks.With(ctx, opts.open, opts.Timing, func(b *goldilocks.Batcher) error { return b.PermuteMany(states) })
}

// MergeManyOn is MergeMany with the pairs split into one contiguous range
// per device of g, each device with a Batcher of its own, all at once. The
// digests are the same as on one device. opts.Timing receives the
// devices' timings side by side (Timing.Parallel: the slowest device's).
func MergeManyOn(g *wgpu.Group, dst [][4]uint64, pairs [][8]uint64, opts Options) error {
	return hash.MergeManyOn(g, opts.open, opts.Timing, dst, pairs)
}

// HashElementsManyOn is HashElementsMany split over the devices of g, as
// MergeManyOn splits MergeMany.
func HashElementsManyOn(g *wgpu.Group, dst [][4]uint64, inputs []uint64, m int, opts Options) error {
	return hash.HashElementsManyOn(g, opts.open, opts.Timing, dst, inputs, m)
}

// PermuteManyOn is PermuteMany split over the devices of g, as MergeManyOn
// splits MergeMany.
func PermuteManyOn(g *wgpu.Group, states [][12]uint64, opts Options) error {
	return hash.PermuteManyOn(g, opts.open, opts.Timing, states)
}

// open is NewBatcher with opts reporting to timing, as the shared batch
// functions open theirs.
func (opts Options) open(ctx *wgpu.Context, timing *wgpu.Timing) (*goldilocks.Batcher, error) {
	opts.Timing = timing
	b, err := NewBatcher(ctx, opts)
	if err != nil {
		return nil, err
	}
	return b.b, nil
}
