package main

import (
	"bytes"
	"fmt"
	"time"

	"github.com/wgcompute/wgcompute/wgpu"
)

func init() {
	registerSuite(suite{name: "transfer", about: "host-device bandwidth through the staging ring", run: benchTransfer})
}

// benchTransfer measures Upload and Download of 64 MiB to 1 GiB. An upload
// is timed until the GPU has the data (a tiny Clear after it waits for the
// queue), not only until Upload returns.
func benchTransfer(ctx *wgpu.Context, cfg *benchConfig) ([]table, error) {
	sizes := []int64{64 << 20, 128 << 20, 256 << 20, 512 << 20, 1 << 30}
	if cfg.quick {
		sizes = []int64{16 << 20, 64 << 20}
	}
	t := table{
		Title:   "Host-device transfer",
		Columns: []string{"size", "host→device ms", "host→device GB/s", "device→host ms", "device→host GB/s", "checked"},
		XLabel:  "bytes", YLabel: "host→device GB/s", LogX: true,
	}
	for _, n := range sizes {
		cfg.step(fmt.Sprintf("transfer %s", sizeName(n)))
		host := make([]byte, n)
		for i := range host {
			host[i] = byte(i*131 + i>>12)
		}
		dev, err := ctx.NewBuffer("bench transfer", uint64(n))
		if err != nil {
			return nil, err
		}
		check := make([]byte, n)
		err = ctx.Upload(dev, 0, host)
		if err == nil {
			err = ctx.Download(check, dev, 0)
		}
		if err == nil && !bytes.Equal(check, host) {
			err = fmt.Errorf("round trip of %s changed the data", sizeName(n))
		}
		var up, down time.Duration
		if err == nil {
			up, err = median(cfg.repeats, func() (time.Duration, error) {
				start := time.Now()
				if err := ctx.Upload(dev, 0, host); err != nil {
					return 0, err
				}
				if err := ctx.Clear(dev, 0, 4); err != nil {
					return 0, err
				}
				return time.Since(start), nil
			})
		}
		if err == nil {
			down, err = median(cfg.repeats, func() (time.Duration, error) {
				start := time.Now()
				err := ctx.Download(check, dev, 0)
				return time.Since(start), err
			})
		}
		dev.Release()
		if err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, []string{sizeName(n), ms(up), fmt.Sprintf("%.2f", gbps(n, up)), ms(down), fmt.Sprintf("%.2f", gbps(n, down)), "round trip equal"})
		t.Points = append(t.Points, point{float64(n), gbps(n, up)})
	}
	return []table{t}, nil
}
