package rpo

import (
	"slices"

	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
	"github.com/wgcompute/wgcompute/algos/internal/rescueprime"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Variant selects how the GPU kernels compute the permutation. The zero
// value, Fast, is the default and today the only one; the type is here so
// that RPO takes the same options and flags as package rescue, where the
// variants that lost to Fast on every GPU measured (dense MDS products,
// round constants in memory, a vec4 state) live.
type Variant int

const (
	// Fast is rescue.Fast's kernel with RPO's constants and order: the
	// state as 12 vec2<u32> values, round constants as literals in the
	// code, the MDS product by the matrix's small constants in 16-bit
	// limbs, and the inverse S-box by the 72-multiplication addition chain.
	Fast Variant = iota
)

// Variants lists every Variant, Fast first.
var Variants = []Variant{Fast}

// variants names every Variant.
var variants = goldilocks.Variants{Hash: "rpo", Names: []string{Fast: "fast"}}

// String names the variant as the benchmarks and wgbench do.
func (v Variant) String() string { return variants.Name(int(v)) }

// VariantNames returns the names of Variants, in order.
func VariantNames() []string { return slices.Clone(variants.Names) }

// ParseVariant is the inverse of Variant.String.
func ParseVariant(s string) (Variant, error) {
	v, err := variants.Parse(s)
	return Variant(v), err
}

// kernel describes v's kernel to the batch runner RPO shares with Rescue:
// its entry file, which includes what it needs (see wgsl/rpo_main.wgsl),
// with the kernel body built for miden-crypto's sponge.
func kernel(v Variant) rescueprime.Kernel {
	const file = "rpo_main.wgsl"
	return rescueprime.Kernel{Variant: v.String(), Label: file,
		Module: wgsl.Module{Files: []string{file}, Consts: []wgsl.Const{rescueprime.SpongeConst(true)}}}
}

// hash is RPO256 as the batch runner sees it.
var hash = &goldilocks.Hash{Name: "rpo", Permute: Permute, Merge: Merge, HashElements: HashElements}

// Options tune the batch functions; the zero value runs Fast and reports
// no timing.
type Options struct {
	// Variant is the kernel variant; the zero value is Fast.
	Variant Variant
	// Timing, when not nil, receives each call's timing, summed over its
	// submissions (on the CPU path, a nil Context, the host time as Wall).
	Timing *wgpu.Timing
}

// Batcher runs RPO batches of one variant on one Context, holding the
// variant's kernel and one piece's device buffers until Release. With a
// nil Context it runs the Go reference (Merge, HashElements, Permute) on
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
