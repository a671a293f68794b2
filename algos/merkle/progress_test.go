package merkle_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// TestProgress checks that a long build reports its merges as it goes,
// on the CPU, on a device whose subtrees hold few leaves and on Groups,
// with the same tree as without Progress, and that an error from
// Progress stops the build with that error.
func TestProgress(t *testing.T) {
	hash := blake3.MerkleMerge{}
	leaves := randomLeaves(hash, 1<<16, 21)
	want, err := merkle.Build(nil, leaves, hash, merkle.Options{})
	require.NoError(t, err)
	check := func(t *testing.T, build func(opts merkle.Options) (*merkle.Tree, error)) {
		var done, totals []int
		tree, err := build(merkle.Options{Progress: func(d, total int) error {
			done, totals = append(done, d), append(totals, total)
			return nil
		}})
		require.NoError(t, err)
		require.Equal(t, want.Nodes(), tree.Nodes())
		require.Greater(t, len(done), 1, "a report as each piece ends")
		require.True(t, slices.IsSorted(done), "%v", done)
		require.Positive(t, done[0])
		require.LessOrEqual(t, done[len(done)-1], len(leaves)-1)
		for _, total := range totals {
			require.Equal(t, len(leaves)-1, total, "the merges of a tree of N leaves")
		}
		stop := errors.New("stop here")
		calls := 0
		_, err = build(merkle.Options{Progress: func(int, int) error { calls++; return stop }})
		require.ErrorIs(t, err, stop)
		require.Equal(t, 1, calls, "no report after the one that stopped the build")
	}
	t.Run("cpu", func(t *testing.T) {
		check(t, func(o merkle.Options) (*merkle.Tree, error) { return merkle.Build(nil, leaves, hash, o) })
	})
	gputest.ForEachSmall(t, func(t *testing.T, ctx *wgpu.Context) {
		check(t, func(o merkle.Options) (*merkle.Tree, error) { return merkle.Build(ctx, leaves, hash, o) })
	})
	gputest.ForEachGroup(t, func(t *testing.T, g *sched.Group) {
		check(t, func(o merkle.Options) (*merkle.Tree, error) { return merkle.Build(g, leaves, hash, o) })
	})
}
