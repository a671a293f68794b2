package merkle_test

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/algos/rpo"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// mixRows is the mix hash with a cheap row hash of its own, plugged in
// from outside as a new Goldilocks hash would be: it tests the matrix
// kernel's indexing and pieces at sizes where Rescue would be slow on a
// CPU-emulated GPU.
type mixRows struct{ mixHash }

func (mixRows) HashRow(row []uint64) [32]byte {
	var w [8]uint32
	for c, v := range row {
		k := 2 * (c % 4)
		w[k] = bits.RotateLeft32(w[k], 5) ^ (uint32(v) + uint32(c))
		w[k+1] = w[k+1]*0x9e3779b9 + uint32(v>>32)
	}
	w[0] ^= uint32(len(row))
	var d [32]byte
	for k, x := range w {
		binary.LittleEndian.PutUint32(d[4*k:], x)
	}
	return d
}

func (mixRows) Modulus() uint64   { return rescue.P }
func (mixRows) FieldName() string { return "Goldilocks" }

func (mixRows) RowModule() wgpu.Module { return textModule{"mix_rows_test", mixRowsWGSL} }

const mixRowsWGSL = `
fn hash_row(row: u32, cols: u32) -> array<u32, 8> {
	var w: array<u32, 8>;
	for (var c = 0u; c < cols; c++) {
		let v = mk_element(row, c);
		let k = 2u * (c % 4u);
		w[k] = ((w[k] << 5u) | (w[k] >> 27u)) ^ (v.x + c);
		w[k + 1u] = w[k + 1u] * 0x9e3779b9u + v.y;
	}
	w[0] ^= cols;
	return w;
}
`

// randomMatrix returns a seeded rows × cols matrix of field elements, the
// edges (0, small, p-1 and just below) over-represented.
func randomMatrix(rows, cols int, seed uint64) merkle.Matrix[uint64] {
	r := rand.New(rand.NewPCG(seed, uint64(rows*cols)))
	data := make([]uint64, rows*cols)
	for i := range data {
		switch r.IntN(8) {
		case 0:
			data[i] = rescue.P - 1 - r.Uint64N(8)
		case 1:
			data[i] = r.Uint64N(8)
		case 2:
			data[i] = uint64(r.Uint32()) | 0xFFFF_FFFE_0000_0000
		default:
			data[i] = r.Uint64N(rescue.P)
		}
	}
	return merkle.Matrix[uint64]{Rows: rows, Cols: cols, Data: data}
}

// matrixReference is a matrix commitment by definition: HashRow of every
// row, then the reference tree.
func matrixReference(m merkle.Matrix[uint64], hash merkle.RowHash[uint64]) (leaves, nodes [][32]byte) {
	leaves = make([][32]byte, m.Rows)
	for r := range leaves {
		leaves[r] = hash.HashRow(m.Row(r))
	}
	return leaves, reference(leaves, hash)
}

// requireLeaves compares leaves, naming the first that differs.
func requireLeaves(t *testing.T, want [][32]byte, got *merkle.Tree, what string) {
	t.Helper()
	require.Equal(t, len(want), len(got.Leaves()), what)
	for i := range want {
		if want[i] != got.Leaves()[i] {
			t.Fatalf("%s: leaf %d of %d is %x, want %x", what, i, len(want), got.Leaves()[i], want[i])
		}
	}
}

func TestRescueHashRow(t *testing.T) {
	m := randomMatrix(2, 13, 5)
	want := rescue.HashElements(m.Row(1))
	got := rescue.MerkleMerge{}.HashRow(m.Row(1))
	for j := range want {
		require.Equal(t, want[j], binary.LittleEndian.Uint64(got[8*j:]))
	}
}

// TestCommitMatrix commits matrices of every column count around Rescue's
// rate (8) and odd ones, on every backend; under small limits (64 KiB
// bindings) a matrix of 4096 rows is two subtrees of leaves and its rows
// are uploaded in pieces.
func TestCommitMatrix(t *testing.T) {
	hash := rescue.MerkleMerge{}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	type shape struct{ rows, cols int }
	shapes := []shape{{2, 1}, {4, 2}, {8, 7}, {16, 8}, {32, 9}, {8, 16}, {4, 17}, {64, 3}, {2, 33}, {256, 5}, {4096, 1}}
	want := map[shape][2][][32]byte{}
	ms := map[shape]merkle.Matrix[uint64]{}
	for _, s := range shapes {
		ms[s] = randomMatrix(s.rows, s.cols, seed+uint64(s.cols))
		l, n := matrixReference(ms[s], hash)
		want[s] = [2][][32]byte{l, n}
	}
	forEachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, s := range shapes {
			what := fmt.Sprintf("%d×%d", s.rows, s.cols)
			var tm wgpu.Timing
			got, err := merkle.CommitMatrix(ctx, ms[s], hash, merkle.Options{Timing: &tm})
			require.NoError(t, err, what)
			requireLeaves(t, want[s][0], got, what)
			requireNodes(t, want[s][1], got, what)
			require.NotZero(t, tm.Elapsed(), what)
			require.Equal(t, ctx != nil && ctx.Info().Timestamps, tm.Measured, what)
		}
	})
}

// TestCommitMatrixMix: the tree logic with a cheap row hash, at sizes and
// approaches Rescue would make slow: every approach, trees of several
// subtrees under small limits, and rows split over pieces.
func TestCommitMatrixMix(t *testing.T) {
	hash := mixRows{}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	m := randomMatrix(1<<13, 37, seed)
	leaves, _ := matrixReference(m, hash)
	ref := reference(leaves, hash)
	forEachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, o := range variants {
			for _, rows := range []int{2, 1 << 10, 1 << 13} {
				what := fmt.Sprintf("%d rows %s", rows, o.Approach())
				got, err := merkle.CommitMatrix(ctx, merkle.Matrix[uint64]{Rows: rows, Cols: m.Cols, Data: m.Data[:rows*m.Cols]}, hash, o)
				require.NoError(t, err, what)
				requireLeaves(t, leaves[:rows], got, what)
				requireNodes(t, prefixNodes(ref, rows), got, what)
			}
			if ctx == nil {
				return
			}
		}
	})
}

// TestCommitMatrixDeepSplit: with 256-byte bindings a subtree holds 8
// leaves and a piece 3 rows of 9 elements: rows hashed 3 at a time into
// subtrees whose roots are trees of their own.
func TestCommitMatrixDeepSplit(t *testing.T) {
	for _, hash := range []merkle.RowHash[uint64]{mixRows{}, rescue.MerkleMerge{}} {
		m := randomMatrix(128, 9, rand.Uint64())
		leaves, nodes := matrixReference(m, hash)
		for _, backend := range gputest.Backends() {
			t.Run(hash.Name()+"/"+backend, func(t *testing.T) {
				ctx := gputest.Limited(t, backend, wgpu.Limits{MaxStorageBindingSize: 256})
				c, err := merkle.NewCommitter(ctx, merkle.Schedule{{Hash: hash}}, merkle.Options{})
				require.NoError(t, err)
				defer c.Release()
				for r := 0; r < 2; r++ { // a second commit reuses the buffers
					got, err := merkle.CommitMatrix(nil, m, hash, merkle.Options{Committer: c})
					require.NoError(t, err)
					requireLeaves(t, leaves, got, "deep split")
					requireNodes(t, nodes, got, "deep split")
				}
				wide := randomMatrix(2, 33, 1) // a row of 264 bytes fits no binding
				_, err = merkle.CommitMatrix(nil, wide, hash, merkle.Options{Committer: c})
				require.ErrorContains(t, err, "does not fit the device's storage binding limit of 256 bytes")
			})
		}
	}
}

func TestCommitMatrixBadInput(t *testing.T) {
	hash := rescue.MerkleMerge{}
	m := randomMatrix(8, 5, 1)
	m.Data[3*5+2] = rescue.P
	forEachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		_, err := merkle.CommitMatrix(ctx, m, hash, merkle.Options{})
		require.ErrorContains(t, err, "matrix element 17 (row 3, column 2) is 18446744069414584321, not a Goldilocks field element")
		require.ErrorContains(t, err, "below p")
		for _, bad := range []merkle.Matrix[uint64]{
			{Rows: 8, Cols: 0, Data: nil},
			{Rows: 6, Cols: 1, Data: make([]uint64, 6)},
			{Rows: 1, Cols: 1, Data: make([]uint64, 1)},
			{Rows: 8, Cols: 2, Data: make([]uint64, 15)},
			{Rows: -8, Cols: -2, Data: make([]uint64, 16)},
			{Rows: 1 << 32, Cols: 1 << 32, Data: nil}, // rows × columns wraps to 0
		} {
			_, err := merkle.CommitMatrix(ctx, bad, hash, merkle.Options{})
			require.ErrorContains(t, err, "merkle: matrix of", "%d×%d", bad.Rows, bad.Cols)
		}
		_, err = merkle.CommitMatrix(ctx, merkle.Matrix[uint64]{Rows: 1 << 32, Cols: 1 << 32}, hash, merkle.Options{})
		require.ErrorContains(t, err, "4294967296 × 4294967296 is more than 9223372036854775807 elements")
		_, err = merkle.CommitMatrix(ctx, randomMatrix(8, 2, 1), nil, merkle.Options{})
		require.ErrorContains(t, err, "no hash")
		_, err = merkle.CommitMatrix(ctx, randomMatrix(8, 2, 1), hash, merkle.Options{}.WithApproach(9))
		require.ErrorContains(t, err, "accepted are 1")
		// A row hash other than the schedule's first hash.
		c, err := merkle.NewCommitter(ctx, merkle.Schedule{{Hash: blake3.MerkleMerge{}}}, merkle.Options{})
		require.NoError(t, err)
		defer c.Release()
		_, err = merkle.CommitMatrix(nil, randomMatrix(8, 2, 1), hash, merkle.Options{Committer: c})
		require.ErrorContains(t, err, "the leaves are rescue digests, but the schedule blake3 merges the first level with blake3")
	})
	_, err := merkle.MatrixLeaves(m, hash)
	require.ErrorContains(t, err, "row 3, column 2")
}

func TestVerifyRow(t *testing.T) {
	for _, hash := range []merkle.RowHash[uint64]{rescue.MerkleMerge{}, mixRows{}} {
		m := randomMatrix(16, 11, 4)
		tree, err := merkle.CommitMatrix(nil, m, hash, merkle.Options{})
		require.NoError(t, err)
		for r := 0; r < m.Rows; r++ {
			p, err := tree.Proof(r)
			require.NoError(t, err)
			row := append([]uint64(nil), m.Row(r)...)
			require.True(t, merkle.VerifyRow(hash, tree.Root(), m.Rows, row, p), "row %d", r)
			require.False(t, merkle.VerifyRow(hash, tree.Root(), m.Rows, row[:10], p), "a row cut short")
			require.False(t, merkle.VerifyRow(hash, tree.Root(), 2*m.Rows, row, p), "another size")
			require.False(t, merkle.VerifyRow(nil, tree.Root(), m.Rows, row, p))
			row[r%11]++
			if row[r%11] == rescue.P {
				row[r%11] = 0
			}
			require.False(t, merkle.VerifyRow(hash, tree.Root(), m.Rows, row, p), "row %d changed", r)
		}
	}
	// An element written with p added hashes (in Go's undefined
	// reference) as it is, but is never accepted.
	m := randomMatrix(4, 1, 4)
	m.Data[2] = 5
	tree, err := merkle.CommitMatrix(nil, m, rescue.MerkleMerge{}, merkle.Options{})
	require.NoError(t, err)
	p, err := tree.Proof(2)
	require.NoError(t, err)
	require.True(t, merkle.VerifyRow(rescue.MerkleMerge{}, tree.Root(), 4, []uint64{5}, p))
	require.False(t, merkle.VerifyRow(rescue.MerkleMerge{}, tree.Root(), 4, []uint64{5 + rescue.P}, p))
}

func TestCommitMatrixNoLeaks(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		m := randomMatrix(64, 9, 2)
		gputest.NoLeaks(t, ctx, func() error {
			_, err := merkle.CommitMatrix(ctx, m, rescue.MerkleMerge{}, merkle.Options{})
			return err
		})
		bad := randomMatrix(64, 9, 2)
		bad.Data[100] = ^uint64(0)
		gputest.NoLeaks(t, ctx, func() error {
			_, err := merkle.CommitMatrix(ctx, bad, rescue.MerkleMerge{}, merkle.Options{})
			return err
		})
	})
}

// TestCommitMatrixOtherHashes: rows hashed with Poseidon2's sponge
// (poseidon2_row.wgsl) and RPO's (rpo_row.wgsl) give the references' leaves
// and nodes, around the rate (8) and at odd column counts, on every
// backend.
func TestCommitMatrixOtherHashes(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	for _, tc := range []struct {
		hash     merkle.RowHash[uint64]
		elements func([]uint64) [4]uint64
	}{
		{poseidon2.MerkleMerge{}, poseidon2.HashElements},
		{rpo.MerkleMerge{}, rpo.HashElements},
	} {
		m := randomMatrix(2, 13, seed)
		want := tc.elements(m.Row(1))
		got := tc.hash.HashRow(m.Row(1))
		for j := range want {
			require.Equal(t, want[j], binary.LittleEndian.Uint64(got[8*j:]))
		}
	}
	type shape struct{ rows, cols int }
	shapes := []shape{{2, 1}, {8, 7}, {16, 8}, {4, 17}, {64, 3}, {32, 9}}
	forEachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, hash := range []merkle.RowHash[uint64]{poseidon2.MerkleMerge{}, rpo.MerkleMerge{}} {
			for _, s := range shapes {
				mat := randomMatrix(s.rows, s.cols, seed+uint64(s.cols))
				leaves, nodes := matrixReference(mat, hash)
				what := fmt.Sprintf("%s %d×%d", hash.(merkle.Hash).Name(), s.rows, s.cols)
				got, err := merkle.CommitMatrix(ctx, mat, hash, merkle.Options{})
				require.NoError(t, err, what)
				requireLeaves(t, leaves, got, what)
				requireNodes(t, nodes, got, what)
			}
		}
	})
}
