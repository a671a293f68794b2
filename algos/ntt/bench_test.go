package ntt

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/field/koalabear"
	kbfft "github.com/consensys/gnark-crypto/field/koalabear/fft"
	"github.com/consensys/gnark-crypto/field/koalabear/vortex"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// benchLogs is the ladder of one-row KoalaBear transforms; 2^24 is the
// field's largest.
var benchLogs = []int{16, 20, 22, 24}

// reportKernel reports the kernels' and the whole calls' time per op.
func reportKernel(b *testing.B, kernel time.Duration) {
	b.ReportMetric(float64(kernel.Microseconds())/1e3/float64(b.N), "kernel-ms/op")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "e2e-ms/op")
}

// residentRows uploads data (rows of Montgomery forms) into a buffer of
// its own, released when b ends, and returns p's dispatches that transform
// it with o, and the buffer.
func residentRows(b *testing.B, ctx *wgpu.Context, p *Plan, data []uint32, rows int, o Options) ([]wgpu.Dispatch, *wgpu.Buffer) {
	b.Helper()
	buf, err := ctx.NewBuffer("bench rows", uint64(4*len(data)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(buf.Release)
	if err := ctx.Upload(buf, 0, wgpu.Bytes(data)); err != nil {
		b.Fatal(err)
	}
	ds, err := p.Dispatches(wgpu.Bind(buf), rows, o, Montgomery)
	if err != nil {
		b.Fatal(err)
	}
	return ds, buf
}

// warmUp keeps ctx's GPU busy for warmUpTime (gputest.Warm): its
// clocks idle low until it has been busy a while, and a benchmark that
// starts after the host's work (making its input) read up to 4x slow on
// an H200 for its first hundred short runs (BENCHMARKS.md, "The
// arithmetic alone").
func warmUp(b *testing.B, ctx *wgpu.Context) {
	b.Helper()
	gputest.Warm(b, ctx, warmUpTime)
}

// warmUpTime is how long warmUp keeps the GPU busy.
const warmUpTime = 200 * time.Millisecond

// timeKernels runs ds once, then b.N times after warmUp, the timer reset
// first, and returns the b.N runs' summed time (kernel time where the
// adapter measures it).
func timeKernels(b *testing.B, ctx *wgpu.Context, ds []wgpu.Dispatch) time.Duration {
	b.Helper()
	if _, err := ctx.Run(ds...); err != nil {
		b.Fatal(err)
	}
	return timeRuns(b, ctx, ds)
}

// timeRuns is timeKernels where ds has run once already (its kernels
// compiled and its buffers made).
func timeRuns(b *testing.B, ctx *wgpu.Context, ds []wgpu.Dispatch) time.Duration {
	b.Helper()
	warmUp(b, ctx)
	b.ResetTimer()
	var kernel time.Duration
	for range b.N {
		t, err := ctx.Run(ds...)
		if err != nil {
			b.Fatal(err)
		}
		kernel += t.Elapsed()
	}
	return kernel
}

// BenchmarkNTT times one KoalaBear row of 2^k: resident (the rows on the
// device, Montgomery form, bit-reversed or natural output: kernel time),
// from host memory (upload, kernels, read-back), and gnark-crypto's
// Domain.FFT on all cores, side by side.
func BenchmarkNTT(b *testing.B) {
	f := field.KoalaBear
	for _, k := range benchLogs {
		data := randRows(f, rand.New(rand.NewPCG(1, uint64(k))), 1, k)
		b.Run(fmt.Sprintf("2^%d/cpu-gnark", k), func(b *testing.B) {
			d := kbfft.NewDomain(uint64(1) << k)
			a := make([]koalabear.Element, len(data))
			for i, x := range data {
				a[i].SetUint64(uint64(x))
			}
			b.SetBytes(4 << k)
			b.ResetTimer()
			for range b.N {
				d.FFT(a, kbfft.DIF)
			}
		})
		for _, out := range []Order{BitReversed, Natural} {
			b.Run(fmt.Sprintf("2^%d/resident/out=%v", k, out), func(b *testing.B) {
				ctx := gputest.Context(b, gputest.Backends()[0])
				p, err := NewPlan(ctx, f, k, PlanOptions{})
				if err != nil {
					b.Fatal(err)
				}
				defer p.Release()
				ds, _ := residentRows(b, ctx, p, data, 1, Options{Out: out})
				b.SetBytes(4 << k)
				reportKernel(b, timeKernels(b, ctx, ds))
			})
		}
		b.Run(fmt.Sprintf("2^%d/host", k), func(b *testing.B) {
			ctx := gputest.Context(b, gputest.Backends()[0])
			a := append([]uint32(nil), data...)
			b.SetBytes(4 << k)
			var kernel time.Duration
			for range b.N {
				var t wgpu.Timing
				if err := Transform(ctx, f, a, k, Options{Timing: &t}); err != nil {
					b.Fatal(err)
				}
				kernel += t.Elapsed()
			}
			reportKernel(b, kernel)
		})
	}
}

// encodeShapes are Reed-Solomon shapes (rows, log2 columns) at rate 2: a
// small one, and gnark-crypto's BenchmarkVortexReal (2^11 x 2^19).
var encodeShapes = [][2]int{{64, 14}, {1 << 11, 19}}

// BenchmarkEncode times Reed-Solomon encoding at rate 2: resident (input
// and output on the device, kernel time), from host memory, and
// gnark-crypto's vortex EncodeReedSolomon on all cores (rows spread over
// them), side by side.
func BenchmarkEncode(b *testing.B) {
	f := field.KoalaBear
	const rate = 2
	for _, s := range encodeShapes {
		rows, k := s[0], s[1]
		name := fmt.Sprintf("%dx2^%d/rate%d", rows, k, rate)
		src := randRows(f, rand.New(rand.NewPCG(2, uint64(k))), rows, k)
		b.Run(name+"/cpu-gnark", func(b *testing.B) {
			p, err := vortex.NewParams(1<<k, rows, nil, rate, 1)
			if err != nil {
				b.Fatal(err)
			}
			in := make([]koalabear.Element, len(src))
			for i, x := range src {
				in[i].SetUint64(uint64(x))
			}
			out := make([]koalabear.Element, len(src)*rate)
			n := 1 << k
			b.SetBytes(int64(4 * len(src)))
			b.ResetTimer()
			for range b.N {
				par.For(rows, 1, func(lo, hi int) {
					for r := lo; r < hi; r++ {
						p.EncodeReedSolomon(in[r*n:(r+1)*n], out[r*n*rate:(r+1)*n*rate])
					}
				})
			}
		})
		b.Run(name+"/resident", func(b *testing.B) {
			ctx := gputest.Context(b, gputest.Backends()[0])
			e, err := NewExtender(ctx, f, k, ExtendOptions{Rate: rate})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Release()
			// Rows in as many buffers as the device's buffer size takes.
			lim := ctx.Limits()
			rowBytes := uint64(4) << k
			per := int(min(lim.MaxBufferSize/rowBytes/rate, uint64(rows)))
			var ds []wgpu.Dispatch
			for r0 := 0; r0 < rows; r0 += per {
				nr := min(per, rows-r0)
				in, err := ctx.NewBuffer("bench input", uint64(nr)*rowBytes)
				if err != nil {
					b.Fatal(err)
				}
				defer in.Release()
				out, err := ctx.NewBuffer("bench output", uint64(nr)*rowBytes*rate)
				if err != nil {
					b.Fatal(err)
				}
				defer out.Release()
				if err := ctx.Upload(in, 0, wgpu.Bytes(src[r0<<k:(r0+nr)<<k])); err != nil {
					b.Fatal(err)
				}
				more, err := e.Dispatches(wgpu.Bind(in), wgpu.Bind(out), nr, Montgomery)
				if err != nil {
					b.Fatal(err)
				}
				ds = append(ds, more...)
			}
			b.SetBytes(int64(4 * len(src)))
			reportKernel(b, timeKernels(b, ctx, ds))
		})
		b.Run(name+"/host", func(b *testing.B) {
			ctx := gputest.Context(b, gputest.Backends()[0])
			dst := make([]uint32, len(src)*rate)
			b.SetBytes(int64(4 * len(src)))
			var kernel time.Duration
			for range b.N {
				var t wgpu.Timing
				if err := Extend(ctx, f, dst, src, k, ExtendOptions{Rate: rate, Timing: &t}); err != nil {
					b.Fatal(err)
				}
				kernel += t.Elapsed()
			}
			reportKernel(b, kernel)
		})
	}
}

// BenchmarkNTTFields times the resident transform of one row of 2^20 and
// 2^24 over each field (bit-reversed output: the passes alone).
func BenchmarkNTTFields(b *testing.B) {
	benchNTTField(b, field.BabyBear)
	benchNTTField(b, field.KoalaBear)
	benchNTTField(b, field.Goldilocks{})
}

// benchNTTField is BenchmarkNTTFields over f.
func benchNTTField[E field.Element](b *testing.B, f field.Field[E]) {
	{
		size1 := uint64(field.ElementSize[E]())
		for _, k := range []int{20, 24} {
			b.Run(fmt.Sprintf("%s/2^%d", f.Name(), k), func(b *testing.B) {
				ctx := gputest.Context(b, gputest.Backends()[0])
				p, err := NewPlan(ctx, f, k, PlanOptions{})
				if err != nil {
					b.Fatal(err)
				}
				defer p.Release()
				size := size1 << k
				buf, err := ctx.NewBuffer("bench rows", size)
				if err != nil {
					b.Fatal(err)
				}
				defer buf.Release()
				ds, err := p.Dispatches(wgpu.Bind(buf), 1, Options{Out: BitReversed}, Montgomery)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(size))
				reportKernel(b, timeKernels(b, ctx, ds))
			})
		}
	}
}

// BenchmarkNTTBatch times the forward transform on the coset of many rows
// at once, resident (a quotient's shape: 128 columns of 2^18, each a row
// here), natural order in and out, and bit-reversed out.
func BenchmarkNTTBatch(b *testing.B) {
	f := field.KoalaBear
	const k, rows = 18, 128
	data := randRows(f, rand.New(rand.NewPCG(3, k)), rows, k)
	for _, out := range []Order{BitReversed, Natural} {
		b.Run(fmt.Sprintf("%dx2^%d/coset/out=%v", rows, k, out), func(b *testing.B) {
			ctx := gputest.Context(b, gputest.Backends()[0])
			p, err := NewPlan(ctx, f, k, PlanOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Release()
			ds, _ := residentRows(b, ctx, p, data, rows, Options{Coset: true, Out: out})
			b.SetBytes(int64(4 * len(data)))
			reportKernel(b, timeKernels(b, ctx, ds))
		})
	}
}
