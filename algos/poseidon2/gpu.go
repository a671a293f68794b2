package poseidon2

import (
	"fmt"
	"slices"

	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
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

// variants names every Variant.
var variants = goldilocks.Variants{Hash: "poseidon2", Names: []string{Fast: "fast", MulDiag: "muldiag"}}

// String names the variant as the benchmarks and wgbench do.
func (v Variant) String() string { return variants.Name(int(v)) }

// VariantNames returns the names of Variants, in order.
func VariantNames() []string { return slices.Clone(variants.Names) }

// ParseVariant is the inverse of Variant.String.
func ParseVariant(s string) (Variant, error) {
	v, err := variants.Parse(s)
	return Variant(v), err
}

// opEntries are the entry points of wgsl/poseidon2_main.wgsl, one kernel
// per operation.
var opEntries = [...]string{goldilocks.OpPermute: "permute", goldilocks.OpMerge: "merge", goldilocks.OpHash: "hash_elements"}

// workgroup is P2_WG in wgsl/poseidon2_main.wgsl.
const workgroup = 64

// maxBatchElements bounds the elements of one hash input: the kernel
// indexes a piece's elements with u32 words.
const maxBatchElements = 1 << 31

// hash is Poseidon2 as the batch runner sees it: on the CPU path a twin
// of the reference with field operations that do not branch on their data
// and the internal layer by additions and halvings, twice its speed (the
// tests hold the two equal).
var hash = &goldilocks.Hash{Name: "poseidon2", MaxElements: maxBatchElements,
	Permute: permuteFast, Merge: mergeFast, HashElements: hashElementsFast}

// kernels are v's kernels on ctx, one per operation, compiled on first use
// (once per Context): each from v's entry file, which includes the kernels
// and defines the permutation they call (see wgsl/poseidon2_main.wgsl).
func kernels(ctx *wgpu.Context, v Variant) goldilocks.Kernels {
	file := "poseidon2_main_" + v.String() + ".wgsl"
	var compiled [len(opEntries)]*wgpu.Kernel
	return goldilocks.Kernels{Dispatches: func(o goldilocks.Op, m int) (func(n int, bind []wgpu.Binding) []wgpu.Dispatch, error) {
		k := compiled[o]
		if k == nil {
			var err error
			k, err = ctx.Kernel(wgpu.KernelSpec{Label: file + ":" + opEntries[o], Module: wgsl.Module{Files: []string{file}},
				Entry: opEntries[o], Storage: 2, Uniform: true, ReadOnly: []bool{true, false}})
			if err != nil {
				return nil, fmt.Errorf("variant %s: %w", v, err)
			}
			compiled[o] = k
		}
		// The kernel hashes each input in one invocation, block after block.
		return func(n int, bind []wgpu.Binding) []wgpu.Dispatch {
			return []wgpu.Dispatch{{Kernel: k, Bindings: bind, Params: []uint32{uint32(n), uint32(m)}, Groups: ctx.Grid(uint64(n), workgroup)}}
		}, nil
	}}
}

// Options tune the batch functions; the zero value runs Fast and reports
// no timing.
type Options struct {
	// Variant is the kernel variant; the zero value is Fast.
	Variant Variant
	// Timing, when not nil, receives each call's timing, summed over its
	// submissions (on the CPU path, a nil Context, the host time as Wall).
	Timing *wgpu.Timing
}

// Batcher runs Poseidon2 batches of one variant on one Context, holding the
// variant's kernels (compiled on first use, once per Context) and one
// piece's device buffers until Release. With a nil Context it runs Merge,
// HashElements or Permute on all cores (a twin of the reference with field
// operations that do not branch on their data and the internal layer by
// additions and halvings, twice its speed; the tests hold the two equal)
// and holds nothing.
// A Batcher is not safe for concurrent use.
type Batcher struct {
	b *goldilocks.Batcher
}

// NewBatcher returns a Batcher for opts.Variant on ctx; ctx may be nil, the
// CPU backend.
func NewBatcher(ctx *wgpu.Context, opts Options) (*Batcher, error) {
	if err := variants.Check(int(opts.Variant)); err != nil {
		return nil, err
	}
	var k goldilocks.Kernels
	if ctx != nil {
		k = kernels(ctx, opts.Variant)
	}
	return &Batcher{goldilocks.NewBatcher(ctx, hash, k, opts.Timing)}, nil
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
//	for k := range dst { dst[k] = hashElementsFast(inputs[k*m : (k+1)*m]) }
//
// len(inputs) must be len(dst)*m, m at most 2^31, and every element must
// be below P (the error names the first input and element that is not).
// The kernel hashes each input in one invocation, block after block.
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
