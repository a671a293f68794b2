package merkle_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// TestCommitterOneHash: a Committer of one hash, given as
// Options.Committer to Build and Root and called through BuildInto and
// BuildBuffers, builds the reference's nodes at odd sizes; a mixed
// schedule's Committer refuses the calls of one hash; a Group of several
// is refused.
func TestCommitterOneHash(t *testing.T) {
	check := func(t *testing.T, ctx *wgpu.Context) {
		c, err := merkle.NewCommitter(ctx, merkle.Schedule{{Hash: mixHash{}}}, merkle.Options{})
		require.NoError(t, err)
		defer c.Release()
		var into *merkle.Tree
		for _, n := range []int{1, 2, 7, 64, 1000} {
			leaves := randomLeaves(mixHash{}, n, uint64(n))
			want := refNodes(refLevels(leaves, mixHash{}))
			got, err := merkle.Build(ctx, leaves, nil, merkle.Options{Committer: c})
			require.NoError(t, err)
			requireNodes(t, want, got, "Build")
			root, err := merkle.Root(ctx, leaves, nil, merkle.Options{Committer: c})
			require.NoError(t, err)
			require.Equal(t, want[1], root, "Root")
			into, err = c.BuildInto(into, leaves)
			require.NoError(t, err)
			requireNodes(t, want, into, "BuildInto")
		}
		if ctx == nil {
			require.Zero(t, c.SubtreeLeaves())
		} else {
			require.Positive(t, c.SubtreeLeaves())
		}

		mixed, err := merkle.NewCommitter(ctx, schedule(t, "blake3:2,rescue"), merkle.Options{})
		require.NoError(t, err)
		defer mixed.Release()
		_, err = mixed.BuildInto(nil, randomLeaves(blake3.MerkleMerge{}, 8, 1))
		require.ErrorContains(t, err, "BuildInto builds trees of one hash")
		require.ErrorContains(t, mixed.BuildBuffers(nil, nil, 8), "BuildBuffers builds trees of one hash")
		leaves := randomLeaves(blake3.MerkleMerge{}, 16, 2)
		tree, err := merkle.Build(ctx, leaves, nil, merkle.Options{Schedule: schedule(t, "blake3:2,rescue")})
		require.NoError(t, err)
		root, err := merkle.Root(ctx, leaves, nil, merkle.Options{Committer: mixed})
		require.NoError(t, err)
		require.Equal(t, tree.Root(), root, "Root of a mixed Committer")
		root, err = merkle.Root(ctx, leaves, nil, merkle.Options{Schedule: schedule(t, "blake3:2,rescue")})
		require.NoError(t, err)
		require.Equal(t, tree.Root(), root, "Root of a schedule")
		_, err = merkle.Build(ctx, leaves, blake3.MerkleMerge{}, merkle.Options{Schedule: schedule(t, "blake3:2,rescue")})
		require.ErrorContains(t, err, "the schedule names every level's hash, give it alone")
	}
	check(t, nil)
	gputest.ForEach(t, check)

	two, err := sched.NewGroup(nil, nil)
	require.NoError(t, err)
	_, err = merkle.NewCommitter(two, merkle.Schedule{{Hash: mixHash{}}}, merkle.Options{})
	require.ErrorContains(t, err, "a Committer runs on one device")
	_, err = merkle.NewCommitter(nil, merkle.Schedule{{Hash: mixHash{}}}, merkle.Options{Committer: &merkle.Committer{}})
	require.ErrorContains(t, err, "Options.Committer is set")
}
