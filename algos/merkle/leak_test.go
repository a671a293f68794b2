package merkle

import (
	"testing"

	"github.com/wgcompute/wgcompute/internal/gputest"
	"github.com/wgcompute/wgcompute/wgpu"
)

func TestNoLeaks(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, h := range Hashes {
			for _, a := range []int{LevelPerDispatch, WorkgroupLevels, Subtrees} {
				gputest.NoLeaks(t, ctx, func() error {
					_, err := Build(ctx, make([][32]byte, 64), h, Options{Approach: a, MaxSubtreeLeaves: 16})
					return err
				})
			}
		}
		gputest.NoLeaks(t, ctx, func() error { // a non-canonical Rescue leaf
			leaves := make([][32]byte, 8)
			for i := range leaves[3] {
				leaves[3][i] = 0xff
			}
			_, err := Build(ctx, leaves, Rescue, Options{})
			return err
		})
	})
}
