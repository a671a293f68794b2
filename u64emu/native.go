// Package u64emu is Goldilocks field arithmetic (p = 2^64 - 2^32 + 1) on the
// GPU, where WGSL has no 64-bit integers: every element is a pair of u32
// words (vec2<u32>, x = low word, y = high word).
//
// The package has three layers, each the oracle for the next:
//
//   - native reference functions on uint64 with math/bits (Add, Mul, ...),
//   - a Go model that performs exactly the u32 operations of the WGSL
//     library wgsl/goldilocks.wgsl, one Go function per WGSL function
//     (model.go), so the two can be read side by side,
//   - batch functions that run the library on a GPU (MulTo, AddTo, ...),
//     or the native functions on all cores when the Context is nil.
//
// All functions take canonical inputs (< P) and return canonical outputs,
// except Canon, which accepts any uint64.
package u64emu

import "math/bits"

// P is the Goldilocks prime 2^64 - 2^32 + 1.
const P uint64 = 0xFFFF_FFFF_0000_0001

// epsilon is 2^64 mod P = 2^32 - 1.
const epsilon uint64 = 0xFFFF_FFFF

// InvAlpha is the inverse of 7 modulo P-1: (x^7)^InvAlpha = x for every x.
const InvAlpha uint64 = 10540996611094048183

// The field operations below do not branch on their data: a carry, a
// borrow or the result's range picks a value through a mask. Random
// elements mispredict such branches half of the time, which cost the CPU
// path of Rescue about a third of its time.

// Canon returns a mod P for any 64-bit a.
func Canon(a uint64) uint64 {
	d, borrow := bits.Sub64(a, P, 0)
	m := -borrow // all ones when a < P
	return a&m | d&^m
}

// Add returns a + b mod P.
func Add(a, b uint64) uint64 {
	s, carry := bits.Add64(a, b, 0)
	// A carry is worth 2^64 - P = epsilon; s + epsilon cannot carry again
	// since a + b < 2P.
	return Canon(s + -carry&epsilon)
}

// Sub returns a - b mod P.
func Sub(a, b uint64) uint64 {
	d, borrow := bits.Sub64(a, b, 0)
	// A borrow is worth -2^64 = -epsilon; d - epsilon cannot borrow again
	// since then d = a - b + 2^64 > 2^64 - P.
	return d - -borrow&epsilon
}

// Neg returns -a mod P.
func Neg(a uint64) uint64 {
	if a == 0 {
		return 0
	}
	return P - a
}

// Mul returns a * b mod P.
func Mul(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return reduce128(hi, lo)
}

// Square returns a * a mod P.
func Square(a uint64) uint64 { return Mul(a, a) }

// reduce128 returns (hi·2^64 + lo) mod P, using 2^64 ≡ 2^32 - 1 and
// 2^96 ≡ -1 (mod P).
func reduce128(hi, lo uint64) uint64 {
	t0, borrow := bits.Sub64(lo, hi>>32, 0)
	// t0 wrapped by 2^64 = epsilon; lo < hi>>32 < 2^32, so no new borrow.
	t0 -= -borrow & epsilon
	t1 := (hi & epsilon) * epsilon // < 2^64, exact
	t2, carry := bits.Add64(t0, t1, 0)
	// Cannot overflow: t1 <= (2^32-1)^2.
	return Canon(t2 + -carry&epsilon)
}

// Exp returns a^e mod P (0^0 = 1).
func Exp(a, e uint64) uint64 {
	r := uint64(1)
	for ; e != 0; e >>= 1 {
		if e&1 != 0 {
			r = Mul(r, a)
		}
		a = Square(a)
	}
	return r
}

// Pow7 returns a^7 mod P, the Rescue-Prime S-box.
func Pow7(a uint64) uint64 {
	a2 := Square(a)
	a3 := Mul(a2, a)
	a4 := Square(a2)
	return Mul(a4, a3)
}

// InvPow7 returns a^InvAlpha mod P, the 7th root: InvPow7(Pow7(a)) = a.
func InvPow7(a uint64) uint64 { return Exp(a, InvAlpha) }

// MulSmall returns a * c mod P for a 32-bit c.
func MulSmall(a uint64, c uint32) uint64 { return Mul(a, uint64(c)) }

// Reduce96 returns (lo + mid·2^32 + hi·2^64) mod P.
func Reduce96(lo, mid, hi uint32) uint64 {
	return reduce128(uint64(hi), uint64(mid)<<32|uint64(lo))
}
