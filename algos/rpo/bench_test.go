package rpo

import (
	"testing"
)

// BenchmarkPermute is one permutation of the reference on one core.
func BenchmarkPermute(b *testing.B) {
	var s [Width]uint64
	for i := range s {
		s[i] = uint64(i) * 0x9e3779b97f4a7c15 % P
	}
	b.SetBytes(8 * Width)
	for i := 0; i < b.N; i++ {
		Permute(&s)
	}
}

// BenchmarkHash is the reference's Hash of 1 KiB on one core.
func BenchmarkHash(b *testing.B) {
	data := make([]byte, 1<<10)
	for i := range data {
		data[i] = byte(i * 7)
	}
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		Hash(data)
	}
}
