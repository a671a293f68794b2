package lde_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/lde"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// BenchmarkCommit times Plonky3's commitment of a BabyBear trace (2^k
// rows × 128 columns, blowup 2: coset LDE, bit-reversed rows, Poseidon2
// MMCS) in one call from host memory, beside the upload of the
// unextended matrix alone on the same device: "upload" is that upload;
// "commit" (the tree read back) and "root" (the root alone), both
// through a resident lde.Committer, and "oneshot" (lde.Root, buffers and
// tables made per call) report the kernels (kernel-ms/op), the whole call
// (e2e-ms/op), the upload measured just before it (upload-ms), and
// e2e/(upload + kernels) (ratio), the target being 1.2 at most.
// The CPU row (gnark-crypto's fft and the CPU commitment) is left out
// past 2^16 rows. -short: 2^12 rows.
func BenchmarkCommit(b *testing.B) {
	logs := []int{16, 20}
	if testing.Short() {
		logs = []int{12}
	}
	const cols, rate = 128, 2
	hash := merkle.RowHash[uint32](poseidon2.BabyBearMerkle)
	for _, lg := range logs {
		m := randomMatrix(1<<lg, cols, hash.Modulus(), 1)
		bytes := int64(len(m.Data)) * 4
		name := fmt.Sprintf("babybear/2^%dx%d/rate=%d", lg, cols, rate)
		o := lde.Options{Extend: lde.Plonky3(rate)}
		if lg <= 16 {
			b.Run(name+"/cpu", func(b *testing.B) {
				b.SetBytes(bytes)
				for range b.N {
					if _, err := lde.Commit(nil, m, hash, o); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run(name+"/upload", func(b *testing.B) {
			ctx := gputest.Context(b, gputest.Backends()[0])
			buf, err := ctx.NewBuffer("bench upload", uint64(bytes))
			if err != nil {
				b.Fatal(err)
			}
			defer buf.Release()
			b.SetBytes(bytes)
			b.ResetTimer()
			for range b.N {
				if err := upload(ctx, buf, m.Data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "e2e-ms/op")
		})
		for _, mode := range []string{"commit", "root", "oneshot"} {
			b.Run(name+"/"+mode, func(b *testing.B) {
				ctx := gputest.Context(b, gputest.Backends()[0])
				var tm wgpu.Timing
				o := o
				o.Timing = &tm
				c, err := lde.NewCommitter(ctx, hash, o)
				if err != nil {
					b.Fatal(err)
				}
				defer c.Release()
				call := func() error {
					var err error
					switch mode {
					case "commit":
						_, err = c.Commit(m)
					case "root":
						_, err = c.Root(m)
					default:
						_, err = lde.Root(ctx, m, hash, o)
					}
					return err
				}
				if err := call(); err != nil { // compiles the kernels, makes the buffers
					b.Fatal(err)
				}
				up, err := uploadTime(ctx, m.Data, 3)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(bytes)
				b.ReportAllocs()
				var kernel time.Duration
				b.ResetTimer()
				for range b.N {
					if err := call(); err != nil {
						b.Fatal(err)
					}
					kernel += tm.Elapsed()
				}
				e2e := b.Elapsed() / time.Duration(b.N)
				k := kernel / time.Duration(b.N)
				b.ReportMetric(float64(k.Microseconds())/1e3, "kernel-ms/op")
				b.ReportMetric(float64(e2e.Microseconds())/1e3, "e2e-ms/op")
				b.ReportMetric(float64(up.Microseconds())/1e3, "upload-ms")
				b.ReportMetric(float64(e2e)/float64(up+k), "ratio")
			})
		}
	}
}

// upload copies data into buf and waits for the copy.
func upload(ctx *wgpu.Context, buf *wgpu.Buffer, data []uint32) error {
	if err := ctx.Upload(buf, 0, wgpu.Bytes(data)); err != nil {
		return err
	}
	return ctx.Wait()
}

// uploadTime returns the mean time of n uploads of data into a buffer of
// its size.
func uploadTime(ctx *wgpu.Context, data []uint32, n int) (time.Duration, error) {
	buf, err := ctx.NewBuffer("bench upload", uint64(len(data))*4)
	if err != nil {
		return 0, err
	}
	defer buf.Release()
	if err := upload(ctx, buf, data); err != nil { // the staging ring's first use
		return 0, err
	}
	start := time.Now()
	for range n {
		if err := upload(ctx, buf, data); err != nil {
			return 0, err
		}
	}
	return time.Since(start) / time.Duration(n), nil
}

// BenchmarkColumnValues times the CPU path's first step on a Montgomery
// KoalaBear matrix of 2^15 rows × 128 columns (2^22 words): its columns,
// transposed, made values.
func BenchmarkColumnValues(b *testing.B) {
	f := field.KoalaBear
	m := merkle.Matrix[uint32]{Rows: 1 << 15, Cols: 128, Data: make([]uint32, 1<<22), Form: field.Montgomery}
	for i := range m.Data {
		m.Data[i] = uint32(i) % f.P()
	}
	b.SetBytes(int64(4 * len(m.Data)))
	for b.Loop() {
		_ = lde.ColumnValues(f, m)
	}
}
