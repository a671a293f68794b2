package rescue

import (
	"testing"

	"github.com/wgcompute/wgcompute/internal/gputest"
	"github.com/wgcompute/wgcompute/wgpu"
)

func TestNoLeaks(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		gputest.NoLeaks(t, ctx, func() error {
			return MergeMany(ctx, make([][4]uint64, 101), make([][8]uint64, 101))
		})
		gputest.NoLeaks(t, ctx, func() error {
			return HashElementsMany(ctx, make([][4]uint64, 7), make([]uint64, 7*13), 13)
		})
		gputest.NoLeaks(t, ctx, func() error {
			return PermuteMany(ctx, make([][12]uint64, 5))
		})
		gputest.NoLeaks(t, ctx, func() error { // an element >= p is rejected
			pairs := make([][8]uint64, 3)
			pairs[2][5] = P
			return MergeMany(ctx, make([][4]uint64, 3), pairs)
		})
	})
}
