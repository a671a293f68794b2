// Package ntt is the number-theoretic transform over the 31-bit fields
// BabyBear and KoalaBear (field.Monty31) and over Goldilocks: forward and inverse, on the
// subgroup <w> of order n = 2^k or on its coset g·<w>, on many rows of n
// elements at once (rows stored one after another), each row's input and
// output in natural or bit-reversed order.
//
// Its results are gnark-crypto's, bit for bit: by default w is
// gnark-crypto's fft.Generator(n) and g its
// fft.GeneratorFullMultiplicativeGroup(), as its fft.Domain takes them,
// and Transform with Options{In: Natural, Out: BitReversed} is
// Domain.FFT(a, fft.DIF), with Options{In: BitReversed, Out: Natural}
// Domain.FFT(a, fft.DIT), Inverse is FFTInverse (scaled by 1/n) and Coset
// adds fft.OnCoset(). Plainly, the forward transform of a row a is
//
//	A[j] = Σ_i a[i]·(g^i)·w^(i·j)     (g = 1 off the coset)
//
// and the inverse is its inverse, a[i] = g^-i/n · Σ_j A[j]·w^(-i·j).
//
// The rows are canonical values for Transform, Extend and
// EncodeReedSolomon (uint32 for BabyBear and KoalaBear, uint64 for
// Goldilocks), and gnark-crypto's elements as they are in memory, in
// Montgomery form, for TransformMonty, ExtendMonty and
// EncodeReedSolomonMonty ([]koalabear.Element, []babybear.Element). A
// root or shift is a Scalar, which says the form it is given in:
// Value(v) a canonical value, KoalaBear(e) or BabyBear(e) a
// gnark-crypto element, MontyWord(w) a raw Montgomery word. No integer
// is a Scalar, so that a Montgomery word is not read as a value by
// mistake (a shift in the wrong form is a valid element, and would give
// another coset silently); a Scalar is the same element whatever the
// rows' form, and one that cannot be right (not below p, of another
// field, a root not of its order) is refused, naming the forms taken:
//
//	var g koalabear.Element // a gnark-crypto shift
//	err := ntt.TransformMonty(ctx, field.KoalaBear, rows, logN,
//		ntt.Options{Coset: true, Shift: ntt.KoalaBear(g)})
//
// Each function takes a wgpu.Target: nil runs gnark-crypto's fft on all
// cores; a Context (or a Group of one) runs the ntt.wgsl kernels (Plan,
// the resident object). A transform runs on one device: a Group of
// several is refused (see wgpu.Target). Reference is the plain-Go oracle
// of both.
package ntt

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// Order is the order of a row's elements: Natural (element i at index i)
// or BitReversed (element i at the index whose k bits are i's reversed,
// gnark-crypto's utils.BitReverse).
type Order uint8

const (
	// Natural is element i at index i.
	Natural Order = iota
	// BitReversed is element i at index rev_k(i).
	BitReversed
)

// String returns "natural" or "bitreversed".
func (o Order) String() string {
	if o == BitReversed {
		return "bitreversed"
	}
	return "natural"
}

// Options says which transform to run. The zero value is the forward
// transform on the subgroup with gnark-crypto's root, natural order in and
// out.
type Options struct {
	Inverse bool  // the inverse transform, scaled by 1/n
	Coset   bool  // on the coset Shift·<Root> instead of <Root>
	In, Out Order // the rows' order before and after

	// Root is the root of unity of order exactly n, in the form it is
	// given in (Value, KoalaBear, BabyBear, MontyWord: see Scalar); the
	// zero Scalar takes gnark-crypto's fft.Generator(n).
	Root Scalar
	// Shift is the coset's generator g, nonzero, given as Root is; the
	// zero Scalar takes gnark-crypto's GeneratorFullMultiplicativeGroup()
	// (KoalaBear 3, BabyBear 31, Goldilocks 7).
	Shift Scalar

	// Timing, where not nil, receives the kernels' timing (GPU only).
	Timing *wgpu.Timing
}

// CheckLog returns an error unless rows of 2^logN elements can be
// transformed over f: 1 <= logN <= f.TwoAdicity().
func CheckLog[E field.Element](f field.Field[E], logN int) error {
	if logN < 1 || logN > f.TwoAdicity() {
		return fmt.Errorf("ntt: rows of 2^%d elements: %s takes 2^1 up to 2^%d (its two-adicity)", logN, f.Name(), f.TwoAdicity())
	}
	return nil
}

// LogOf returns k for a row of n = 2^k elements, and an error naming n
// when n is not a power of two or beyond f's two-adicity.
func LogOf[E field.Element](f field.Field[E], n int) (int, error) {
	if n < 2 || n&(n-1) != 0 {
		return 0, fmt.Errorf("ntt: a row of %d elements: the length must be a power of two from 2 up to 2^%d", n, f.TwoAdicity())
	}
	k := bits.TrailingZeros64(uint64(n))
	return k, CheckLog(f, k)
}

// roots are a transform's field elements, canonical: the root w of order
// n, the coset generator g (1 off the coset), and their inverses.
type roots struct {
	w, wInv, g, gInv, nInv uint64
}

// rootsOf checks o's Root and Shift for rows of 2^logN elements and
// returns them, canonical, with the defaults filled in. A root of the
// wrong order is refused saying what form it was read in, and where its
// word read in the other form is of the right order, that it was likely
// given in the wrong one.
func rootsOf(fi fieldImpl, logN int, o Options) (roots, error) {
	if logN < 1 || logN > fi.twoAdicity() {
		return roots{}, fmt.Errorf("ntt: rows of 2^%d elements: %s takes 2^1 up to 2^%d (its two-adicity)", logN, fi.Name(), fi.twoAdicity())
	}
	r := roots{g: 1}
	if o.Root.IsZero() {
		r.w = fi.defaultRoot(logN)
	} else {
		w, err := o.Root.resolve(fi, "root")
		if err != nil {
			return roots{}, err
		}
		ofOrder := func(w uint64) bool { return fi.exp(w, 1<<logN) == 1 && fi.exp(w, 1<<(logN-1)) != 1 }
		if !ofOrder(w) {
			read, other := "a canonical value", "as a Montgomery word"
			if o.Root.kind != canonical {
				read, other = fmt.Sprintf("the value %d", w), "as a canonical value"
			}
			hint := ""
			if x, ok := o.Root.otherForm(fi); ok && ofOrder(x) {
				hint = fmt.Sprintf(", though read %s it is", other)
			}
			return roots{}, fmt.Errorf("ntt: root %s (%s) is not of order 2^%d in %s%s: %s", o.Root, read, logN, fi.Name(), hint, forms(fi))
		}
		r.w = w
	}
	if o.Coset {
		if o.Shift.IsZero() {
			r.g = fi.defaultShift()
		} else {
			g, err := o.Shift.resolve(fi, "shift")
			if err != nil {
				return roots{}, err
			}
			if g == 0 {
				return roots{}, fmt.Errorf("ntt: shift %s is zero: a coset's shift is a nonzero element (the zero Scalar takes the default)", o.Shift)
			}
			r.g = g
		}
	}
	r.wInv = inverse(fi, r.w)
	r.gInv = inverse(fi, r.g)
	r.nInv = inverse(fi, 1<<logN)
	return r, nil
}

// rowsOf returns how many rows of 2^logN elements data holds, and an
// error when its length is not a whole number of them.
func rowsOf(n, logN int) (int, error) {
	size := 1 << logN
	if n%size != 0 {
		return 0, fmt.Errorf("ntt: %d elements are not whole rows of 2^%d = %d elements", n, logN, size)
	}
	return n / size, nil
}

// Transform transforms each row of data (rows of 2^logN canonical
// elements of f, one after another: uint32 for BabyBear and KoalaBear,
// uint64 for Goldilocks) in place as o says, on t's GPU, or on all
// cores with gnark-crypto's fft for a nil t. An element not below p is
// refused, naming it, and data is left unchanged.
func Transform[E field.Element](t wgpu.Target, f field.Field[E], data []E, logN int, o Options) error {
	ctx, fi, err := deviceAndField(t, f, "Transform")
	if err != nil {
		return err
	}
	if _, err := rootsOf(fi, logN, o); err != nil {
		return err
	}
	if _, err := rowsOf(len(data), logN); err != nil {
		return err
	}
	if err := checkElements(fi, data); err != nil {
		return err
	}
	return transform(ctx, fi, data, logN, o, Canonical)
}

// Monty is an element held in Montgomery form (x·2^32 mod p), as
// gnark-crypto's koalabear.Element and babybear.Element hold it: either
// type, or a uint32 of that form (field.Monty).
type Monty = field.Monty

// TransformMonty is Transform over BabyBear or KoalaBear on elements in
// Montgomery form, so that a gnark-crypto []koalabear.Element (or
// babybear) is passed as it is; a root or shift of gnark-crypto's is
// given as KoalaBear(e) (or BabyBear(e)). A word not below p (not
// reduced) is refused, naming it, and data is left unchanged.
func TransformMonty[E Monty](t wgpu.Target, f field.Monty31, data []E, logN int, o Options) error {
	ctx, err := sched.OneDevice(t)
	if err != nil {
		return fmt.Errorf("ntt: TransformMonty %w", err)
	}
	fi := over[uint32]{f}
	if _, err := rootsOf(fi, logN, o); err != nil {
		return err
	}
	if _, err := rowsOf(len(data), logN); err != nil {
		return err
	}
	words := field.MontyWords(data)
	if err := checkMonty(fi, words); err != nil {
		return err
	}
	return transform(ctx, fi, words, logN, o, Montgomery)
}

// checkMonty returns an error naming the first word of data, elements in
// Montgomery form, not below p.
func checkMonty(fi fieldImpl, data []uint32) error {
	if i := firstBad(fi, data); i >= 0 {
		return fmt.Errorf("ntt: element %d: %s", i, field.Montgomery.NotElement(uint64(data[i]), fi.Name(), fi.modulus()))
	}
	return nil
}

// transform is Transform and TransformMonty after their checks, on rows
// held in form.
func transform[E field.Element](ctx *wgpu.Context, fi fieldImpl, data []E, logN int, o Options, form Form) error {
	if len(data) == 0 {
		return nil
	}
	if ctx == nil {
		return transformCPU(fi, data, logN, o, form)
	}
	p, err := newPlan(ctx, fi, logN, PlanOptions{Root: o.Root, Shift: o.Shift})
	if err != nil {
		return err
	}
	defer p.Release()
	return transformHost(p, data, o, form)
}

// CheckElements returns the index of the first element of data (of f)
// not below f's p, and an error naming it; -1 and nil when every element
// is canonical.
func CheckElements[E field.Element](f field.Field[E], data []E) (int, error) {
	fi, err := implOf(f)
	if err != nil {
		return -1, err
	}
	if i := firstBad(fi, data); i >= 0 {
		return i, errors.New(field.Canonical.NotElement(uint64(data[i]), fi.Name(), fi.modulus()))
	}
	return -1, nil
}

// checkElements returns an error naming the first element of data not
// below p.
func checkElements[E field.Element](fi fieldImpl, data []E) error {
	if i := firstBad(fi, data); i >= 0 {
		return fmt.Errorf("ntt: element %d: %s", i, field.Canonical.NotElement(uint64(data[i]), fi.Name(), fi.modulus()))
	}
	return nil
}

// firstBad returns the index of the first element of data not below
// f's p, or -1: batch.FirstNonCanonical, the scan every upload of
// elements makes, on all cores.
func firstBad[E field.Element](fi fieldImpl, data []E) int {
	return batch.FirstNonCanonical(data, fi.modulus())
}
