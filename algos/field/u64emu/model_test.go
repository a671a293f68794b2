package u64emu

import (
	"math/rand/v2"
	"testing"
)

// specialWords are 32-bit words at which carries and borrows change.
var specialWords = []uint32{0, 1, 2, 0xffff, 0x10000, 0x1ffff, 0x7fffffff, 0x80000000, 0xfffeffff, 0xffff0000, 0xfffffffe, 0xffffffff}

// randElem returns a canonical element: half the time uniform, else built
// from special words, so that the edge cases of every carry come up often.
func randElem(r *rand.Rand) uint64 {
	if r.IntN(2) == 0 {
		return r.Uint64N(P)
	}
	word := func() uint32 {
		if r.IntN(3) == 0 {
			return r.Uint32()
		}
		return specialWords[r.IntN(len(specialWords))]
	}
	return Canon(uint64(word())<<32 | uint64(word()))
}

// checkModel compares every model function with the native reference on
// (a, b, c) and reports the first difference.
func checkModel(t testing.TB, a, b uint64, c uint32, slow bool) {
	t.Helper()
	va, vb := toVec2(a), toVec2(b)
	// Any 64-bit values, many of them >= P: what the lazy products pass on.
	ra, rb := a^b<<1, b^a<<3|P
	for _, tc := range []struct {
		name      string
		got, want uint64
	}{
		{"Add", glAdd(va, vb).uint64(), Add(a, b)},
		{"Sub", glSub(va, vb).uint64(), Sub(a, b)},
		{"Neg", glNeg(va).uint64(), Neg(a)},
		{"Mul", glMul(va, vb).uint64(), Mul(a, b)},
		{"Square", glSquare(va).uint64(), Square(a)},
		{"MulSmall", glMulSmall(va, c).uint64(), MulSmall(a, c)},
		{"Reduce96", glReduce96(uint32(a), uint32(a>>32), c).uint64(), Reduce96(uint32(a), uint32(a>>32), c)},
		{"Reduce128", glReduce128(uint32(a), uint32(a>>32), uint32(b), uint32(b>>32)).uint64(), reduce128(b, a)},
		{"Mul32", glMul32(uint32(a), c).uint64(), uint64(uint32(a)) * uint64(c)},
		{"Canon(b^a)", glCanon(toVec2(a ^ b<<1)).uint64(), Canon(a ^ b<<1)},
		{"Mul(any)", glMul(toVec2(ra), toVec2(rb)).uint64(), Mul(Canon(ra), Canon(rb))},
		{"Square(any)", glSquare(toVec2(rb)).uint64(), Square(Canon(rb))},
		{"MulLazy(any) congruent", Canon(glMulLazy(toVec2(ra), toVec2(rb)).uint64()), Mul(Canon(ra), Canon(rb))},
		{"SquareLazy(any) congruent", Canon(glSquareLazy(toVec2(ra)).uint64()), Square(Canon(ra))},
	} {
		if tc.got != tc.want {
			t.Fatalf("%s(a=%#x, b=%#x, c=%#x): model %#x, native %#x", tc.name, a, b, c, tc.got, tc.want)
		}
	}
	if slow {
		if got, want := glPow7(va).uint64(), Pow7(a); got != want {
			t.Fatalf("Pow7(%#x): model %#x, native %#x", a, got, want)
		}
		if got, want := glInvPow7(va).uint64(), InvPow7(a); got != want {
			t.Fatalf("InvPow7(%#x): model %#x, native %#x", a, got, want)
		}
	}
}

func TestModelEdgeValues(t *testing.T) {
	for i, a := range edgeValues {
		for j, b := range edgeValues {
			checkModel(t, a, b, uint32(b>>(j%33)), j == 0)
			_ = i
		}
	}
	for _, x := range []uint64{0, 1, P - 1, P, P + 1, 1<<64 - 1, 1<<64 - 2, 0xFFFF_FFFF_0000_0000, 0xFFFF_FFFE_FFFF_FFFF, 1 << 63} {
		if got := glCanon(toVec2(x)).uint64(); got != Canon(x) {
			t.Fatalf("Canon(%#x): model %#x, native %#x", x, got, Canon(x))
		}
	}
	// Every pair of special-word elements, both words.
	var sp []uint64
	for _, h := range specialWords {
		for _, l := range specialWords {
			if v := uint64(h)<<32 | uint64(l); v < P {
				sp = append(sp, v)
			}
		}
	}
	for _, a := range sp {
		for _, b := range sp {
			checkModel(t, a, b, uint32(b), false)
		}
	}
}

func TestModelRandom(t *testing.T) {
	n := 2_000_000
	if testing.Short() {
		n = 200_000
	}
	r := rand.New(rand.NewPCG(3, 4))
	for i := range n {
		checkModel(t, randElem(r), randElem(r), r.Uint32(), i%64 == 0)
	}
}

// FuzzModelVsNative checks the u32-pair model against math/bits arithmetic.
func FuzzModelVsNative(f *testing.F) {
	for _, a := range edgeValues {
		f.Add(a, P-1-a, uint32(a))
	}
	f.Fuzz(func(t *testing.T, a, b uint64, c uint32) {
		checkModel(t, Canon(a), Canon(b), c, true)
	})
}
