package ntt

import (
	"math/bits"

	"github.com/wgcompute/wgcompute/algos/field"
)

// Reference transforms each row of data (rows of 2^logN canonical
// elements of f) in place as o says, in plain Go, one radix-2 butterfly at
// a time: the oracle of the CPU and GPU paths. It checks its arguments as
// Transform does.
func Reference[E field.Element](f field.Field[E], data []E, logN int, o Options) error {
	fi, err := implOf(f)
	if err != nil {
		return err
	}
	r, err := rootsOf(fi, logN, o)
	if err != nil {
		return err
	}
	if _, err := rowsOf(len(data), logN); err != nil {
		return err
	}
	if err := checkElements(fi, data); err != nil {
		return err
	}
	n := 1 << logN
	row := make([]uint64, n)
	for lo := 0; lo < len(data); lo += n {
		for i := range row {
			row[i] = uint64(data[lo+i])
		}
		referenceRow(fi, row, logN, o, r)
		for i, x := range row {
			data[lo+i] = E(x)
		}
	}
	return nil
}

// referenceRow is Reference on one row, with its roots.
func referenceRow(fi fieldImpl, a []uint64, logN int, o Options, r roots) {
	if o.In == BitReversed {
		bitReverse(a, logN)
	}
	w := r.w
	if o.Inverse {
		w = r.wInv
	}
	if o.Coset && !o.Inverse {
		scalePowers(fi, a, r.g, 1)
	}
	difRef(fi, a, logN, w)
	bitReverse(a, logN)
	if o.Inverse {
		g := uint64(1)
		if o.Coset {
			g = r.gInv
		}
		scalePowers(fi, a, g, r.nInv)
	}
	if o.Out == BitReversed {
		bitReverse(a, logN)
	}
}

// scalePowers sets a[i] = a[i]·c·g^i.
func scalePowers(fi fieldImpl, a []uint64, g, c uint64) {
	for i := range a {
		a[i] = fi.mul(a[i], c)
		c = fi.mul(c, g)
	}
}

// difRef is the radix-2 decimation in frequency of a (natural order in,
// bit-reversed order out) with w of order len(a) = 2^logN: stage s pairs
// x (bit s clear) with x + 2^s, a, b = a + b, (a - b)·w^((x mod 2^s)·n/2^(s+1)).
func difRef(fi fieldImpl, a []uint64, logN int, w uint64) {
	n := 1 << logN
	p := fi.modulus()
	add := func(x, y uint64) uint64 {
		s, c := bits.Add64(x, y, 0)
		if c != 0 || s >= p {
			s -= p
		}
		return s
	}
	sub := func(x, y uint64) uint64 {
		d, b := bits.Sub64(x, y, 0)
		if b != 0 {
			d += p
		}
		return d
	}
	for s := logN - 1; s >= 0; s-- {
		h := 1 << s
		ws := fi.exp(w, uint64(n/(2*h)))
		for start := 0; start < n; start += 2 * h {
			t := uint64(1)
			for j := 0; j < h; j++ {
				x, y := a[start+j], a[start+j+h]
				a[start+j] = add(x, y)
				a[start+j+h] = fi.mul(sub(x, y), t)
				t = fi.mul(t, ws)
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
