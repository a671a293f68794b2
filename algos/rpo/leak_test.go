package rpo

import (
	"testing"

	"github.com/wgcompute/wgcompute/internal/gputest"
	"github.com/wgcompute/wgcompute/wgpu"
)

func TestNoLeaks(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		gputest.NoLeaks(t, ctx, func() error {
			return MergeMany(ctx, make([][4]uint64, 101), make([][8]uint64, 101), Options{})
		})
		gputest.NoLeaks(t, ctx, func() error {
			return HashElementsMany(ctx, make([][4]uint64, 7), make([]uint64, 7*13), 13, Options{})
		})
		gputest.NoLeaks(t, ctx, func() error {
			return PermuteMany(ctx, make([][12]uint64, 5), Options{})
		})
		gputest.NoLeaks(t, ctx, func() error { // an element >= p is rejected
			pairs := make([][8]uint64, 3)
			pairs[2][5] = P
			return MergeMany(ctx, make([][4]uint64, 3), pairs, Options{})
		})
		gputest.NoLeaks(t, ctx, func() error { // a resident Batcher, released
			b, err := NewBatcher(ctx, Options{})
			if err != nil {
				return err
			}
			defer b.Release()
			if err := b.HashElementsMany(make([][4]uint64, 9), make([]uint64, 9*17), 17); err != nil {
				return err
			}
			return b.MergeMany(make([][4]uint64, 9), make([][8]uint64, 9))
		})
	})
}
