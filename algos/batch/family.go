// Package batch runs the batch functions of an algebraic hash over a prime
// field: many merges (2-to-1 compressions), hash_elements of many inputs,
// or many permutations at once, on the GPU, on all cores of the CPU (a nil
// Context), or split over the devices of a sched.Group. One Family serves
// every hash, whatever its field: the element, digest, pair and state are
// type parameters, [4]uint64, [8]uint64 and [12]uint64 for the Goldilocks
// hashes (Goldilocks), [8]uint32 and [16]uint32 for a 31-bit field.
//
// A hash package exports its Family (rescue.Batch, rpo.Batch,
// poseidon2.Batch, poseidon2.BabyBearBatch), built by New from a Spec: its name, its Go functions
// (the CPU path, and the oracle of its tests) and its kernels. Users call
//
//	err := rescue.Batch.MergeMany(ctx, dst, pairs, batch.Options{})
//
// Every input is checked before anything is uploaded: an element not
// below the field's modulus is named by its item and place.
package batch

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/internal/base/impl"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// Goldilocks is the Family of a hash over the Goldilocks field with a
// 12-element state and 4-element digests (Rescue's Rp64_256, RPO256,
// Poseidon2 of width 12).
type Goldilocks = Family[uint64, [4]uint64, [8]uint64, [12]uint64]

// Monty31 is the Family of a hash over a 31-bit Monty-31 field (BabyBear,
// KoalaBear) with a 16-element state and 8-element digests (Poseidon2 of
// width 16 in Plonky3's Merkle trees).
type Monty31 = Family[uint32, [8]uint32, [16]uint32, [16]uint32]

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

// Kernels is a hash's GPU side on one Context.
type Kernels struct {
	// Dispatches returns the work of op on a piece of n items of m elements
	// each (m is zero but for OpHash) given the piece's bindings: the
	// input, the output, then Extra. Its error (a kernel that does not
	// compile) fails the call.
	Dispatches func(op Op, m int) (func(n int, bind []wgpu.Binding) []wgpu.Dispatch, error)
	// Extra bindings follow the input and the output.
	Extra []wgpu.Binding
	// HashStates: the hash kernel leaves whole states, the digest at
	// Spec.DigestAt, instead of digests.
	HashStates bool
	// Release, when not nil, frees what the kernels hold.
	Release func()
}

// Variant is one way of computing a hash's kernels. Every variant gives
// the same digests; those beside the first exist to be measured against
// it, and are reached through the internal registry of variants, not
// through the Family that New returns.
type Variant struct {
	// Name names the variant in errors, benchmarks and the command line:
	// "fast".
	Name string
	// Kernels returns the variant's kernels on ctx (never nil).
	Kernels func(ctx *wgpu.Context) (Kernels, error)
}

// Spec describes a hash to New. E is its field element, D a digest, P a
// pair of digests (two D, the input of a merge) and S a state, each an
// array of E.
type Spec[E field.Element, D, P, S any] struct {
	// Name starts errors and labels: "rescue".
	Name string
	// Modulus is the field's prime: every element must be below it.
	Modulus uint64
	// MaxElements, when positive, bounds the elements of one hash input
	// (a kernel that indexes them with u32 words).
	MaxElements int
	// DigestAt is the index of the digest's first element in a state,
	// where a kernel with Kernels.HashStates leaves it.
	DigestAt int
	// Permute, Merge and HashElements are what the kernels compute; the
	// CPU backend runs them on all cores.
	Permute      func(state *S)
	Merge        func(a, b D) D
	HashElements func(els []E) D
	// PermuteRange, MergeRange and HashElementsRange, where not nil, are
	// the CPU backend's path instead: each computes what the function
	// above computes for every item of a piece of them at once (dst[i] =
	// Merge(pairs[i]), inputs m elements each), for hashes that permute
	// many states faster together than one by one.
	PermuteRange      func(states []S)
	MergeRange        func(dst []D, pairs []P)
	HashElementsRange func(dst []D, inputs []E, m int)
	// Variants are the kernel variants, the default first.
	Variants []Variant
}

// Family is one hash's batch functions over its field, on the kernels of
// one variant: the default in a Family from New. It holds nothing on any
// device; a Batcher holds a piece's buffers and the kernels.
type Family[E field.Element, D, P, S any] struct {
	spec *Spec[E, D, P, S]
	// v indexes the variant in spec.Variants.
	v int
	// err, when not nil, fails every call: a Spec whose types do not fit
	// together.
	err error
	// Sizes in elements.
	digest, pair, width int
}

// New returns the Family of s with its default variant, and registers
// every variant of s under s.Name for the benchmarks and tests. A Spec
// whose types do not fit (a pair that is not two digests, an array that
// is not of E) gives a Family whose every call returns that error.
func New[E field.Element, D, P, S any](s Spec[E, D, P, S]) *Family[E, D, P, S] {
	var (
		e  E
		d  D
		p  P
		st S
	)
	es := int(unsafe.Sizeof(e))
	f := &Family[E, D, P, S]{spec: &s, digest: int(unsafe.Sizeof(d)) / es, pair: int(unsafe.Sizeof(p)) / es, width: int(unsafe.Sizeof(st)) / es}
	switch {
	case int(unsafe.Sizeof(d))%es != 0 || int(unsafe.Sizeof(st))%es != 0 || f.digest == 0:
		f.err = fmt.Errorf("%s: a digest (%T) and a state (%T) must be arrays of %T", s.Name, d, st, e)
	case f.pair != 2*f.digest:
		f.err = fmt.Errorf("%s: a pair (%T) must be two digests (%T)", s.Name, p, d)
	case s.DigestAt < 0 || s.DigestAt+f.digest > f.width:
		f.err = fmt.Errorf("%s: a digest at element %d does not fit in a state of %d", s.Name, s.DigestAt, f.width)
	case len(s.Variants) == 0:
		f.err = fmt.Errorf("%s: no kernel variant given", s.Name)
	}
	vs := make([]impl.Variant, len(s.Variants))
	for i, v := range s.Variants {
		g := *f
		g.v = i
		vs[i] = impl.Variant{Name: v.Name, Impl: &g}
	}
	impl.Register(s.Name, vs)
	return f
}

// Name returns the hash's name, which starts its errors: "rescue".
func (f *Family[E, D, P, S]) Name() string {
	if f.spec == nil {
		return ""
	}
	return f.spec.Name
}

// Modulus returns the field's prime: every element must be below it.
func (f *Family[E, D, P, S]) Modulus() uint64 {
	if f.spec == nil {
		return 0
	}
	return f.spec.Modulus
}

// invalid returns the error of a Family that cannot run: one not from New,
// or from a Spec whose types do not fit together.
func (f *Family[E, D, P, S]) invalid() error {
	if f.spec == nil {
		return errors.New("batch: a Family must come from batch.New")
	}
	return f.err
}

// Options tune one call of the batch functions; the zero value reports no
// timing.
type Options struct {
	// Timing, when not nil, receives each call's timing, summed over its
	// submissions (on the CPU path, a nil Context, the host time as Wall;
	// over a Group the devices. timings side by side,
	// Timing.Parallel).
	Timing *wgpu.Timing
}

// MergeMany is
//
//	for k := range pairs { dst[k] = Merge(pairs[k][:d], pairs[k][d:]) }
//
// for digests of d elements, on t: a Context's GPU, with a Batcher of its
// own; the devices of a Group, the pairs split into one contiguous range
// per device, each with a Batcher of its own, all at once (opts.Timing
// then receives the devices' timings side by side, Timing.Parallel: the
// slowest device's); or, with a nil t, all CPU cores. The digests are the
// same on any target. len(dst) must equal len(pairs), and every element
// must be below the modulus (the error names the first pair and element
// that is not).
func (f *Family[E, D, P, S]) MergeMany(t wgpu.Target, dst []D, pairs []P, opts Options) error {
	if ctx, one := sched.Device(t); one {
		return f.with(ctx, opts, func(b *Batcher[E, D, P, S]) error { return b.MergeMany(dst, pairs) })
	}
	if err := f.CheckMerge(dst, pairs); err != nil {
		return err
	}
	return f.onGroup(sched.GroupOf(t), len(pairs), opts, func(b *Batcher[E, D, P, S], lo, hi int) error { return b.merge(dst[lo:hi], pairs[lo:hi]) })
}

// HashElementsMany is
//
//	for k := range dst { dst[k] = HashElements(inputs[k*m : (k+1)*m]) }
//
// on t, as MergeMany runs merges. len(inputs) must be len(dst)*m, and
// every element must be below the modulus (the error names the first
// input and element that is not).
func (f *Family[E, D, P, S]) HashElementsMany(t wgpu.Target, dst []D, inputs []E, m int, opts Options) error {
	if ctx, one := sched.Device(t); one {
		return f.with(ctx, opts, func(b *Batcher[E, D, P, S]) error { return b.HashElementsMany(dst, inputs, m) })
	}
	if err := f.CheckHash(dst, inputs, m); err != nil {
		return err
	}
	return f.onGroup(sched.GroupOf(t), len(dst), opts, func(b *Batcher[E, D, P, S], lo, hi int) error {
		return b.hash(dst[lo:hi], inputs[lo*m:hi*m], m)
	})
}

// PermuteMany is
//
//	for k := range states { Permute(&states[k]) }
//
// on t, as MergeMany runs merges. Every element must be below the modulus
// (the error names the first state and element that is not).
func (f *Family[E, D, P, S]) PermuteMany(t wgpu.Target, states []S, opts Options) error {
	if ctx, one := sched.Device(t); one {
		return f.with(ctx, opts, func(b *Batcher[E, D, P, S]) error { return b.PermuteMany(states) })
	}
	if err := f.CheckPermute(states); err != nil {
		return err
	}
	return f.onGroup(sched.GroupOf(t), len(states), opts, func(b *Batcher[E, D, P, S], lo, hi int) error { return b.permute(states[lo:hi]) })
}

// with runs fn with a Batcher of its own on ctx, released after.
func (f *Family[E, D, P, S]) with(ctx *wgpu.Context, opts Options, fn func(*Batcher[E, D, P, S]) error) error {
	b, err := f.NewBatcher(ctx, opts)
	if err != nil {
		return err
	}
	defer b.Release()
	return fn(b)
}

// minGroupItems is the fewest items a member of a Group is given
// (Group.FitFor's prior): a member's piece costs its own Batcher, a
// submission and a wait, and 2^16 merges are well under a millisecond of
// Rescue's kernels on NVIDIA (bench/results/HISTORY.md, "Figures moved
// from code comments"); like merkle's floor, not a measured break-even.
const minGroupItems = 1 << 16

// onGroup runs fn on one contiguous range of [0, n) per device of g (of
// as many as get a minimum each: minGroupItems until the devices have
// timed this family's work, then what they measured, Group.FitFor), each
// with a Batcher of its own, and reports the devices' timings side by side
// (Timing.Parallel) to opts.Timing.
func (f *Family[E, D, P, S]) onGroup(g *sched.Group, n int, opts Options, fn func(b *Batcher[E, D, P, S], lo, hi int) error) error {
	if g == nil {
		return errors.New(f.Name() + ": no Group given: open one with sched.OpenGroup or sched.NewGroup")
	}
	var mu sync.Mutex
	var total wgpu.Timing
	sub := g.FitFor(f, n, minGroupItems)
	err := sub.Split(n, 1, func(member int, ctx *wgpu.Context, lo, hi int) error {
		var t wgpu.Timing
		b, err := f.NewBatcher(ctx, Options{Timing: &t})
		if err != nil {
			return err
		}
		defer b.Release()
		err = fn(b, lo, hi)
		if err == nil {
			sub.Learn(f, member, hi-lo, t)
		}
		mu.Lock()
		total = total.Parallel(t)
		mu.Unlock()
		return err
	})
	if opts.Timing != nil {
		*opts.Timing = total
	}
	if err != nil {
		return fmt.Errorf("%s: %w", f.spec.Name, err)
	}
	return nil
}
