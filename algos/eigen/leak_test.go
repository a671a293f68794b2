package eigen

import (
	"testing"

	"github.com/wgcompute/wgcompute/internal/gputest"
	"github.com/wgcompute/wgcompute/wgpu"
)

func TestNoLeaks(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		gputest.NoLeaks(t, ctx, func() error {
			_, err := MaxEigen(ctx, Hilbert(37), 37, Options{})
			return err
		})
		gputest.NoLeaks(t, ctx, func() error { // a zero entry is rejected
			m := Hilbert(5)
			m[7] = 0
			_, err := MaxEigen(ctx, m, 5, Options{})
			return err
		})
	})
}
