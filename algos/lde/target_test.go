package lde_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/lde"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// TestTarget: a commitment runs on one device. A Group of one is its
// member and a nil Group the CPU, each giving the composed oracle's tree;
// a Group of several is refused, naming its size, by Commit, Root and
// NewCommitter alike.
func TestTarget(t *testing.T) {
	hash := merkle.RowHash[uint32](poseidon2.KoalaBearMerkle)
	o := lde.Plonky3(2)
	m := randomMatrix(16, 5, hash.Modulus(), 41)
	want := composed(t, field.KoalaBear, m, hash, o)
	check := func(t *testing.T, tg wgpu.Target) {
		got, err := lde.Commit(tg, m, hash, lde.Options{Extend: o})
		require.NoError(t, err)
		require.Equal(t, want.Nodes(), got.Nodes())
		root, err := lde.Root(tg, m, hash, lde.Options{Extend: o})
		require.NoError(t, err)
		require.Equal(t, want.Root(), root)
	}
	var noGroup *sched.Group
	check(t, noGroup)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		one, err := sched.NewGroup(ctx)
		require.NoError(t, err)
		check(t, one)

		two, err := sched.NewGroup(ctx, ctx)
		require.NoError(t, err)
		_, err = lde.Commit(two, m, hash, lde.Options{Extend: o})
		require.EqualError(t, err, "lde: a Committer runs on one device: give a Context, a Group of one or nil (the CPU), not a Group of 2")
		_, err = lde.Root(two, m, hash, lde.Options{Extend: o})
		require.ErrorContains(t, err, "lde: a Committer runs on one device")
		_, err = lde.NewCommitter(two, hash, lde.Options{Extend: o})
		require.ErrorContains(t, err, "lde: a Committer runs on one device")
	})
}
