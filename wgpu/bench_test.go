package wgpu_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

var transferSizes = []int{64 << 20, 256 << 20, 1 << 30}

func benchTransfer(b *testing.B, up bool) {
	ctx := gputest.Context(b, gputest.Backends()[0])
	for _, n := range transferSizes {
		b.Run(fmt.Sprintf("%dMiB", n>>20), func(b *testing.B) {
			host := make([]byte, n)
			for i := range host {
				host[i] = byte(i)
			}
			dev, err := ctx.NewBuffer("bench", uint64(n))
			if err != nil {
				b.Fatal(err)
			}
			defer dev.Release()
			b.SetBytes(int64(n))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if up {
					err = ctx.Upload(dev, 0, host)
					if err == nil {
						// Upload returns once host memory may be reused; wait for
						// the copy itself so the time is the full transfer.
						err = ctx.Clear(dev, 0, 4)
					}
				} else {
					err = ctx.Download(host, dev, 0)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkUpload measures host-to-device bandwidth through the staging ring.
func BenchmarkUpload(b *testing.B) { benchTransfer(b, true) }

// BenchmarkDownload measures device-to-host bandwidth through the staging ring.
func BenchmarkDownload(b *testing.B) { benchTransfer(b, false) }

// BenchmarkUploadFrom measures a file read straight into staging memory.
func BenchmarkUploadFrom(b *testing.B) {
	ctx := gputest.Context(b, gputest.Backends()[0])
	n := 256 << 20
	f, err := os.CreateTemp(b.TempDir(), "upload")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(make([]byte, n)); err != nil {
		b.Fatal(err)
	}
	dev, err := ctx.NewBuffer("bench", uint64(n))
	if err != nil {
		b.Fatal(err)
	}
	defer dev.Release()
	b.SetBytes(int64(n))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := f.Seek(0, 0); err != nil {
			b.Fatal(err)
		}
		if err := ctx.UploadFrom(dev, 0, f, int64(n)); err != nil {
			b.Fatal(err)
		}
		if err := ctx.Clear(dev, 0, 4); err != nil {
			b.Fatal(err)
		}
	}
}
