package rescue

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/wgcompute/wgcompute/internal/gputest"
)

// benchSides is the articles' ladder: 128², 256², ..., 4096² inputs.
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
// end to end (e2e-merges/s: validation, upload, kernel, read-back), for
// every variant (the first name element) and input count. The inputs of
// one count are made once, by the first variant that runs.
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
				var st Stats
				opts := Options{Variant: v, Stats: &st}
				if err := MergeManyWith(ctx, dst, pairs, opts); err != nil { // compile, warm up
					b.Fatal(err)
				}
				if i := n - 1; dst[i] != Merge([4]uint64(pairs[i][:4]), [4]uint64(pairs[i][4:])) {
					b.Fatalf("variant %s: last merge differs from the reference", v)
				}
				b.SetBytes(int64(n) * 64)
				b.ReportAllocs()
				var kernel time.Duration
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := MergeManyWith(ctx, dst, pairs, opts); err != nil {
						b.Fatal(err)
					}
					kernel += st.Kernel
				}
				b.StopTimer()
				if st.Measured {
					b.ReportMetric(float64(kernel.Nanoseconds())/float64(b.N)/1e6, "kernel-ms/op")
					b.ReportMetric(float64(n)*float64(b.N)/kernel.Seconds(), "merges/s")
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "e2e-merges/s")
			})
		}
	}
}

// BenchmarkHashElementsMany hashes inputs of 12 elements (two
// permutations each), with the same metrics as BenchmarkMergeMany.
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
			var st Stats
			opts := Options{Stats: &st}
			if err := HashElementsManyWith(ctx, dst, in, m, opts); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(n) * m * 8)
			b.ReportAllocs()
			var kernel time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := HashElementsManyWith(ctx, dst, in, m, opts); err != nil {
					b.Fatal(err)
				}
				kernel += st.Kernel
			}
			b.StopTimer()
			if st.Measured {
				b.ReportMetric(float64(kernel.Nanoseconds())/float64(b.N)/1e6, "kernel-ms/op")
				b.ReportMetric(float64(n)*float64(b.N)/kernel.Seconds(), "hashes/s")
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "e2e-hashes/s")
		})
	}
}

// BenchmarkMergeCPU is the plain-Go reference on all cores: one op is
// GOMAXPROCS*1024 independent merges.
func BenchmarkMergeCPU(b *testing.B) {
	w := runtime.GOMAXPROCS(0)
	const per = 1024
	pairs := benchPairs(w * per)
	b.SetBytes(int64(w * per * 64))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var wg sync.WaitGroup
		for g := 0; g < w; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, p := range pairs[g*per : (g+1)*per] {
					Merge([4]uint64(p[:4]), [4]uint64(p[4:]))
				}
			}()
		}
		wg.Wait()
	}
	b.ReportMetric(float64(w*per)*float64(b.N)/b.Elapsed().Seconds(), "merges/s")
}
