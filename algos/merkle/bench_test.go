package merkle_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

var benchVariants = []struct {
	name string
	opts merkle.Options
}{
	{"approach=1", merkle.Options{}.WithApproach(merkle.LevelPerDispatch)},
	{"approach=1passes", merkle.Options{}.WithApproach(merkle.LevelPerDispatch).WithPassPerLevel()},
	{"approach=2", merkle.Options{}.WithApproach(merkle.WorkgroupLevels)},
	{"approach=3", merkle.Options{}.WithApproach(merkle.Subtrees)},
	{"approach=3wg256", merkle.Options{WorkgroupSize: 256}.WithApproach(merkle.Subtrees)},
	{"approach=1wg256", merkle.Options{WorkgroupSize: 256}.WithApproach(merkle.LevelPerDispatch)},
}

// ladders are the articles' sizes: Rescue 2^20..2^24 leaves, BLAKE3
// 2^20..2^25.
var ladders = []struct {
	hash   merkle.Hash
	lo, hi int
}{{rescue.MerkleMerge{}, 20, 24}, {blake3.MerkleMerge{}, 20, 25}}

// forEachBench runs fn as a sub-benchmark per hash, size of its ladder and
// variant, on the first backend, with a Builder of the variant's options
// that reports to tm.
func forEachBench(b *testing.B, fn func(b *testing.B, ctx *wgpu.Context, bld *merkle.Builder, tm *wgpu.Timing, leaves [][32]byte)) {
	ctx := gputest.Context(b, gputest.Backends()[0])
	for _, l := range ladders {
		for lg := l.lo; lg <= l.hi; lg++ {
			leaves := randomLeaves(l.hash, 1<<lg, 1)
			for _, v := range benchVariants {
				b.Run(fmt.Sprintf("%s/2^%d/%s", l.hash.Name(), lg, v.name), func(b *testing.B) {
					var tm wgpu.Timing
					o := v.opts
					o.Timing = &tm
					bld, err := merkle.NewBuilder(ctx, l.hash, o)
					if err != nil {
						b.Fatal(err)
					}
					defer bld.Release()
					b.SetBytes(int64(len(leaves)) * merkle.DigestSize)
					b.ReportAllocs()
					fn(b, ctx, bld, &tm, leaves)
				})
			}
		}
	}
}

// BenchmarkKernel times the kernels alone on resident leaves, back to back
// (Builder.BuildBuffers), over the same ladders as BenchmarkBuild, for the
// trees that fit one subtree. Targets on an H200: Rescue 2^23 leaves in
// 215 ms, BLAKE3 2^25 leaves in 2.5 ms.
func BenchmarkKernel(b *testing.B) {
	forEachBench(b, func(b *testing.B, ctx *wgpu.Context, bld *merkle.Builder, tm *wgpu.Timing, leaves [][32]byte) {
		n := len(leaves)
		if n > bld.SubtreeLeaves() {
			b.Skipf("%d leaves exceed one subtree of %d", n, bld.SubtreeLeaves())
		}
		var bufs [2]*wgpu.Buffer
		for i := range bufs {
			var err error
			if bufs[i], err = ctx.NewBuffer("bench", uint64(n*merkle.DigestSize)); err != nil {
				b.Fatal(err)
			}
			defer bufs[i].Release()
		}
		if err := ctx.Upload(bufs[0], 0, wgpu.Bytes(leaves)); err != nil {
			b.Fatal(err)
		}
		var sum time.Duration
		for i := -2; i < b.N; i++ {
			if i == 0 {
				sum = 0
				b.ResetTimer()
			}
			if err := bld.BuildBuffers(bufs[1], bufs[0], n); err != nil {
				b.Fatal(err)
			}
			sum += tm.Elapsed()
		}
		b.ReportMetric(float64(sum.Microseconds())/1e3/float64(b.N), "kernel-ms/op")
	})
}

// BenchmarkBuild builds trees over the articles' ladders, per approach,
// with one Builder: kernel-ms is GPU time from timestamps; e2e-ms is the
// build end to end (upload of the leaves, kernels, download of all nodes).
// Targets on an H200: Rescue 2^23 in 215 ms, BLAKE3 2^25 in 2.5 ms
// (kernel).
func BenchmarkBuild(b *testing.B) {
	forEachBench(b, func(b *testing.B, ctx *wgpu.Context, bld *merkle.Builder, tm *wgpu.Timing, leaves [][32]byte) {
		if _, err := bld.Build(leaves); err != nil {
			b.Fatal(err)
		}
		var kernel time.Duration
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := bld.Build(leaves); err != nil {
				b.Fatal(err)
			}
			kernel += tm.Elapsed()
		}
		b.ReportMetric(float64(kernel.Microseconds())/1e3/float64(b.N), "kernel-ms/op")
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "e2e-ms/op")
	})
}

// BenchmarkHostTop is the A/B of Options.HostWidth: Rescue trees of 2^12
// to 2^20 leaves, Root and Build, with the hash's host width (host=hash,
// the default: the levels narrower than rescue.MerkleMerge's
// MerkleHostWidth on this host's cores merged on the host) and with every
// level on the device (host=none), side by side on one device. kernel-ms
// is the device's levels alone (timestamps), wall-ms the Timing's Wall
// (the submissions' and the host's merges), e2e-ms the call end to end;
// host-width is the width the hash chose.
func BenchmarkHostTop(b *testing.B) {
	ctx := gputest.Context(b, gputest.Backends()[0])
	hash := rescue.MerkleMerge{}
	width := hash.MerkleHostWidth(runtime.GOMAXPROCS(0))
	for lg := 12; lg <= 20; lg++ {
		leaves := randomLeaves(hash, 1<<lg, 1)
		// Every level on the device, which the tests hold to the CPU
		// reference: what each timed build's root must equal.
		want, err := merkle.Root(ctx, leaves, hash, merkle.Options{}.WithDeviceTop())
		if err != nil {
			b.Fatal(err)
		}
		for _, op := range []string{"root", "build"} {
			for _, v := range []struct {
				name  string
				width int
			}{{"hash", 0}, {"none", -1}} {
				b.Run(fmt.Sprintf("rescue/2^%d/%s/host=%s", lg, op, v.name), func(b *testing.B) {
					var tm wgpu.Timing
					bld, err := merkle.NewBuilder(ctx, hash, withTiming(merkle.HostOptions(v.width), &tm))
					if err != nil {
						b.Fatal(err)
					}
					defer bld.Release()
					var root [32]byte
					build := func() error {
						if op == "root" {
							var err error
							root, err = bld.Root(leaves)
							return err
						}
						t, err := bld.Build(leaves)
						if err == nil {
							root = t.Root()
						}
						return err
					}
					if err := build(); err != nil {
						b.Fatal(err)
					}
					if root != want {
						b.Fatalf("root %x, every level on the device %x", root, want)
					}
					var kernel, wall time.Duration
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						if err := build(); err != nil {
							b.Fatal(err)
						}
						kernel += tm.Kernel
						wall += tm.Wall
					}
					b.ReportMetric(float64(kernel.Microseconds())/1e3/float64(b.N), "kernel-ms/op")
					b.ReportMetric(float64(wall.Microseconds())/1e3/float64(b.N), "wall-ms/op")
					b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "e2e-ms/op")
					if v.width == 0 {
						b.ReportMetric(float64(width), "host-width")
					}
				})
			}
		}
	}
}
