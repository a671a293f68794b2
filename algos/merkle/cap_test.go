package merkle_test

import (
	"fmt"
	"math/bits"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// capSize is the number of nodes a tree of the levels keeps with cap
// height h: node 0, and levels depth-h to depth, or every node when that
// would reach level 1.
func capSize(levels [][][32]byte, h int) (size, capLevel int) {
	depth := len(levels) - 1
	k := depth - h
	if h <= 0 || k <= 1 {
		return len(refNodes(levels)), 0
	}
	size = 1
	for j := k; j <= depth; j++ {
		size += len(levels[j])
	}
	return size, k
}

// TestCap builds capped trees of counts that are and are not powers of
// two, at every cap height, on the CPU and every backend (under small
// limits, trees of more than one subtree): the nodes kept are the full
// tree's first ones, every subtree rebuilds to the full tree's, and the
// proofs, multi-proofs and pruned paths equal the full tree's.
func TestCap(t *testing.T) {
	for _, hash := range []merkle.Hash{mixHash{}, blake3.MerkleMerge{}, rescue.MerkleMerge{}} {
		counts := []int{2, 3, 8, 13, 100, 1024, 1025, 4097, 6145}
		if hash.Name() == "rescue" {
			counts = []int{13, 100}
		}
		all := randomLeaves(hash, counts[len(counts)-1], 11)
		t.Run(hash.Name(), func(t *testing.T) {
			forEachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
				for _, n := range counts {
					leaves := all[:n]
					levels := refLevels(leaves, hash)
					full := refNodes(levels)
					fullTree, err := merkle.Build(nil, leaves, hash, merkle.Options{})
					require.NoError(t, err)
					depth := len(levels) - 1
					heights := []int{1, 2, 3, depth - 2, depth - 1, depth, 64}
					b, err := merkle.NewBuilder(ctx, hash, merkle.Options{CapHeight: 1})
					require.NoError(t, err)
					var into *merkle.Tree
					for _, h := range heights {
						if h < 1 {
							continue
						}
						what := fmt.Sprintf("%s n=%d cap height %d", hash.Name(), n, h)
						size, k := capSize(levels, h)
						var tm wgpu.Timing
						tree, err := merkle.Build(ctx, leaves, hash, merkle.Options{CapHeight: h, Timing: &tm})
						require.NoError(t, err, what)
						require.Equal(t, full[:size], tree.Nodes(), what)
						require.Equal(t, full[1], tree.Root(), what)
						if k == 0 {
							require.Zero(t, tree.CapLeaves(), what)
							_, err := tree.Subtree(ctx, 0, merkle.Options{})
							require.ErrorContains(t, err, "keeps every node", what)
							continue
						}
						require.Equal(t, 1<<k, tree.CapLeaves(), what)
						require.Equal(t, levels[k], tree.Nodes()[size-len(levels[k]):], "%s: the cap ends the nodes", what)
						if ctx != nil && ctx.Info().Timestamps {
							require.True(t, tm.Measured, what)
						}
						// Every subtree rebuilds to the full tree's nodes over its
						// leaves, whose root is its node of the cap.
						caps := len(levels[k])
						for _, s := range []int{0, caps / 2, caps - 1} {
							sub, err := tree.Subtree(ctx, s, merkle.Options{})
							require.NoError(t, err, what)
							lo, hi := s<<k, min(n, (s+1)<<k)
							require.Equal(t, refNodes(refLevels(leaves[lo:hi], hash)), sub.Nodes(), "%s subtree %d", what, s)
							require.Equal(t, levels[k][s], sub.Root())
						}
						for _, s := range []int{-1, caps} {
							_, err := tree.Subtree(ctx, s, merkle.Options{})
							require.ErrorContains(t, err, fmt.Sprintf("the cap has subtrees 0..%d", caps-1), what)
						}
						for _, i := range []int{0, n / 3, n - 1} {
							p, err := tree.Proof(i)
							require.NoError(t, err, what)
							want, err := fullTree.Proof(i)
							require.NoError(t, err)
							require.Equal(t, want, p, "%s leaf %d", what, i)
						}
						set := []int{n - 1, 0, n / 2, n / 2, min(n-1, 1<<k)}
						mp, err := tree.MultiProof(set)
						require.NoError(t, err, what)
						want, err := fullTree.MultiProof(set)
						require.NoError(t, err)
						require.Equal(t, want, mp, what)
						pp, err := tree.PrunedProof(set)
						require.NoError(t, err, what)
						wantP, err := fullTree.PrunedProof(set)
						require.NoError(t, err)
						require.Equal(t, wantP, pp, what)

						// A Builder keeps the cap from tree to tree.
						if h == 1 {
							into, err = b.BuildInto(into, leaves)
							require.NoError(t, err, what)
							require.Equal(t, full[:size], into.Nodes(), what)
							p, err := into.Proof(n - 1)
							require.NoError(t, err)
							require.True(t, merkle.Verify(hash, full[1], n, p))
						}
					}
					b.Release()
				}
			})
		})
	}
}

// TestCapMemory: a capped build allocates a small part of what the full
// tree takes, on the CPU and on the GPU. 2^16 leaves with cap height 6:
// 2 MiB of nodes against 4 KiB kept, with 64 subtrees of 1024 leaves. The
// CPU builds one subtree per core at a time, in a scratch of half its
// nodes (16 KiB) that each core keeps: the bound is 1/16 of the full
// tree, plus that scratch per core (up to the 64 subtrees), so it holds on
// 2 cores and on 32 (where it is 640 KiB, under a third of the full tree).
func TestCapMemory(t *testing.T) {
	const n = 1 << 16
	leaves := randomLeaves(mixHash{}, n, 1)
	allocated := func(fn func()) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		fn()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	check := func(t *testing.T, ctx *wgpu.Context) {
		for _, o := range []merkle.Options{{}, {CapHeight: 6}} {
			_, err := merkle.Build(ctx, leaves, mixHash{}, o) // compile and pool first
			require.NoError(t, err)
		}
		var full, capped *merkle.Tree
		fullBytes := allocated(func() {
			var err error
			full, err = merkle.Build(ctx, leaves, mixHash{}, merkle.Options{})
			require.NoError(t, err)
		})
		cappedBytes := allocated(func() {
			var err error
			capped, err = merkle.Build(ctx, leaves, mixHash{}, merkle.Options{CapHeight: 6})
			require.NoError(t, err)
		})
		require.Len(t, capped.Nodes(), 128)
		require.Equal(t, full.Nodes()[:128], capped.Nodes())
		t.Logf("%d leaves: the full build allocated %d bytes, the capped %d", n, fullBytes, cappedBytes)
		require.GreaterOrEqual(t, fullBytes, uint64(n*merkle.DigestSize))
		scratch := uint64(min(runtime.GOMAXPROCS(0), 64) * 512 * merkle.DigestSize)
		require.Less(t, cappedBytes, uint64(n*merkle.DigestSize/16)+scratch, "GOMAXPROCS %d", runtime.GOMAXPROCS(0))
		// A proof rebuilds one subtree: 1024 leaves' nodes.
		proofBytes := allocated(func() {
			_, err := capped.Proof(12345)
			require.NoError(t, err)
		})
		require.Less(t, proofBytes, uint64(n*merkle.DigestSize/8))
	}
	t.Run("cpu", func(t *testing.T) { check(t, nil) })
	gputest.ForEach(t, check)
}

// TestCapBadInput: heights below 0 are refused, and a build on a Group of
// several devices does not take a cap.
func TestCapBadInput(t *testing.T) {
	leaves := randomLeaves(mixHash{}, 8, 1)
	_, err := merkle.Build(nil, leaves, mixHash{}, merkle.Options{CapHeight: -2})
	require.ErrorContains(t, err, "CapHeight -2: accepted are 0 (keep every node) or a height above 0")
	g, err := sched.NewGroup(nil, nil)
	require.NoError(t, err)
	_, err = merkle.Build(g, leaves, mixHash{}, merkle.Options{CapHeight: 2})
	require.ErrorContains(t, err, "CapHeight 2 on a Group: a capped tree is built on one device")
	// The root alone does not mind a cap.
	root, err := merkle.Root(g, leaves, mixHash{}, merkle.Options{CapHeight: 2})
	require.NoError(t, err)
	require.Equal(t, refNodes(refLevels(leaves, mixHash{}))[1], root)
}

// FuzzBuildGPU builds the tree of n seeded random leaves with an approach,
// a workgroup size and a cap height on the first backend, under its
// default or small limits, and compares every node kept with the rule's.
func FuzzBuildGPU(f *testing.F) {
	for _, c := range []struct {
		n               uint16
		approach, wg, h uint8
		small           bool
	}{{1, 0, 0, 0, false}, {3, 1, 1, 0, true}, {6, 2, 2, 1, false}, {100, 3, 5, 2, true}, {2049, 0, 7, 3, true}, {4097, 1, 3, 0, true}, {1000, 2, 8, 9, false}} {
		f.Add(c.n, uint64(c.n), c.approach, c.wg, c.h, c.small)
	}
	backend := gputest.Backends()[0]
	f.Fuzz(func(t *testing.T, n uint16, seed uint64, approach, wg, h uint8, small bool) {
		if n == 0 || n > 10000 {
			return
		}
		ctx := gputest.Context(t, backend)
		if small {
			ctx = gputest.Limited(t, backend, gputest.SmallLimits)
		}
		leaves := randomLeaves(mixHash{}, int(n), seed)
		levels := refLevels(leaves, mixHash{})
		o := merkle.Options{WorkgroupSize: 1 << (1 + wg%8), CapHeight: int(h % 16)}.WithApproach(merkle.Approach(approach % 4))
		tree, err := merkle.Build(ctx, leaves, mixHash{}, o)
		require.NoError(t, err, "%+v", o)
		size, _ := capSize(levels, o.CapHeight)
		require.Equal(t, refNodes(levels)[:size], tree.Nodes(), "n=%d %+v", n, o)
		root, err := merkle.Root(ctx, leaves, mixHash{}, o)
		require.NoError(t, err)
		require.Equal(t, levels[len(levels)-1][0], root)
		i := int(seed % uint64(n))
		p, err := tree.Proof(i)
		require.NoError(t, err)
		require.Equal(t, refPath(levels, i), nonNilPath(p.Path))
		require.Equal(t, bits.Len(uint(n-1)), len(levels)-1)
	})
}

// TestPartsNoLeaks: builds by parts, capped builds and the proofs that
// rebuild subtrees leave no device buffers behind, failing or not.
func TestPartsNoLeaks(t *testing.T) {
	check := func(t *testing.T, ctx *wgpu.Context) {
		leaves := randomLeaves(mixHash{}, 3000, 4) // parts of 2048 and less under small limits
		bad := randomLeaves(rescue.MerkleMerge{}, 13, 4)
		bad[12] = [32]byte{0: 1, 1: 0xff, 2: 0xff, 3: 0xff, 4: 0xff, 5: 0xff, 6: 0xff, 7: 0xff}
		gputest.NoLeaks(t, ctx, func() error {
			if _, err := merkle.Build(ctx, leaves, mixHash{}, merkle.Options{}); err != nil {
				return err
			}
			if _, err := merkle.Root(ctx, leaves, mixHash{}, merkle.Options{}); err != nil {
				return err
			}
			tree, err := merkle.Build(ctx, leaves, mixHash{}, merkle.Options{CapHeight: 3})
			if err != nil {
				return err
			}
			if _, err := tree.MultiProof([]int{0, 1500, 2999}); err != nil {
				return err
			}
			_, err = merkle.Build(ctx, bad, rescue.MerkleMerge{}, merkle.Options{CapHeight: 1})
			require.ErrorContains(t, err, "leaf 12")
			return nil
		})
	}
	gputest.ForEach(t, check)
	gputest.ForEachSmall(t, check)
}
