package ntt

import (
	"math/bits"

	"github.com/wgcompute/wgcompute/algos/field"
)

// Reference transforms each row of data (rows of 2^logN canonical
// elements) in place as o says, in plain Go, one radix-2 butterfly at a
// time: the oracle of the CPU and GPU paths. It checks its arguments as
// Transform does.
func Reference(f field.Monty31, data []uint32, logN int, o Options) error {
	r, err := rootsOf(f, logN, o)
	if err != nil {
		return err
	}
	if _, err := rowsOf(len(data), logN); err != nil {
		return err
	}
	if err := checkElements(f, data); err != nil {
		return err
	}
	n := 1 << logN
	for lo := 0; lo < len(data); lo += n {
		referenceRow(f, data[lo:lo+n], logN, o, r)
	}
	return nil
}

// referenceRow is Reference on one row, with its roots.
func referenceRow(f field.Monty31, a []uint32, logN int, o Options, r roots) {
	if o.In == BitReversed {
		bitReverse(a, logN)
	}
	w := r.w
	if o.Inverse {
		w = r.wInv
	}
	if o.Coset && !o.Inverse {
		scalePowers(f, a, r.g, 1)
	}
	difRef(f, a, logN, w)
	bitReverse(a, logN)
	if o.Inverse {
		g := uint32(1)
		if o.Coset {
			g = r.gInv
		}
		scalePowers(f, a, g, r.nInv)
	}
	if o.Out == BitReversed {
		bitReverse(a, logN)
	}
}

// scalePowers sets a[i] = a[i]·c·g^i.
func scalePowers(f field.Monty31, a []uint32, g, c uint32) {
	for i := range a {
		a[i] = f.Mul(a[i], c)
		c = f.Mul(c, g)
	}
}

// difRef is the radix-2 decimation in frequency of a (natural order in,
// bit-reversed order out) with w of order len(a) = 2^logN: stage s pairs
// x (bit s clear) with x + 2^s, a, b = a + b, (a - b)·w^((x mod 2^s)·n/2^(s+1)).
func difRef(f field.Monty31, a []uint32, logN int, w uint32) {
	n := 1 << logN
	for s := logN - 1; s >= 0; s-- {
		h := 1 << s
		ws := f.Exp(w, uint64(n/(2*h)))
		for start := 0; start < n; start += 2 * h {
			t := uint32(1)
			for j := 0; j < h; j++ {
				x, y := a[start+j], a[start+j+h]
				a[start+j] = f.Add(x, y)
				a[start+j+h] = f.Mul(f.Sub(x, y), t)
				t = f.Mul(t, ws)
			}
		}
	}
}

// bitReverse puts a (2^logN elements) in bit-reversed order, as
// gnark-crypto's utils.BitReverse does.
func bitReverse[T any](a []T, logN int) {
	for i := range a {
		j := int(bits.Reverse64(uint64(i)) >> (64 - logN))
		if i < j {
			a[i], a[j] = a[j], a[i]
		}
	}
}
