// Package u64emu is Goldilocks' WGSL library, wgsl/goldilocks.wgsl, seen
// from Go: the field (p = 2^64 - 2^32 + 1) where WGSL has no 64-bit
// integers, every element a pair of u32 words (vec2<u32>, x = low word,
// y = high word). The field itself, its arithmetic on uint64, is
// field.Goldilocks; this package is how the GPU computes it.
//
// The package has three layers, each the oracle for the next:
//
//   - the reference functions on uint64 (Add, Mul, ...): field.Goldilocks's
//     arithmetic, under the names the library's tests and kernels use,
//   - a Go model that performs exactly the u32 operations of the WGSL
//     library wgsl/goldilocks.wgsl, one Go function per WGSL function
//     (model.go), so the two can be read side by side,
//   - batch functions that run the library on a GPU (MulTo, AddTo, ...),
//     or the reference functions on all cores when the Context is nil.
//
// All functions take canonical inputs (< P) and return canonical outputs,
// except Canon, which accepts any uint64.
package u64emu

import "github.com/wgcompute/wgcompute/algos/field"

// P is the Goldilocks prime 2^64 - 2^32 + 1 (field.GoldilocksP).
const P = field.GoldilocksP

// epsilon is 2^64 mod P = 2^32 - 1.
const epsilon uint64 = 0xFFFF_FFFF

// InvAlpha is the inverse of 7 modulo P-1: (x^7)^InvAlpha = x for every x.
const InvAlpha uint64 = 10540996611094048183

// gl is the field whose arithmetic the functions below name.
var gl field.Goldilocks

// Canon returns a mod P for any 64-bit a.
func Canon(a uint64) uint64 { return gl.Canon(a) }

// Add returns a + b mod P.
func Add(a, b uint64) uint64 { return gl.Add(a, b) }

// Sub returns a - b mod P.
func Sub(a, b uint64) uint64 { return gl.Sub(a, b) }

// Neg returns -a mod P.
func Neg(a uint64) uint64 { return gl.Neg(a) }

// Mul returns a * b mod P.
func Mul(a, b uint64) uint64 { return gl.Mul(a, b) }

// Square returns a * a mod P.
func Square(a uint64) uint64 { return gl.Mul(a, a) }

// Exp returns a^e mod P (0^0 = 1).
func Exp(a, e uint64) uint64 { return gl.Exp(a, e) }

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
	return gl.Reduce128(uint64(hi), uint64(mid)<<32|uint64(lo))
}

// reduce128 returns (hi·2^64 + lo) mod P, goldilocks_reduce128's reference.
func reduce128(hi, lo uint64) uint64 { return gl.Reduce128(hi, lo) }
