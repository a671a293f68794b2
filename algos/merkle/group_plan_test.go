package merkle_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/internal/base/trace"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// TestDealOnGroups builds trees and commitments on Groups of 3, 5, 6 and
// 7 alike devices (one software adapter, every other member with
// SmallLimits, whose subtrees are 2048 leaves at most), dealt as a few
// subtrees of different sizes a member: sizes where the shares are even
// (512 and 4096 leaves), one where they cannot be (64), matrices merged
// into the levels inside the coarser subtrees, above the finest ranges
// and at the root. Every node, leaf, root and proof equals the one-device
// result.
func TestDealOnGroups(t *testing.T) {
	ms := randomMatrices([][2]int{{4096, 3}, {512, 2}, {16, 5}, {4, 2}, {1, 3}}, 21)
	leaves, nodes := matricesReference(ms, mixRows{})
	bb := poseidon2.BabyBearMerkle
	for _, b := range gputest.Backends() {
		for _, k := range []int{3, 5, 6, 7} {
			t.Run(fmt.Sprintf("%s/%d", b, k), func(t *testing.T) {
				members := make([]*wgpu.Context, k)
				for i := range members {
					members[i] = gputest.Context(t, b)
					if i%2 == 1 {
						members[i] = gputest.Limited(t, b, gputest.SmallLimits)
					}
				}
				g, err := sched.NewGroup(members...)
				require.NoError(t, err)
				require.True(t, g.Alike())
				g = g.SplitAll()
				ctx := members[0]
				for _, hash := range []merkle.Hash{mixHash{}, blake3.MerkleMerge{}} {
					for _, n := range []int{64, 512, 4096} {
						what := fmt.Sprintf("%s, %d leaves", hash.Name(), n)
						ls := randomLeaves(hash, n, uint64(n+k))
						want, err := merkle.Build(ctx, ls, hash, merkle.Options{})
						require.NoError(t, err, what)
						tree, err := merkle.Build(g, ls, hash, merkle.Options{})
						require.NoError(t, err, what)
						requireNodes(t, want.Nodes(), tree, what)
						root, err := merkle.Root(g, ls, hash, merkle.Options{})
						require.NoError(t, err, what)
						require.Equal(t, want.Root(), root, what)
					}
				}
				got, err := merkle.CommitMatrices(g, ms, mixRows{}, merkle.Options{})
				require.NoError(t, err)
				requireLeaves(t, leaves, got, "matrices")
				requireNodes(t, nodes, got, "matrices")
				for _, rows := range []int{64, 2048} {
					m := randomMatrix31(rows, 9, bb, uint64(rows+k))
					what := fmt.Sprintf("babybear %dx9", rows)
					want, err := merkle.CommitMatrix(ctx, m, bb, merkle.Options{})
					require.NoError(t, err, what)
					got, err := merkle.CommitMatrix(g, m, bb, merkle.Options{})
					require.NoError(t, err, what)
					requireSameTree(t, want, got, what)
				}
				// An element out of the field in a member's second subtree
				// is named as the one-device form names it.
				bad := randomMatrix(4096, 3, 5)
				bad.Data[3001*3+1] = 1<<64 - 1
				_, err = merkle.CommitMatrix(g, bad, mixRows{}, merkle.Options{})
				require.ErrorContains(t, err, "matrix element 9004 (row 3001, column 1)")
				for _, c := range members {
					require.Zero(t, c.LiveBuffers())
				}
			})
		}
	}
}

// downloads returns the read-backs recorded in the process's trace so
// far.
func downloads() int {
	for _, r := range trace.Rows() {
		if r.Phase == "download" {
			return r.Count
		}
	}
	return 0
}

// TestCommitReadBacks counts the read-backs of a commitment of 2^15 rows
// split over 2, 3 and 4 alike devices: each device's ranges read their
// leaves and nodes back, a few downloads a range, so a deal of many
// ranges a device multiplies them. A device of three, dealt three
// ranges, makes at most twice the read-backs of a device of two, dealt
// one (a deal of 5, 5 and 6 equal ranges made about two and a half times
// as many: 33 against 9 in all), and a device of four, one range each, no
// more than a device of two.
func TestCommitReadBacks(t *testing.T) {
	ctx := gputest.Context(t, gputest.Backends()[0])
	m := randomMatrix31(1<<15, 8, poseidon2.BabyBearMerkle, 3)
	want, err := merkle.CommitMatrix(ctx, m, poseidon2.BabyBearMerkle, merkle.Options{})
	require.NoError(t, err)
	wasOn := trace.On()
	trace.Enable(true)
	defer trace.Enable(wasOn)
	count := map[int]int{}
	for _, k := range []int{2, 3, 4} {
		members := make([]*wgpu.Context, k)
		for i := range members {
			members[i] = ctx
		}
		g, err := sched.NewGroup(members...)
		require.NoError(t, err)
		before := downloads()
		got, err := merkle.CommitMatrix(g.SplitAll(), m, poseidon2.BabyBearMerkle, merkle.Options{})
		require.NoError(t, err)
		count[k] = downloads() - before
		requireSameTree(t, want, got, fmt.Sprintf("%d devices", k))
	}
	t.Logf("read-backs of a commitment on 2, 3 and 4 devices: %d, %d, %d", count[2], count[3], count[4])
	perDevice := func(k int) float64 { return float64(count[k]) / float64(k) }
	require.LessOrEqual(t, perDevice(3), 2*perDevice(2), "read-backs a device on three devices against two")
	require.LessOrEqual(t, perDevice(4), perDevice(2), "read-backs a device on four devices against two")
}
