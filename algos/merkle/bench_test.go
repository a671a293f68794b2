package merkle

import (
	"fmt"
	"testing"
	"time"

	"github.com/wgcompute/wgcompute/internal/gputest"
)

var variants = []struct {
	name string
	opts Options
}{
	{"approach=1", Options{Approach: LevelPerDispatch}},
	{"approach=1passes", Options{Approach: LevelPerDispatch, PassPerLevel: true}},
	{"approach=2", Options{Approach: WorkgroupLevels}},
	{"approach=3", Options{Approach: Subtrees}},
	{"approach=3wg256", Options{Approach: Subtrees, WorkgroupSize: 256}},
	{"approach=1wg256", Options{Approach: LevelPerDispatch, WorkgroupSize: 256}},
}

// ladders are the articles' sizes: Rescue 2^20..2^24 leaves, BLAKE3
// 2^20..2^25.
var ladders = []struct {
	hash   *Hash
	lo, hi int
}{{Rescue, 20, 24}, {Blake3, 20, 25}}

// BenchmarkKernel times the kernels alone on resident leaves, back to back
// (see KernelTimes), over the same ladders as BenchmarkBuild. Targets on an
// H200: Rescue 2^23 leaves in 215 ms, BLAKE3 2^25 leaves in 2.5 ms.
func BenchmarkKernel(b *testing.B) {
	ctx := gputest.Context(b, gputest.Backends()[0])
	for _, l := range ladders {
		for lg := l.lo; lg <= l.hi; lg++ {
			leaves := randomLeaves(l.hash, 1<<lg, 1)
			for _, v := range variants {
				b.Run(fmt.Sprintf("%s/2^%d/%s", l.hash, lg, v.name), func(b *testing.B) {
					b.SetBytes(int64(len(leaves)) * DigestSize)
					b.ReportAllocs()
					if _, err := KernelTimes(ctx, leaves, l.hash, v.opts, 2); err != nil {
						b.Fatal(err)
					}
					b.ResetTimer()
					ts, err := KernelTimes(ctx, leaves, l.hash, v.opts, b.N)
					if err != nil {
						b.Fatal(err)
					}
					var sum time.Duration
					for _, t := range ts {
						sum += t
					}
					b.ReportMetric(float64(sum.Microseconds())/1e3/float64(b.N), "kernel-ms/op")
				})
			}
		}
	}
}

// BenchmarkBuild builds trees over the articles' ladders, per approach:
// Rescue 2^20..2^24 leaves, BLAKE3 2^20..2^25. kernel-ms is GPU time from
// timestamps; e2e-ms is Build end to end (upload of the leaves, kernels,
// download of all nodes). Targets on an H200: Rescue 2^23 in 215 ms, BLAKE3
// 2^25 in 2.5 ms (kernel).
func BenchmarkBuild(b *testing.B) {
	ctx := gputest.Context(b, gputest.Backends()[0])
	for _, l := range ladders {
		for lg := l.lo; lg <= l.hi; lg++ {
			leaves := randomLeaves(l.hash, 1<<lg, 1)
			for _, v := range variants {
				b.Run(fmt.Sprintf("%s/2^%d/%s", l.hash, lg, v.name), func(b *testing.B) {
					b.SetBytes(int64(len(leaves)) * DigestSize)
					b.ReportAllocs()
					if _, err := Build(ctx, leaves, l.hash, v.opts); err != nil {
						b.Fatal(err)
					}
					var kernel time.Duration
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						t, err := Build(ctx, leaves, l.hash, v.opts)
						if err != nil {
							b.Fatal(err)
						}
						k, _ := t.KernelTime()
						kernel += k
					}
					b.ReportMetric(float64(kernel.Microseconds())/1e3/float64(b.N), "kernel-ms/op")
					b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "e2e-ms/op")
				})
			}
		}
	}
}
