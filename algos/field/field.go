package field

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unsafe"

	"github.com/wgcompute/wgcompute/wgsl"
)

// Element is a field element as the host holds it: a canonical value
// below the field's modulus, a uint32 for the 31-bit fields and a uint64
// for Goldilocks.
type Element interface{ ~uint32 | ~uint64 }

// Monty is a 31-bit field's element held in Montgomery form (x·2^32 mod
// p), as gnark-crypto's koalabear.Element and babybear.Element hold it:
// either type, or a uint32 of that form. It is the one constraint of the
// APIs that take gnark-crypto's elements as they are.
type Monty interface {
	~uint32 | ~[1]uint32
}

// MontyWords returns the Montgomery words of v, sharing v's memory: what
// a kernel reads and writes for elements in Montgomery form.
func MontyWords[E Monty](v []E) []uint32 {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&v[0])), len(v))
}

// Field is a prime field as the algorithms use it: its arithmetic on
// canonical elements in plain Go (the oracle of every kernel over it), its
// canonical encoding, the WGSL library its kernels include, and what an
// NTT needs (two-adicity, roots of unity, a multiplicative generator).
// Goldilocks (on uint64) and Monty31 (BabyBear, KoalaBear, on uint32) are
// its implementations; generic code takes a Field[E] and stays out of the
// inner loops of a field's fast paths, which call the concrete type.
type Field[E Element] interface {
	// Name returns the field's name as commands take it: "goldilocks",
	// "babybear", "koalabear".
	Name() string
	// Modulus returns the field's prime p.
	Modulus() uint64
	// Check returns an error unless a is canonical (below p), saying what
	// the field accepts.
	Check(a E) error
	// Reduce returns a mod p for any 64-bit a.
	Reduce(a uint64) E
	// FromInt returns n mod p for any integer n (negative ones too).
	FromInt(n int64) E
	// Add returns a + b mod p.
	Add(a, b E) E
	// Sub returns a - b mod p.
	Sub(a, b E) E
	// Neg returns -a mod p.
	Neg(a E) E
	// Mul returns a·b mod p.
	Mul(a, b E) E
	// Exp returns a^e mod p (0^0 = 1).
	Exp(a E, e uint64) E
	// Inverse returns a^-1 mod p, and false for a = 0.
	Inverse(a E) (E, bool)
	// TwoAdicity returns the largest k for which 2^k divides p - 1: the
	// largest power-of-two NTT the field has.
	TwoAdicity() int
	// Generator returns a generator of the multiplicative group (the coset
	// shift of an NTT over a coset), gnark-crypto's
	// fft.GeneratorFullMultiplicativeGroup.
	Generator() E
	// TwoAdicGenerator returns a primitive 2^bits-th root of unity, the one
	// gnark-crypto's fft.Generator(2^bits) returns, or an error for bits
	// outside 0..TwoAdicity.
	TwoAdicGenerator(bits int) (E, error)
	// Library returns the WGSL library file of the field's arithmetic, which
	// a kernel includes (//!include).
	Library() string
	// LibraryInt64 returns the file that replaces a file of Library's
	// (wgsl.Module.Features) on a device with 64-bit integers in WGSL:
	// the same functions with the same results.
	LibraryInt64() string
	// Consts returns the prelude constants Library reads (none for a field
	// whose constants are literals in its library).
	Consts() []wgsl.Const
}

// ElementSize returns the bytes of one element of type E in the canonical
// encoding: 4 for uint32, 8 for uint64.
func ElementSize[E Element]() int {
	var e E
	return int(unsafe.Sizeof(e))
}

// PutElements writes src into dst in the canonical encoding: each element
// as ElementSize little-endian bytes, in order. dst must hold them all.
// Digests, rows and Merkle nodes of every field are written this way.
func PutElements[E Element](dst []byte, src []E) {
	if ElementSize[E]() == 4 {
		for i, x := range src {
			binary.LittleEndian.PutUint32(dst[4*i:], uint32(x))
		}
		return
	}
	for i, x := range src {
		binary.LittleEndian.PutUint64(dst[8*i:], uint64(x))
	}
}

// ReadElements reads dst from src, as PutElements writes it, without
// checking that the values are canonical (Field.Check does).
func ReadElements[E Element](dst []E, src []byte) {
	if ElementSize[E]() == 4 {
		for i := range dst {
			dst[i] = E(binary.LittleEndian.Uint32(src[4*i:]))
		}
		return
	}
	for i := range dst {
		dst[i] = E(binary.LittleEndian.Uint64(src[8*i:]))
	}
}

// twoAdicGenerator returns root^(2^(adicity-bits)), a primitive 2^bits-th
// root of unity when root is a primitive 2^adicity-th one, as
// gnark-crypto's Generator derives it, or an error for bits outside
// 0..adicity.
func twoAdicGenerator[E Element](f Field[E], root E, bits int) (E, error) {
	adicity := f.TwoAdicity()
	if bits < 0 || bits > adicity {
		return 0, errTwoAdic(f.Name(), bits, adicity)
	}
	return f.Exp(root, 1<<(adicity-bits)), nil
}

// errTwoAdic says that field name has no root of unity of order 2^bits.
func errTwoAdic(name string, bits, adicity int) error {
	return fmt.Errorf("field: %s has no root of unity of order 2^%d: its two-adicity is %d, so orders 2^0..2^%d", name, bits, adicity, adicity)
}

// Lookup returns the field named name ("goldilocks", "babybear",
// "koalabear", in any case) whose elements are E's: Goldilocks for
// uint64, BabyBear and KoalaBear for uint32. A field of the other element
// type is refused, naming the type its elements are.
func Lookup[E Element](name string) (Field[E], error) {
	var f any
	if strings.EqualFold(name, Goldilocks{}.Name()) {
		f = Goldilocks{}
	} else {
		m, err := ParseField(strings.ToLower(name))
		if err != nil {
			return nil, fmt.Errorf("field: no field %q: accepted are goldilocks, babybear and koalabear", name)
		}
		f = m
	}
	if ff, ok := f.(Field[E]); ok {
		return ff, nil
	}
	var e E
	return nil, fmt.Errorf("field: %s's elements are not %T", name, e)
}
