package rescue

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/wgcompute/wgcompute/algos/rescue/internal/params"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Variant selects how the GPU kernels compute the permutation. Every
// variant gives the same digests; they exist to be measured against each
// other.
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

// arkPlace is where a variant's kernel reads the round constants.
type arkPlace int

const (
	arkLiteral   arkPlace = iota // literals in rescue_consts.wgsl
	arkStorage                   // storage buffer at binding 2
	arkUniform                   // the params uniform, after its four words
	arkWorkgroup                 // storage buffer at binding 2, copied to workgroup memory
)

// variantSpec is what a variant's kernel is built from.
type variantSpec struct {
	name string
	fn   string   // the permutation function permute_variant calls
	libs []string // WGSL files composed after LibraryFiles
	ark  arkPlace
}

var variantSpecs = map[Variant]variantSpec{
	Fast:         {name: "fast", fn: "rp_permute"},
	DenseMDS:     {name: "densemds", fn: "rp_permute_dense"},
	LibInvSbox:   {name: "libinv", fn: "rp_permute_libinv"},
	Vec4:         {name: "vec4", fn: "rp4_permute_state", libs: []string{"rescue_vec4.wgsl", "rescue_consts_vec4.wgsl"}},
	ArkStorage:   {name: "arkstorage", fn: "rp_permute_arkmem", libs: []string{"rescue_ark_mem.wgsl"}, ark: arkStorage},
	ArkUniform:   {name: "arkuniform", fn: "rp_permute_arkmem", libs: []string{"rescue_ark_mem.wgsl"}, ark: arkUniform},
	ArkWorkgroup: {name: "arkworkgroup", fn: "rp_permute_arkmem", libs: []string{"rescue_ark_mem.wgsl"}, ark: arkWorkgroup},
}

// String names the variant as the benchmarks and wgbench do.
func (v Variant) String() string {
	if s, ok := variantSpecs[v]; ok {
		return s.name
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

func (v Variant) spec() (variantSpec, error) {
	s, ok := variantSpecs[v]
	if !ok {
		return s, fmt.Errorf("rescue: unknown variant %d: accepted are 0..%d", int(v), len(Variants)-1)
	}
	return s, nil
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

// Stats receives what a batch call measured.
type Stats struct {
	// Kernel is the GPU time of the kernels, summed over pieces, from
	// timestamp queries; zero when Measured is false.
	Kernel   time.Duration
	Measured bool
	// Pieces is the number of dispatches the batch was split into to stay
	// under the device's storage binding limit.
	Pieces int
}

// Options tune the GPU batch functions; the zero value is the fastest.
type Options struct {
	Variant Variant
	// Stats, when not nil, is overwritten with the call's measurements.
	Stats *Stats
	// MaxPiece, when positive, caps the number of items per dispatch below
	// what the binding limit allows (tests use it to exercise splitting).
	MaxPiece int
}

// LibraryFiles are the WGSL files, in order, that a kernel composes in
// front of itself to call rp_permute and rp_merge (see wgsl.Compose).
func LibraryFiles() []string {
	return []string{"goldilocks.wgsl", "rescue_consts.wgsl", "rescue_lib.wgsl"}
}

// kernelSource returns the WGSL of the variant's kernel: wgsl/rescue.wgsl
// with its libraries, and the lines that declare the parameters (and the
// constants' binding, for the ark variants), pick the permutation and
// declare the entry point (see the file's head).
var kernelSource = func(s variantSpec) (string, error) {
	files := append(append(LibraryFiles(), s.libs...), "rescue.wgsl")
	lib, err := wgsl.Compose(files...)
	if err != nil {
		return "", err
	}
	return lib + entrySnippet(s), nil
}

// entrySnippet writes the variant's bindings and entry point. Each kernel is
// its own module with one call site of one permutation, which lavapipe
// needs (see wgsl/rescue.wgsl).
func entrySnippet(s variantSpec) string {
	var b strings.Builder
	b.WriteString("struct Params {\n\tcount: u32,\n\tm: u32,\n\top: u32,\n\tj: u32,\n")
	uniform := 2
	switch s.ark {
	case arkUniform:
		// Uniform arrays have a 16-byte stride: two elements per vec4.
		fmt.Fprintf(&b, "\tark: array<vec4<u32>, %d>,\n}\n", len(arkWords)/4)
		b.WriteString("fn rp_ark_at(i: u32) -> vec2<u32> {\n\tlet v = params.ark[i >> 1u];\n\treturn select(v.xy, v.zw, (i & 1u) == 1u);\n}\n")
	case arkStorage:
		b.WriteString("}\n@group(0) @binding(2) var<storage, read> rp_ark: array<vec2<u32>, RP_ARK_LEN>;\n")
		b.WriteString("fn rp_ark_at(i: u32) -> vec2<u32> { return rp_ark[i]; }\n")
		uniform = 3
	case arkWorkgroup:
		b.WriteString("}\n@group(0) @binding(2) var<storage, read> rp_ark: array<vec2<u32>, RP_ARK_LEN>;\n")
		b.WriteString("var<workgroup> rp_wg_ark: array<vec2<u32>, RP_ARK_LEN>;\n")
		b.WriteString("fn rp_ark_at(i: u32) -> vec2<u32> { return rp_wg_ark[i]; }\n")
		uniform = 3
	default:
		b.WriteString("}\n")
	}
	fmt.Fprintf(&b, "@group(0) @binding(%d) var<uniform> params: Params;\n", uniform)
	fmt.Fprintf(&b, "fn permute_variant(s: ptr<function, array<vec2<u32>, 12>>) { %s(s); }\n", s.fn)
	b.WriteString("@compute @workgroup_size(64)\n")
	b.WriteString("fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {\n")
	if s.ark == arkWorkgroup {
		b.WriteString("\tfor (var i = li; i < RP_ARK_LEN; i += WG) {\n\t\trp_wg_ark[i] = rp_ark[i];\n\t}\n\tworkgroupBarrier();\n")
	}
	b.WriteString("\tlet k = index(gid, nwg);\n\tif (k < params.count) { run(k); }\n}\n")
	return b.String()
}

// storageBindings is the number of storage buffers the variant's kernel
// takes: input, output and, for constants in a buffer, the constants.
func (s variantSpec) storageBindings() int {
	if s.ark == arkStorage || s.ark == arkWorkgroup {
		return 3
	}
	return 2
}

// Operation codes of params.op in wgsl/rescue.wgsl.
var opCodes = map[string]uint32{"permute": 0, "merge": 1, "hash": 2} // hash: OP_ABSORB

// workgroup is WG in wgsl/rescue.wgsl.
const workgroup = 64

// checkGuards makes every batch call allocate a sentinel item after its
// output and fail if a kernel wrote there; tests turn it on.
var checkGuards = false

const guardWord = 0xA5A5_5A5A_DEAD_BEEF

// MergeMany is MergeManyWith with default options:
//
//	for k := range pairs { dst[k] = Merge(pairs[k][0:4], pairs[k][4:8]) }
func MergeMany(ctx *wgpu.Context, dst [][4]uint64, pairs [][8]uint64) error {
	return MergeManyWith(ctx, dst, pairs, Options{})
}

// MergeManyWith computes dst[k] = Merge(pairs[k][0:4], pairs[k][4:8]) on
// the GPU. len(dst) must equal len(pairs), and every element must be
// below P (the error names the first pair and element that is not).
func MergeManyWith(ctx *wgpu.Context, dst [][4]uint64, pairs [][8]uint64, opts Options) error {
	if len(dst) != len(pairs) {
		return fmt.Errorf("rescue: merge: %d destination digests for %d pairs: they must be equal", len(dst), len(pairs))
	}
	if i := firstNonCanonical(flat(pairs)); i >= 0 {
		return fmt.Errorf("rescue: merge: pair %d element %d is %d, not a field element (must be below p = %d)", i/8, i%8, pairs[i/8][i%8], uint64(P))
	}
	return runBatch(ctx, "merge", opts, len(pairs), 8, 4, 0, flat(pairs), flat(dst))
}

// HashElementsMany is HashElementsManyWith with default options:
//
//	for k := range dst { dst[k] = HashElements(inputs[k*m : (k+1)*m]) }
func HashElementsMany(ctx *wgpu.Context, dst [][4]uint64, inputs []uint64, m int) error {
	return HashElementsManyWith(ctx, dst, inputs, m, Options{})
}

// HashElementsManyWith computes dst[k] = HashElements(inputs[k*m:(k+1)*m])
// on the GPU for len(dst) inputs of m elements each, flattened in inputs.
// len(inputs) must be len(dst)*m, and every element must be below P (the
// error names the first input and element that is not).
func HashElementsManyWith(ctx *wgpu.Context, dst [][4]uint64, inputs []uint64, m int, opts Options) error {
	if m < 0 {
		return fmt.Errorf("rescue: hash: %d elements per input: must be zero or more", m)
	}
	if uint64(len(dst))*uint64(m) != uint64(len(inputs)) {
		return fmt.Errorf("rescue: hash: %d elements for %d inputs of %d elements: need exactly %d", len(inputs), len(dst), m, uint64(len(dst))*uint64(m))
	}
	if m > 1<<31 {
		return fmt.Errorf("rescue: hash: %d elements per input is too many (at most 2^31)", m)
	}
	if i := firstNonCanonical(inputs); i >= 0 {
		return fmt.Errorf("rescue: hash: input %d element %d is %d, not a field element (must be below p = %d)", i/m, i%m, inputs[i], uint64(P))
	}
	if m == 0 {
		// HashElements of nothing permutes never: the zero digest.
		clear(dst)
		return nil
	}
	return runBatch(ctx, "hash", opts, len(dst), m, 12, uint32(m), inputs, flat(dst))
}

// PermuteMany is PermuteManyWith with default options:
//
//	for k := range states { Permute(&states[k]) }
func PermuteMany(ctx *wgpu.Context, states [][12]uint64) error {
	return PermuteManyWith(ctx, states, Options{})
}

// PermuteManyWith applies Permute to every state in place on the GPU.
// Every element must be below P (the error names the first state and
// element that is not).
func PermuteManyWith(ctx *wgpu.Context, states [][12]uint64, opts Options) error {
	els := flat(states)
	if i := firstNonCanonical(els); i >= 0 {
		return fmt.Errorf("rescue: permute: state %d element %d is %d, not a field element (must be below p = %d)", i/12, i%12, els[i], uint64(P))
	}
	return runBatch(ctx, "permute", opts, len(states), 12, 12, 0, els, els)
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
	const grain = 1 << 20
	workers := runtime.GOMAXPROCS(0)
	if len(els) < 2*grain || workers == 1 {
		for i, e := range els {
			if e >= P {
				return i
			}
		}
		return -1
	}
	pieces := (len(els) + grain - 1) / grain
	first := make([]int, pieces)
	var wg sync.WaitGroup
	next := make(chan int, pieces)
	for p := 0; p < pieces; p++ {
		next <- p
	}
	close(next)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range next {
				first[p] = -1
				lo, hi := p*grain, min((p+1)*grain, len(els))
				for i := lo; i < hi; i++ {
					if els[i] >= P {
						first[p] = i
						break
					}
				}
			}
		}()
	}
	wg.Wait()
	for _, f := range first {
		if f >= 0 {
			return f
		}
	}
	return -1
}

// pieceItems is how many items of inPer input and outPer output elements
// one dispatch may take: both bindings under the device's storage binding
// and buffer limits.
func pieceItems(lim wgpu.Limits, inPer, outPer int) int {
	maxBytes := lim.MaxStorageBindingSize
	if lim.MaxBufferSize < maxBytes {
		maxBytes = lim.MaxBufferSize
	}
	per := uint64(max(inPer, outPer+1)) * 8 // +1: room for the guard item
	n := maxBytes / per
	if n > 1<<28 {
		n = 1 << 28 // keeps every element index inside a u32
	}
	return int(n)
}

var errNoGPU = errors.New("rescue: no GPU context (nil)")

// runBatch runs the kernel family op on count items, in pieces that fit
// the binding limit: in holds count*inPer elements, out receives
// count*outPer. in and out may be the same slice (permute).
func runBatch(ctx *wgpu.Context, op string, opts Options, count, inPer, outPer int, m uint32, in, out []uint64) error {
	if opts.Stats != nil {
		*opts.Stats = Stats{}
	}
	if count == 0 {
		return nil
	}
	if ctx == nil {
		return errNoGPU
	}
	spec, err := opts.Variant.spec()
	if err != nil {
		return err
	}
	piece := pieceItems(ctx.Limits(), inPer, outPer)
	if piece == 0 {
		return fmt.Errorf("rescue: %s: one input of %d elements (%d bytes) exceeds the device's storage binding limit of %d bytes", op, inPer, 8*inPer, ctx.Limits().MaxStorageBindingSize)
	}
	if opts.MaxPiece > 0 && opts.MaxPiece < piece {
		piece = opts.MaxPiece
	}
	piece = min(piece, count)
	src, err := kernelSource(spec)
	if err != nil {
		return fmt.Errorf("rescue: %s: %w", op, err)
	}
	nstorage := spec.storageBindings()
	k, err := ctx.Kernel(wgpu.KernelSpec{Label: "rescue.wgsl:" + spec.name, Source: src, Entry: "main", Storage: nstorage, Uniform: true, ReadOnly: []bool{true, false, true}[:nstorage]})
	if err != nil {
		return fmt.Errorf("rescue: %s: %w", op, err)
	}
	var arkBuf *wgpu.Buffer
	if nstorage == 3 {
		if arkBuf, err = ctx.NewBuffer("rescue round constants", uint64(4*len(arkWords))); err != nil {
			return fmt.Errorf("rescue: %s: %w", op, err)
		}
		defer arkBuf.Release()
		if err := ctx.Upload(arkBuf, 0, wgpu.Bytes(arkWords)); err != nil {
			return fmt.Errorf("rescue: %s: round constants: %w", op, err)
		}
	}
	// bindings and params give a dispatch its buffers and uniform words.
	bindings := func(in, out wgpu.Binding) []wgpu.Binding {
		if arkBuf != nil {
			return []wgpu.Binding{in, out, wgpu.Bind(arkBuf)}
		}
		return []wgpu.Binding{in, out}
	}
	params := func(n int, j uint32) []uint32 {
		p := []uint32{uint32(n), m, opCodes[op], j}
		if spec.ark == arkUniform {
			p = append(p, arkWords...)
		}
		return p
	}
	inBuf, err := ctx.NewBuffer("rescue "+op+" input", uint64(piece*inPer*8))
	if err != nil {
		return fmt.Errorf("rescue: %s: %w", op, err)
	}
	defer inBuf.Release()
	guard := 0
	if checkGuards {
		guard = outPer
	}
	outBuf, err := ctx.NewBuffer("rescue "+op+" output", uint64((piece*outPer+guard)*8))
	if err != nil {
		return fmt.Errorf("rescue: %s: %w", op, err)
	}
	defer outBuf.Release()
	var guardWords []uint64
	if guard > 0 {
		guardWords = make([]uint64, guard)
		for i := range guardWords {
			guardWords[i] = guardWord
		}
	}
	var stats Stats
	var states []uint64
	for lo := 0; lo < count; lo += piece {
		n := min(piece, count-lo)
		if err := ctx.Upload(inBuf, 0, wgpu.Bytes(in[lo*inPer:(lo+n)*inPer])); err != nil {
			return fmt.Errorf("rescue: %s: items %d..%d: %w", op, lo, lo+n, err)
		}
		if guard > 0 {
			if err := ctx.Upload(outBuf, uint64(n*outPer*8), wgpu.Bytes(guardWords)); err != nil {
				return fmt.Errorf("rescue: %s: guard: %w", op, err)
			}
		}
		// Hashing takes one dispatch per block of eight elements (see
		// wgsl/rescue.wgsl); the dispatches share one submission.
		blocks := 1
		if op == "hash" {
			blocks = (int(m) + Rate - 1) / Rate
		}
		ds := make([]wgpu.Dispatch, blocks)
		for b := range ds {
			ds[b] = wgpu.Dispatch{
				Kernel:   k,
				Bindings: bindings(wgpu.Binding{Buffer: inBuf, Size: uint64(n * inPer * 8)}, wgpu.Binding{Buffer: outBuf, Size: uint64((n*outPer + guard) * 8)}),
				Params:   params(n, uint32(b*Rate)),
				Groups:   ctx.Grid(uint64(n), workgroup),
			}
		}
		t, err := ctx.Run(ds...)
		if err != nil {
			return fmt.Errorf("rescue: %s: items %d..%d: %w", op, lo, lo+n, err)
		}
		stats.Kernel += t.Kernel
		stats.Measured = t.Measured
		stats.Pieces++
		if op == "hash" {
			// out holds digests; the kernel leaves whole states.
			if states == nil {
				states = make([]uint64, piece*Width)
			}
			if err := ctx.Download(wgpu.Bytes(states[:n*Width]), outBuf, 0); err != nil {
				return fmt.Errorf("rescue: %s: items %d..%d: %w", op, lo, lo+n, err)
			}
			for i := 0; i < n; i++ {
				copy(out[(lo+i)*DigestSize:(lo+i+1)*DigestSize], states[i*Width+4:i*Width+8])
			}
		} else if err := ctx.Download(wgpu.Bytes(out[lo*outPer:(lo+n)*outPer]), outBuf, 0); err != nil {
			return fmt.Errorf("rescue: %s: items %d..%d: %w", op, lo, lo+n, err)
		}
		if guard > 0 {
			got := make([]uint64, guard)
			if err := ctx.Download(wgpu.Bytes(got), outBuf, uint64(n*outPer*8)); err != nil {
				return fmt.Errorf("rescue: %s: guard: %w", op, err)
			}
			for i, g := range got {
				if g != guardWord {
					return fmt.Errorf("rescue: %s: kernel wrote %#x past its %d outputs (guard word %d)", op, g, n, i)
				}
			}
		}
	}
	if opts.Stats != nil {
		*opts.Stats = stats
	}
	return nil
}
