package merkle_test

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// randomMatrices returns seeded matrices of the given heights and widths.
func randomMatrices(shapes [][2]int, seed uint64) []merkle.Matrix[uint64] {
	ms := make([]merkle.Matrix[uint64], len(shapes))
	for k, s := range shapes {
		ms[k] = randomMatrix(s[0], s[1], seed+uint64(k))
	}
	return ms
}

// matricesReference is CommitMatrices by definition, node by node from
// the root down: node i of the level of width w is the merge of its
// children, merged again with the hash of row i of every matrix w tall
// (their rows concatenated in order), if any; leaf i is the hash of row i
// of the tallest matrices.
func matricesReference(ms []merkle.Matrix[uint64], hash merkle.RowHash[uint64]) (leaves, nodes [][32]byte) {
	tall := 0
	for _, m := range ms {
		tall = max(tall, m.Rows)
	}
	rowsOf := func(w, i int) []uint64 {
		var row []uint64
		for _, m := range ms {
			if m.Rows == w {
				row = append(row, m.Row(i)...)
			}
		}
		return row
	}
	leaves = make([][32]byte, tall)
	for i := range leaves {
		leaves[i] = hash.HashRow(rowsOf(tall, i))
	}
	nodes = make([][32]byte, tall)
	var node func(k int) [32]byte
	node = func(k int) [32]byte {
		if k >= tall {
			return leaves[k-tall]
		}
		d := hash.Merge(node(2*k), node(2*k+1))
		w := 1 << (bits.Len(uint(k)) - 1) // the width of k's level
		if row := rowsOf(w, k-w); row != nil {
			d = hash.Merge(d, hash.HashRow(row))
		}
		nodes[k] = d
		return d
	}
	node(1)
	return leaves, nodes
}

// TestCommitMatrices: matrices of several heights, heights shared by
// several matrices, the root's level injected (height 1); under small
// limits (2048 leaves a subtree) a tree of 4096 leaves with injections
// inside the subtrees and above them.
func TestCommitMatrices(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	type tcase struct {
		hash          merkle.RowHash[uint64]
		ms            []merkle.Matrix[uint64]
		leaves, nodes [][32]byte
	}
	var cases []tcase
	for _, c := range []struct {
		hash   merkle.RowHash[uint64]
		shapes [][2]int
	}{
		{rescue.MerkleMerge{}, [][2]int{{2, 3}}},
		{rescue.MerkleMerge{}, [][2]int{{16, 3}, {16, 6}, {8, 9}, {2, 1}, {1, 4}}},
		{rescue.MerkleMerge{}, [][2]int{{4, 2}, {32, 1}, {8, 5}, {32, 8}}},
		{mixRows{}, [][2]int{{4096, 5}, {2048, 3}, {2048, 1}, {16, 7}, {2, 2}, {1, 9}}},
		{mixRows{}, [][2]int{{1 << 12, 2}, {1 << 11, 2}, {1 << 10, 2}, {1 << 9, 2}, {1 << 8, 2}, {1 << 7, 2}, {1 << 6, 2}, {1 << 5, 2}, {1 << 4, 2}, {1 << 3, 2}, {1 << 2, 2}, {1 << 1, 2}, {1, 2}}},
	} {
		ms := randomMatrices(c.shapes, seed)
		leaves, nodes := matricesReference(ms, c.hash)
		cases = append(cases, tcase{c.hash, ms, leaves, nodes})
	}
	forEachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		for k, tc := range cases {
			what := fmt.Sprintf("case %d (%s)", k, tc.hash.Name())
			var tm wgpu.Timing
			got, err := merkle.CommitMatrices(ctx, tc.ms, tc.hash, merkle.Options{Timing: &tm})
			require.NoError(t, err, what)
			requireLeaves(t, tc.leaves, got, what)
			requireNodes(t, tc.nodes, got, what)
			require.NotZero(t, tm.Elapsed(), what)
		}
		// One matrix is CommitMatrix.
		m := randomMatrix(64, 11, seed)
		one, err := merkle.CommitMatrices(ctx, []merkle.Matrix[uint64]{m}, rescue.MerkleMerge{}, merkle.Options{})
		require.NoError(t, err)
		want, err := merkle.CommitMatrix(ctx, m, rescue.MerkleMerge{}, merkle.Options{})
		require.NoError(t, err)
		require.Equal(t, want.Nodes(), one.Nodes())
	})
}

// TestCommitMatricesDeepSplit: 8 leaves a subtree and 10 rows of 3
// elements a piece, with injections at every level.
func TestCommitMatricesDeepSplit(t *testing.T) {
	for _, hash := range []merkle.RowHash[uint64]{mixRows{}, rescue.MerkleMerge{}} {
		ms := randomMatrices([][2]int{{64, 3}, {32, 3}, {16, 1}, {8, 3}, {4, 2}, {2, 3}, {1, 3}}, 9)
		leaves, nodes := matricesReference(ms, hash)
		for _, backend := range gputest.Backends() {
			ctx := gputest.Limited(t, backend, wgpu.Limits{MaxStorageBindingSize: 256})
			for _, o := range variants {
				got, err := merkle.CommitMatrices(ctx, ms, hash, o)
				require.NoError(t, err)
				requireLeaves(t, leaves, got, backend)
				requireNodes(t, nodes, got, fmt.Sprintf("%s %s %s", hash.Name(), backend, o.Approach()))
			}
		}
	}
}

func TestVerifyMatrices(t *testing.T) {
	hash := rescue.MerkleMerge{}
	ms := randomMatrices([][2]int{{16, 3}, {4, 2}, {16, 1}, {1, 2}, {8, 9}}, 3)
	heights := []int{16, 4, 16, 1, 8}
	tree, err := merkle.CommitMatrices(nil, ms, hash, merkle.Options{})
	require.NoError(t, err)
	root := tree.Root()
	for i := 0; i < 16; i++ {
		p, err := tree.Proof(i)
		require.NoError(t, err)
		rows, err := merkle.MatricesOpening(ms, hash, i)
		require.NoError(t, err)
		require.Equal(t, ms[1].Row(i/4), rows[1])
		require.True(t, merkle.VerifyMatrices(hash, root, heights, rows, p), "leaf %d", i)
		require.False(t, merkle.VerifyMatrices(hash, root, []int{16, 4, 16, 2, 8}, rows, p), "another height")
		require.False(t, merkle.VerifyMatrices(hash, root, heights[:4], rows[:4], p), "a matrix left out")
		require.False(t, merkle.VerifyMatrices(hash, root, heights, append([][]uint64{rows[2]}, rows[1], rows[0], rows[3], rows[4]), p), "rows swapped")
		require.False(t, merkle.Verify(hash, root, 16, p), "the plain path without the injected rows")
		for k := range rows {
			changed := make([][]uint64, len(rows))
			copy(changed, rows)
			changed[k] = append([]uint64(nil), rows[k]...)
			changed[k][0] = (changed[k][0] + 1) % rescue.P
			require.False(t, merkle.VerifyMatrices(hash, root, heights, changed, p), "leaf %d, row of matrix %d changed", i, k)
			changed[k][0] = rows[k][0] + rescue.P // the same value, written >= p
			if changed[k][0] >= rescue.P {
				require.False(t, merkle.VerifyMatrices(hash, root, heights, changed, p))
			}
		}
		q := p
		q.Index ^= 1
		require.False(t, merkle.VerifyMatrices(hash, root, heights, rows, q))
	}
	require.False(t, merkle.VerifyMatrices[uint64](nil, root, heights, nil, merkle.Proof{}))
	_, err = merkle.MatricesOpening(ms, hash, 16)
	require.ErrorContains(t, err, "leaves 0..15")
}

func TestCommitMatricesBadInput(t *testing.T) {
	hash := rescue.MerkleMerge{}
	forEachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, c := range []struct {
			ms  []merkle.Matrix[uint64]
			msg string
		}{
			{nil, "no matrices"},
			{[]merkle.Matrix[uint64]{randomMatrix(8, 2, 1), randomMatrix(3, 2, 1)}, "matrix 1 has 3 rows: matrices committed together have power-of-two heights"},
			{[]merkle.Matrix[uint64]{randomMatrix(1, 2, 1)}, "the tallest matrix has 1 rows"},
			{[]merkle.Matrix[uint64]{randomMatrix(8, 2, 1), {Rows: 4, Cols: 0}}, "matrix 1 has 0 columns"},
			{[]merkle.Matrix[uint64]{randomMatrix(8, 2, 1), {Rows: 4, Cols: 2, Data: make([]uint64, 7)}}, "matrix 1 of 4 × 2 elements has 7"},
			{[]merkle.Matrix[uint64]{randomMatrix(8, 2, 1), {Rows: 2, Cols: 2, Data: []uint64{0, 1, rescue.P, 3}}}, "matrix 1 element 2 (row 1, column 0)"},
		} {
			_, err := merkle.CommitMatrices(ctx, c.ms, hash, merkle.Options{})
			require.ErrorContains(t, err, c.msg)
		}
		_, err := merkle.CommitMatrices(ctx, []merkle.Matrix[uint64]{randomMatrix(8, 2, 1)}, nil, merkle.Options{})
		require.ErrorContains(t, err, "no hash")
		c, err := merkle.NewCommitter(ctx, schedule(t, "rescue:1,blake3"), merkle.Options{})
		require.NoError(t, err)
		defer c.Release()
		_, err = merkle.CommitMatrices(nil, []merkle.Matrix[uint64]{randomMatrix(8, 2, 1)}, hash, merkle.Options{Committer: c})
		require.ErrorContains(t, err, "builds trees of one hash")
	})
}

func TestCommitMatricesNoLeaks(t *testing.T) {
	ms := randomMatrices([][2]int{{32, 3}, {8, 2}, {1, 1}}, 4)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		gputest.NoLeaks(t, ctx, func() error {
			_, err := merkle.CommitMatrices(ctx, ms, rescue.MerkleMerge{}, merkle.Options{})
			return err
		})
	})
}
