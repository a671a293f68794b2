package blake3

import (
	"bytes"
	"testing"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

func TestNoLeaks(t *testing.T) {
	data := randomBytes(9, 300_001)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		gputest.NoLeaks(t, ctx, func() error {
			_, err := Sum(ctx, data[:5000])
			return err
		})
		gputest.NoLeaks(t, ctx, func() error {
			_, err := SumReader(ctx, bytes.NewReader(data), Options{Length: 77})
			return err
		})
		gputest.NoLeaks(t, ctx, func() error {
			return MergeMany(ctx, make([][32]byte, 33), make([][64]byte, 33), Options{})
		})
		gputest.NoLeaks(t, ctx, func() error { // an error path
			return MergeMany(ctx, make([][32]byte, 3), make([][64]byte, 4), Options{})
		})
	})
}
