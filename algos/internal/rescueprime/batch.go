package rescueprime

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/wgcompute/wgcompute/internal/par"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Hash is one hash's side of the batch functions: its name, which starts
// every error and labels its GPU work, and its plain-Go functions, which
// the CPU backend (a nil Context) runs on all cores.
type Hash struct {
	// Name starts errors and labels: "rescue", "rpo".
	Name string
	// Permute, Merge and HashElements are the hash's references, which
	// the kernel body (built with the hash's RP_SPONGE_RPO) equals.
	Permute      func(state *[Width]uint64)
	Merge        func(a, b [DigestSize]uint64) [DigestSize]uint64
	HashElements func(els []uint64) [DigestSize]uint64
}

// Kernel is one kernel of a hash: a module whose entry point main runs
// wgsl/rescue.wgsl's body (its file declares the uniform `params` after
// the storage bindings and defines permute_variant), built with the
// prelude constant RP_SPONGE_RPO that says whose sponge the body follows.
type Kernel struct {
	// Variant names the kernel in errors.
	Variant string
	// Label is the pipeline's label: the entry file's name.
	Label string
	// Module is the entry file with its prelude (SpongeConst).
	Module wgsl.Module
	// Ark, when not nil, are the round constants as u32 words, which the
	// kernel reads from a storage buffer at binding 2 (its uniform then at
	// binding 3) or, when ArkParams is set, after the four parameter words
	// in its uniform.
	Ark       []uint32
	ArkParams bool
}

// SpongeConst is the prelude constant RP_SPONGE_RPO of wgsl/rescue.wgsl:
// false for winterfell's Rp64_256 sponge, true for miden-crypto's RPO256.
func SpongeConst(rpo bool) wgsl.Const { return wgsl.Const{Name: "RP_SPONGE_RPO", Value: rpo} }

// Operation codes of params.op in wgsl/rescue.wgsl.
const (
	opPermute uint32 = 0
	opMerge   uint32 = 1
	opAbsorb  uint32 = 2 // one block of HashElements
)

// workgroup is WG in wgsl/rescue.wgsl.
const workgroup = 64

// Batcher runs one hash's batches with one kernel on one Context, holding
// the kernel, one piece's device buffers and the round constants' buffer
// of a kernel that reads them from one, until Release. With a nil Context
// it runs the hash's Go functions on all cores and holds nothing. Its
// methods take input that the Check functions have accepted. A Batcher is
// not safe for concurrent use.
type Batcher struct {
	ctx       *wgpu.Context
	hash      *Hash
	timing    *wgpu.Timing
	kernel    *wgpu.Kernel
	arkParams []uint32     // round constants after the parameter words
	ark       *wgpu.Buffer // round constants, bound after the output
	batch     *wgpu.Batcher
}

// NewBatcher compiles k on ctx (once per Context) and returns a Batcher
// for h; ctx may be nil, the CPU backend. timing, when not nil, receives
// each call's timing.
func NewBatcher(ctx *wgpu.Context, h *Hash, k Kernel, timing *wgpu.Timing) (*Batcher, error) {
	b := &Batcher{ctx: ctx, hash: h, timing: timing}
	if ctx == nil {
		return b, nil
	}
	storage := 2
	if k.Ark != nil && !k.ArkParams {
		storage = 3
	}
	kern, err := ctx.Kernel(wgpu.KernelSpec{Label: k.Label, Module: k.Module, Entry: "main",
		Storage: storage, Uniform: true, ReadOnly: []bool{true, false, true}[:storage]})
	if err != nil {
		return nil, fmt.Errorf("%s: variant %s: %w", h.Name, k.Variant, err)
	}
	b.kernel = kern
	switch {
	case k.ArkParams:
		b.arkParams = k.Ark
	case k.Ark != nil:
		if b.ark, err = ctx.NewBuffer(h.Name+" round constants", uint64(4*len(k.Ark))); err != nil {
			return nil, fmt.Errorf("%s: round constants: %w", h.Name, err)
		}
		if err := ctx.Upload(b.ark, 0, wgpu.Bytes(k.Ark)); err != nil {
			b.ark.Release()
			return nil, fmt.Errorf("%s: round constants: %w", h.Name, err)
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

// CheckMerge returns the error of a merge batch that cannot run: dst and
// pairs of different lengths, or an element not below P (named by pair and
// element).
func CheckMerge(name string, dst [][4]uint64, pairs [][8]uint64) error {
	if len(dst) != len(pairs) {
		return fmt.Errorf("%s: merge: %d destination digests for %d pairs: they must be equal", name, len(dst), len(pairs))
	}
	if i := FirstNonCanonical(Flat(pairs)); i >= 0 {
		return fmt.Errorf("%s: merge: pair %d element %d is %d, not a field element (must be below p = %d)", name, i/8, i%8, pairs[i/8][i%8], uint64(P))
	}
	return nil
}

// CheckHash returns the error of a hash batch that cannot run: m < 0,
// inputs not len(dst)*m elements, or an element not below P (named by
// input and element).
func CheckHash(name string, dst [][4]uint64, inputs []uint64, m int) error {
	if m < 0 {
		return fmt.Errorf("%s: hash: %d elements per input: must be zero or more", name, m)
	}
	if uint64(len(dst))*uint64(m) != uint64(len(inputs)) {
		return fmt.Errorf("%s: hash: %d elements for %d inputs of %d elements: need exactly %d", name, len(inputs), len(dst), m, uint64(len(dst))*uint64(m))
	}
	if i := FirstNonCanonical(inputs); i >= 0 {
		return fmt.Errorf("%s: hash: input %d element %d is %d, not a field element (must be below p = %d)", name, i/m, i%m, inputs[i], uint64(P))
	}
	return nil
}

// CheckPermute returns the error of a permutation batch with an element
// not below P (named by state and element).
func CheckPermute(name string, states [][12]uint64) error {
	els := Flat(states)
	if i := FirstNonCanonical(els); i >= 0 {
		return fmt.Errorf("%s: permute: state %d element %d is %d, not a field element (must be below p = %d)", name, i/12, i%12, els[i], uint64(P))
	}
	return nil
}

// Merge is dst[k] = Merge(pairs[k][0:4], pairs[k][4:8]) for every k.
func (b *Batcher) Merge(dst [][4]uint64, pairs [][8]uint64) error {
	merge := b.hash.Merge
	return b.run(opMerge, "merge", len(pairs), 0, Flat(pairs), wgpu.BatchOutput{Data: wgpu.Bytes(dst), ItemBytes: 8 * DigestSize}, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			dst[k] = merge([4]uint64(pairs[k][:4]), [4]uint64(pairs[k][4:]))
		}
	})
}

// Hash is dst[k] = HashElements(inputs[k*m : (k+1)*m]) for every k: one
// dispatch per block of Rate elements, all in one submission.
func (b *Batcher) Hash(dst [][4]uint64, inputs []uint64, m int) error {
	if m == 0 {
		// HashElements of nothing permutes never: the zero digest, in
		// both sponges.
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
	hash := b.hash.HashElements
	return b.run(opAbsorb, "hash", len(dst), m, inputs, wgpu.BatchOutput{ItemBytes: 8 * Width, Gather: gather}, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			dst[k] = hash(inputs[k*m : (k+1)*m])
		}
	})
}

// Permute is Permute(&states[k]) for every k.
func (b *Batcher) Permute(states [][12]uint64) error {
	els := Flat(states)
	permute := b.hash.Permute
	return b.run(opPermute, "permute", len(states), 0, els, wgpu.BatchOutput{Data: wgpu.Bytes(els), ItemBytes: 8 * Width}, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			permute(&states[k])
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
		Label:  b.hash.Name + " " + name,
		Count:  count,
		Inputs: []wgpu.BatchInput{{Data: wgpu.Bytes(in), ItemBytes: 8 * len(in) / max(count, 1)}},
		Output: out,
		Extra:  extra,
		Dispatches: func(n int, bind []wgpu.Binding) []wgpu.Dispatch {
			ds := make([]wgpu.Dispatch, blocks)
			for j := range ds {
				p := []uint32{uint32(n), uint32(m), op, uint32(j * Rate)}
				p = append(p, b.arkParams...)
				ds[j] = wgpu.Dispatch{Kernel: b.kernel, Bindings: bind, Params: p, Groups: b.ctx.Grid(uint64(n), workgroup)}
			}
			return ds
		},
	})
	b.report(t)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", b.hash.Name, name, err)
	}
	return nil
}

// report hands a call's timing to the caller that asked for it.
func (b *Batcher) report(t wgpu.Timing) {
	if b.timing != nil {
		*b.timing = t
	}
}

// OnGroup runs fn on one contiguous range of [0, n) per device of g, each
// with a Batcher of its own from newBatcher (given the device and where
// to report its timing), and reports the devices' timings side by side
// (Timing.Parallel) to timing. Errors start with name.
func OnGroup(g *wgpu.Group, name string, n int, timing *wgpu.Timing,
	newBatcher func(ctx *wgpu.Context, t *wgpu.Timing) (*Batcher, error),
	fn func(b *Batcher, lo, hi int) error) error {
	if g == nil {
		return errors.New(name + ": no Group given: open one with wgpu.OpenGroup or wgpu.NewGroup")
	}
	var mu sync.Mutex
	var total wgpu.Timing
	err := g.Split(n, 1, func(_ int, ctx *wgpu.Context, lo, hi int) error {
		var t wgpu.Timing
		b, err := newBatcher(ctx, &t)
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
	if timing != nil {
		*timing = total
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// Flat views a slice of uint64 arrays as its elements, without copying.
func Flat[T [4]uint64 | [8]uint64 | [12]uint64](s []T) []uint64 {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice(&s[0][0], len(s)*len(s[0]))
}

// FirstNonCanonical returns the index of the first element >= P, or -1.
// Large inputs are scanned by all cores, since validation runs before every
// upload.
func FirstNonCanonical(els []uint64) int {
	return par.First(len(els), 1<<20, func(i int) bool { return els[i] >= P })
}

// DigestElements reads a 32-byte digest as its DigestSize little-endian
// elements.
func DigestElements(d [32]byte) [DigestSize]uint64 {
	var e [DigestSize]uint64
	for j := range e {
		e[j] = binary.LittleEndian.Uint64(d[8*j:])
	}
	return e
}

// DigestBytes writes a digest's elements as 32 little-endian bytes.
func DigestBytes(e [DigestSize]uint64) [32]byte {
	var d [32]byte
	for j, v := range e {
		binary.LittleEndian.PutUint64(d[8*j:], v)
	}
	return d
}

// CheckDigest returns an error naming the first element of d that is not
// a field element (not below P); hash names the hash in it ("Rescue").
func CheckDigest(hash string, d [32]byte) error {
	for j, v := range DigestElements(d) {
		if v >= P {
			return fmt.Errorf("element %d is %d, not a Goldilocks field element: %s digests are 4 little-endian uint64 values below p = %d", j, v, hash, uint64(P))
		}
	}
	return nil
}
