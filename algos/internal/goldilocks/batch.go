package goldilocks

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/wgcompute/wgcompute/internal/par"
	"github.com/wgcompute/wgcompute/wgpu"
)

// Hash is one family's side of the batch functions: its name, which starts
// every error and labels its GPU work, its bound on a hash input, and the
// Go functions that the CPU backend (a nil Context) runs on all cores.
type Hash struct {
	// Name starts errors and labels: "rescue", "rpo", "poseidon2".
	Name string
	// MaxElements, when positive, bounds the elements of one hash input
	// (a kernel that indexes them with u32 words); CheckHash names it.
	MaxElements int
	// Permute, Merge and HashElements are what the kernels compute.
	Permute      func(state *[Width]uint64)
	Merge        func(a, b [DigestSize]uint64) [DigestSize]uint64
	HashElements func(els []uint64) [DigestSize]uint64
}

// Op is one operation of the batch functions.
type Op int

// The operations, named in errors and labels by Op.String.
const (
	OpPermute Op = iota
	OpMerge
	OpHash
)

// String names the operation as errors do: "permute", "merge", "hash".
func (o Op) String() string {
	switch o {
	case OpPermute:
		return "permute"
	case OpMerge:
		return "merge"
	case OpHash:
		return "hash"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Kernels is a family's GPU side of a Batcher on one Context.
type Kernels struct {
	// Dispatches returns the work of op on a piece of n items of m elements
	// each (m is zero but for OpHash) given the piece's bindings: the
	// input, the output, then Extra. Its error (a kernel that does not
	// compile, say) fails the call.
	Dispatches func(op Op, m int) (func(n int, bind []wgpu.Binding) []wgpu.Dispatch, error)
	// Extra bindings follow the input and the output.
	Extra []wgpu.Binding
	// HashStates: the hash kernel leaves whole states, the digest at
	// elements 4..8, instead of digests.
	HashStates bool
	// Release, when not nil, frees what the kernels hold.
	Release func()
}

// Batcher runs one family's batches with one set of kernels on one Context,
// holding one piece's device buffers and what the kernels hold until
// Release. With a nil Context it runs the Hash's Go functions on all cores
// and holds nothing. A Batcher is not safe for concurrent use.
type Batcher struct {
	ctx    *wgpu.Context
	hash   *Hash
	k      Kernels
	timing *wgpu.Timing
	batch  *wgpu.Batcher
	// Guard places a sentinel item after each piece's output (tests).
	Guard bool
}

// NewBatcher returns a Batcher for h running k on ctx; ctx may be nil, the
// CPU backend, which ignores k. timing, when not nil, receives each call's
// timing.
func NewBatcher(ctx *wgpu.Context, h *Hash, k Kernels, timing *wgpu.Timing) *Batcher {
	b := &Batcher{ctx: ctx, hash: h, k: k, timing: timing}
	if ctx != nil {
		b.batch = ctx.NewBatcher()
	}
	return b
}

// Release frees the Batcher's device memory; the Batcher must not be used
// after.
func (b *Batcher) Release() {
	if b.batch != nil {
		b.batch.Release()
	}
	if b.ctx != nil && b.k.Release != nil {
		b.k.Release()
		b.k.Release = nil
	}
}

// MergeMany is Merge after CheckMerge.
func (b *Batcher) MergeMany(dst [][4]uint64, pairs [][8]uint64) error {
	if err := b.hash.CheckMerge(dst, pairs); err != nil {
		return err
	}
	return b.Merge(dst, pairs)
}

// HashElementsMany is Hash after CheckHash.
func (b *Batcher) HashElementsMany(dst [][4]uint64, inputs []uint64, m int) error {
	if err := b.hash.CheckHash(dst, inputs, m); err != nil {
		return err
	}
	return b.Hash(dst, inputs, m)
}

// PermuteMany is Permute after CheckPermute.
func (b *Batcher) PermuteMany(states [][12]uint64) error {
	if err := b.hash.CheckPermute(states); err != nil {
		return err
	}
	return b.Permute(states)
}

// Merge is dst[k] = Merge(pairs[k][0:4], pairs[k][4:8]) for every k, on
// input that CheckMerge has accepted.
func (b *Batcher) Merge(dst [][4]uint64, pairs [][8]uint64) error {
	merge := b.hash.Merge
	return b.run(OpMerge, len(pairs), 0, Flat(pairs), wgpu.BatchOutput{Data: wgpu.Bytes(dst), ItemBytes: 8 * DigestSize}, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			dst[k] = merge([4]uint64(pairs[k][:4]), [4]uint64(pairs[k][4:]))
		}
	})
}

// Hash is dst[k] = HashElements(inputs[k*m : (k+1)*m]) for every k, on
// input that CheckHash has accepted.
func (b *Batcher) Hash(dst [][4]uint64, inputs []uint64, m int) error {
	if m == 0 {
		// HashElements of nothing permutes never: the zero digest, in
		// every family's sponge.
		clear(dst)
		b.report(wgpu.Timing{})
		return nil
	}
	out := wgpu.BatchOutput{Data: wgpu.Bytes(dst), ItemBytes: 8 * DigestSize}
	if b.k.HashStates {
		// The kernel leaves whole states; the digest is elements 4..8.
		out = wgpu.BatchOutput{ItemBytes: 8 * Width, Gather: func(lo, n int, raw []byte) {
			for i := range n {
				dst[lo+i] = DigestElements([32]byte(raw[8*(i*Width+4):]))
			}
		}}
	}
	hash := b.hash.HashElements
	return b.run(OpHash, len(dst), m, inputs, out, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			dst[k] = hash(inputs[k*m : (k+1)*m])
		}
	})
}

// Permute is Permute(&states[k]) for every k, on input that CheckPermute
// has accepted.
func (b *Batcher) Permute(states [][12]uint64) error {
	els := Flat(states)
	permute := b.hash.Permute
	return b.run(OpPermute, len(states), 0, els, wgpu.BatchOutput{Data: wgpu.Bytes(els), ItemBytes: 8 * Width}, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			permute(&states[k])
		}
	})
}

// run runs op on count items, the elements of in split evenly among them,
// on the GPU, or cpu over [0, count) on all cores when the Context is nil,
// and reports the timing.
func (b *Batcher) run(op Op, count, m int, in []uint64, out wgpu.BatchOutput, cpu func(lo, hi int)) error {
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
	dispatches, err := b.k.Dispatches(op, m)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", b.hash.Name, op, err)
	}
	t, err := b.batch.Run(wgpu.Batch{
		Label:      b.hash.Name + " " + op.String(),
		Count:      count,
		Inputs:     []wgpu.BatchInput{{Data: wgpu.Bytes(in), ItemBytes: 8 * len(in) / count}},
		Output:     out,
		Extra:      b.k.Extra,
		Guard:      b.Guard,
		Dispatches: dispatches,
	})
	b.report(t)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", b.hash.Name, op, err)
	}
	return nil
}

// report hands a call's timing to the caller that asked for it.
func (b *Batcher) report(t wgpu.Timing) {
	if b.timing != nil {
		*b.timing = t
	}
}

// Open returns a family's Batcher on ctx (nil: the CPU backend) with the
// options of one call, reporting to timing: how the functions below make
// their Batchers.
type Open func(ctx *wgpu.Context, timing *wgpu.Timing) (*Batcher, error)

// With runs fn with a Batcher from open on ctx reporting to timing,
// released after.
func With(ctx *wgpu.Context, open Open, timing *wgpu.Timing, fn func(*Batcher) error) error {
	b, err := open(ctx, timing)
	if err != nil {
		return err
	}
	defer b.Release()
	return fn(b)
}

// MergeManyOn is Batcher.MergeMany with the pairs split into one contiguous
// range per device of g, each device with a Batcher of its own from open;
// timing receives the devices' timings side by side.
func (h *Hash) MergeManyOn(g *wgpu.Group, open Open, timing *wgpu.Timing, dst [][4]uint64, pairs [][8]uint64) error {
	if err := h.CheckMerge(dst, pairs); err != nil {
		return err
	}
	return h.onGroup(g, len(pairs), open, timing, func(b *Batcher, lo, hi int) error { return b.Merge(dst[lo:hi], pairs[lo:hi]) })
}

// HashElementsManyOn is Batcher.HashElementsMany split over the devices of
// g, as MergeManyOn splits merges.
func (h *Hash) HashElementsManyOn(g *wgpu.Group, open Open, timing *wgpu.Timing, dst [][4]uint64, inputs []uint64, m int) error {
	if err := h.CheckHash(dst, inputs, m); err != nil {
		return err
	}
	return h.onGroup(g, len(dst), open, timing, func(b *Batcher, lo, hi int) error { return b.Hash(dst[lo:hi], inputs[lo*m:hi*m], m) })
}

// PermuteManyOn is Batcher.PermuteMany split over the devices of g, as
// MergeManyOn splits merges.
func (h *Hash) PermuteManyOn(g *wgpu.Group, open Open, timing *wgpu.Timing, states [][12]uint64) error {
	if err := h.CheckPermute(states); err != nil {
		return err
	}
	return h.onGroup(g, len(states), open, timing, func(b *Batcher, lo, hi int) error { return b.Permute(states[lo:hi]) })
}

// onGroup runs fn on one contiguous range of [0, n) per device of g, each
// with a Batcher of its own from open, and reports the devices' timings
// side by side (Timing.Parallel) to timing.
func (h *Hash) onGroup(g *wgpu.Group, n int, open Open, timing *wgpu.Timing, fn func(b *Batcher, lo, hi int) error) error {
	if g == nil {
		return errors.New(h.Name + ": no Group given: open one with wgpu.OpenGroup or wgpu.NewGroup")
	}
	var mu sync.Mutex
	var total wgpu.Timing
	err := g.Split(n, 1, func(_ int, ctx *wgpu.Context, lo, hi int) error {
		var t wgpu.Timing
		b, err := open(ctx, &t)
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
		return fmt.Errorf("%s: %w", h.Name, err)
	}
	return nil
}
