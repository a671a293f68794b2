package merkle_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/internal/gputest"
	"github.com/wgcompute/wgcompute/wgpu"
)

// randomMatrix returns a seeded rows × cols matrix of field elements, the
// edges (0, small, p-1 and just below) over-represented.
func randomMatrix(rows, cols int, seed uint64) merkle.Matrix {
	r := rand.New(rand.NewPCG(seed, uint64(rows*cols)))
	data := make([]uint64, rows*cols)
	for i := range data {
		switch r.IntN(8) {
		case 0:
			data[i] = rescue.P - 1 - r.Uint64N(8)
		case 1:
			data[i] = r.Uint64N(8)
		default:
			data[i] = r.Uint64N(rescue.P)
		}
	}
	return merkle.Matrix{Rows: rows, Cols: cols, Data: data}
}

// matrixReference is a matrix commitment by definition: HashRow of every
// row, then the reference tree.
func matrixReference(m merkle.Matrix, hash merkle.RowHash) (leaves, nodes [][32]byte) {
	leaves = make([][32]byte, m.Rows)
	for r := range leaves {
		leaves[r] = hash.HashRow(m.Row(r))
	}
	return leaves, reference(leaves, hash)
}

func TestCommitMatrixQuick(t *testing.T) {
	hash := rescue.MerkleMerge{}
	forEachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, shape := range [][2]int{{2, 1}, {64, 9}, {4096, 3}} {
			m := randomMatrix(shape[0], shape[1], rand.Uint64())
			leaves, nodes := matrixReference(m, hash)
			got, err := merkle.CommitMatrix(ctx, m, hash, merkle.Options{})
			require.NoError(t, err)
			require.Equal(t, leaves, got.Leaves())
			requireNodes(t, nodes, got, fmt.Sprint(shape))
		}
	})
	_ = gputest.Backends
}
