package merkle_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/algos/rpo"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// mergeCounter is mix, counting its merges: the host's, since the
// kernels merge in WGSL.
type mergeCounter struct {
	mixHash
	merges *atomic.Int64
}

func (h mergeCounter) Merge(a, b [32]byte) [32]byte {
	h.merges.Add(1)
	return h.mixHash.Merge(a, b)
}

// hostCounts are tree sizes on both sides of a host width w: below it,
// at it and above, perfect and not.
func hostCounts(w int) []int {
	counts := []int{w - 1, w, w + 1, 2*w - 1, 2 * w, 2*w + 1, 4 * w, 5*w + 3}
	if w > 2 {
		counts = append(counts, w/2)
	}
	return counts
}

// TestHostWidth builds trees whose top levels the host merges
// (Options.HostWidth), of sizes just below, at and above the width, on
// every backend and under small limits (subtrees of 8 leaves, so that
// the tree of their roots crosses the width too): every node of Build,
// of BuildInto, of a capped Build and its multi-proofs, and Root, equal
// the reference's.
func TestHostWidth(t *testing.T) {
	check := func(t *testing.T, ctx *wgpu.Context, hash merkle.Hash, widths []int) {
		for _, w := range widths {
			all := randomLeaves(hash, 5*w+3, uint64(w))
			for _, n := range hostCounts(w) {
				what := fmt.Sprintf("%s width %d n=%d", hash.Name(), w, n)
				leaves := all[:n]
				levels := refLevels(leaves, hash)
				want := refNodes(levels)
				b, err := merkle.NewBuilder(ctx, hash, merkle.Options{HostWidth: w})
				require.NoError(t, err, what)
				got, err := b.Build(leaves)
				require.NoError(t, err, what)
				require.Equal(t, want, got.Nodes(), what)
				into, err := b.BuildInto(got, all[len(all)-n:])
				require.NoError(t, err, what)
				require.Equal(t, refNodes(refLevels(all[len(all)-n:], hash)), into.Nodes(), what+" BuildInto")
				root, err := b.Root(leaves)
				require.NoError(t, err, what)
				require.Equal(t, want[1], root, what+" Root")
				b.Release()
				for _, h := range []int{1, 2} {
					capped, err := merkle.Build(ctx, leaves, hash, merkle.Options{HostWidth: w, CapHeight: h})
					require.NoError(t, err, what)
					require.Equal(t, want[:len(capped.Nodes())], capped.Nodes(), "%s cap height %d", what, h)
					indices := []int{0, n / 3, n - 1}
					mp, err := capped.MultiProof(indices)
					require.NoError(t, err, what)
					require.True(t, merkle.Verify(hash, mp.Root, mp.Leaves, mp), "%s cap height %d multi-proof", what, h)
					full, err := merkle.Build(nil, leaves, hash, merkle.Options{})
					require.NoError(t, err)
					wantMP, err := full.MultiProof(indices)
					require.NoError(t, err)
					require.Equal(t, wantMP, mp, "%s cap height %d multi-proof", what, h)
				}
			}
		}
	}
	run := func(t *testing.T, ctx *wgpu.Context) {
		check(t, ctx, mixHash{}, []int{2, 4, 16, 64})
		check(t, ctx, blake3.MerkleMerge{}, []int{8})
		check(t, ctx, rescue.MerkleMerge{}, []int{4})
	}
	forEachBackend(t, run)
	for _, backend := range gputest.Backends() {
		t.Run(backend+"/subtrees of 8", func(t *testing.T) {
			run(t, gputest.Limited(t, backend, wgpu.Limits{MaxStorageBindingSize: 256}))
		})
	}
}

// TestHostWidthOnGroup: Build and Root over Groups, each member's
// ranges and the top over their roots crossing the host width, equal the
// reference, as do counts that are not powers of two (built a part at a
// time).
func TestHostWidthOnGroup(t *testing.T) {
	gputest.ForEachGroup(t, func(t *testing.T, g *sched.Group) {
		for _, w := range []int{2, 8} {
			for _, n := range []int{2, 8, 64, 1 << 10, 1000, 77} {
				leaves := randomLeaves(mixHash{}, n, uint64(n))
				want := refNodes(refLevels(leaves, mixHash{}))
				what := fmt.Sprintf("width %d n=%d", w, n)
				var tm wgpu.Timing
				tree, err := merkle.Build(g, leaves, mixHash{}, merkle.Options{HostWidth: w, Timing: &tm})
				require.NoError(t, err, what)
				require.Equal(t, want, tree.Nodes(), what)
				require.NotZero(t, tm.Wall, what)
				root, err := merkle.Root(g, leaves, mixHash{}, merkle.Options{HostWidth: w})
				require.NoError(t, err, what)
				require.Equal(t, want[1], root, what)
			}
		}
	})
}

// TestHostWidthMerges counts the host's merges: with a width of w, a
// perfect tree of more leaves than w has its w-1 top nodes merged on the
// host and the rest on the device, a tree of w leaves or fewer all on
// the host, and with -1 (every level on the device) none; Timing's kernel time is the device's
// levels' alone, and none for a tree the host built.
func TestHostWidthMerges(t *testing.T) {
	leaves := randomLeaves(mixHash{}, 1<<10, 9)
	want := reference(leaves, mixHash{})
	for _, backend := range gputest.Backends() {
		ctx := gputest.Context(t, backend)
		for _, tc := range []struct{ width, n, merges int }{
			{-1, 1 << 10, 0}, {16, 1 << 10, 15}, {2, 1 << 10, 1}, {16, 16, 15}, {16, 8, 7}, {1 << 10, 1 << 10, 1<<10 - 1},
		} {
			what := fmt.Sprintf("%s width %d n=%d", backend, tc.width, tc.n)
			var merges atomic.Int64
			hash := mergeCounter{merges: &merges}
			var tm wgpu.Timing
			tree, err := merkle.Build(ctx, leaves[:tc.n], hash, withTiming(merkle.HostOptions(tc.width), &tm))
			require.NoError(t, err, what)
			requireNodes(t, prefixNodes(want, tc.n), tree, what)
			require.EqualValues(t, tc.merges, merges.Load(), what+": merges on the host")
			require.Equal(t, ctx.Info().Timestamps, tm.Measured, what)
			require.NotZero(t, tm.Wall, what)
			if tc.merges == tc.n-1 {
				require.Zero(t, tm.Kernel, what+": no kernel ran")
			}
			merges.Store(0)
			root, err := merkle.Root(ctx, leaves[:tc.n], hash, merkle.HostOptions(tc.width))
			require.NoError(t, err, what)
			require.Equal(t, want[len(want)/tc.n], root, what)
			require.EqualValues(t, tc.merges, merges.Load(), what+": Root's merges on the host")
		}
	}
}

// TestHostWidthOptions: widths that are not 0 or a power of two from 2
// are refused (-1 too: every level on the device is internal/base/impl's
// "merkle-top" variant "device"), saying what is accepted; the Goldilocks hashes give
// widths merkle takes on any number of cores, BLAKE3 none.
func TestHostWidthOptions(t *testing.T) {
	for _, w := range []int{1, 3, -1, -2, 100} {
		_, err := merkle.NewBuilder(nil, mixHash{}, merkle.Options{HostWidth: w})
		require.ErrorContains(t, err, fmt.Sprintf("HostWidth %d: accepted are 0", w))
	}
	var _ merkle.HostTop = rescue.MerkleMerge{}
	var _ merkle.Tuning = rpo.MerkleMerge{}
	var _ merkle.RowsHash[uint32] = poseidon2.MerkleMerge31{}
	var _ merkle.LevelMerge = poseidon2.MerkleMerge31{}
	_, isHostTop := merkle.Hash(blake3.MerkleMerge{}).(merkle.HostTop)
	require.False(t, isHostTop, "BLAKE3's merges are cheap on both sides: every level on the device")
	for _, h := range []merkle.HostTop{rescue.MerkleMerge{}, rpo.MerkleMerge{}, poseidon2.MerkleMerge{}} {
		for cores := 1; cores <= 256; cores++ {
			w := h.MerkleHostWidth(cores)
			require.True(t, w >= 2 && w&(w-1) == 0, "%T on %d cores: %d", h, cores, w)
		}
		_, err := merkle.NewBuilder(nil, h.(merkle.Hash), merkle.Options{})
		require.NoError(t, err)
	}
	require.Equal(t, 1<<10, rescue.MerkleMerge{}.MerkleHostWidth(32))
	require.Equal(t, 1<<6, rescue.MerkleMerge{}.MerkleHostWidth(2))
}

// countRows is mixRows, counting its merges on the host.
type countRows struct {
	mixRows
	merges *atomic.Int64
}

func (h countRows) Merge(a, b [32]byte) [32]byte {
	h.merges.Add(1)
	return h.mixRows.Merge(a, b)
}

// TestHostWidthCommit: a Committer's trees whose top levels the host
// merges equal the reference's: matrix commitments (whole, under small
// limits so that the top is a tree of subtree roots, and over Groups),
// mixed trees whose host levels hold a change of hash, and commitments
// to matrices of several heights, whose levels with injected rows stay
// on the device. The host merges the top w-1 nodes of a matrix's tree.
func TestHostWidthCommit(t *testing.T) {
	m := randomMatrix(1<<10, 5, 4)
	ms := randomMatrices([][2]int{{256, 3}, {64, 2}, {4, 1}, {2, 2}}, 4)
	mLeaves, mNodes := matrixReference(m, mixRows{})
	msLeaves, msNodes := matricesReference(ms, mixRows{})
	s := schedule(t, "mix:3,rescue:2,mix")
	leaves := randomLeaves(mixHash{}, 1<<10, 4)
	hs, err := s.Levels(len(leaves))
	require.NoError(t, err)
	mixed := mixedReference(leaves, hs)
	run := func(t *testing.T, ctx *wgpu.Context) {
		for _, w := range []int{2, 8, 64} {
			what := fmt.Sprintf("width %d", w)
			o := merkle.Options{HostWidth: w}
			got, err := merkle.CommitMatrix(ctx, m, mixRows{}, o)
			require.NoError(t, err, what)
			requireLeaves(t, mLeaves, got, what)
			requireNodes(t, mNodes, got, what)
			for _, rows := range []int{w / 2, w, 2 * w} {
				if rows < 2 {
					continue
				}
				sub := merkle.Matrix[uint64]{Rows: rows, Cols: m.Cols, Data: m.Data[:rows*m.Cols]}
				got, err := merkle.CommitMatrix(ctx, sub, mixRows{}, o)
				require.NoError(t, err, what)
				requireNodes(t, reference(mLeaves[:rows], mixRows{}), got, fmt.Sprintf("%s, %d rows", what, rows))
			}
			tree, err := merkle.Build(ctx, leaves, nil, withSchedule(o, s))
			require.NoError(t, err, what)
			requireNodes(t, mixed, tree, what+" mixed")
			got, err = merkle.CommitMatrices(ctx, ms, mixRows{}, o)
			require.NoError(t, err, what)
			requireLeaves(t, msLeaves, got, what)
			requireNodes(t, msNodes, got, what+" matrices")
		}
	}
	for _, backend := range gputest.Backends() {
		t.Run(backend, func(t *testing.T) {
			run(t, gputest.Context(t, backend))
			run(t, gputest.Limited(t, backend, wgpu.Limits{MaxStorageBindingSize: 256}))
			var merges atomic.Int64
			hash := countRows{merges: &merges}
			got, err := merkle.CommitMatrix(gputest.Context(t, backend), m, hash, merkle.Options{HostWidth: 16})
			require.NoError(t, err)
			requireNodes(t, mNodes, got, "counted")
			require.EqualValues(t, 15, merges.Load(), "merges on the host")
		})
	}
	gputest.ForEachGroup(t, func(t *testing.T, g *sched.Group) {
		for _, w := range []int{2, 8} {
			got, err := merkle.CommitMatrix(g, m, mixRows{}, merkle.Options{HostWidth: w})
			require.NoError(t, err)
			requireNodes(t, mNodes, got, fmt.Sprintf("width %d on a Group", w))
			got, err = merkle.CommitMatrices(g, ms, mixRows{}, merkle.Options{HostWidth: w})
			require.NoError(t, err)
			requireNodes(t, msNodes, got, fmt.Sprintf("width %d, matrices on a Group", w))
		}
	})
}

// withTiming returns o with Timing t.
func withTiming(o merkle.Options, t *wgpu.Timing) merkle.Options {
	o.Timing = t
	return o
}
