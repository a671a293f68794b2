package poseidon2

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/merkle"
)

// MerkleMerge31's optional merkle methods (HashRowsMany, MergeMany) are
// asserted in package merkle's tests.
var _ merkle.RowHash[uint32] = MerkleMerge31{}

// plain31 is a MerkleMerge31 seen through merkle.RowHash alone, so that
// package merkle hashes its rows and merges its pairs one at a time.
type plain31 struct{ merkle.RowHash[uint32] }

// TestMany31 holds HashRowsMany and MergeMany to HashRow and Merge, digest
// by digest, for counts around the conversion's chunk and the blocks'
// lane counts.
func TestMany31(t *testing.T) {
	rng := newRand(t)
	for _, b := range batches31 {
		for _, n := range []int{0, 1, 7, 15, 16, 17, 255, 256, 257, 1000} {
			cols := 1 + n%23
			data := randStates31(b.m.Permutation(), rng, 2*n*cols/16+1)[:2*n*cols]
			rows := make([][32]byte, 2*n)
			b.m.HashRowsMany(rows, data, cols)
			for i := range rows {
				require.Equal(t, b.m.HashRow(data[i*cols:(i+1)*cols]), rows[i], "%s row %d of %d × %d", b.m.Name(), i, 2*n, cols)
			}
			parents := make([][32]byte, n)
			b.m.MergeMany(parents, rows)
			for i := range parents {
				require.Equal(t, b.m.Merge(rows[2*i], rows[2*i+1]), parents[i], "%s pair %d of %d", b.m.Name(), i, n)
			}
		}
	}
}

// TestCommitMany31 holds merkle's CPU commitments through HashRowsMany and
// MergeMany to the same commitments pair by pair (plain31): a matrix, a
// tree of an odd number of leaves, and matrices of several heights.
func TestCommitMany31(t *testing.T) {
	rng := newRand(t)
	for _, b := range batches31 {
		for _, shape := range [][2]int{{2, 1}, {2, 9}, {64, 16}, {1024, 17}, {4096, 3}} {
			rows, cols := shape[0], shape[1]
			data := randStates31(b.m.Permutation(), rng, rows*cols/16+1)[:rows*cols]
			m := merkle.Matrix[uint32]{Rows: rows, Cols: cols, Data: data}
			fast, err := merkle.CommitMatrix(nil, m, b.m, merkle.Options{})
			require.NoError(t, err)
			slow, err := merkle.CommitMatrix(nil, m, plain31{b.m}, merkle.Options{})
			require.NoError(t, err)
			require.Equal(t, slow.Root(), fast.Root(), "%s %d × %d", b.m.Name(), rows, cols)
		}
		leaves := make([][32]byte, 1001)
		b.m.HashRowsMany(leaves, randStates31(b.m.Permutation(), rng, 64)[:1001], 1)
		fast, err := merkle.Build(nil, leaves, b.m, merkle.Options{})
		require.NoError(t, err)
		slow, err := merkle.Build(nil, leaves, plain31{b.m}, merkle.Options{})
		require.NoError(t, err)
		require.Equal(t, slow.Root(), fast.Root(), "%s: 1001 leaves", b.m.Name())
		ms := []merkle.Matrix[uint32]{
			{Rows: 256, Cols: 5, Data: randStates31(b.m.Permutation(), rng, 80)},
			{Rows: 64, Cols: 3, Data: randStates31(b.m.Permutation(), rng, 12)},
		}
		fast, err = merkle.CommitMatrices(nil, ms, b.m, merkle.Options{})
		require.NoError(t, err)
		slow, err = merkle.CommitMatrices(nil, ms, plain31{b.m}, merkle.Options{})
		require.NoError(t, err)
		require.Equal(t, slow.Root(), fast.Root(), "%s: matrices of 256 and 64 rows", b.m.Name())
	}
}
