// Package field holds the prime fields the hashes and transforms compute
// over, each an implementation of one interface, Field: Goldilocks (p =
// 2^64 - 2^32 + 1, elements uint64) and the 31-bit fields of Plonky3's
// Monty-31 family, BabyBear (p = 15·2^27 + 1) and KoalaBear (p = 2^31 -
// 2^24 + 1), as values of one type, Monty31 (elements uint32). Each field
// owns its arithmetic in plain Go, its canonical encoding (PutElements,
// ReadElements: little-endian values below p), its WGSL library and the
// library's shader-int64 twin, its two-adicity, roots of unity and
// multiplicative generator (gnark-crypto's, which the tests check).
//
// The 31-bit fields: their arithmetic on canonical values in plain Go,
// their Montgomery form, and the WGSL library (monty31.wgsl) the kernels
// compute with, parameterised by the prelude constants Consts returns.
//
// Their elements are uint32 values below P, always canonical where this package
// takes or returns them. The kernels hold them in Montgomery form (x·2^32
// mod p), which makes a product two 32-bit multiplications and a
// reduction; they convert at their inputs and outputs, so every value a
// kernel reads or writes is canonical. Plonky3 stores and serializes
// elements in Montgomery form (since v0.4); this package's bytes, and its
// callers', are canonical little-endian u32s.
//
// Neither field needs 64-bit integers on the device: a product of two
// elements is built from 16-bit halves (monty31.wgsl), which every WebGPU
// implementation runs.
package field

import (
	"fmt"

	"github.com/wgcompute/wgcompute/wgsl"
)

// Monty31 is a prime field of a p below 2^31, with its Montgomery
// constants for R = 2^32. BabyBear and KoalaBear are its only values: the
// zero value is BabyBear, so that no method of it divides by a zero p.
type Monty31 struct {
	name string
	p    uint32
	mu   uint32 // p^-1 mod 2^32
	r2   uint32 // R^2 mod p, which enters a value into Montgomery form
	// The multiplicative group: its two-adicity, a generator of it and a
	// primitive 2^adicity-th root of unity (gnark-crypto's).
	adicity   int
	gen, root uint32
}

// newMonty31 returns the field of the odd prime p < 2^31 named name, whose
// multiplicative group has two-adicity adicity, the generator gen and the
// primitive 2^adicity-th root of unity root.
func newMonty31(name string, p uint32, adicity int, gen, root uint32) Monty31 {
	// Newton's iteration for p^-1 mod 2^32: each step doubles the bits
	// that are right, from the 3 that p itself gets right (p·p ≡ 1 mod 8).
	mu := p
	for range 4 {
		mu *= 2 - p*mu
	}
	r := (uint64(1) << 32) % uint64(p)
	return Monty31{name: name, p: p, mu: mu, r2: uint32(r * r % uint64(p)), adicity: adicity, gen: gen, root: root}
}

var (
	// BabyBear is the field of p = 15·2^27 + 1 = 0x78000001.
	BabyBear = newMonty31("babybear", 0x78000001, 27, 31, 440564289)
	// KoalaBear is the field of p = 2^31 - 2^24 + 1 = 0x7f000001.
	KoalaBear = newMonty31("koalabear", 0x7f000001, 24, 3, 1791270792)
)

// Fields lists the fields of this package, for callers that choose one by
// name (ParseField).
var Fields = []Monty31{BabyBear, KoalaBear}

// field returns the field z stands for: z, or BabyBear for the zero
// value.
func (z Monty31) field() Monty31 {
	if z.p == 0 {
		return BabyBear
	}
	return z
}

// ParseField returns the field named name ("babybear", "koalabear").
func ParseField(name string) (Monty31, error) {
	for _, f := range Fields {
		if f.name == name {
			return f, nil
		}
	}
	return Monty31{}, fmt.Errorf("field: no field %q: the 31-bit fields are babybear and koalabear", name)
}

// Name returns the field's name: "babybear" or "koalabear".
func (z Monty31) Name() string {
	f := z.field()
	return f.name
}

// String returns the field's name.
func (z Monty31) String() string {
	f := z.field()
	return f.name
}

// P returns the field's prime.
func (z Monty31) P() uint32 {
	f := z.field()
	return f.p
}

// Modulus returns the field's prime, as Field's other implementations do.
func (z Monty31) Modulus() uint64 { return uint64(z.P()) }

// TwoAdicity returns the largest k for which 2^k divides p - 1: 27 for
// BabyBear, 24 for KoalaBear.
func (z Monty31) TwoAdicity() int { return z.field().adicity }

// Generator returns a generator of the multiplicative group: 31 for
// BabyBear, 3 for KoalaBear (gnark-crypto's
// fft.GeneratorFullMultiplicativeGroup).
func (z Monty31) Generator() uint32 { return z.field().gen }

// TwoAdicGenerator returns a primitive 2^bits-th root of unity (bits
// 0..TwoAdicity), gnark-crypto's fft.Generator(2^bits).
func (z Monty31) TwoAdicGenerator(bits int) (uint32, error) {
	f := z.field()
	return twoAdicGenerator[uint32](f, f.root, bits)
}

// Library returns "monty31.wgsl", the field in Montgomery form on u32,
// which reads Consts from the prelude.
func (z Monty31) Library() string { return "monty31.wgsl" }

// LibraryInt64 returns "monty31_wide.shader-int64.wgsl", which replaces
// monty31.wgsl's wide products (monty31_wide.wgsl) on native u64.
func (z Monty31) LibraryInt64() string { return "monty31_wide.shader-int64.wgsl" }

// Check returns an error unless a is a canonical element (below P),
// saying what the field accepts.
func (z Monty31) Check(a uint32) error {
	f := z.field()
	if a >= f.p {
		return fmt.Errorf("%d is not a %s element: elements are values below p = %d", a, f.name, f.p)
	}
	return nil
}

// Reduce returns a mod P, for any 64-bit a.
func (z Monty31) Reduce(a uint64) uint32 {
	f := z.field()
	return uint32(a % uint64(f.p))
}

// Add returns a + b mod P.
func (z Monty31) Add(a, b uint32) uint32 {
	f := z.field()
	s := a + b // below 2^32: both are below 2^31
	if s >= f.p {
		s -= f.p
	}
	return s
}

// Sub returns a - b mod P.
func (z Monty31) Sub(a, b uint32) uint32 {
	f := z.field()
	d := a - b
	if a < b {
		d += f.p
	}
	return d
}

// Neg returns -a mod P.
func (z Monty31) Neg(a uint32) uint32 {
	f := z.field()
	return f.Sub(0, a)
}

// Mul returns a·b mod P.
func (z Monty31) Mul(a, b uint32) uint32 {
	f := z.field()
	return uint32(uint64(a) * uint64(b) % uint64(f.p))
}

// Exp returns a^e mod P (0^0 = 1).
func (z Monty31) Exp(a uint32, e uint64) uint32 {
	f := z.field()
	r := uint32(1)
	for ; e > 0; e >>= 1 {
		if e&1 == 1 {
			r = f.Mul(r, a)
		}
		a = f.Mul(a, a)
	}
	return r
}

// Inverse returns a^-1 mod P, and false for a = 0, which has none.
func (z Monty31) Inverse(a uint32) (uint32, bool) {
	f := z.field()
	if a%f.p == 0 {
		return 0, false
	}
	return f.Exp(a, uint64(f.p)-2), true
}

// Div2Exp returns a / 2^k mod P.
func (z Monty31) Div2Exp(a uint32, k uint) uint32 {
	f := z.field()
	inv2 := (f.p + 1) / 2
	return f.Mul(a, f.Exp(inv2, uint64(k)))
}

// FromInt returns the element n mod P for any integer n (negative ones
// too).
func (z Monty31) FromInt(n int64) uint32 {
	f := z.field()
	r := n % int64(f.p)
	if r < 0 {
		r += int64(f.p)
	}
	return uint32(r)
}

// ToMonty returns a's Montgomery form, a·2^32 mod P.
func (z Monty31) ToMonty(a uint32) uint32 {
	f := z.field()
	return f.MontyMul(a, f.r2)
}

// FromMonty returns the canonical element of Montgomery form m, m·2^-32
// mod P.
func (z Monty31) FromMonty(m uint32) uint32 {
	f := z.field()
	return f.montyReduce(uint64(m))
}

// FromMontyAll sets dst[i] to the canonical element of src[i], a
// Montgomery form of z, for every i of src (dst holds as many): a matrix
// given in Montgomery form made values, where a path needs them.
func FromMontyAll[E Element](z Monty31, dst, src []E) {
	f := z.field()
	for i, m := range src {
		dst[i] = E(f.montyReduce(uint64(m)))
	}
}

// MontyMul returns the Montgomery product a·b·2^-32 mod P of a, b below
// P: the product of two Montgomery forms as a Montgomery form. It is the
// Go twin of monty31.wgsl's monty31_mul, step for step.
func (z Monty31) MontyMul(a, b uint32) uint32 {
	f := z.field()
	return f.montyReduce(uint64(a) * uint64(b))
}

// montyReduce returns x·2^-32 mod P for x below P·2^32: t = x·p^-1 mod
// 2^32 makes x - t·p a multiple of 2^32, whose high word, corrected by P
// where the difference went negative, is the result.
func (z Monty31) montyReduce(x uint64) uint32 {
	f := z.field()
	t := uint32(x) * f.mu
	u := uint64(t) * uint64(f.p)
	hi, uhi := uint32(x>>32), uint32(u>>32)
	r := hi - uhi
	if hi < uhi {
		r += f.p
	}
	return r
}

// Consts returns the prelude constants monty31.wgsl reads: M31_P, M31_MU
// (p^-1 mod 2^32) and M31_R2 (2^64 mod p).
func (z Monty31) Consts() []wgsl.Const {
	f := z.field()
	return []wgsl.Const{{Name: "M31_P", Value: f.p}, {Name: "M31_MU", Value: f.mu}, {Name: "M31_R2", Value: f.r2}}
}

var _ Field[uint32] = Monty31{}
