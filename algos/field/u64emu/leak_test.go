package u64emu

import (
	"testing"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

func TestNoLeaks(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		a := make([]uint64, 1001)
		for i := range a {
			a[i] = uint64(i) * 0x9e3779b97f4a7c15 % P
		}
		gputest.NoLeaks(t, ctx, func() error { return MulTo(ctx, make([]uint64, len(a)), a, a) })
		gputest.NoLeaks(t, ctx, func() error { return InvPow7To(ctx, make([]uint64, len(a)), a) })
		gputest.NoLeaks(t, ctx, func() error { // an input >= p is rejected
			b := append([]uint64(nil), a...)
			b[500] = P
			return MulTo(ctx, make([]uint64, len(a)), a, b)
		})
	})
}
