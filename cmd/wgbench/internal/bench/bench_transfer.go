package bench

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/wgcompute/wgcompute/cmd/internal/bytesize"
	"github.com/wgcompute/wgcompute/cmd/internal/results"
	"github.com/wgcompute/wgcompute/wgpu"
)

// benchTransfer measures Upload and Download of 64 MiB to 1 GiB. An upload
// is timed until the GPU has the data (a tiny Clear after it waits for the
// queue), not only until Upload returns.
func benchTransfer(ctx *wgpu.Context, cfg *benchConfig) ([]results.Table, error) {
	sizes := []int64{64 << 20, 128 << 20, 256 << 20, 512 << 20, 1 << 30}
	if cfg.quick {
		sizes = []int64{16 << 20, 64 << 20}
	}
	t := results.Table{
		Title:   "Host-device transfer",
		Columns: []string{"size", "host→device ms", "host→device GB/s", "device→host ms", "device→host GB/s", "file→device GB/s", "checked"},
		Axes:    results.Axes{XLabel: "bytes", YLabel: "host→device GB/s", LogX: true},
	}
	for _, n := range sizes {
		cfg.step(fmt.Sprintf("transfer %s", bytesize.Format(n)))
		up, down, file, err := transferSize(ctx, cfg, n)
		if err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, []string{bytesize.Format(n), ms(up), fmt.Sprintf("%.2f", gbps(n, up)), ms(down), fmt.Sprintf("%.2f", gbps(n, down)),
			fmt.Sprintf("%.2f", gbps(n, file)), "round trips equal"})
		t.Points = append(t.Points, results.Point{X: float64(n), Y: gbps(n, up)})
	}
	t.Notes = append(t.Notes, "file→device reads a file in the page cache straight into mapped staging memory (UploadFrom, parallel ReadAt).")
	return []results.Table{t}, nil
}

// transferSize checks a round trip of n bytes and times the upload, the
// download and the upload from a file.
func transferSize(ctx *wgpu.Context, cfg *benchConfig, n int64) (up, down, file time.Duration, err error) {
	host := make([]byte, n)
	for i := range host {
		host[i] = byte(i*131 + i>>12)
	}
	dev, err := ctx.NewBuffer("bench transfer", uint64(n))
	if err != nil {
		return 0, 0, 0, err
	}
	defer dev.Release()
	check := make([]byte, n)
	if err := ctx.Upload(dev, 0, host); err != nil {
		return 0, 0, 0, err
	}
	if err := ctx.Download(check, dev, 0); err != nil {
		return 0, 0, 0, err
	}
	if !bytes.Equal(check, host) {
		return 0, 0, 0, fmt.Errorf("round trip of %s changed the data", bytesize.Format(n))
	}
	up, err = cfg.wallTime(func() error {
		if err := ctx.Upload(dev, 0, host); err != nil {
			return err
		}
		return ctx.Clear(dev, 0, 4)
	})
	if err != nil {
		return 0, 0, 0, err
	}
	down, err = cfg.wallTime(func() error { return ctx.Download(check, dev, 0) })
	if err != nil {
		return 0, 0, 0, err
	}
	file, err = timeUploadFrom(ctx, cfg, dev, host, check)
	return up, down, file, err
}

// timeUploadFrom writes host to a temporary file, checks that UploadFrom
// brings it to dev intact, and times it.
func timeUploadFrom(ctx *wgpu.Context, cfg *benchConfig, dev *wgpu.Buffer, host, check []byte) (time.Duration, error) {
	f, err := os.CreateTemp("", "wgbench-transfer-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if _, err := f.Write(host); err != nil {
		return 0, err
	}
	if err := ctx.Clear(dev, 0, 0); err != nil {
		return 0, err
	}
	run := func() (time.Duration, error) {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return 0, err
		}
		start := time.Now()
		if err := ctx.UploadFrom(dev, 0, f, int64(len(host))); err != nil {
			return 0, err
		}
		if err := ctx.Clear(dev, 0, 4); err != nil {
			return 0, err
		}
		return time.Since(start), nil
	}
	if _, err := run(); err != nil {
		return 0, err
	}
	if err := ctx.Download(check, dev, 0); err != nil {
		return 0, err
	}
	if !bytes.Equal(check[4:], host[4:]) {
		return 0, fmt.Errorf("file upload of %s changed the data", bytesize.Format(int64(len(host))))
	}
	return cfg.median(run)
}
