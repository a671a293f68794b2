package poseidon2

import (
	"testing"
)

// BenchmarkPermute is the reference permutation on one core.
func BenchmarkPermute(b *testing.B) { benchPermute(b, Permute) }

// BenchmarkPermuteFast is the CPU backend's permutation on one core.
func BenchmarkPermuteFast(b *testing.B) { benchPermute(b, permuteFast) }

// benchPermute times permute on one state, over and over.
func benchPermute(b *testing.B, permute func(*[Width]uint64)) {
	var s [Width]uint64
	for i := range s {
		s[i] = uint64(i) * 0x9e37_79b9_7f4a_7c15 % P
	}
	b.SetBytes(8 * Width)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		permute(&s)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "perms/s")
}
