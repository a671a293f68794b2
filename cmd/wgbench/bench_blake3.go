package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/wgpu"
	zeebo "github.com/zeebo/blake3"
)

func init() {
	registerSuite(suite{name: "blake3", about: "BLAKE3 of 64 MiB to 1 GiB: kernel, transfers, end to end", run: benchBLAKE3})
}

// The article's figure: Tesla V100, 1 GiB of whole chunks, kernel 11.9 ms,
// host-to-device transfer 97.6 ms.
const (
	v100BLAKE3Kernel   = 11.9
	v100BLAKE3Transfer = 97.6
)

func benchBLAKE3(ctx *wgpu.Context, cfg *benchConfig) ([]table, error) {
	sizes := []int64{64 << 20, 128 << 20, 256 << 20, 512 << 20, 1 << 30}
	if cfg.quick {
		sizes = []int64{4 << 20, 16 << 20}
	}
	largest := sizes[len(sizes)-1]
	// One buffer at the largest size, allocated first and hashed by
	// prefixes: on the H200 a large buffer allocated after others were
	// released read 2-3x slower.
	buf, err := ctx.NewBuffer("bench blake3", uint64(largest))
	if err != nil {
		return nil, err
	}
	defer buf.Release()
	data := make([]byte, largest)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < len(data); i += 8 {
		v := rng.Uint64()
		for j := 0; j < 8 && i+j < len(data); j++ {
			data[i+j] = byte(v >> (8 * j))
		}
	}
	// Uploads are timed into a second buffer: the resident input is written
	// once, as a hash of data already on the GPU would find it.
	scratch, err := ctx.NewBuffer("bench blake3 upload", uint64(largest))
	if err != nil {
		return nil, err
	}
	defer scratch.Release()
	if err := ctx.Upload(buf, 0, data); err != nil {
		return nil, err
	}
	if err := ctx.Download(make([]byte, 4), buf, 0); err != nil {
		return nil, err
	}
	t := table{
		Title: "BLAKE3, whole hash (chunks and tree)",
		Columns: []string{"size", "kernel ms", "kernel GB/s", "host→device ms", "device→host ms", "end-to-end ms", "end-to-end GB/s",
			"V100 (article) kernel / transfer ms", "GPU kernel vs V100", "CPU zeebo/blake3 1 thread ms", "end-to-end vs CPU", "checked"},
		XLabel: "bytes", YLabel: "kernel GB/s", LogX: true,
	}
	for _, n := range sizes {
		cfg.step("blake3 " + sizeName(n))
		want := zeebo.Sum256(data[:n])
		got, _, err := blake3.SumBuffer(ctx, buf, uint64(n), blake3.Options{})
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(got, want[:]) {
			return nil, fmt.Errorf("blake3 of %s on the GPU differs from the CPU", sizeName(n))
		}
		kernel, err := median(cfg.repeats, func() (time.Duration, error) {
			_, tm, err := blake3.SumBuffer(ctx, buf, uint64(n), blake3.Options{})
			if !tm.Measured {
				return tm.Wall, err
			}
			return tm.Kernel, err
		})
		if err != nil {
			return nil, err
		}
		h2d, err := median(cfg.repeats, func() (time.Duration, error) {
			start := time.Now()
			if err := ctx.Upload(scratch, 0, data[:n]); err != nil {
				return 0, err
			}
			// A 4-byte read-back waits for the copies to land.
			err := ctx.Download(make([]byte, 4), scratch, 0)
			return time.Since(start), err
		})
		if err != nil {
			return nil, err
		}
		d2h, err := median(cfg.repeats, func() (time.Duration, error) {
			start := time.Now()
			err := ctx.Download(make([]byte, 32), buf, 0)
			return time.Since(start), err
		})
		if err != nil {
			return nil, err
		}
		e2e, err := median(cfg.repeats, func() (time.Duration, error) {
			start := time.Now()
			_, err := blake3.Sum(ctx, data[:n])
			return time.Since(start), err
		})
		if err != nil {
			return nil, err
		}
		cpu, err := median(min(cfg.repeats, 3), func() (time.Duration, error) {
			start := time.Now()
			zeebo.Sum256(data[:n])
			return time.Since(start), nil
		})
		if err != nil {
			return nil, err
		}
		article, vs := "-", "-"
		if n == 1<<30 {
			article = fmt.Sprintf("%.1f / %.1f", v100BLAKE3Kernel, v100BLAKE3Transfer)
			vs = fmt.Sprintf("%.1f× faster", v100BLAKE3Kernel/(float64(kernel)/1e6))
		}
		t.Rows = append(t.Rows, []string{sizeName(n), ms(kernel), fmt.Sprintf("%.1f", gbps(n, kernel)), ms(h2d), ms(d2h), ms(e2e),
			fmt.Sprintf("%.2f", gbps(n, e2e)), article, vs, ms(cpu), fmt.Sprintf("%.1f×", float64(cpu)/float64(e2e)), "equal to zeebo/blake3"})
		t.Points = append(t.Points, point{X: float64(n), Y: gbps(n, kernel)})
	}
	kind := "GPU timestamps"
	if !ctx.Info().Timestamps {
		kind = "host wall time of the resident hash (this adapter has no timestamp queries)"
	}
	t.Notes = append(t.Notes,
		"kernel: the whole hash of data already on the GPU ("+kind+"), chunk kernel, parent levels and the read-back of the root's inputs. "+
			"host→device: the upload of the input through the staging ring. device→host: reading a 32-byte result. end-to-end: blake3.Sum on host data (upload, hash, read-back). "+
			"V100 (article): 1 GiB of whole chunks, kernel 11.9 ms (about 90 GB/s), transfer 97.6 ms. "+
			"CPU: zeebo/blake3 (SIMD) on one thread of this machine; b3sum with 16 threads did about 27 GB/s on the H200 machine's CPUs.",
		"Each size was checked against the CPU hash once before timing; medians of the repeats after a warm-up.")
	return []table{t}, nil
}
