package poseidon2

import (
	"math/rand/v2"
	"testing"

	"github.com/wgcompute/wgcompute/internal/base/impl"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// Compile-time checks: the 31-bit hashes are merkle hashes of trees and
// of matrix commitments.
var (
	_ merkle.Hash            = BabyBearMerkle
	_ merkle.RowHash[uint32] = KoalaBearMerkle
)

var merkle31 = []MerkleMerge31{BabyBearMerkle, KoalaBearMerkle}

// randLeaves31 returns n random digests of h.
func randLeaves31(h MerkleMerge31, rng *rand.Rand, n int) [][32]byte {
	leaves := make([][32]byte, n)
	for i := range leaves {
		var e [Digest31]uint32
		for j := range e {
			e[j] = rng.Uint32N(h.Modulus())
		}
		leaves[i] = Digest31Bytes(e)
	}
	return leaves
}

// randMatrix31 returns a random rows × cols matrix of h's field, the
// field's edges mixed in.
func randMatrix31(h MerkleMerge31, rng *rand.Rand, rows, cols int) merkle.Matrix[uint32] {
	m := merkle.Matrix[uint32]{Rows: rows, Cols: cols, Data: make([]uint32, rows*cols)}
	for i := range m.Data {
		switch rng.IntN(8) {
		case 0:
			m.Data[i] = h.Modulus() - 1
		case 1:
			m.Data[i] = 0
		default:
			m.Data[i] = rng.Uint32N(h.Modulus())
		}
	}
	return m
}

func TestMerkle31CPU(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, h := range merkle31 {
		leaves := randLeaves31(h, rng, 4)
		tree, err := merkle.Build(nil, leaves, h, merkle.Options{})
		require.NoError(t, err)
		// By hand: state = left || right, one width-16 permutation, first 8.
		merge := func(a, b [32]byte) [32]byte {
			l, r := Digest31Elements(a), Digest31Elements(b)
			st := append(l[:], r[:]...)
			require.NoError(t, h.Permutation().Permute(st))
			return Digest31Bytes([8]uint32(st[:8]))
		}
		require.Equal(t, merge(merge(leaves[0], leaves[1]), merge(leaves[2], leaves[3])), tree.Root(), h.Name())
		for i := range leaves {
			p, err := tree.Proof(i)
			require.NoError(t, err)
			require.True(t, merkle.Verify(h, tree.Root(), len(leaves), p), "leaf %d", i)
			p.Leaf[5] ^= 1
			require.False(t, merkle.Verify(h, tree.Root(), len(leaves), p), "tampered leaf %d", i)
		}
		bad := randLeaves31(h, rng, 8)
		bad[5][12], bad[5][13], bad[5][14], bad[5][15] = 0xff, 0xff, 0xff, 0x7f
		_, err = merkle.Build(nil, bad, h, merkle.Options{})
		require.ErrorContains(t, err, "leaf 5")
		require.ErrorContains(t, err, "element 3")
		require.ErrorContains(t, err, "below p")
		// A row hashes as Plonky3's sponge does.
		row := randMatrix31(h, rng, 1, 19).Data
		want, err := h.Permutation().Sponge().Hash(row)
		require.NoError(t, err)
		require.Equal(t, Digest31Bytes([8]uint32(want)), h.HashRow(row))
	}
	require.Equal(t, "poseidon2-babybear", BabyBearMerkle.Name())
	require.Equal(t, "poseidon2-koalabear", KoalaBearMerkle.Name())
}

// checkTrees31 builds trees of several counts with every approach on ctx
// and compares every node with merkle.Build on the CPU; a capped tree's proofs and
// a multi-proof are checked too.
func checkTrees31(t *testing.T, ctx *wgpu.Context) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, h := range merkle31 {
		leaves := randLeaves31(h, rng, 4096)
		for _, a := range impl.List("merkle")[1:] { // merkle's approaches, forced
			set, err := impl.Select[func(merkle.Options) merkle.Options]("merkle", a)
			require.NoError(t, err)
			for _, n := range []int{2, 3, 5, 64, 1000, 4096} {
				want, err := merkle.Build(nil, leaves[:n], h, merkle.Options{})
				require.NoError(t, err)
				tr, err := merkle.Build(ctx, leaves[:n], h, set(merkle.Options{}))
				require.NoError(t, err, "%s, %s, %d leaves", h.Name(), a, n)
				got, w := tr.Nodes(), want.Nodes()
				require.Equal(t, len(w), len(got))
				for i := 1; i < len(w); i++ {
					if got[i] != w[i] {
						t.Fatalf("%s, %s, %d leaves: node %d differs", h.Name(), a, n, i)
					}
				}
			}
		}
		capped, err := merkle.Build(ctx, leaves[:1024], h, merkle.Options{CapHeight: 3})
		require.NoError(t, err)
		want, err := merkle.Build(nil, leaves[:1024], h, merkle.Options{})
		require.NoError(t, err)
		require.Equal(t, want.Root(), capped.Root())
		for _, i := range []int{0, 513, 1023} {
			p, err := capped.Proof(i)
			require.NoError(t, err)
			require.True(t, merkle.Verify(h, want.Root(), 1024, p), "%s capped proof %d", h.Name(), i)
		}
		mp, err := capped.MultiProof([]int{1, 2, 700})
		require.NoError(t, err)
		require.True(t, merkle.Verify(h, want.Root(), 1024, mp))
	}
}

func TestMerkle31GPU(t *testing.T) {
	gputest.ForEach(t, checkTrees31)
	gputest.ForEachSmall(t, checkTrees31)
}

// checkCommit31 commits to matrices of odd shapes on ctx and compares the
// trees with the CPU's, which are checked against the row hashes and
// merkle.Build on the CPU by hand.
func checkCommit31(t *testing.T, ctx *wgpu.Context) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, h := range merkle31 {
		for _, shape := range [][2]int{{2, 1}, {16, 7}, {64, 8}, {32, 9}, {256, 24}, {8, 131}} {
			m := randMatrix31(h, rng, shape[0], shape[1])
			leaves := make([][32]byte, m.Rows)
			for r := range m.Rows {
				leaves[r] = h.HashRow(m.Row(r))
			}
			want, err := merkle.Build(nil, leaves, h, merkle.Options{})
			require.NoError(t, err)
			cpu, err := merkle.CommitMatrix(nil, m, h, merkle.Options{})
			require.NoError(t, err)
			require.Equal(t, want.Nodes()[1:], cpu.Nodes()[1:])
			got, err := merkle.CommitMatrix(ctx, m, h, merkle.Options{})
			require.NoError(t, err, "%s %v", h.Name(), shape)
			require.Equal(t, want.Nodes()[1:], got.Nodes()[1:], "%s %v", h.Name(), shape)
			p, err := got.Proof(m.Rows - 1)
			require.NoError(t, err)
			require.True(t, merkle.VerifyRow(h, got.Root(), m.Rows, m.Row(m.Rows-1), p))
			row := append([]uint32(nil), m.Row(m.Rows-1)...)
			row[0] = (row[0] + 1) % h.Modulus()
			require.False(t, merkle.VerifyRow(h, got.Root(), m.Rows, row, p), "a changed row")
		}
		// Several heights in one tree, as Plonky3's MMCS commits them.
		ms := []merkle.Matrix[uint32]{randMatrix31(h, rng, 64, 9), randMatrix31(h, rng, 16, 3), randMatrix31(h, rng, 64, 2), randMatrix31(h, rng, 1, 17), randMatrix31(h, rng, 16, 8)}
		want, err := merkle.CommitMatrices(nil, ms, h, merkle.Options{})
		require.NoError(t, err)
		got, err := merkle.CommitMatrices(ctx, ms, h, merkle.Options{})
		require.NoError(t, err)
		require.Equal(t, want.Nodes()[1:], got.Nodes()[1:], "%s matrices", h.Name())
		heights := []int{64, 16, 64, 1, 16}
		for _, i := range []int{0, 37, 63} {
			rows, err := merkle.MatricesOpening(ms, h, i)
			require.NoError(t, err)
			p, err := got.Proof(i)
			require.NoError(t, err)
			require.True(t, merkle.VerifyMatrices(h, got.Root(), heights, rows, p), "opening %d", i)
			rows[1] = append([]uint32{(rows[1][0] + 1) % h.Modulus()}, rows[1][1:]...)
			require.False(t, merkle.VerifyMatrices(h, got.Root(), heights, rows, p), "tampered opening %d", i)
		}
	}
}

func TestCommitMatrix31(t *testing.T) {
	gputest.ForEach(t, checkCommit31)
	gputest.ForEachSmall(t, checkCommit31)
}

// TestMerkle31WebGPULimits builds trees and commitments under WebGPU's
// default limits, what a browser guarantees.
func TestMerkle31WebGPULimits(t *testing.T) {
	for _, b := range gputest.Backends() {
		t.Run(b, func(t *testing.T) {
			ctx := gputest.Limited(t, b, wgpu.WebGPULimits)
			checkTrees31(t, ctx)
			checkCommit31(t, ctx)
		})
	}
}

func TestCommitMatrix31BadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	h := BabyBearMerkle
	m := randMatrix31(h, rng, 8, 5)
	m.Data[3*5+2] = h.Modulus()
	ctxs := []*wgpu.Context{nil}
	for _, b := range gputest.Backends() {
		ctxs = append(ctxs, gputest.Context(t, b))
	}
	for _, ctx := range ctxs {
		_, err := merkle.CommitMatrix(ctx, m, h, merkle.Options{})
		require.ErrorContains(t, err, "element 17 (row 3, column 2) is 2013265921, not a babybear field element: elements are values below p = 2013265921")
		_, err = merkle.CommitMatrices(ctx, []merkle.Matrix[uint32]{m}, h, merkle.Options{})
		require.ErrorContains(t, err, "matrix 0 element 17 (row 3, column 2)")
	}
	_, err := merkle.CommitMatrix(nil, m, nil, merkle.Options{})
	require.ErrorContains(t, err, "no hash")
	_, err = merkle.CommitMatrix(nil, merkle.Matrix[uint32]{Rows: 8, Cols: 5, Data: make([]uint32, 39)}, h, merkle.Options{})
	require.ErrorContains(t, err, "has 39")
}

func TestCommitMatrix31NoLeaks(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	m := randMatrix31(KoalaBearMerkle, rng, 128, 33)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		gputest.NoLeaks(t, ctx, func() error {
			_, err := merkle.CommitMatrix(ctx, m, KoalaBearMerkle, merkle.Options{})
			return err
		})
	})
}

func TestMerkle31ZeroValue(t *testing.T) {
	var zero MerkleMerge31
	require.Equal(t, BabyBearMerkle.Name(), zero.Name())
	a, b := [32]byte{1}, [32]byte{2}
	require.Equal(t, BabyBearMerkle.Merge(a, b), zero.Merge(a, b))
	require.NotEqual(t, KoalaBearMerkle.Merge(a, b), zero.Merge(a, b))
}
