package batch

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// Batcher runs one hash's batches with one variant's kernels on one
// Context, holding them and one piece's device buffers until Release. With
// a nil Context it runs the Spec's Go functions on all cores and holds
// nothing. A Batcher is not safe for concurrent use.
type Batcher[E field.Element, D, P, S any] struct {
	ctx    *wgpu.Context
	f      *Family[E, D, P, S]
	k      Kernels
	timing *wgpu.Timing
	batch  *sched.Runner
	// Guard, when set, places a sentinel item after each piece's output
	// and fails a call whose kernels wrote over it: a check of the
	// kernels' indexing, at the cost of an item per piece.
	Guard bool
}

// NewBatcher returns a Batcher of f's variant on ctx, its kernels compiled
// (once per Context); ctx may be nil, the CPU backend. opts.Timing, when
// not nil, receives each call's timing.
func (f *Family[E, D, P, S]) NewBatcher(ctx *wgpu.Context, opts Options) (*Batcher[E, D, P, S], error) {
	if err := f.invalid(); err != nil {
		return nil, err
	}
	b := &Batcher[E, D, P, S]{ctx: ctx, f: f, timing: opts.Timing}
	if ctx == nil {
		return b, nil
	}
	v := f.spec.Variants[f.v]
	k, err := v.Kernels(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: variant %s: %w", f.spec.Name, v.Name, err)
	}
	b.k, b.batch = k, sched.NewRunner(ctx)
	return b, nil
}

// Release frees the Batcher's device memory; the Batcher must not be used
// after.
func (b *Batcher[E, D, P, S]) Release() {
	if b.batch != nil {
		b.batch.Release()
		b.batch = nil
	}
	if b.k.Release != nil {
		b.k.Release()
		b.k.Release = nil
	}
}

// MergeMany is Family.MergeMany on b's kernels and buffers.
func (b *Batcher[E, D, P, S]) MergeMany(dst []D, pairs []P) error {
	if err := b.f.CheckMerge(dst, pairs); err != nil {
		return err
	}
	return b.merge(dst, pairs)
}

// HashElementsMany is Family.HashElementsMany on b's kernels and buffers.
func (b *Batcher[E, D, P, S]) HashElementsMany(dst []D, inputs []E, m int) error {
	if err := b.f.CheckHash(dst, inputs, m); err != nil {
		return err
	}
	return b.hash(dst, inputs, m)
}

// PermuteMany is Family.PermuteMany on b's kernels and buffers.
func (b *Batcher[E, D, P, S]) PermuteMany(states []S) error {
	if err := b.f.CheckPermute(states); err != nil {
		return err
	}
	return b.permute(states)
}

// merge is MergeMany on input that CheckMerge has accepted.
func (b *Batcher[E, D, P, S]) merge(dst []D, pairs []P) error {
	merge := b.f.spec.Merge
	var d D
	out := sched.Output{Data: wgpu.Bytes(dst), ItemBytes: int(unsafe.Sizeof(d))}
	cpu := func(lo, hi int) {
		for k := lo; k < hi; k++ {
			two := (*[2]D)(unsafe.Pointer(&pairs[k]))
			dst[k] = merge(two[0], two[1])
		}
	}
	if many := b.f.spec.MergeRange; many != nil {
		cpu = func(lo, hi int) { many(dst[lo:hi], pairs[lo:hi]) }
	}
	return b.run(OpMerge, len(pairs), 0, flat[E](pairs), out, cpu)
}

// hash is HashElementsMany on input that CheckHash has accepted.
func (b *Batcher[E, D, P, S]) hash(dst []D, inputs []E, m int) error {
	if m == 0 {
		// HashElements of nothing permutes never: the zero digest, in
		// every sponge here.
		clear(dst)
		b.report(wgpu.Timing{})
		return nil
	}
	var d D
	var e E
	out := sched.Output{Data: wgpu.Bytes(dst), ItemBytes: int(unsafe.Sizeof(d))}
	if b.k.HashStates {
		// The kernel leaves whole states; the digest is DigestAt's
		// elements.
		es, ds, at := int(unsafe.Sizeof(e)), int(unsafe.Sizeof(d)), b.f.spec.DigestAt
		out = sched.Output{ItemBytes: es * b.f.width, Gather: func(lo, n int, raw []byte) {
			got := wgpu.Bytes(dst[lo : lo+n])
			for i := range n {
				copy(got[i*ds:(i+1)*ds], raw[es*(i*b.f.width+at):])
			}
		}}
	}
	hash := b.f.spec.HashElements
	cpu := func(lo, hi int) {
		for k := lo; k < hi; k++ {
			dst[k] = hash(inputs[k*m : (k+1)*m])
		}
	}
	if many := b.f.spec.HashElementsRange; many != nil {
		cpu = func(lo, hi int) { many(dst[lo:hi], inputs[lo*m:hi*m], m) }
	}
	return b.run(OpHash, len(dst), m, inputs, out, cpu)
}

// permute is PermuteMany on input that CheckPermute has accepted.
func (b *Batcher[E, D, P, S]) permute(states []S) error {
	els := flat[E](states)
	permute := b.f.spec.Permute
	var s S
	cpu := func(lo, hi int) {
		for k := lo; k < hi; k++ {
			permute(&states[k])
		}
	}
	if many := b.f.spec.PermuteRange; many != nil {
		cpu = func(lo, hi int) { many(states[lo:hi]) }
	}
	return b.run(OpPermute, len(states), 0, els, sched.Output{Data: wgpu.Bytes(els), ItemBytes: int(unsafe.Sizeof(s))}, cpu)
}

// run runs op on count items, the elements of in split evenly among them,
// on the GPU, or cpu over [0, count) on all cores when the Context is nil,
// and reports the timing.
func (b *Batcher[E, D, P, S]) run(op Op, count, m int, in []E, out sched.Output, cpu func(lo, hi int)) error {
	name := b.f.spec.Name
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
		return fmt.Errorf("%s: %s: %w", name, op, err)
	}
	inBytes := wgpu.Bytes(in)
	t, err := b.batch.Run(sched.Job{
		Label:      name + " " + op.String(),
		Count:      count,
		Inputs:     []sched.Input{{Data: inBytes, ItemBytes: len(inBytes) / count}},
		Output:     out,
		Extra:      b.k.Extra,
		Guard:      b.Guard,
		Dispatches: dispatches,
	})
	b.report(t)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", name, op, err)
	}
	return nil
}

// report hands a call's timing to the caller that asked for it.
func (b *Batcher[E, D, P, S]) report(t wgpu.Timing) {
	if b.timing != nil {
		*b.timing = t
	}
}

// flat views a slice of arrays of E as its elements, without copying.
func flat[E field.Element, T any](s []T) []E {
	if len(s) == 0 {
		return nil
	}
	var e E
	n := len(s) * int(unsafe.Sizeof(s[0])) / int(unsafe.Sizeof(e))
	return unsafe.Slice((*E)(unsafe.Pointer(&s[0])), n)
}
