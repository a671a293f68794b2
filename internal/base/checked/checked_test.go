package checked

import (
	"errors"
	"math"
	"math/big"
	"testing"
)

func TestMul(t *testing.T) {
	for _, tc := range []struct {
		f    []int
		want int
		err  string
	}{
		{nil, 1, ""},
		{[]int{0, math.MaxInt}, 0, ""},
		{[]int{1024, 8, 8}, 1 << 16, ""},
		{[]int{1 << 31, 1 << 31, 1}, 1 << 62, ""},
		{[]int{math.MaxInt, 1}, math.MaxInt, ""},
		{[]int{1 << 40, 1 << 40, 0}, 0, ""},
		{[]int{1 << 60, 2, 8}, 0, "1152921504606846976 × 2 × 8 is more than 9223372036854775807"},
		{[]int{1 << 32, 1 << 32}, 0, "4294967296 × 4294967296 is more than 9223372036854775807"},
		{[]int{1 << 62, 2}, 0, "4611686018427387904 × 2 is more than"},
		{[]int{3, -1}, 0, "3 × -1 has a negative factor"},
		{[]int{1 << 62, 4, -1}, 0, "4611686018427387904 × 4 × -1 has a negative factor"},
	} {
		got, err := Mul(tc.f...)
		if tc.err == "" {
			if err != nil || got != tc.want {
				t.Errorf("Mul(%v) = %d, %v; want %d", tc.f, got, err, tc.want)
			}
			continue
		}
		var oe *OverflowError
		if !errors.As(err, &oe) || got != 0 {
			t.Errorf("Mul(%v) = %d, %v; want an *OverflowError", tc.f, got, err)
			continue
		}
		if msg := err.Error(); len(msg) < len(tc.err) || msg[:len(tc.err)] != tc.err {
			t.Errorf("Mul(%v): %q, want it to start with %q", tc.f, msg, tc.err)
		}
	}
	// Unsigned sizes stop at math.MaxInt64 too: past it no file offset or
	// slice length holds them.
	if _, err := Mul[uint64](1<<62, 2); err == nil {
		t.Error("Mul[uint64](2^62, 2) fits, want an error")
	}
	if p, err := Mul[uint64](1<<61, 3); err != nil || p != 3<<61 {
		t.Errorf("Mul[uint64](2^61, 3) = %d, %v", p, err)
	}
	if p, err := Mul[int32](1<<15, 1<<15); err != nil || p != 1<<30 {
		t.Errorf("Mul[int32](2^15, 2^15) = %d, %v", p, err)
	}
	if _, err := Mul[int32](1<<16, 1<<15); err == nil {
		t.Error("Mul[int32](2^16, 2^15) fits, want an error")
	}
}

// FuzzMul holds Mul to math/big: the product when it is at most
// math.MaxInt64 and no factor is negative, else an error.
func FuzzMul(f *testing.F) {
	f.Add(int64(1<<60), int64(2), int64(8))
	f.Add(int64(1<<32), int64(1<<31), int64(1))
	f.Add(int64(-1), int64(0), int64(5))
	f.Add(int64(math.MaxInt64), int64(1), int64(1))
	f.Add(int64(3037000499), int64(3037000499), int64(1))
	f.Fuzz(func(t *testing.T, a, b, c int64) {
		got, err := Mul(a, b, c)
		want := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
		want.Mul(want, big.NewInt(c))
		fits := a >= 0 && b >= 0 && c >= 0 && want.IsInt64()
		switch {
		case fits && (err != nil || got != want.Int64()):
			t.Fatalf("Mul(%d, %d, %d) = %d, %v; want %s", a, b, c, got, err, want)
		case !fits && err == nil:
			t.Fatalf("Mul(%d, %d, %d) = %d; want an error (%s)", a, b, c, got, want)
		}
		// The same factors as uint64 sizes agree where they are sizes.
		if a >= 0 && b >= 0 && c >= 0 {
			u, uerr := Mul(uint64(a), uint64(b), uint64(c))
			if (uerr == nil) != fits || (fits && int64(u) != got) {
				t.Fatalf("Mul[uint64](%d, %d, %d) = %d, %v; Mul[int64] %d, %v", a, b, c, u, uerr, got, err)
			}
		}
	})
}
