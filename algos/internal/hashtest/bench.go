package hashtest

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// BenchSides is the ladder of the batch benchmarks: 128², 256², ...,
// 4096² inputs.
var BenchSides = []int{128, 256, 512, 1024, 2048, 4096}

// BenchPairs returns n pairs of uniform elements, the same for each n.
func BenchPairs(n int) [][8]uint64 {
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	pairs := make([][8]uint64, n)
	for i := range pairs {
		for j := range pairs[i] {
			pairs[i][j] = rng.Uint64N(P)
		}
	}
	return pairs
}

// benchElements returns n uniform elements, the same for each n.
func benchElements(n int) []uint64 {
	rng := rand.New(rand.NewPCG(uint64(n), 2))
	in := make([]uint64, n)
	for i := range in {
		in[i] = rng.Uint64N(P)
	}
	return in
}

// BenchmarkMergeMany reports merges/s from GPU kernel time (merges/s) and
// end to end (e2e-merges/s: validation, upload, kernel, read-back) with a
// resident Batcher, for every variant (the first name element) and input
// count. The inputs of one count are made once, by the first variant that
// runs.
func BenchmarkMergeMany(b *testing.B, f *Family) {
	ctx := gputest.Context(b, gputest.Backends()[0])
	for _, side := range BenchSides {
		n := side * side
		var pairs [][8]uint64
		for v, name := range f.Variants {
			b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				if pairs == nil {
					pairs = BenchPairs(n)
				}
				b.ReportAllocs()
				timeMerges(b, f, ctx, v, pairs)
			})
		}
	}
}

// BenchmarkHashElementsMany hashes inputs of 12 elements (two
// permutations each) with the default variant, with the same metrics as
// BenchmarkMergeMany.
func BenchmarkHashElementsMany(b *testing.B, f *Family) {
	const m = 12
	ctx := gputest.Context(b, gputest.Backends()[0])
	for _, side := range BenchSides {
		n := side * side
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			in := benchElements(n * m)
			dst := make([][4]uint64, n)
			var t wgpu.Timing
			h, err := f.NewBatcher(ctx, 0, &t)
			if err != nil {
				b.Fatal(err)
			}
			defer h.Release()
			if err := h.HashElementsMany(dst, in, m); err != nil {
				b.Fatal(err)
			}
			if dst[n-1] != f.HashElements(in[(n-1)*m:]) {
				b.Fatal("last hash differs from the reference")
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
			reportRates(b, total, n, "hashes/s")
		})
	}
}

// reportRates reports the kernel time per op and items per second from
// kernel time (where measured) and end to end.
func reportRates(b *testing.B, total wgpu.Timing, n int, unit string) {
	if total.Measured {
		b.ReportMetric(float64(total.Kernel.Nanoseconds())/float64(b.N)/1e6, "kernel-ms/op")
		b.ReportMetric(float64(n)*float64(b.N)/total.Kernel.Seconds(), unit)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "e2e-"+unit)
}

// BenchmarkMergeCPU is the CPU backend (on all cores): one op is
// GOMAXPROCS*1024 independent merges.
func BenchmarkMergeCPU(b *testing.B, f *Family) {
	n := runtime.GOMAXPROCS(0) * 1024
	pairs := BenchPairs(n)
	dst := make([][4]uint64, n)
	b.SetBytes(int64(n * 64))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := f.MergeMany(nil, dst, pairs, 0, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "merges/s")
}

// BenchmarkHashElementsCPU is the CPU backend hashing inputs of 12
// elements (two permutations each): one op is GOMAXPROCS*perCore inputs.
func BenchmarkHashElementsCPU(b *testing.B, f *Family, perCore int) {
	const m = 12
	n := runtime.GOMAXPROCS(0) * perCore
	in := benchElements(n * m)
	dst := make([][4]uint64, n)
	b.SetBytes(int64(n) * m * 8)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := f.HashElementsMany(nil, dst, in, m, 0, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "hashes/s")
}

// BenchmarkMergeManyBatches reports BenchmarkMergeMany's rates with the
// default variant for 256² and 4096² inputs, once with the pieces in host
// memory that the kernels read and write in place (batches=host, where the
// device allows it) and once staged in device memory (batches=device,
// the default), each on a device of its own, so
// that one run compares the two.
func BenchmarkMergeManyBatches(b *testing.B, f *Family) {
	backend := gputest.Backends()[0]
	for _, mode := range []string{"host", "device"} {
		for _, side := range []int{256, 4096} {
			n := side * side
			b.Run(fmt.Sprintf("batches=%s/%d", mode, n), func(b *testing.B) {
				o := gputest.Options(b, backend)
				o.Runner.Memory = wgpu.PiecesInDevice
				if mode == "host" {
					o.Runner.Memory = wgpu.PiecesInHost
				}
				ctx, err := wgpu.Open(o)
				if err != nil {
					b.Fatal(err)
				}
				defer ctx.Close()
				if ctx.HostPieces() != (mode == "host") {
					b.Skipf("%s (%s) keeps batches in device memory", ctx.Info().Name, ctx.Info().Backend)
				}
				timeMerges(b, f, ctx, 0, BenchPairs(n))
			})
		}
	}
}

// timeMerges times MergeMany of pairs with variant v's resident Batcher on
// ctx, after one call that compiles, warms up and is checked against the
// reference, and reports the kernel and end-to-end rates.
func timeMerges(b *testing.B, f *Family, ctx *wgpu.Context, v int, pairs [][8]uint64) {
	n := len(pairs)
	dst := make([][4]uint64, n)
	var t wgpu.Timing
	m, err := f.NewBatcher(ctx, v, &t)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Release()
	if err := m.MergeMany(dst, pairs); err != nil {
		b.Fatal(err)
	}
	if i := n - 1; dst[i] != f.merge(pairs[i]) {
		b.Fatalf("variant %s: the last merge differs from the reference", f.Variants[v])
	}
	b.SetBytes(int64(n) * 64)
	var total wgpu.Timing
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := m.MergeMany(dst, pairs); err != nil {
			b.Fatal(err)
		}
		total = total.Add(t)
	}
	b.StopTimer()
	reportRates(b, total, n, "merges/s")
}
