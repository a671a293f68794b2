package rescueprime

import (
	"math/bits"
)

// The permutations' layers over the whole state at once. A per-element
// S-box is a chain of 72 dependent multiplications; run on the twelve
// elements in lockstep, each step's twelve multiplications are
// independent and the CPU overlaps them, which made the CPU path 3-4×
// as fast (BENCHMARKS.md, "The CPU path of the Goldilocks hashes").
// Intermediate values are kept below 2^64 but not reduced below P (the
// reduction of a 128-bit product is exact for any 64-bit inputs); each
// layer's output is canonical.

// epsilon is 2^64 mod P = 2^32 - 1.
const epsilon = 1<<32 - 1

// mdsMatrix is the circulant MDS matrix, row by row.
var mdsMatrix = func() (m [Width][Width]uint64) {
	for i := range m {
		for j := range m[i] {
			m[i][j] = MDSRow[(j-i+Width)%Width]
		}
	}
	return m
}()

// mul returns a·b reduced below 2^64, congruent to a·b mod P.
func mul(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	t0, borrow := bits.Sub64(lo, hi>>32, 0)
	t0 -= -borrow & epsilon
	t1 := (hi & epsilon) * epsilon
	t2, carry := bits.Add64(t0, t1, 0)
	return t2 + -carry&epsilon
}

// squareN squares every element of s n times.
func squareN(s *[Width]uint64, n int) {
	for ; n > 0; n-- {
		for i := range s {
			s[i] = mul(s[i], s[i])
		}
	}
}

// mulInto is dst[i] = dst[i]·b[i] for every i.
func mulInto(dst, b *[Width]uint64) {
	for i := range dst {
		dst[i] = mul(dst[i], b[i])
	}
}

// canon reduces every element below P.
func canon(s *[Width]uint64) {
	for i := range s {
		s[i] = gl.Canon(s[i])
	}
}

// Pow7All is s[i] = s[i]^7 for every i.
func Pow7All(s *[Width]uint64) {
	for i := range s {
		x := s[i]
		x2 := mul(x, x)
		x3 := mul(x2, x)
		x4 := mul(x2, x2)
		s[i] = gl.Canon(mul(x4, x3))
	}
}

// InvSboxAll is s[i] = InvSbox(s[i]) for every i, by the same addition
// chain.
func InvSboxAll(s *[Width]uint64) {
	x := *s
	t1 := x
	squareN(&t1, 1)
	t2 := t1
	squareN(&t2, 1)
	t3 := t2
	squareN(&t3, 3)
	mulInto(&t3, &t2)
	t4 := t3
	squareN(&t4, 6)
	mulInto(&t4, &t3)
	t5 := t4
	squareN(&t5, 12)
	mulInto(&t5, &t4)
	t6 := t5
	squareN(&t6, 6)
	mulInto(&t6, &t3)
	t7 := t6
	squareN(&t7, 31)
	mulInto(&t7, &t6)
	a := t7
	squareN(&a, 1)
	mulInto(&a, &t6)
	squareN(&a, 2)
	b := t1
	mulInto(&b, &t2)
	mulInto(&b, &x)
	mulInto(&a, &b)
	canon(&a)
	*s = a
}

// MDSAdd is s = MDS·s + c: the twelve products of an output row summed in
// 128 bits with the constant and reduced once. The constants of MDSRow
// are below 32 and elements below 2^64, so a row's sum stays below 2^74
// and its high word below 2^10.
func MDSAdd(s, c *[Width]uint64) {
	var out [Width]uint64
	for i := range out {
		row := &mdsMatrix[i]
		lo, hi := c[i], uint64(0)
		for j := range s {
			h, l := bits.Mul64(s[j], row[j])
			var cy uint64
			lo, cy = bits.Add64(lo, l, 0)
			hi += h + cy
		}
		// hi·2^64 + lo ≡ lo + hi·(2^32 - 1), and hi·(2^32 - 1) < 2^42:
		// one carry at most, worth epsilon, which cannot carry again.
		r, cy := bits.Add64(lo, hi<<32-hi, 0)
		out[i] = gl.Canon(r + -cy&epsilon)
	}
	*s = out
}
