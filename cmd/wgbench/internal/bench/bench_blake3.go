package bench

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/cmd/internal/bytesize"
	"github.com/wgcompute/wgcompute/cmd/internal/results"
	"github.com/wgcompute/wgcompute/wgpu"
	zeebo "github.com/zeebo/blake3"
)

// The article's figure: Tesla V100, 1 GiB of whole chunks, kernel 11.9 ms,
// host-to-device transfer 97.6 ms.
const (
	v100BLAKE3Kernel   = 11.9
	v100BLAKE3Transfer = 97.6
)

// blake3Bench holds what every size of the BLAKE3 suite shares: the input
// on the host and resident on the GPU, a second buffer that uploads are
// timed into, and an Engine that hashes the resident input and reports
// its timing to timing.
type blake3Bench struct {
	ctx          *wgpu.Context
	cfg          *benchConfig
	data         []byte
	buf, scratch *wgpu.Buffer
	engine       *blake3.Engine
	timing       wgpu.Timing
}

func benchBLAKE3(ctx *wgpu.Context, cfg *benchConfig) ([]results.Table, error) {
	sizes := []int64{64 << 20, 128 << 20, 256 << 20, 512 << 20, 1 << 30}
	if cfg.quick {
		sizes = []int64{4 << 20, 16 << 20}
	}
	b, err := newBLAKE3Bench(ctx, cfg, sizes[len(sizes)-1])
	if err != nil {
		return nil, err
	}
	defer b.release()
	t := results.Table{
		Title: "BLAKE3, whole hash (chunks and tree)",
		Columns: []string{"size", "kernel ms", "kernel GB/s", "host→device ms", "device→host ms", "end-to-end ms", "end-to-end GB/s",
			"V100 (article) kernel / transfer ms", "GPU kernel vs V100", "CPU zeebo/blake3 1 thread ms", "end-to-end vs CPU", "checked"},
		Axes: results.Axes{XLabel: "bytes", YLabel: "kernel GB/s", LogX: true},
		Refs: []results.Ref{{Label: "V100 (article), 1 GiB kernel", Y: gbps(1<<30, time.Duration(v100BLAKE3Kernel*float64(time.Millisecond)))}},
	}
	for _, n := range sizes {
		cfg.step("blake3 " + bytesize.Format(n))
		row, kernel, err := b.size(n)
		if err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, row)
		t.Points = append(t.Points, results.Point{X: float64(n), Y: gbps(n, kernel)})
	}
	kind := "GPU timestamps"
	if !ctx.Info().Timestamps {
		kind = "host wall time of the resident hash (this adapter has no timestamp queries)"
	}
	t.Notes = append(t.Notes,
		"kernel: the whole hash of data already on the GPU ("+kind+"), chunk kernel, parent levels and the read-back of the root's inputs. "+
			"host→device: the upload of the input through the staging ring. device→host: reading a 32-byte result. end-to-end: blake3.Sum on host data (upload, hash, read-back). "+
			"V100 (article): 1 GiB of whole chunks, kernel 11.9 ms (about 90 GB/s), transfer 97.6 ms. "+
			"CPU: zeebo/blake3 (SIMD) on one thread of this machine; b3sum 1.2.0 with 16 threads: BENCHMARKS.md's b3sum tables (H200 and H100 machines, 2026-11-23).",
		"Each size was checked against the CPU hash once before timing; medians of the repeats after a warm-up.")
	return []results.Table{t}, nil
}

// newBLAKE3Bench fills largest seeded bytes and makes them resident.
func newBLAKE3Bench(ctx *wgpu.Context, cfg *benchConfig, largest int64) (_ *blake3Bench, err error) {
	b := &blake3Bench{ctx: ctx, cfg: cfg}
	defer func() {
		if err != nil {
			b.release()
		}
	}()
	// One buffer at the largest size, allocated first and hashed by prefixes:
	// on NVIDIA a large buffer allocated after others were released once
	// read markedly slower, which a later run did not reproduce
	// (bench/results/HISTORY.md, "Allocation history" and "Figures moved
	// from code comments").
	if b.buf, err = ctx.NewBuffer("bench blake3", uint64(largest)); err != nil {
		return nil, err
	}
	b.data = make([]byte, largest)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < len(b.data); i += 8 {
		v := rng.Uint64()
		for j := 0; j < 8 && i+j < len(b.data); j++ {
			b.data[i+j] = byte(v >> (8 * j))
		}
	}
	// Uploads are timed into a second buffer: the resident input is written
	// once, as a hash of data already on the GPU would find it.
	if b.scratch, err = ctx.NewBuffer("bench blake3 upload", uint64(largest)); err != nil {
		return nil, err
	}
	if err := ctx.Upload(b.buf, 0, b.data); err != nil {
		return nil, err
	}
	if err := ctx.Download(make([]byte, 4), b.buf, 0); err != nil {
		return nil, err
	}
	if b.engine, err = blake3.NewEngine(ctx, blake3.Options{Timing: &b.timing}); err != nil {
		return nil, err
	}
	return b, nil
}

func (b *blake3Bench) release() {
	if b.engine != nil {
		b.engine.Release()
	}
	b.scratch.Release()
	b.buf.Release()
}

// size checks the hash of the first n bytes against the CPU and measures
// it; it returns the table row and the kernel time.
func (b *blake3Bench) size(n int64) ([]string, time.Duration, error) {
	ctx, cfg, data := b.ctx, b.cfg, b.data[:n]
	want := zeebo.Sum256(data)
	got, err := b.engine.SumBuffer(b.buf, uint64(n))
	if err != nil {
		return nil, 0, err
	}
	if !bytes.Equal(got, want[:]) {
		return nil, 0, fmt.Errorf("blake3 of %s on the GPU differs from the CPU", bytesize.Format(n))
	}
	kernel, err := cfg.gpuTime(&b.timing, func() error {
		_, err := b.engine.SumBuffer(b.buf, uint64(n))
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	// The read-backs land in one small buffer, allocated outside the
	// timed calls.
	back := make([]byte, 32)
	h2d, err := cfg.wallTime(func() error {
		if err := ctx.Upload(b.scratch, 0, data); err != nil {
			return err
		}
		// A 4-byte read-back waits for the copies to land.
		return ctx.Download(back[:4], b.scratch, 0)
	})
	if err != nil {
		return nil, 0, err
	}
	d2h, err := cfg.wallTime(func() error { return ctx.Download(back, b.buf, 0) })
	if err != nil {
		return nil, 0, err
	}
	e2e, err := cfg.wallTime(func() error {
		_, err := blake3.Sum(ctx, data)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	cpu, err := cfg.medianOf(min(cfg.repeats, 3), func() (time.Duration, error) {
		start := time.Now()
		zeebo.Sum256(data)
		return time.Since(start), nil
	})
	if err != nil {
		return nil, 0, err
	}
	article, vs := "-", "-"
	if n == 1<<30 {
		article = fmt.Sprintf("%.1f / %.1f", v100BLAKE3Kernel, v100BLAKE3Transfer)
		vs = fmt.Sprintf("%.1f× faster", v100BLAKE3Kernel/(float64(kernel)/1e6))
	}
	return []string{bytesize.Format(n), ms(kernel), fmt.Sprintf("%.1f", gbps(n, kernel)), ms(h2d), ms(d2h), ms(e2e),
		fmt.Sprintf("%.2f", gbps(n, e2e)), article, vs, ms(cpu), fmt.Sprintf("%.1f×", float64(cpu)/float64(e2e)), "equal to zeebo/blake3"}, kernel, nil
}
