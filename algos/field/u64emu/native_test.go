package u64emu

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

var bigP = new(big.Int).SetUint64(P)

func bigOf(x uint64) *big.Int { return new(big.Int).SetUint64(x) }

// edgeValues are canonical values where carries, borrows and the
// reduction's special cases happen.
var edgeValues = []uint64{
	0, 1, 2, 3, 7, 0xFFFF, 0x10000, 0xFFFF_FFFE, 0xFFFF_FFFF, 1 << 32, 1<<32 + 1,
	1<<32 - 2, 1 << 48, 1<<63 - 1, 1 << 63, 1<<63 + 1, P - 1, P - 2, P - 3,
	P - 0xFFFF_FFFF, P - (1 << 32), 0xFFFF_FFFF_0000_0000, 0xFFFF_FFFE_FFFF_FFFF,
	0xFFFF_FFFE_0000_0000, 0x8000_0000_8000_0000, 0x0000_FFFF_FFFF_0000,
	0xFFFF_0000_FFFF_0000, 0x1234_5678_9ABC_DEF0, 0x00FF_00FF_00FF_00FF,
}

func TestNativeAgainstBig(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vals := append([]uint64{}, edgeValues...)
	for range 2000 {
		vals = append(vals, r.Uint64N(P))
	}
	mod := func(x *big.Int) uint64 { return new(big.Int).Mod(x, bigP).Uint64() }
	for i, a := range vals {
		A := bigOf(a)
		if got, want := Neg(a), mod(new(big.Int).Neg(A)); got != want {
			t.Fatalf("Neg(%#x) = %#x, want %#x", a, got, want)
		}
		if got, want := Pow7(a), new(big.Int).Exp(A, big.NewInt(7), bigP).Uint64(); got != want {
			t.Fatalf("Pow7(%#x) = %#x, want %#x", a, got, want)
		}
		if i < 300 {
			if got := Pow7(InvPow7(a)); got != a {
				t.Fatalf("Pow7(InvPow7(%#x)) = %#x", a, got)
			}
		}
		for _, b := range vals[:len(edgeValues)] {
			B := bigOf(b)
			if got, want := Add(a, b), mod(new(big.Int).Add(A, B)); got != want {
				t.Fatalf("Add(%#x, %#x) = %#x, want %#x", a, b, got, want)
			}
			if got, want := Sub(a, b), mod(new(big.Int).Sub(A, B)); got != want {
				t.Fatalf("Sub(%#x, %#x) = %#x, want %#x", a, b, got, want)
			}
			if got, want := Mul(a, b), mod(new(big.Int).Mul(A, B)); got != want {
				t.Fatalf("Mul(%#x, %#x) = %#x, want %#x", a, b, got, want)
			}
		}
		lo, mid, hi := uint32(a), uint32(a>>32), uint32(r.Uint32())
		wide := new(big.Int).Lsh(bigOf(uint64(hi)), 64)
		wide.Add(wide, bigOf(a))
		if got, want := Reduce96(lo, mid, hi), mod(wide); got != want {
			t.Fatalf("Reduce96(%#x, %#x, %#x) = %#x, want %#x", lo, mid, hi, got, want)
		}
		c := uint32(r.Uint32())
		if got, want := MulSmall(a, c), mod(new(big.Int).Mul(A, bigOf(uint64(c)))); got != want {
			t.Fatalf("MulSmall(%#x, %#x) = %#x, want %#x", a, c, got, want)
		}
	}
	for _, x := range []uint64{0, 1, P - 1, P, P + 1, 1<<64 - 1, 0xFFFF_FFFF_0000_0000} {
		if got, want := Canon(x), mod(bigOf(x)); got != want {
			t.Fatalf("Canon(%#x) = %#x, want %#x", x, got, want)
		}
	}
	// InvAlpha really is 1/7 mod P-1.
	prod := new(big.Int).Mul(bigOf(InvAlpha), big.NewInt(7))
	if prod.Mod(prod, bigOf(P-1)).Int64() != 1 {
		t.Fatal("7·InvAlpha ≢ 1 mod P-1")
	}
	if Exp(3, 0) != 1 || Exp(0, 0) != 1 || Exp(0, 5) != 0 || Exp(2, 64) != epsilon {
		t.Fatal("Exp small cases")
	}
}
