package merkle_test

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// refLevels is the any-count rule, level by level, the oracle of the
// tests: level 0 is the leaves, each next level the merges of the pairs
// of the one below with an odd last node carried up, the last level the
// root.
func refLevels(leaves [][32]byte, hash merkle.Hash) [][][32]byte {
	levels := [][][32]byte{leaves}
	for below := leaves; len(below) > 1; {
		var up [][32]byte
		for p := 0; p+1 < len(below); p += 2 {
			up = append(up, hash.Merge(below[p], below[p+1]))
		}
		if len(below)%2 == 1 {
			up = append(up, below[len(below)-1])
		}
		levels = append(levels, up)
		below = up
	}
	return levels
}

// rfcRoot is RFC 6962's Merkle Tree Hash without its leaf and node
// prefixes: the root of leaves is the merge of the roots of the first k
// leaves, k the largest power of two below their count, and of the rest.
// It is another statement of the rule, checked equal to refLevels.
func rfcRoot(leaves [][32]byte, hash merkle.Hash) [32]byte {
	if len(leaves) == 1 {
		return leaves[0]
	}
	k := 1 << (bits.Len(uint(len(leaves)-1)) - 1)
	return hash.Merge(rfcRoot(leaves[:k], hash), rfcRoot(leaves[k:], hash))
}

// refNodes is the node array of the levels: node 0 zero, then the levels
// from the root down to level 1 (for one leaf, the leaf).
func refNodes(levels [][][32]byte) [][32]byte {
	nodes := [][32]byte{{}}
	for j := len(levels) - 1; j >= 1; j-- {
		nodes = append(nodes, levels[j]...)
	}
	if len(levels) == 1 {
		nodes = append(nodes, levels[0][0])
	}
	return nodes
}

// refPath is the path of leaf i by the rule: at each level, the sibling
// where there is one.
func refPath(levels [][][32]byte, i int) [][32]byte {
	var path [][32]byte
	for j := 0; j+1 < len(levels); j++ {
		if s := i ^ 1; s < len(levels[j]) {
			path = append(path, levels[j][s])
		}
		i >>= 1
	}
	return path
}

// oddCounts are the leaf counts the any-count tests build: small ones,
// counts around powers of two, and around the 2048 leaves of one subtree
// under gputest.SmallLimits.
var oddCounts = []int{1, 2, 3, 4, 5, 6, 7, 9, 11, 13, 15, 17, 31, 33, 63, 100, 127, 129, 255, 1000, 1023, 1025, 2047, 2049, 3000, 4095, 4097, 6145}

func TestRuleStatements(t *testing.T) {
	leaves := randomLeaves(mixHash{}, 1<<11+3, 1)
	for n := 1; n <= len(leaves); n++ {
		levels := refLevels(leaves[:n], mixHash{})
		require.Equal(t, rfcRoot(leaves[:n], mixHash{}), levels[len(levels)-1][0], "n=%d", n)
		require.Equal(t, bits.Len(uint(n-1))+1, len(levels), "n=%d", n)
		count, err := merkle.NodeCount(n)
		require.NoError(t, err)
		require.Len(t, refNodes(levels), count, "n=%d", n)
		if n&(n-1) == 0 && n > 1 {
			require.Equal(t, n, count)
			require.Equal(t, reference(leaves[:n], mixHash{}), refNodes(levels), "n=%d: the heap layout", n)
		}
		for _, i := range []int{0, n / 3, n - 1} {
			require.Equal(t, len(refPath(levels, i)), merkle.PathLen(n, i), "n=%d i=%d", n, i)
		}
	}
	for _, c := range [][2]int{{0, 0}, {-1, 0}, {3, 3}, {3, -1}} {
		require.Equal(t, -1, merkle.PathLen(c[0], c[1]), "%v", c)
	}
	_, err := merkle.NodeCount(0)
	require.ErrorContains(t, err, "at least 1 leaf")
}

// vectorFile is testdata/merkletreejs_blake3.json.
type vectorFile struct {
	Source string `json:"source"`
	Trees  []struct {
		Leaves int        `json:"leaves"`
		Root   string     `json:"root"`
		Layers [][]string `json:"layers"`
		Proofs []struct {
			Index int `json:"index"`
			Path  []struct {
				Position string `json:"position"`
				Data     string `json:"data"`
			} `json:"path"`
		} `json:"proofs"`
	} `json:"trees"`
}

func readVectors(t *testing.T) vectorFile {
	b, err := os.ReadFile(filepath.Join("testdata", "merkletreejs_blake3.json"))
	require.NoError(t, err)
	var v vectorFile
	require.NoError(t, json.Unmarshal(b, &v))
	require.NotEmpty(t, v.Trees)
	return v
}

// vectorLeaves are the vectors' leaves: leaf i is BLAKE3 of i as 8
// little-endian bytes.
func vectorLeaves(n int) [][32]byte {
	leaves := make([][32]byte, n)
	for i := range leaves {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(i))
		leaves[i] = blake3.Sum256(b[:])
	}
	return leaves
}

func unhex(t *testing.T, s string) [32]byte {
	t.Helper()
	d, err := merkle.ParseDigest(s)
	require.NoError(t, err)
	return d
}

// TestMerkletreejsVectors checks trees of every count in the vectors
// against merkletreejs's: roots, every layer where given, and proofs
// (digests and sides), built on the CPU and on every backend.
func TestMerkletreejsVectors(t *testing.T) {
	v := readVectors(t)
	hash := blake3.MerkleMerge{}
	t.Logf("vectors: %s", v.Source)
	for _, tv := range v.Trees {
		leaves := vectorLeaves(tv.Leaves)
		root := unhex(t, tv.Root)
		levels := refLevels(leaves, hash)
		require.Equal(t, root, levels[len(levels)-1][0], "n=%d: the rule's root", tv.Leaves)
		if tv.Layers != nil {
			require.Len(t, levels, len(tv.Layers), "n=%d", tv.Leaves)
			for j, layer := range tv.Layers {
				require.Len(t, levels[j], len(layer))
				for p, s := range layer {
					require.Equal(t, unhex(t, s), levels[j][p], "n=%d level %d node %d", tv.Leaves, j, p)
				}
			}
		}
		tree, err := merkle.Build(nil, leaves, hash, merkle.Options{})
		require.NoError(t, err)
		require.Equal(t, root, tree.Root())
		require.Equal(t, refNodes(levels), tree.Nodes(), "n=%d", tv.Leaves)
		for _, pv := range tv.Proofs {
			p, err := tree.Proof(pv.Index)
			require.NoError(t, err)
			require.Len(t, p.Path, len(pv.Path), "n=%d leaf %d", tv.Leaves, pv.Index)
			// merkletreejs names the side the sibling is on.
			i := pv.Index
			k := 0
			for j, w := 0, tv.Leaves; w > 1; j, w = j+1, (w+1)/2 {
				if i^1 < w {
					side := map[bool]string{true: "left", false: "right"}[i&1 == 1]
					require.Equal(t, side, pv.Path[k].Position, "n=%d leaf %d level %d", tv.Leaves, pv.Index, j)
					require.Equal(t, unhex(t, pv.Path[k].Data), p.Path[k], "n=%d leaf %d level %d", tv.Leaves, pv.Index, j)
					k++
				}
				i >>= 1
			}
			require.True(t, merkle.Verify(hash, root, tv.Leaves, p))
		}
	}
	// The GPU builds on every backend give the same trees.
	forEachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, tv := range v.Trees {
			leaves := vectorLeaves(tv.Leaves)
			tree, err := merkle.Build(ctx, leaves, hash, merkle.Options{})
			require.NoError(t, err)
			require.Equal(t, refNodes(refLevels(leaves, hash)), tree.Nodes(), "n=%d", tv.Leaves)
			root, err := merkle.Root(ctx, leaves, hash, merkle.Options{})
			require.NoError(t, err)
			require.Equal(t, unhex(t, tv.Root), root, "n=%d", tv.Leaves)
		}
	})
}

// TestAnyCountGPU builds trees of counts that are not powers of two with
// every hash, on every backend, with every variant, and compares each
// node with the rule's, and the root alone with it.
func TestAnyCountGPU(t *testing.T) {
	for _, hash := range hashes {
		t.Run(hash.Name(), func(t *testing.T) {
			seed := rand.Uint64()
			t.Logf("seed %d", seed)
			counts := oddCounts
			switch hash.Name() {
			case "blake3":
				counts = []int{1, 3, 5, 6, 7, 100, 1025, 2049, 6145}
			case "rescue":
				counts = []int{1, 3, 7, 100, 2049} // slow on the software adapters
			}
			all := randomLeaves(hash, counts[len(counts)-1], seed)
			want := map[int][][32]byte{}
			for _, n := range counts {
				want[n] = refNodes(refLevels(all[:n], hash))
			}
			forEachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
				check := func(n int, o merkle.Options, what string) {
					t.Helper()
					var tm wgpu.Timing
					o.Timing = &tm
					got, err := merkle.Build(ctx, all[:n], hash, o)
					require.NoError(t, err, what)
					requireNodes(t, want[n], got, what)
					require.Equal(t, ctx != nil && ctx.Info().Timestamps && n > 1, tm.Measured, what)
					root, err := merkle.Root(ctx, all[:n], hash, o)
					require.NoError(t, err, what)
					require.Equal(t, want[n][1], root, what)
				}
				for _, n := range counts {
					check(n, merkle.Options{}, fmt.Sprintf("n=%d", n))
				}
				if ctx == nil {
					return
				}
				for _, n := range []int{3, counts[len(counts)/2], counts[len(counts)-1]} {
					for _, o := range variants {
						check(n, o, fmt.Sprintf("n=%d %s passes=%v", n, o.Approach(), o.PassPerLevel()))
					}
				}
			})
		})
	}
}

// TestAnyCountDeepSplit: with storage bindings of 256 bytes a subtree
// holds 8 leaves, so the parts of these trees split into subtrees whose
// roots split again.
func TestAnyCountDeepSplit(t *testing.T) {
	leaves := randomLeaves(mixHash{}, 1000, 3)
	for _, backend := range gputest.Backends() {
		t.Run(backend, func(t *testing.T) {
			ctx := gputest.Limited(t, backend, wgpu.Limits{MaxStorageBindingSize: 256})
			for _, o := range variants {
				b, err := merkle.NewBuilder(ctx, mixHash{}, o)
				require.NoError(t, err)
				var into *merkle.Tree
				for _, n := range []int{1, 3, 9, 15, 17, 100, 1000, 65} {
					levels := refLevels(leaves[:n], mixHash{})
					got, err := b.BuildInto(into, leaves[:n])
					require.NoError(t, err)
					requireNodes(t, refNodes(levels), got, fmt.Sprintf("n=%d %s", n, o.Approach()))
					into = got
					root, err := b.Root(leaves[:n])
					require.NoError(t, err)
					require.Equal(t, got.Root(), root, "root only, n=%d %s", n, o.Approach())
				}
				b.Release()
			}
		})
	}
}

// TestAnyCountProofs proves every leaf of every tree of 1 to 40 leaves,
// and some of larger ones, and checks the paths against the rule's, the
// verification, and that tampering with any part fails.
func TestAnyCountProofs(t *testing.T) {
	for _, hash := range hashes {
		leaves := randomLeaves(hash, 1025, 5)
		for _, n := range append(seq(1, 40), 100, 1000, 1025) {
			levels := refLevels(leaves[:n], hash)
			tree, err := merkle.Build(nil, leaves[:n], hash, merkle.Options{})
			require.NoError(t, err)
			for i := 0; i < n; i += 1 + n/40 {
				what := fmt.Sprintf("%s n=%d i=%d", hash.Name(), n, i)
				p, err := tree.Proof(i)
				require.NoError(t, err)
				require.Equal(t, refPath(levels, i), nonNilPath(p.Path), what)
				require.Len(t, p.Path, merkle.PathLen(n, i), what)
				require.True(t, merkle.Verify(hash, tree.Root(), n, p), what)
				if i == n-1 || n <= 20 && (i == 0 || i == n/2) {
					anyTamperFails(t, hash, p)
				}
			}
		}
	}
}

func nonNilPath(p [][32]byte) [][32]byte {
	if len(p) == 0 {
		return nil
	}
	return p
}

func seq(lo, hi int) []int {
	var s []int
	for i := lo; i <= hi; i++ {
		s = append(s, i)
	}
	return s
}

// anyTamperFails changes every byte of the leaf, the root and each path
// entry in turn, and the index and the size, and requires that each fails
// verification against the tree's trusted root and size.
func anyTamperFails(t *testing.T, hash merkle.Hash, p merkle.Proof) {
	t.Helper()
	root, n := p.Root, p.Leaves
	for b := 0; b < merkle.DigestSize; b++ {
		q := p
		q.Leaf[b] ^= 0x01
		require.False(t, merkle.Verify(hash, root, n, q), "tampered leaf byte %d verified", b)
		q = p
		q.Root[b] ^= 0x80
		require.False(t, merkle.Verify(hash, root, n, q), "tampered root byte %d verified", b)
		require.False(t, merkle.Verify(hash, q.Root, n, q), "another root, byte %d, verified", b)
		for k := range p.Path {
			q = p
			q.Path = append([][32]byte(nil), p.Path...)
			q.Path[k][b] ^= 0x10
			require.False(t, merkle.Verify(hash, root, n, q), "tampered path[%d] byte %d verified", k, b)
		}
	}
	for d := -1; d <= n; d++ {
		if d == p.Index {
			continue
		}
		q := p
		q.Index = d
		require.False(t, merkle.Verify(hash, root, n, q), "leaf %d verified as %d", p.Index, d)
	}
	for _, m := range []int{n - 1, n + 1, 2 * n, n / 2, 0} {
		if m == n {
			continue
		}
		q := p
		q.Leaves = m
		require.False(t, merkle.Verify(hash, root, n, q), "%d leaves verified as %d", n, m)
		require.False(t, merkle.Verify(hash, root, m, p), "%d leaves trusted as %d", n, m)
	}
	if len(p.Path) > 0 {
		q := p
		q.Path = p.Path[:len(p.Path)-1]
		require.False(t, merkle.Verify(hash, root, n, q))
	}
	q := p
	q.Path = append(append([][32]byte(nil), p.Path...), p.Leaf)
	require.False(t, merkle.Verify(hash, root, n, q))
}

// TestCarriedShape: a proof of leaf 0 of 4 leaves hashes to the root of
// the 3-leaf tree that carries the merge of leaves 2 and 3 up as its leaf
// 2; it verifies for the size it states, and no other.
func TestCarriedShape(t *testing.T) {
	hash := blake3.MerkleMerge{}
	leaves := randomLeaves(hash, 4, 1)
	four, err := merkle.Build(nil, leaves, hash, merkle.Options{})
	require.NoError(t, err)
	p, err := four.Proof(0)
	require.NoError(t, err)
	q := p
	q.Leaves = 3
	require.True(t, merkle.Verify(hash, q.Root, q.Leaves, q), "consistent for 3 leaves")
	require.False(t, merkle.Verify(hash, four.Root(), 4, q), "trusted size 4")
	three, err := merkle.Build(nil, [][32]byte{leaves[0], leaves[1], hash.Merge(leaves[2], leaves[3])}, hash, merkle.Options{})
	require.NoError(t, err)
	require.Equal(t, four.Root(), three.Root())
}

// TestAnyCountGroups builds trees of counts that are not powers of two
// over Groups of 2, 3 and 7 devices and compares every node and the root
// with the rule's.
func TestAnyCountGroups(t *testing.T) {
	gputest.ForEachGroup(t, func(t *testing.T, g *sched.Group) {
		for _, hash := range []merkle.Hash{mixHash{}, blake3.MerkleMerge{}} {
			for _, n := range []int{1, 3, 6, 1000, 4097} {
				leaves := randomLeaves(hash, n, uint64(n))
				want := refNodes(refLevels(leaves, hash))
				var tm wgpu.Timing
				tree, err := merkle.Build(g, leaves, hash, merkle.Options{Timing: &tm})
				require.NoError(t, err)
				requireNodes(t, want, tree, fmt.Sprintf("%s n=%d", hash.Name(), n))
				root, err := merkle.Root(g, leaves, hash, merkle.Options{})
				require.NoError(t, err)
				require.Equal(t, want[1], root, "%s n=%d", hash.Name(), n)
			}
		}
		bad := randomLeaves(rescue.MerkleMerge{}, 19, 3)
		for _, i := range []int{11, 18} { // in a part of 16, and the last leaf alone
			leaves := append([][32]byte(nil), bad...)
			leaves[i] = [32]byte{0: 1, 1: 0xff, 2: 0xff, 3: 0xff, 4: 0xff, 5: 0xff, 6: 0xff, 7: 0xff}
			_, err := merkle.Build(g, leaves, rescue.MerkleMerge{}, merkle.Options{})
			require.ErrorContains(t, err, fmt.Sprintf("leaf %d", i))
			_, err = merkle.Root(g, leaves, rescue.MerkleMerge{}, merkle.Options{})
			require.ErrorContains(t, err, fmt.Sprintf("leaf %d", i))
		}
		for _, c := range g.Contexts() {
			require.Zero(t, c.LiveBuffers())
		}
	})
}

// TestRangesRejectOddCounts: the functions that split a tree into ranges
// say what they accept when the count is not a power of two.
func TestRangesRejectOddCounts(t *testing.T) {
	leaves := randomLeaves(mixHash{}, 12, 1)
	_, _, err := merkle.Range{Index: 0, Count: 4}.Bounds(len(leaves))
	require.ErrorContains(t, err, "ranges split a tree of a power of two of leaves")
	_, _, err = merkle.Range{Index: 1, Count: 3}.Bounds(16)
	require.ErrorContains(t, err, "must be a power of two")
	_, err = merkle.RangeRoot(nil, leaves[:3], mixHash{}, merkle.Options{})
	require.ErrorContains(t, err, "a range holds a power of two of leaves")
	_, err = merkle.Combine(nil, leaves[:6], mixHash{}, merkle.Options{})
	require.ErrorContains(t, err, "a power of two of them")
	tree, err := merkle.Build(nil, leaves[:6], mixHash{}, merkle.Options{})
	require.NoError(t, err)
	p, err := tree.Proof(1)
	require.NoError(t, err)
	_, err = merkle.JoinProofs(p, merkle.Proof{Leaves: 1, Leaf: p.Root, Root: p.Root})
	require.ErrorContains(t, err, "the lower proof states 6 leaves: join takes proofs in trees of a power of two")
}
