package sis

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/field/koalabear"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// BenchmarkSISColumns hashes columns of 2^11 rows with Vortex's key
// (sis.NewRSis(0, 9, 16, 2^11)): 2^20 columns on the GPU (the columns of
// BenchmarkVortexReal's 2^11 × 2^19 rows encoded at rate 1/2; 2^10 with
// -short), and 2^12 columns (2^8) with gnark-crypto's RSis.Hash on all
// cores.
//
// On the GPU it times the kernel alone, on columns resident on the device:
// a piece of columns (as many as the device's binding size takes, at most
// 2^17, 1 GiB) is hashed as many times as make 2^20 columns, after a warm-up
// (kernel-ms/op, columns/s of the kernel time). The piece is read as
// column-major columns, then (row-major) as the columns of a rows × piece
// row-major matrix, as Vortex holds its codewords, through
// Resident.Dispatch. The first column's hash is checked against RSis.Hash.
func BenchmarkSISColumns(b *testing.B) {
	const rows = 1 << 11
	k, err := New(0, 9, 16, rows)
	if err != nil {
		b.Fatal(err)
	}
	cols, cpuCols := 1<<20, 1<<12
	if testing.Short() {
		cols, cpuCols = 1<<10, 1<<8
	}
	rng := rand.New(rand.NewPCG(1, 2))
	b.Run(fmt.Sprintf("cpu/%dx%d", rows, cpuCols), func(b *testing.B) {
		m := randElements(rng, rows*cpuCols)
		dst := make([]koalabear.Element, cpuCols*k.Degree())
		b.SetBytes(int64(4 * len(m)))
		b.ResetTimer()
		for range b.N {
			if err := k.HashColumnMajor(nil, dst, m, rows, Options{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cpuCols)*float64(b.N)/b.Elapsed().Seconds(), "columns/s")
	})
	if len(gputest.Backends()) == 0 {
		return
	}
	backend := gputest.Backends()[0]
	for _, rowMajor := range []bool{false, true} {
		name := fmt.Sprintf("%s/%dx%d", backend, rows, cols)
		if rowMajor {
			name += "/row-major"
		}
		benchGPU(b, name, k, rows, cols, rowMajor, rng)
	}
}

// benchGPU is BenchmarkSISColumns on the GPU: columns of rows elements,
// each piece column-major or, with rowMajor, row-major.
func benchGPU(b *testing.B, name string, k *Key, rows, cols int, rowMajor bool, rng *rand.Rand) {
	backend := gputest.Backends()[0]
	b.Run(name, func(b *testing.B) {
		ctx := gputest.Context(b, backend)
		lim := ctx.Limits()
		piece := min(cols, 1<<17, int(lim.Binding()/uint64(4*rows)))
		kern, key, tw, err := k.resident(ctx, rows)
		if err != nil {
			b.Fatal(err)
		}
		defer key.Release()
		defer tw.Release()
		in, err := ctx.NewBuffer("sis columns", uint64(4*rows*piece))
		if err != nil {
			b.Fatal(err)
		}
		defer in.Release()
		out, err := ctx.NewBuffer("sis hashes", uint64(4*k.Degree()*piece))
		if err != nil {
			b.Fatal(err)
		}
		defer out.Release()
		m := randElements(rng, rows*piece)
		if err := ctx.Upload(in, 0, wgpu.Bytes(m)); err != nil {
			b.Fatal(err)
		}
		d := k.dispatch(ctx, kern, []wgpu.Binding{wgpu.Bind(in), wgpu.Bind(out), wgpu.Bind(key), wgpu.Bind(tw)}, piece, rows, k.polys(rows))
		first := m[:rows]
		if rowMajor {
			// The same words as a rows × piece row-major matrix, as Vortex
			// holds its codewords.
			r, err := k.NewResident(ctx, rows)
			if err != nil {
				b.Fatal(err)
			}
			defer r.Release()
			if d, err = r.Dispatch(wgpu.Bind(in), wgpu.Bind(out), piece, piece, 1); err != nil {
				b.Fatal(err)
			}
			first = make([]koalabear.Element, rows)
			for i := range first {
				first[i] = m[i*piece]
			}
		}
		ds := make([]wgpu.Dispatch, (cols+piece-1)/piece)
		for i := range ds {
			ds[i] = d
		}
		run := func() time.Duration {
			t, err := ctx.Run(ds...)
			if err != nil {
				b.Fatal(err)
			}
			return t.Elapsed()
		}
		for start := time.Now(); time.Since(start) < 300*time.Millisecond; {
			run()
		}
		b.SetBytes(int64(4 * rows * cols))
		var kernel time.Duration
		b.ResetTimer()
		for range b.N {
			kernel += run()
		}
		b.StopTimer()
		b.ReportMetric(float64(kernel.Microseconds())/1e3/float64(b.N), "kernel-ms/op")
		b.ReportMetric(float64(len(ds)*piece)*float64(b.N)/kernel.Seconds(), "columns/s")
		got := make([]koalabear.Element, k.Degree())
		if err := ctx.Download(wgpu.Bytes(got), out, 0); err != nil {
			b.Fatal(err)
		}
		want := make([]koalabear.Element, k.Degree())
		if err := k.RSis().Hash(first, want); err != nil {
			b.Fatal(err)
		}
		for i := range want {
			if want[i] != got[i] {
				b.Fatalf("column 0, element %d: %v, want %v", i, got[i], want[i])
			}
		}
	})
}
