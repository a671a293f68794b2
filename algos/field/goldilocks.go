package field

import (
	"fmt"
	"math/bits"

	"github.com/wgcompute/wgcompute/wgsl"
)

// GoldilocksP is the Goldilocks prime 2^64 - 2^32 + 1.
const GoldilocksP uint64 = 0xFFFF_FFFF_0000_0001

// goldilocksEpsilon is 2^64 mod p = 2^32 - 1.
const goldilocksEpsilon uint64 = 0xFFFF_FFFF

// goldilocksRoot is a primitive 2^32-th root of unity of Goldilocks,
// gnark-crypto's (field/goldilocks Generator's rootOfUnity).
const goldilocksRoot uint64 = 1753635133440165772

// Goldilocks is the field of p = 2^64 - 2^32 + 1 (GoldilocksP), whose
// elements are uint64 values below p: Rescue's Rp64_256, RPO256 and
// Poseidon2 of width 12 hash over it. It has no state: Goldilocks{} is the
// field, and its methods are the plain-Go arithmetic, which does not
// branch on its data.
//
// Its WGSL library, goldilocks.wgsl, holds an element as a pair of u32
// words (vec2<u32>: low word, high word), since WGSL has no 64-bit
// integers; package u64emu is that library's Go model and its kernels.
// goldilocks.shader-int64.wgsl is the same functions on native u64.
type Goldilocks struct{}

// Name returns "goldilocks".
func (Goldilocks) Name() string { return "goldilocks" }

// String returns the field's name.
func (Goldilocks) String() string { return "goldilocks" }

// P returns the field's prime, GoldilocksP.
func (Goldilocks) P() uint64 { return GoldilocksP }

// Modulus returns the field's prime, GoldilocksP.
func (Goldilocks) Modulus() uint64 { return GoldilocksP }

// Check returns an error unless a is a canonical element (below p),
// saying what the field accepts.
func (Goldilocks) Check(a uint64) error {
	if a >= GoldilocksP {
		return fmt.Errorf("%d is not a goldilocks element: elements are values below p = %d", a, GoldilocksP)
	}
	return nil
}

// The field operations below do not branch on their data: a carry, a
// borrow or the result's range picks a value through a mask. Random
// elements mispredict such branches half of the time, which cost the CPU
// path of Rescue about a third of its time.

// Canon returns a mod p for any 64-bit a.
func (Goldilocks) Canon(a uint64) uint64 {
	d, borrow := bits.Sub64(a, GoldilocksP, 0)
	m := -borrow // all ones when a < p
	return a&m | d&^m
}

// Reduce returns a mod p for any 64-bit a (Canon).
func (f Goldilocks) Reduce(a uint64) uint64 { return f.Canon(a) }

// Add returns a + b mod p.
func (f Goldilocks) Add(a, b uint64) uint64 {
	s, carry := bits.Add64(a, b, 0)
	// A carry is worth 2^64 - p = epsilon; s + epsilon cannot carry again
	// since a + b < 2p.
	return f.Canon(s + -carry&goldilocksEpsilon)
}

// Sub returns a - b mod p.
func (Goldilocks) Sub(a, b uint64) uint64 {
	d, borrow := bits.Sub64(a, b, 0)
	// A borrow is worth -2^64 = -epsilon; d - epsilon cannot borrow again
	// since then d = a - b + 2^64 > 2^64 - p.
	return d - -borrow&goldilocksEpsilon
}

// Neg returns -a mod p.
func (Goldilocks) Neg(a uint64) uint64 {
	if a == 0 {
		return 0
	}
	return GoldilocksP - a
}

// Mul returns a·b mod p.
func (f Goldilocks) Mul(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return f.Reduce128(hi, lo)
}

// Square returns a·a mod p.
func (f Goldilocks) Square(a uint64) uint64 { return f.Mul(a, a) }

// Reduce128 returns (hi·2^64 + lo) mod p, using 2^64 ≡ 2^32 - 1 and
// 2^96 ≡ -1 (mod p).
func (f Goldilocks) Reduce128(hi, lo uint64) uint64 {
	t0, borrow := bits.Sub64(lo, hi>>32, 0)
	// t0 wrapped by 2^64 = epsilon; lo < hi>>32 < 2^32, so no new borrow.
	t0 -= -borrow & goldilocksEpsilon
	t1 := (hi & goldilocksEpsilon) * goldilocksEpsilon // < 2^64, exact
	t2, carry := bits.Add64(t0, t1, 0)
	// Cannot overflow: t1 <= (2^32-1)^2.
	return f.Canon(t2 + -carry&goldilocksEpsilon)
}

// Exp returns a^e mod p (0^0 = 1).
func (f Goldilocks) Exp(a, e uint64) uint64 {
	r := uint64(1)
	for ; e != 0; e >>= 1 {
		if e&1 != 0 {
			r = f.Mul(r, a)
		}
		a = f.Square(a)
	}
	return r
}

// Inverse returns a^-1 mod p, and false for a = 0 (mod p), which has
// none.
func (f Goldilocks) Inverse(a uint64) (uint64, bool) {
	if f.Canon(a) == 0 {
		return 0, false
	}
	return f.Exp(a, GoldilocksP-2), true
}

// FromInt returns the element n mod p for any integer n (negative ones
// too).
func (f Goldilocks) FromInt(n int64) uint64 {
	if n < 0 {
		return f.Neg(f.Canon(uint64(-n))) // -n fits: |MinInt64| = 2^63
	}
	return f.Canon(uint64(n))
}

// TwoAdicity returns 32: p - 1 = 2^32·(2^32 - 1).
func (Goldilocks) TwoAdicity() int { return 32 }

// Generator returns 7, a generator of the multiplicative group.
func (Goldilocks) Generator() uint64 { return 7 }

// TwoAdicGenerator returns a primitive 2^bits-th root of unity (bits 0..32),
// gnark-crypto's fft.Generator(2^bits).
func (f Goldilocks) TwoAdicGenerator(bits int) (uint64, error) {
	return twoAdicGenerator[uint64](f, goldilocksRoot, bits)
}

// Library returns "goldilocks.wgsl": elements as vec2<u32> pairs, goldilocks_add,
// goldilocks_mul and the rest (package u64emu is its Go model).
func (Goldilocks) Library() string { return "goldilocks.wgsl" }

// LibraryInt64 returns "goldilocks.shader-int64.wgsl", goldilocks.wgsl on
// native u64.
func (Goldilocks) LibraryInt64() string { return "goldilocks.shader-int64.wgsl" }

// Consts returns nil: goldilocks.wgsl's constants are literals.
func (Goldilocks) Consts() []wgsl.Const { return nil }

var _ Field[uint64] = Goldilocks{}
