package eigen

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// maxFuzzEntries bounds the matrices FuzzCheck builds.
const maxFuzzEntries = 1 << 14

// FuzzCheck holds Check to its contract on fuzzer-made matrices: the bytes
// are little-endian float32 entries (float64 when wide), n the order
// claimed. Check never panics; it accepts exactly the n×n matrices of
// positive finite entries whose row sums are at most MaxRowSum; every
// rejection wraps ErrInput, and a matrix of the right size is rejected
// naming the first bad row: its first bad entry's column, or its sum.
func FuzzCheck(f *testing.F) {
	f32 := func(xs ...float32) []byte {
		b := make([]byte, 4*len(xs))
		for i, x := range xs {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
		}
		return b
	}
	f64 := func(xs ...float64) []byte {
		b := make([]byte, 8*len(xs))
		for i, x := range xs {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
		}
		return b
	}
	nan, inf := math.NaN(), math.Inf(1)
	f.Add(1, f32(1), false)
	f.Add(2, f32(1, 2, 3, 4), false)
	f.Add(3, f32(1, 1, 2, 2, 1, 3, 2, 3, 5), false)
	f.Add(2, f32(1, 2, 0, 4), false)
	f.Add(2, f32(1, float32(math.Copysign(0, -1)), 3, 4), false)
	f.Add(2, f32(1, 2, 3, -4), false)
	f.Add(2, f32(float32(nan), 2, 3, 4), false)
	f.Add(2, f32(1, float32(inf), 3, float32(-inf)), false)
	f.Add(2, f32(1e-45, 2, 3, 3.4e38), false) // the smallest subnormal and near the largest float32
	f.Add(2, f32(1e38, 1e38, 1, 1), false)    // a row sum past 2^127
	f.Add(2, f32(0x1p126, 0x1p126, 1, 1), false)
	f.Add(3, f32(1, 2, 3, 4), false)
	f.Add(0, []byte{}, false)
	f.Add(-1, f32(1), false)
	f.Add(2, f32(1, 2, 3, 4)[:15], false)
	f.Add(2, f64(1e300, 1e-320, 3, 4), true)
	f.Add(2, f64(1, 2, nan, 4), true)
	f.Add(2, f64(1, 2, 3, -inf), true)
	f.Add(9, f32(make([]float32, 81)...), false)
	// 2^32 squared is 0 in uint64 arithmetic: an empty matrix must not pass
	// as 2^32×2^32.
	f.Add(1<<32, []byte{}, false)
	f.Add(3<<32, []byte{}, true)
	f.Fuzz(func(t *testing.T, n int, raw []byte, wide bool) {
		var entries []float64
		var err error
		if wide {
			m := make([]float64, min(len(raw)/8, maxFuzzEntries))
			for i := range m {
				m[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
			}
			entries, err = m, Check(m, n)
		} else {
			m := make([]float32, min(len(raw)/4, maxFuzzEntries))
			entries = make([]float64, len(m))
			for i := range m {
				m[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
				entries[i] = float64(m[i])
			}
			err = Check(m, n)
		}
		// n ≤ len: n² cannot overflow for the lengths built here. The
		// first bad row is named: its first bad entry, or its sum.
		sized := n > 0 && n <= len(entries) && n*n == len(entries)
		want := ""
		for r := 0; sized && r < n && want == ""; r++ {
			sum := 0.0
			for c, x := range entries[r*n : r*n+n] {
				if !(x > 0) || math.IsInf(x, 0) {
					want = fmt.Sprintf("entry at row %d, column %d is ", r, c)
					break
				}
				sum += x
			}
			if want == "" && !(sum <= MaxRowSum) {
				want = fmt.Sprintf("row %d sums to ", r)
			}
		}
		what := fmt.Sprintf("n=%d, %d entries (wide %v)", n, len(entries), wide)
		if valid := sized && want == ""; valid != (err == nil) {
			t.Fatalf("%s: valid %v, but Check returned %v", what, valid, err)
		}
		if err == nil {
			return
		}
		if !errors.Is(err, ErrInput) {
			t.Fatalf("%s: %v does not wrap ErrInput", what, err)
		}
		if sized && !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: %q does not name the first bad row (%q)", what, err, want)
		}
	})
}
