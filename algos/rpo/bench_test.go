package rpo

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/wgcompute/wgcompute/internal/gputest"
	"github.com/wgcompute/wgcompute/wgpu"
)

// benchSides is rescue's ladder: 128², 256², ..., 4096² inputs.
var benchSides = []int{128, 256, 512, 1024, 2048, 4096}

func benchPairs(n int) [][8]uint64 {
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	pairs := make([][8]uint64, n)
	for i := range pairs {
		for j := range pairs[i] {
			pairs[i][j] = rng.Uint64N(P)
		}
	}
	return pairs
}

// BenchmarkMergeMany reports merges/s from GPU kernel time (merges/s) and
// end to end (e2e-merges/s: validation, upload, kernel, read-back) with a
// resident Batcher, for every variant and input count, as rescue's
// benchmark of the same name does.
func BenchmarkMergeMany(b *testing.B) {
	ctx := gputest.Context(b, gputest.Backends()[0])
	for _, side := range benchSides {
		n := side * side
		var pairs [][8]uint64
		for _, v := range Variants {
			b.Run(fmt.Sprintf("%s/%d", v, n), func(b *testing.B) {
				if pairs == nil {
					pairs = benchPairs(n)
				}
				dst := make([][4]uint64, n)
				var t wgpu.Timing
				m, err := NewBatcher(ctx, Options{Variant: v, Timing: &t})
				if err != nil {
					b.Fatal(err)
				}
				defer m.Release()
				if err := m.MergeMany(dst, pairs); err != nil { // compile, warm up
					b.Fatal(err)
				}
				if i := n - 1; dst[i] != Merge([4]uint64(pairs[i][:4]), [4]uint64(pairs[i][4:])) {
					b.Fatalf("variant %s: last merge differs from the reference", v)
				}
				b.SetBytes(int64(n) * 64)
				b.ReportAllocs()
				var total wgpu.Timing
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := m.MergeMany(dst, pairs); err != nil {
						b.Fatal(err)
					}
					total = total.Add(t)
				}
				b.StopTimer()
				if total.Measured {
					b.ReportMetric(float64(total.Kernel.Nanoseconds())/float64(b.N)/1e6, "kernel-ms/op")
					b.ReportMetric(float64(n)*float64(b.N)/total.Kernel.Seconds(), "merges/s")
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "e2e-merges/s")
			})
		}
	}
}

// BenchmarkHashElementsMany hashes inputs of 12 elements (two
// permutations each, the second block zero-padded), with the same metrics
// as BenchmarkMergeMany.
func BenchmarkHashElementsMany(b *testing.B) {
	const m = 12
	ctx := gputest.Context(b, gputest.Backends()[0])
	for _, side := range benchSides {
		n := side * side
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(uint64(n), 2))
			in := make([]uint64, n*m)
			for i := range in {
				in[i] = rng.Uint64N(P)
			}
			dst := make([][4]uint64, n)
			var t wgpu.Timing
			h, err := NewBatcher(ctx, Options{Timing: &t})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Release()
			if err := h.HashElementsMany(dst, in, m); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(n) * m * 8)
			b.ReportAllocs()
			var total wgpu.Timing
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := h.HashElementsMany(dst, in, m); err != nil {
					b.Fatal(err)
				}
				total = total.Add(t)
			}
			b.StopTimer()
			if total.Measured {
				b.ReportMetric(float64(total.Kernel.Nanoseconds())/float64(b.N)/1e6, "kernel-ms/op")
				b.ReportMetric(float64(n)*float64(b.N)/total.Kernel.Seconds(), "hashes/s")
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "e2e-hashes/s")
		})
	}
}

// BenchmarkMergeCPU is the CPU backend (the plain-Go reference on all
// cores): one op is GOMAXPROCS*1024 independent merges.
func BenchmarkMergeCPU(b *testing.B) {
	n := runtime.GOMAXPROCS(0) * 1024
	pairs := benchPairs(n)
	dst := make([][4]uint64, n)
	b.SetBytes(int64(n * 64))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := MergeMany(nil, dst, pairs, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "merges/s")
}

// BenchmarkHashElementsCPU is the CPU backend on inputs of 12 elements:
// one op is GOMAXPROCS*512 of them.
func BenchmarkHashElementsCPU(b *testing.B) {
	const m = 12
	n := runtime.GOMAXPROCS(0) * 512
	rng := rand.New(rand.NewPCG(uint64(n), 2))
	in := make([]uint64, n*m)
	for i := range in {
		in[i] = rng.Uint64N(P)
	}
	dst := make([][4]uint64, n)
	b.SetBytes(int64(n) * m * 8)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := HashElementsMany(nil, dst, in, m, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "hashes/s")
}

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
