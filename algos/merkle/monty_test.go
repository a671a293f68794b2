package merkle_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/field/babybear"
	"github.com/consensys/gnark-crypto/field/koalabear"
	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// montyHashes are the row hashes that read Montgomery matrices.
var montyHashes = []merkle.RowHash[uint32]{poseidon2.BabyBearMerkle, poseidon2.KoalaBearMerkle, poseidon2.GnarkBabyBear, poseidon2.GnarkKoalaBear}

// random31 returns rows × cols canonical elements of the field of p, the
// edges (0, 1, p-1) over-represented.
func random31(r *rand.Rand, p uint32, n int) []uint32 {
	v := make([]uint32, n)
	for i := range v {
		switch r.IntN(8) {
		case 0:
			v[i] = p - 1 - r.Uint32N(4)
		case 1:
			v[i] = r.Uint32N(4)
		default:
			v[i] = r.Uint32N(p)
		}
	}
	return v
}

// gnarkMatrix returns the Montgomery matrix of the canonical values v as
// a gnark-crypto user holds it: []koalabear.Element or []babybear.Element
// set from the values, given to MontyMatrix as they are.
func gnarkMatrix(t *testing.T, f field.Monty31, rows, cols int, v []uint32) merkle.Matrix[uint32] {
	t.Helper()
	switch f {
	case field.KoalaBear:
		els := make([]koalabear.Element, len(v))
		for i, x := range v {
			els[i].SetUint64(uint64(x))
		}
		return merkle.MontyMatrix(rows, cols, els)
	case field.BabyBear:
		els := make([]babybear.Element, len(v))
		for i, x := range v {
			els[i].SetUint64(uint64(x))
		}
		return merkle.MontyMatrix(rows, cols, els)
	}
	t.Fatalf("no gnark-crypto field %s", f)
	return merkle.Matrix[uint32]{}
}

func fieldOf31(t *testing.T, h merkle.RowHash[uint32]) field.Monty31 {
	f, err := field.ParseField(h.FieldName())
	require.NoError(t, err)
	return f
}

// TestCommitMatrixMonty commits random matrices at odd shapes held as
// gnark-crypto's elements (Montgomery form) with each 31-bit Poseidon2 row
// hash, on the CPU and every backend, and holds every leaf and node to
// the commitment of the same values held canonical on the CPU.
func TestCommitMatrixMonty(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	type shape struct{ rows, cols int }
	shapes := []shape{{2, 1}, {4, 7}, {8, 16}, {16, 17}, {2, 33}, {64, 9}, {32, 24}, {256, 5}}
	for _, hash := range montyHashes {
		t.Run(hash.Name(), func(t *testing.T) {
			f := fieldOf31(t, hash)
			r := rand.New(rand.NewPCG(seed, uint64(f.P())))
			canon := map[shape]merkle.Matrix[uint32]{}
			monty := map[shape]merkle.Matrix[uint32]{}
			want := map[shape]*merkle.Tree{}
			for _, s := range shapes {
				v := random31(r, f.P(), s.rows*s.cols)
				canon[s] = merkle.Matrix[uint32]{Rows: s.rows, Cols: s.cols, Data: v}
				monty[s] = gnarkMatrix(t, f, s.rows, s.cols, v)
				require.NotEqual(t, canon[s].Data, monty[s].Data, "the forms' words differ")
				tr, err := merkle.CommitMatrix(nil, canon[s], hash, merkle.Options{})
				require.NoError(t, err)
				want[s] = tr
			}
			forEachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
				for _, s := range shapes {
					for _, m := range []merkle.Matrix[uint32]{canon[s], monty[s]} {
						what := fmt.Sprintf("%d×%d %s", s.rows, s.cols, m.Form)
						got, err := merkle.CommitMatrix(ctx, m, hash, merkle.Options{})
						require.NoError(t, err, what)
						requireLeaves(t, want[s].Leaves(), got, what)
						requireNodes(t, want[s].Nodes(), got, what)
					}
				}
			})
		})
	}
}

// TestCommitMatricesMonty commits several matrices of different heights
// in one tree (rows injected into the levels above the leaves), held as
// gnark-crypto's elements, and holds the tree to the canonical one's.
func TestCommitMatricesMonty(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	shapes := [][2]int{{64, 3}, {16, 5}, {64, 9}, {4, 2}, {1, 7}}
	for _, hash := range []merkle.RowHash[uint32]{poseidon2.KoalaBearMerkle, poseidon2.GnarkBabyBear} {
		t.Run(hash.Name(), func(t *testing.T) {
			f := fieldOf31(t, hash)
			r := rand.New(rand.NewPCG(seed, uint64(f.P())))
			var canon, monty []merkle.Matrix[uint32]
			for _, s := range shapes {
				v := random31(r, f.P(), s[0]*s[1])
				canon = append(canon, merkle.Matrix[uint32]{Rows: s[0], Cols: s[1], Data: v})
				monty = append(monty, gnarkMatrix(t, f, s[0], s[1], v))
			}
			want, err := merkle.CommitMatrices(nil, canon, hash, merkle.Options{})
			require.NoError(t, err)
			forEachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
				got, err := merkle.CommitMatrices(ctx, monty, hash, merkle.Options{})
				require.NoError(t, err)
				requireLeaves(t, want.Leaves(), got, "Montgomery")
				requireNodes(t, want.Nodes(), got, "Montgomery")
				_, err = merkle.CommitMatrices(ctx, append(monty[:1:1], canon[1:]...), hash, merkle.Options{})
				require.ErrorContains(t, err, "matrix 1 is of canonical form and matrix 0 of Montgomery form: matrices committed together are of one form")
			})
		})
	}
}

// TestOpenMontyVerifies opens every leaf of matrices committed as
// gnark-crypto's elements: the opened rows are the values (the canonical
// matrices' rows), and they verify with the tree's proof as they are, so
// that a prover's opening needs no conversion before its verifier.
func TestOpenMontyVerifies(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	shapes := [][2]int{{32, 3}, {8, 5}, {32, 1}}
	for _, hash := range []merkle.RowHash[uint32]{poseidon2.BabyBearMerkle, poseidon2.GnarkKoalaBear} {
		t.Run(hash.Name(), func(t *testing.T) {
			f := fieldOf31(t, hash)
			r := rand.New(rand.NewPCG(seed, uint64(f.P())))
			var canon, monty []merkle.Matrix[uint32]
			heights := make([]int, len(shapes))
			for k, s := range shapes {
				v := random31(r, f.P(), s[0]*s[1])
				canon = append(canon, merkle.Matrix[uint32]{Rows: s[0], Cols: s[1], Data: v})
				monty = append(monty, gnarkMatrix(t, f, s[0], s[1], v))
				heights[k] = s[0]
			}
			tr, err := merkle.CommitMatrices(nil, monty, hash, merkle.Options{})
			require.NoError(t, err)
			for i := range shapes[0][0] {
				got, err := merkle.MatricesOpening(monty, hash, i)
				require.NoError(t, err)
				want, err := merkle.MatricesOpening(canon, hash, i)
				require.NoError(t, err)
				require.Equal(t, want, got, "leaf %d: the opened rows are values", i)
				p, err := tr.Proof(i)
				require.NoError(t, err)
				require.True(t, merkle.VerifyMatrices(hash, tr.Root(), heights, got, p), "leaf %d", i)
			}
			_, err = merkle.MatricesOpening(append(monty[:1:1], canon[1:]...), hash, 0)
			require.ErrorContains(t, err, "of one form")
		})
	}
}

// TestCommitMatrixMontyRefused: a Montgomery word not below p is named by
// its place, on every backend, and nothing is committed; a hash that reads
// canonical rows alone refuses a Montgomery matrix, naming itself and the
// hashes that take one; a form that is none is refused.
func TestCommitMatrixMontyRefused(t *testing.T) {
	hash := poseidon2.KoalaBearMerkle
	p := field.KoalaBear.P()
	v := random31(rand.New(rand.NewPCG(1, 2)), p, 8*9)
	forEachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		m := gnarkMatrix(t, field.KoalaBear, 8, 9, v)
		m.Data[5*9+4] = p + 3
		_, err := merkle.CommitMatrix(ctx, m, hash, merkle.Options{})
		require.ErrorContains(t, err, "merkle: matrix element 49 (row 5, column 4): Montgomery word 0x7f000004 is not reduced: a koalabear element in Montgomery form is a word below p = 2130706433")
		_, err = merkle.CommitMatrices(ctx, []merkle.Matrix[uint32]{m}, hash, merkle.Options{})
		require.ErrorContains(t, err, "matrix 0 element 49 (row 5, column 4): Montgomery word 0x7f000004 is not reduced")

		gold := randomMatrix(4, 3, 7)
		gold.Form = field.Montgomery
		_, err = merkle.CommitMatrix(ctx, gold, rescue.MerkleMerge{}, merkle.Options{})
		require.ErrorContains(t, err, "merkle: rescue hashes rows of canonical elements only, not a matrix of Montgomery form: Montgomery matrices (BabyBear and KoalaBear, MontyMatrix) are hashed by the 31-bit Poseidon2 row hashes")
		_, err = merkle.CommitMatrices(ctx, []merkle.Matrix[uint64]{gold}, rescue.MerkleMerge{}, merkle.Options{})
		require.ErrorContains(t, err, "hashes rows of canonical elements only")

		bad := gnarkMatrix(t, field.KoalaBear, 8, 9, v)
		bad.Form = 7
		_, err = merkle.CommitMatrix(ctx, bad, hash, merkle.Options{})
		require.ErrorContains(t, err, "form 7: the forms are Canonical (0) and Montgomery (1)")
	})
}

// TestCommitMontyGroup commits Montgomery matrices split over Groups of
// devices (each range's rows hashed in that form on its member, the
// shorter matrices' rows merged into the top levels) and holds the trees
// to the canonical ones on the CPU; a bad word is named as on one device.
func TestCommitMontyGroup(t *testing.T) {
	hash := poseidon2.GnarkKoalaBear
	f := field.KoalaBear
	r := rand.New(rand.NewPCG(rand.Uint64(), 3))
	shapes := [][2]int{{256, 9}, {64, 17}, {4, 3}}
	var canon, monty []merkle.Matrix[uint32]
	for _, s := range shapes {
		v := random31(r, f.P(), s[0]*s[1])
		canon = append(canon, merkle.Matrix[uint32]{Rows: s[0], Cols: s[1], Data: v})
		monty = append(monty, gnarkMatrix(t, f, s[0], s[1], v))
	}
	one, err := merkle.CommitMatrix(nil, canon[0], hash, merkle.Options{})
	require.NoError(t, err)
	all, err := merkle.CommitMatrices(nil, canon, hash, merkle.Options{})
	require.NoError(t, err)
	gputest.ForEachGroup(t, func(t *testing.T, g *sched.Group) {
		got, err := merkle.CommitMatrix(g, monty[0], hash, merkle.Options{})
		require.NoError(t, err)
		requireNodes(t, one.Nodes(), got, "CommitMatrix")
		got, err = merkle.CommitMatrices(g, monty, hash, merkle.Options{})
		require.NoError(t, err)
		requireNodes(t, all.Nodes(), got, "CommitMatrices")
		bad := monty[0]
		bad.Data = append([]uint32(nil), bad.Data...)
		bad.Data[200*9+1] = ^uint32(0)
		_, err = merkle.CommitMatrix(g, bad, hash, merkle.Options{})
		require.ErrorContains(t, err, "matrix element 1801 (row 200, column 1): Montgomery word 0xffffffff is not reduced")
	})
}
