package merkle_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// deviceCase commits m from a device buffer, stored at an unaligned
// offset row by row or column by column, and compares every leaf and node
// with CommitMatrix on the CPU.
func deviceCase[E field.Element](t *testing.T, ctx *wgpu.Context, m merkle.Matrix[E], hash merkle.RowHash[E], colMajor bool, what string) {
	t.Helper()
	want, err := merkle.CommitMatrix(nil, m, hash, merkle.Options{})
	require.NoError(t, err, what)
	data := m.Data
	if colMajor {
		data = make([]E, len(m.Data))
		for r := range m.Rows {
			for c := range m.Cols {
				data[c*m.Rows+r] = m.Data[r*m.Cols+c]
			}
		}
	}
	bytes := wgpu.Bytes(data)
	const off = 264 // past the first aligned offset, not on the next
	buf, err := ctx.NewBuffer("test device matrix", uint64(off+len(bytes)+256))
	require.NoError(t, err)
	defer buf.Release()
	require.NoError(t, ctx.Upload(buf, off, bytes))
	var tm wgpu.Timing
	got, err := merkle.CommitDeviceMatrix(ctx, merkle.DeviceMatrix{
		Data: wgpu.Binding{Buffer: buf, Offset: off, Size: uint64(len(bytes))}, Rows: m.Rows, Cols: m.Cols, ColumnMajor: colMajor,
	}, hash, merkle.Options{Timing: &tm})
	require.NoError(t, err, what)
	require.Equal(t, want.Root(), got.Root(), what)
	requireLeaves(t, want.Leaves(), got, what)
	requireNodes(t, want.Nodes(), got, what)
	require.NotZero(t, tm.Elapsed(), what)
	root, err := merkle.DeviceMatrixRoot(ctx, merkle.DeviceMatrix{
		Data: wgpu.Binding{Buffer: buf, Offset: off}, Rows: m.Rows, Cols: m.Cols, ColumnMajor: colMajor,
	}, hash, merkle.Options{})
	require.NoError(t, err, what)
	require.Equal(t, want.Root(), root, what+": root alone")
}

// TestCommitDeviceMatrix commits matrices held on the device, row by row
// and column by column, over Goldilocks and BabyBear, odd widths and
// heights from 2 rows; under small limits the tallest are two subtrees
// and, row by row, several pieces.
func TestCommitDeviceMatrix(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	bb := poseidon2.BabyBearMerkle
	type shape struct{ rows, cols int }
	run := func(t *testing.T, ctx *wgpu.Context) {
		for _, col := range []bool{false, true} {
			shapes := []shape{{2, 1}, {8, 7}, {64, 33}, {4096, 1}}
			if !col { // by columns, one binding: too large under small limits
				shapes = append(shapes, shape{4096, 3})
			}
			for _, s := range shapes {
				what := fmt.Sprintf("mix %d×%d by columns %v", s.rows, s.cols, col)
				deviceCase(t, ctx, randomMatrix(s.rows, s.cols, seed+uint64(s.cols)), merkle.RowHash[uint64](mixRows{}), col, what)
			}
			for _, s := range []shape{{4, 2}, {32, 9}} {
				what := fmt.Sprintf("rescue %d×%d by columns %v", s.rows, s.cols, col)
				deviceCase(t, ctx, randomMatrix(s.rows, s.cols, seed+uint64(s.cols)), merkle.RowHash[uint64](rescue.MerkleMerge{}), col, what)
			}
			for _, s := range []shape{{2, 1}, {16, 7}, {128, 33}, {4096, 3}} {
				r := rand.New(rand.NewPCG(seed, uint64(s.rows*s.cols)))
				m := merkle.Matrix[uint32]{Rows: s.rows, Cols: s.cols, Data: make([]uint32, s.rows*s.cols)}
				for i := range m.Data {
					m.Data[i] = r.Uint32N(bb.Modulus())
				}
				m.Data[0] = bb.Modulus() - 1
				what := fmt.Sprintf("babybear %d×%d by columns %v", s.rows, s.cols, col)
				deviceCase(t, ctx, m, merkle.RowHash[uint32](bb), col, what)
			}
		}
	}
	gputest.ForEach(t, run)
	gputest.ForEachSmall(t, run)
}

// TestCommitDeviceMatrixBadInput: shapes a device matrix cannot have are
// refused, saying why, and the CPU backend is refused.
func TestCommitDeviceMatrixBadInput(t *testing.T) {
	bb := poseidon2.BabyBearMerkle
	_, err := merkle.CommitDeviceMatrix(nil, merkle.DeviceMatrix{Rows: 4, Cols: 1}, merkle.RowHash[uint32](bb), merkle.Options{})
	require.ErrorContains(t, err, "GPU Context")
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		buf, err := ctx.NewBuffer("test device matrix", 1024)
		require.NoError(t, err)
		defer buf.Release()
		for _, tc := range []struct {
			m    merkle.DeviceMatrix
			want string
		}{
			{merkle.DeviceMatrix{Data: wgpu.Bind(buf), Rows: 4, Cols: 0}, "1 column or more"},
			{merkle.DeviceMatrix{Data: wgpu.Bind(buf), Rows: 3, Cols: 2}, "power of two"},
			{merkle.DeviceMatrix{Data: wgpu.Bind(buf), Rows: 64, Cols: 5}, "does not fit its binding"},
			{merkle.DeviceMatrix{Data: wgpu.Binding{Buffer: buf, Offset: 2}, Rows: 4, Cols: 1}, "does not fit its binding"},
			{merkle.DeviceMatrix{Rows: 4, Cols: 1}, "without a buffer"},
		} {
			_, err := merkle.CommitDeviceMatrix(ctx, tc.m, merkle.RowHash[uint32](bb), merkle.Options{})
			require.ErrorContains(t, err, tc.want)
		}
	})
}
