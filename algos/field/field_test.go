package field

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/field/babybear"
	bbfft "github.com/consensys/gnark-crypto/field/babybear/fft"
	"github.com/consensys/gnark-crypto/field/goldilocks"
	glfft "github.com/consensys/gnark-crypto/field/goldilocks/fft"
	"github.com/consensys/gnark-crypto/field/koalabear"
	kbfft "github.com/consensys/gnark-crypto/field/koalabear/fft"
	"github.com/stretchr/testify/require"

	"github.com/wgcompute/wgcompute/wgsl"
)

// gnarkField is what the tests ask of gnark-crypto about one field: its
// multiplicative generator and fft.Generator's root of unity of order
// 2^bits, as canonical values.
type gnarkField struct {
	gen  uint64
	root func(bits int) (uint64, error)
}

var gnark = map[string]gnarkField{
	"goldilocks": {func() uint64 { g := glfft.GeneratorFullMultiplicativeGroup(); return g.Uint64() }(),
		func(b int) (uint64, error) { g, err := glfft.Generator(1 << b); return g.Uint64(), err }},
	"babybear": {func() uint64 { g := bbfft.GeneratorFullMultiplicativeGroup(); return g.Uint64() }(),
		func(b int) (uint64, error) { g, err := bbfft.Generator(1 << b); return g.Uint64(), err }},
	"koalabear": {func() uint64 { g := kbfft.GeneratorFullMultiplicativeGroup(); return g.Uint64() }(),
		func(b int) (uint64, error) { g, err := kbfft.Generator(1 << b); return g.Uint64(), err }},
}

// checkNTT checks f's two-adicity, generator and roots of unity against
// gnark-crypto's and against their definitions.
func checkNTT[E Element](t *testing.T, f Field[E], modulus uint64, adicity int) {
	g := gnark[f.Name()]
	require.Equal(t, modulus, f.Modulus(), f.Name())
	require.Equal(t, adicity, f.TwoAdicity(), f.Name())
	require.NotZero(t, (modulus-1)>>adicity&1, "%s: 2^%d is the largest power of two dividing p-1", f.Name(), adicity)
	require.Zero(t, (modulus-1)%(1<<adicity), f.Name())
	require.Equal(t, g.gen, uint64(f.Generator()), "%s: the generator is gnark-crypto's", f.Name())
	// The generator generates: g^((p-1)/q) != 1 for every prime q of p-1.
	n := modulus - 1
	for q := uint64(2); q*q <= n; q++ {
		if n%q != 0 {
			continue
		}
		for n%q == 0 {
			n /= q
		}
		require.NotEqual(t, E(1), f.Exp(f.Generator(), (modulus-1)/q), "%s: g^((p-1)/%d)", f.Name(), q)
	}
	if n > 1 {
		require.NotEqual(t, E(1), f.Exp(f.Generator(), (modulus-1)/n), "%s: g^((p-1)/%d)", f.Name(), n)
	}
	for bits := 0; bits <= adicity; bits++ {
		w, err := f.TwoAdicGenerator(bits)
		require.NoError(t, err)
		want, err := g.root(bits)
		require.NoError(t, err)
		require.Equal(t, want, uint64(w), "%s: the root of order 2^%d is gnark-crypto's fft.Generator", f.Name(), bits)
		require.Equal(t, E(1), f.Exp(w, 1<<bits), "%s: w^(2^%d) = 1", f.Name(), bits)
		if bits > 0 {
			require.Equal(t, f.Neg(1), f.Exp(w, 1<<(bits-1)), "%s: w of order exactly 2^%d", f.Name(), bits)
		}
	}
	for _, bits := range []int{-1, adicity + 1, 64} {
		_, err := f.TwoAdicGenerator(bits)
		require.ErrorContains(t, err, "two-adicity", "%s: bits %d", f.Name(), bits)
	}
	// The WGSL library and its twin are embedded shaders.
	for _, file := range []string{f.Library(), f.LibraryInt64()} {
		_, err := wgsl.Source(file)
		require.NoError(t, err, f.Name())
	}
}

func TestNTTParameters(t *testing.T) {
	checkNTT[uint64](t, Goldilocks{}, GoldilocksP, 32)
	checkNTT[uint32](t, BabyBear, uint64(BabyBear.P()), 27)
	checkNTT[uint32](t, KoalaBear, uint64(KoalaBear.P()), 24)
	require.Empty(t, Goldilocks{}.Consts())
	require.Len(t, BabyBear.Consts(), 3)
}

// checkArithmetic holds f's arithmetic equal to math/big's on random
// elements, the edges first.
func checkArithmetic[E Element](t *testing.T, f Field[E], rng *rand.Rand) {
	p := new(big.Int).SetUint64(f.Modulus())
	mod := func(x *big.Int) E { return E(new(big.Int).Mod(x, p).Uint64()) }
	bi := func(a E) *big.Int { return new(big.Int).SetUint64(uint64(a)) }
	els := []E{0, 1, E(f.Modulus() - 1), E(f.Modulus() - 2), E(f.Modulus() / 2)}
	for len(els) < 300 {
		els = append(els, E(rng.Uint64N(f.Modulus())))
	}
	for i, a := range els {
		b := els[(i*7+3)%len(els)]
		require.NoError(t, f.Check(a))
		require.Equal(t, mod(new(big.Int).Add(bi(a), bi(b))), f.Add(a, b), "%s add", f.Name())
		require.Equal(t, mod(new(big.Int).Sub(bi(a), bi(b))), f.Sub(a, b), "%s sub", f.Name())
		require.Equal(t, mod(new(big.Int).Neg(bi(a))), f.Neg(a), "%s neg", f.Name())
		require.Equal(t, mod(new(big.Int).Mul(bi(a), bi(b))), f.Mul(a, b), "%s mul", f.Name())
		e := rng.Uint64()
		require.Equal(t, mod(new(big.Int).Exp(bi(a), new(big.Int).SetUint64(e), p)), f.Exp(a, e), "%s exp", f.Name())
		inv, ok := f.Inverse(a)
		require.Equal(t, a != 0, ok, f.Name())
		if ok {
			require.Equal(t, E(1), f.Mul(a, inv), "%s inverse", f.Name())
		}
		x := rng.Uint64()
		require.Equal(t, mod(new(big.Int).SetUint64(x)), f.Reduce(x), "%s reduce", f.Name())
		n := rng.Int64() - rng.Int64()
		require.Equal(t, mod(big.NewInt(n)), f.FromInt(n), "%s FromInt(%d)", f.Name(), n)
	}
	require.Equal(t, mod(big.NewInt(-1<<63)), f.FromInt(-1<<63), f.Name())
	require.ErrorContains(t, f.Check(E(f.Modulus())), "not a "+f.Name()+" element")
}

func TestFieldArithmetic(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	checkArithmetic[uint64](t, Goldilocks{}, rng)
	for _, f := range Fields {
		checkArithmetic[uint32](t, f, rng)
	}
}

// TestGoldilocksAgainstGnark holds Goldilocks' products and sums equal to
// gnark-crypto's on random elements.
func TestGoldilocksAgainstGnark(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var f Goldilocks
	for range 10000 {
		a, b := rng.Uint64N(GoldilocksP), rng.Uint64N(GoldilocksP)
		var x, y, z goldilocks.Element
		x.SetUint64(a)
		y.SetUint64(b)
		require.Equal(t, z.Mul(&x, &y).Uint64(), f.Mul(a, b))
		require.Equal(t, z.Add(&x, &y).Uint64(), f.Add(a, b))
		require.Equal(t, z.Sub(&x, &y).Uint64(), f.Sub(a, b))
	}
	// Canon of any uint64, Reduce128 of any 128 bits.
	for _, a := range []uint64{0, 1, GoldilocksP - 1, GoldilocksP, GoldilocksP + 1, 1<<64 - 1} {
		require.Equal(t, a%GoldilocksP, f.Canon(a))
	}
	require.Equal(t, new(big.Int).Mod(new(big.Int).SetBytes(make32ones()), new(big.Int).SetUint64(GoldilocksP)).Uint64(), f.Reduce128(1<<64-1, 1<<64-1))
}

// make32ones returns 2^128 - 1 as 16 big-endian bytes.
func make32ones() []byte {
	b := make([]byte, 16)
	for i := range b {
		b[i] = 0xff
	}
	return b
}

// TestMonty31AgainstGnark holds BabyBear's and KoalaBear's products equal
// to gnark-crypto's, and their Montgomery forms to gnark-crypto's
// in-memory words (R = 2^32 in both).
func TestMonty31AgainstGnark(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 10000 {
		a, b := rng.Uint32N(BabyBear.P()), rng.Uint32N(BabyBear.P())
		var x, y, z babybear.Element
		x.SetUint64(uint64(a))
		y.SetUint64(uint64(b))
		require.Equal(t, uint32(z.Mul(&x, &y).Uint64()), BabyBear.Mul(a, b))
		require.Equal(t, x[0], BabyBear.ToMonty(a))
		a, b = rng.Uint32N(KoalaBear.P()), rng.Uint32N(KoalaBear.P())
		var u, v, w koalabear.Element
		u.SetUint64(uint64(a))
		v.SetUint64(uint64(b))
		require.Equal(t, uint32(w.Mul(&u, &v).Uint64()), KoalaBear.Mul(a, b))
		require.Equal(t, u[0], KoalaBear.ToMonty(a))
	}
}

func TestEncoding(t *testing.T) {
	require.Equal(t, 4, ElementSize[uint32]())
	require.Equal(t, 8, ElementSize[uint64]())
	b := make([]byte, 16)
	PutElements(b, []uint64{0x0807060504030201, GoldilocksP - 1})
	require.Equal(t, []byte{1, 2, 3, 4, 5, 6, 7, 8}, b[:8], "little-endian, the low byte first")
	got := make([]uint64, 2)
	ReadElements(got, b)
	require.Equal(t, []uint64{0x0807060504030201, GoldilocksP - 1}, got)
	PutElements(b, []uint32{1, 2, 3, BabyBear.P() - 1})
	require.Equal(t, []byte{1, 0, 0, 0, 2}, b[:5])
	got32 := make([]uint32, 4)
	ReadElements(got32, b)
	require.Equal(t, []uint32{1, 2, 3, BabyBear.P() - 1}, got32)
}

func TestLookup(t *testing.T) {
	g, err := Lookup[uint64]("Goldilocks")
	if err != nil || g.Name() != "goldilocks" {
		t.Fatalf("Lookup[uint64](Goldilocks) = %v, %v", g, err)
	}
	k, err := Lookup[uint32]("koalabear")
	if err != nil || k.Modulus() != uint64(KoalaBear.P()) {
		t.Fatalf("Lookup[uint32](koalabear) = %v, %v", k, err)
	}
	if _, err := Lookup[uint32]("goldilocks"); err == nil || !strings.Contains(err.Error(), "not uint32") {
		t.Fatalf("Lookup[uint32](goldilocks): %v", err)
	}
	if _, err := Lookup[uint64]("babybear"); err == nil {
		t.Fatal("Lookup[uint64](babybear) accepted")
	}
	if _, err := Lookup[uint32]("mersenne31"); err == nil || !strings.Contains(err.Error(), "accepted are") {
		t.Fatalf("Lookup(mersenne31): %v", err)
	}
}
