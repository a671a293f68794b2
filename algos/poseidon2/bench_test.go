package poseidon2

import (
	"testing"
)

// BenchmarkPermute is the reference permutation on one core.
func BenchmarkPermute(b *testing.B) {
	var s [Width]uint64
	for i := range s {
		s[i] = uint64(i) * 0x9e37_79b9_7f4a_7c15 % P
	}
	b.SetBytes(8 * Width)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Permute(&s)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "perms/s")
}

// BenchmarkPermuteFast is the CPU backend's permutation on one core.
func BenchmarkPermuteFast(b *testing.B) {
	var s [Width]uint64
	for i := range s {
		s[i] = uint64(i) * 0x9e37_79b9_7f4a_7c15 % P
	}
	b.SetBytes(8 * Width)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		permuteFast(&s)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "perms/s")
}
