package poseidon2

import (
	"fmt"
	"math/bits"
	"slices"
	"testing"
	"time"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// warmUp31 is how long BenchmarkPermute31 runs the kernel before timing
// it: long enough for an idle GPU to reach its working clocks.
const warmUp31 = 300 * time.Millisecond

// BenchmarkPermute31 permutes 2^20 states (2^14 with -short) of each
// 31-bit permutation (Plonky3's, then gnark-crypto's) on the first GPU
// backend; and the reference on one core.
//
// On the GPU it times the kernel alone, at the clocks the GPU works at:
// the states stay on the device, the kernel runs over them for warmUp31
// before timing, and each op is one dispatch over all of them, from one
// buffer into the other (ns/op its submission and wait, kernel-ms/op its
// GPU timestamps, perms/s of the kernel time). An idle GPU clocks down,
// an H200 to a sixth of its clock: timed between each op's check, upload
// and read-back, its 0.5 ms kernels ran at whatever clock those pauses
// left, and the permutations benchmarked last looked 2.3-4 times slower
// than their operations say (BENCHMARKS.md). The last state is checked
// against the reference applied as many times.
func BenchmarkPermute31(b *testing.B) {
	n := 1 << 20
	if testing.Short() {
		n = 1 << 14
	}
	for _, p := range slices.Concat(Permutations31, GnarkPermutations31) {
		b.Run(p.Name()+"/cpu", func(b *testing.B) {
			s := randStates31(p, newRand(b), 1)
			b.SetBytes(int64(4 * p.Width()))
			for i := 0; i < b.N; i++ {
				p.permute(s)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "perms/s")
		})
		if len(gputest.Backends()) == 0 {
			continue
		}
		b.Run(fmt.Sprintf("%s/%s/2^%d", p.Name(), gputest.Backends()[0], bits.Len(uint(n))-1), func(b *testing.B) {
			benchPermute31GPU(b, p, gputest.Backends()[0], n)
		})
	}
}

// benchPermute31GPU is BenchmarkPermute31 on the GPU, for n states of p.
func benchPermute31GPU(b *testing.B, p *Permutation31, backend string, n int) {
	ctx := gputest.Context(b, backend)
	k, err := p.kernel(ctx, "permute31.wgsl", "permute_many")
	if err != nil {
		b.Fatal(err)
	}
	w := p.Width()
	size := uint64(4 * w * n)
	var bufs [2]*wgpu.Buffer
	for i := range bufs {
		if bufs[i], err = ctx.NewBuffer("permute31 states", size); err != nil {
			b.Fatal(err)
		}
		defer bufs[i].Release()
	}
	states := randStates31(p, newRand(b), n)
	if err := ctx.Upload(bufs[0], 0, wgpu.Bytes(states)); err != nil {
		b.Fatal(err)
	}
	runs := 0 // the states are in bufs[runs%2]
	permute := func() time.Duration {
		t, err := ctx.Run(wgpu.Dispatch{
			Kernel:   k,
			Bindings: []wgpu.Binding{wgpu.Bind(bufs[runs%2]), wgpu.Bind(bufs[1-runs%2])},
			Params:   []uint32{uint32(n)},
			Groups:   ctx.Grid(uint64(n), permuteWG),
		})
		if err != nil {
			b.Fatal(err)
		}
		runs++
		return t.Elapsed()
	}
	for start := time.Now(); runs == 0 || time.Since(start) < warmUp31; {
		permute()
	}
	b.SetBytes(int64(size))
	var kernel time.Duration
	b.ResetTimer()
	for range b.N {
		kernel += permute()
	}
	b.StopTimer()
	b.ReportMetric(float64(kernel.Microseconds())/1e3/float64(b.N), "kernel-ms/op")
	b.ReportMetric(float64(n)*float64(b.N)/kernel.Seconds(), "perms/s")

	got := make([]uint32, w)
	if err := ctx.Download(wgpu.Bytes(got), bufs[runs%2], 0); err != nil {
		b.Fatal(err)
	}
	want := slices.Clone(states[:w])
	for range runs {
		p.permute(want)
	}
	if !slices.Equal(got, want) {
		b.Fatalf("%s: the first state after %d kernel runs is %v, want %v", p.Name(), runs, got, want)
	}
}
