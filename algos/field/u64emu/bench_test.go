package u64emu

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// throughputSteps is the chain length per accumulator: each invocation of
// the throughput kernel performs 4*throughputSteps multiplications.
const throughputSteps = 64

// BenchmarkMulmodThroughput measures field multiplications per second in a
// kernel that does nothing else: 4M invocations (64K on a CPU adapter) of
// four independent 64-step chains. Gmulmod/s comes from GPU kernel time
// (host wall time where the adapter has no timestamps). "goldilocks_mul" is the
// library's multiplication, "goldilocks_mul_lazy" its product left unreduced
// below 2^64 (what the S-box chains use), "schoolbook" the straightforward
// 16-bit partial-product one, for comparison.
func BenchmarkMulmodThroughput(b *testing.B) {
	ctx := gputest.Context(b, gputest.Backends()[0])
	count := uint32(1 << 22)
	if ctx.Info().Type == "cpu" {
		count = 1 << 16
	}
	r := rand.New(rand.NewPCG(12, 13))
	xa, xb := make([]uint64, count), make([]uint64, count)
	for i := range xa {
		xa[i], xb[i] = r.Uint64N(P), r.Uint64N(P)
	}
	bufs := make([]*wgpu.Buffer, 3)
	for i := range bufs {
		var err error
		bufs[i], err = ctx.NewBuffer("throughput", uint64(count)*elemBytes)
		if err != nil {
			b.Fatal(err)
		}
		defer bufs[i].Release()
	}
	if err := ctx.Upload(bufs[0], 0, wgpu.Bytes(xa)); err != nil {
		b.Fatal(err)
	}
	if err := ctx.Upload(bufs[1], 0, wgpu.Bytes(xb)); err != nil {
		b.Fatal(err)
	}
	for _, entry := range throughputKernels {
		b.Run(strings.TrimPrefix(entry, "mul_throughput_"), func(b *testing.B) {
			// Compile and check a sample before timing.
			if _, err := mulThroughput(ctx, bufs[2], bufs[0], bufs[1], count, throughputSteps, entry); err != nil {
				b.Fatal(err)
			}
			got := make([]uint64, count)
			if err := ctx.Download(wgpu.Bytes(got), bufs[2], 0); err != nil {
				b.Fatal(err)
			}
			for i := 0; i < int(count); i += int(count) / 64 {
				if want := mulThroughputRef(xa[i], xb[i], throughputSteps); got[i] != want {
					b.Fatalf("invocation %d: GPU %#x, native %#x", i, got[i], want)
				}
			}
			var kernel, wall time.Duration
			measured := true
			b.SetBytes(0)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				t, err := mulThroughput(ctx, bufs[2], bufs[0], bufs[1], count, throughputSteps, entry)
				if err != nil {
					b.Fatal(err)
				}
				kernel += t.Kernel
				wall += t.Wall
				measured = measured && t.Measured
			}
			b.StopTimer()
			muls := float64(count) * 4 * throughputSteps * float64(b.N)
			if measured {
				b.ReportMetric(muls/kernel.Seconds()/1e9, "Gmulmod/s")
				b.ReportMetric(float64(kernel.Nanoseconds())/float64(b.N)/1e6, "kernel-ms/op")
			} else {
				b.ReportMetric(muls/wall.Seconds()/1e9, "Gmulmod/s(wall)")
			}
		})
	}
}

// BenchmarkMulTo measures MulTo end to end (upload of a and b, kernel,
// download of dst) over a ladder of sizes; SetBytes counts the 24 bytes
// moved per element, kernel-ms/op the GPU time alone.
func BenchmarkMulTo(b *testing.B) {
	ctx := gputest.Context(b, gputest.Backends()[0])
	sizes := []int{1 << 16, 1 << 20, 1 << 24}
	if ctx.Info().Type == "cpu" {
		sizes = sizes[:2]
	}
	r := rand.New(rand.NewPCG(14, 15))
	for _, n := range sizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			a, c := make([]uint64, n), make([]uint64, n)
			for i := range a {
				a[i], c[i] = r.Uint64N(P), r.Uint64N(P)
			}
			dst := make([]uint64, n)
			if _, err := run(ctx, opMul, dst, a, c); err != nil {
				b.Fatal(err)
			}
			var kernel time.Duration
			b.SetBytes(int64(n) * 3 * elemBytes)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				t, err := run(ctx, opMul, dst, a, c)
				if err != nil {
					b.Fatal(err)
				}
				kernel += t.Kernel
			}
			b.StopTimer()
			if kernel > 0 {
				b.ReportMetric(float64(kernel.Nanoseconds())/float64(b.N)/1e6, "kernel-ms/op")
			}
			if dst[n-1] != Mul(a[n-1], c[n-1]) {
				b.Fatalf("dst[%d] = %#x, want %#x", n-1, dst[n-1], Mul(a[n-1], c[n-1]))
			}
		})
	}
}

// throughputKernels are the throughput kernels' entry points, one per
// multiplication: goldilocks_mul, goldilocks_mul_lazy and the 16-bit schoolbook product.
var throughputKernels = []string{"mul_throughput_gl_mul", "mul_throughput_gl_mul_lazy", "mul_throughput_schoolbook"}

// mulThroughput runs a mulmod throughput kernel: invocation i seeds four
// accumulators and four multipliers from a[i] and b[i] and performs
// 4*steps multiplications; dst[i] is the sum of the accumulators (see
// mulThroughputRef) with the multiplication entry names (one of
// throughputKernels). The buffers must hold count elements each. It
// returns the run's timing.
func mulThroughput(ctx *wgpu.Context, dst, a, b *wgpu.Buffer, count, steps uint32, entry string) (wgpu.Timing, error) {
	for _, buf := range []*wgpu.Buffer{dst, a, b} {
		if buf == nil || buf.Size() < uint64(count)*elemBytes {
			return wgpu.Timing{}, fmt.Errorf("u64emu: throughput: every buffer must hold count = %d elements (%d bytes)", count, uint64(count)*elemBytes)
		}
	}
	k, err := kernel(ctx, entry, false)
	if err != nil {
		return wgpu.Timing{}, fmt.Errorf("u64emu: throughput: %w", err)
	}
	t, err := ctx.Run(wgpu.Dispatch{
		Kernel:   k,
		Bindings: []wgpu.Binding{wgpu.Bind(a), wgpu.Bind(b), wgpu.Bind(dst)},
		Params:   []uint32{count, steps},
		Groups:   ctx.Grid(uint64(count), workgroupSize),
	})
	if err != nil {
		return t, fmt.Errorf("u64emu: throughput: %w", err)
	}
	return t, nil
}

// mulThroughputRef is the plain-Go meaning of one invocation of mulThroughput.
func mulThroughputRef(a, b uint64, steps uint32) uint64 {
	acc := [4]uint64{a, b, Add(a, b), Sub(a, b)}
	m := [4]uint64{b, Neg(a), Sub(b, a), Add(b, b)}
	for range steps {
		for j := range acc {
			acc[j] = Mul(acc[j], m[j])
		}
	}
	return Add(Add(acc[0], acc[1]), Add(acc[2], acc[3]))
}
