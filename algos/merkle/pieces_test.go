package merkle_test

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// splits returns the numbers of ranges a tree of n leaves is split into
// in the tests: 1, 2, 4 and 16 ways where the tree has that many leaves,
// and one range per leaf up to 2^10 leaves (roots that are leaves).
func splits(n int) []int {
	var ms []int
	for _, m := range []int{1, 2, 4, 16} {
		if m <= n {
			ms = append(ms, m)
		}
	}
	if n > 16 && n <= 1<<10 {
		ms = append(ms, n)
	}
	return ms
}

// TestRangeRootsCombine: the root of each range is the whole tree's node
// M+i (or leaf i for ranges of one leaf), from the full leaf list and
// from a copy of the range's leaves alone, and Combine of the M roots is
// the whole tree's root, for both hashes, on the CPU and every backend.
func TestRangeRootsCombine(t *testing.T) {
	for _, hash := range []merkle.Hash{blake3.MerkleMerge{}, rescue.MerkleMerge{}} {
		t.Run(hash.Name(), func(t *testing.T) {
			seed := rand.Uint64()
			t.Logf("seed %d", seed)
			sizes := []int{2, 4, 1 << 10, 1 << 12} // 2^12: two subtrees under small limits
			cpuSizes := sizes
			if hash == (blake3.MerkleMerge{}) {
				cpuSizes = append(sizes, 1<<20)
			}
			refs := map[int]*merkle.Tree{}
			for _, n := range cpuSizes {
				tree, err := merkle.Build(nil, randomLeaves(hash, n, seed), hash, merkle.Options{})
				require.NoError(t, err)
				refs[n] = tree
			}
			forEachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
				ns := sizes
				if ctx == nil {
					ns = cpuSizes
				}
				for _, n := range ns {
					ref := refs[n]
					for _, m := range splits(n) {
						if ctx != nil && m == n && n > 4 {
							continue // a kernel-less root per leaf; the CPU covers it.
						}
						what := fmt.Sprintf("n=%d m=%d", n, m)
						roots := make([][32]byte, m)
						for i := range roots {
							r := merkle.Range{Index: i, Count: m}
							lo, hi, err := r.Bounds(n)
							require.NoError(t, err, what)
							part := ref.Leaves()[lo:hi:hi]
							require.Len(t, part, n/m)
							var tm wgpu.Timing
							root, err := merkle.RangeRoot(ctx, part, hash, merkle.Options{Timing: &tm})
							require.NoError(t, err, what)
							want := ref.Leaves()[i]
							if m < n {
								want = ref.Nodes()[m+i]
							}
							require.Equal(t, want, root, "%s range %s", what, r)
							// A worker's own copy of its leaves gives the same root.
							if i == m-1 {
								own, err := merkle.RangeRoot(ctx, append([][32]byte(nil), part...), hash, merkle.Options{})
								require.NoError(t, err, what)
								require.Equal(t, root, own, what)
							}
							roots[i] = root
						}
						var tm wgpu.Timing
						got, err := merkle.Combine(ctx, roots, hash, merkle.Options{Timing: &tm})
						require.NoError(t, err, what)
						require.Equal(t, ref.Root(), got, what)
					}
				}
			})
		})
	}
}

func TestCombineBadInput(t *testing.T) {
	good := randomLeaves(rescue.MerkleMerge{}, 16, 4)
	bad := append([][32]byte(nil), good...)
	binary.LittleEndian.PutUint64(bad[2][24:], rescue.P) // element 3 of root 2
	test := func(t *testing.T, ctx *wgpu.Context) {
		for _, c := range []struct {
			roots [][32]byte
			hash  merkle.Hash
			want  []string
		}{
			{nil, blake3.MerkleMerge{}, []string{"combine 0 subtree roots", "a power of two of them"}},
			{good[:3], blake3.MerkleMerge{}, []string{"combine 3 subtree roots", "a power of two of them"}},
			{good[:12], blake3.MerkleMerge{}, []string{"combine 12 subtree roots"}},
			{good[:4], nil, []string{"no hash"}},
			{bad[:4], rescue.MerkleMerge{}, []string{"root of range 2/4", "element 3", "below p"}},
			{bad[2:3], rescue.MerkleMerge{}, []string{"root of range 0/1", "element 3"}},
		} {
			_, err := merkle.Combine(ctx, c.roots, c.hash, merkle.Options{})
			for _, w := range c.want {
				require.ErrorContains(t, err, w, "%d roots", len(c.roots))
			}
		}
		for _, c := range []struct {
			leaves [][32]byte
			hash   merkle.Hash
			want   []string
		}{
			{nil, blake3.MerkleMerge{}, []string{"range of 0 leaves", "a power of two of leaves (1, 2"}},
			{good[:6], blake3.MerkleMerge{}, []string{"range of 6 leaves"}},
			{good[:1], nil, []string{"no hash"}},
			{good[:2], nil, []string{"no hash"}},
			{bad[2:3], rescue.MerkleMerge{}, []string{"leaf 0", "element 3"}},
			{bad[:4], rescue.MerkleMerge{}, []string{"leaf 2", "element 3"}},
		} {
			_, err := merkle.RangeRoot(ctx, c.leaves, c.hash, merkle.Options{})
			for _, w := range c.want {
				require.ErrorContains(t, err, w, "%d leaves", len(c.leaves))
			}
		}
		// A single root is the root, and a single leaf its range's root.
		tm := wgpu.Timing{Wall: 1}
		root, err := merkle.Combine(ctx, good[5:6], rescue.MerkleMerge{}, merkle.Options{Timing: &tm})
		require.NoError(t, err)
		require.Equal(t, good[5], root)
		require.Zero(t, tm, "a stale timing was left")
		root, err = merkle.RangeRoot(ctx, good[7:8], rescue.MerkleMerge{}, merkle.Options{})
		require.NoError(t, err)
		require.Equal(t, good[7], root)
		if ctx != nil {
			gputest.NoLeaks(t, ctx, func() error {
				_, err := merkle.Combine(ctx, bad[:4], rescue.MerkleMerge{}, merkle.Options{})
				require.Error(t, err)
				_, err = merkle.Combine(ctx, good, rescue.MerkleMerge{}, merkle.Options{})
				return err
			})
		}
	}
	t.Run("cpu", func(t *testing.T) { test(t, nil) })
	gputest.ForEach(t, test)
}

// TestJoinProofs: for every leaf of small trees and some of larger ones,
// split every way, the proof inside the range joined with the proof of
// the range's root in the top tree is the whole tree's proof of the leaf;
// it verifies, and tampered copies do not.
func TestJoinProofs(t *testing.T) {
	for _, hash := range []merkle.Hash{blake3.MerkleMerge{}, rescue.MerkleMerge{}, mixHash{}} {
		for _, n := range []int{2, 4, 64, 1 << 10} {
			full, err := merkle.Build(nil, randomLeaves(hash, n, rand.Uint64()), hash, merkle.Options{})
			require.NoError(t, err)
			for _, m := range splits(n) {
				size := n / m
				lower := make([]*merkle.Tree, m) // nil: a range of one leaf
				roots := make([][32]byte, m)
				for i := range roots {
					lo, hi, err := merkle.Range{Index: i, Count: m}.Bounds(n)
					require.NoError(t, err)
					part := full.Leaves()[lo:hi:hi]
					roots[i] = part[0]
					if size > 1 {
						lower[i], err = merkle.Build(nil, part, hash, merkle.Options{})
						require.NoError(t, err)
						roots[i] = lower[i].Root()
					}
				}
				var top *merkle.Tree
				if m > 1 {
					top, err = merkle.Build(nil, roots, hash, merkle.Options{})
					require.NoError(t, err)
				}
				leaves := []int{0, 1, n/2 - 1, n / 2, n - 1}
				if n <= 64 {
					leaves = leaves[:0]
					for x := 0; x < n; x++ {
						leaves = append(leaves, x)
					}
				}
				for _, x := range leaves {
					what := fmt.Sprintf("%s n=%d m=%d leaf %d", hash.Name(), n, m, x)
					i, j := x/size, x%size
					lo := merkle.Proof{Leaves: 1, Leaf: roots[i], Root: roots[i]}
					if lower[i] != nil {
						lo, err = lower[i].Proof(j)
						require.NoError(t, err)
					}
					up := merkle.Proof{Leaves: 1, Leaf: roots[i], Root: roots[i]}
					if top != nil {
						up, err = top.Proof(i)
						require.NoError(t, err)
					}
					p, err := merkle.JoinProofs(lo, up)
					require.NoError(t, err, what)
					want, err := full.Proof(x)
					require.NoError(t, err)
					require.Equal(t, want, p, what)
					require.True(t, merkle.Verify(hash, full.Root(), n, p), what)
					if x%7 == 0 || x == n-1 {
						tamperFails(t, hash, p)
					}
				}
			}
		}
	}
}

func TestJoinProofsBadInput(t *testing.T) {
	hash := mixHash{}
	leaves := randomLeaves(hash, 16, 9)
	var roots [][32]byte
	var lowers []merkle.Proof
	for i := 0; i < 4; i++ {
		tree, err := merkle.Build(nil, leaves[4*i:4*i+4], hash, merkle.Options{})
		require.NoError(t, err)
		roots = append(roots, tree.Root())
		p, err := tree.Proof(1)
		require.NoError(t, err)
		lowers = append(lowers, p)
	}
	top, err := merkle.Build(nil, roots, hash, merkle.Options{})
	require.NoError(t, err)
	up2, err := top.Proof(2)
	require.NoError(t, err)
	lo2 := lowers[2]
	p, err := merkle.JoinProofs(lo2, up2)
	require.NoError(t, err)
	require.Equal(t, 9, p.Index)
	require.True(t, merkle.Verify(hash, p.Root, p.Leaves, p))
	// Two trees of one leaf join into the tree of one leaf.
	p, err = merkle.JoinProofs(merkle.Proof{Leaves: 1, Leaf: leaves[0], Root: leaves[0]}, merkle.Proof{Leaves: 1, Leaf: leaves[0], Root: leaves[0]})
	require.NoError(t, err)
	require.True(t, merkle.Verify(hash, leaves[0], 1, p))

	one := merkle.Proof{Leaves: 1, Leaf: leaves[0], Root: leaves[0]}
	with := func(p merkle.Proof, f func(*merkle.Proof)) merkle.Proof {
		p.Path = append([][32]byte(nil), p.Path...)
		f(&p)
		return p
	}
	for _, c := range []struct {
		name         string
		lower, upper merkle.Proof
		want         string
	}{
		{"another range's proof", lowers[1], up2, "the lower proof's root"},
		{"swapped", up2, lo2, "the lower proof's root"},
		{"lower size 3", with(lo2, func(p *merkle.Proof) { p.Leaves = 3 }), up2, "the lower proof states 3 leaves"},
		{"upper size 0", lo2, with(up2, func(p *merkle.Proof) { p.Leaves = 0 }), "the upper proof states 0 leaves"},
		{"short path", with(lo2, func(p *merkle.Proof) { p.Path = p.Path[:1] }), up2, "the lower proof's path has 1 digests: a tree of 4 leaves needs 2"},
		{"long path", lo2, with(up2, func(p *merkle.Proof) { p.Path = append(p.Path, p.Leaf) }), "the upper proof's path has 3 digests"},
		{"index", with(lo2, func(p *merkle.Proof) { p.Index = 4 }), up2, "the lower proof is of leaf 4: a tree of 4 leaves has leaves 0..3"},
		{"negative index", lo2, with(up2, func(p *merkle.Proof) { p.Index = -1 }), "the upper proof is of leaf -1"},
		{"one leaf, other root", with(one, func(p *merkle.Proof) { p.Root = leaves[1] }), one, "a tree of one leaf, whose root is the leaf"},
		{"one leaf, a path", with(one, func(p *merkle.Proof) { p.Path = [][32]byte{leaves[1]} }), one, "the lower proof's path has 1 digests: a tree of 1 leaves needs 0"},
		{"too large", merkle.Proof{Leaves: 1 << 40, Path: make([][32]byte, 40)}, merkle.Proof{Leaves: 1 << 30, Path: make([][32]byte, 30)}, "more than an int counts: 1099511627776 × 1073741824 is more than 9223372036854775807"},
	} {
		_, err := merkle.JoinProofs(c.lower, c.upper)
		require.ErrorContains(t, err, c.want, c.name)
		require.ErrorContains(t, err, "merkle: join: ", c.name)
	}
}
