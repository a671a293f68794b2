package lde_test

import (
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/field/koalabear"
	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/lde"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// TestCommitMonty extends and commits a matrix of gnark-crypto's
// elements (Montgomery form, merkle.MontyMatrix) at odd shapes and holds
// the tree to the commitment of the same values held canonical, on the
// CPU and the GPU (where the extension runs in Montgomery form and the
// rows are hashed as the device holds them); Montgomery words not below
// p, and Montgomery matrices of Goldilocks, are refused.
func TestCommitMonty(t *testing.T) {
	f := field.KoalaBear
	for _, hash := range []merkle.RowHash[uint32]{poseidon2.KoalaBearMerkle, poseidon2.GnarkKoalaBear} {
		for _, s := range [][3]int{{4, 3, 2}, {16, 7, 4}, {32, 17, 2}} {
			what := fmt.Sprintf("%s %d×%d rate %d", hash.Name(), s[0], s[1], s[2])
			canon := randomMatrix(s[0], s[1], f.P(), uint64(s[0]*s[1]))
			els := make([]koalabear.Element, len(canon.Data))
			for i, x := range canon.Data {
				els[i].SetUint64(uint64(x))
			}
			monty := merkle.MontyMatrix(s[0], s[1], els)
			o := lde.Options{Extend: lde.Plonky3(s[2])}
			want, err := lde.Commit(nil, canon, hash, o)
			require.NoError(t, err, what)
			got, err := lde.Commit(nil, monty, hash, o)
			require.NoError(t, err, what)
			require.Equal(t, want.Nodes(), got.Nodes(), "%s, CPU", what)
			gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
				got, err := lde.Commit(ctx, monty, hash, o)
				require.NoError(t, err, what)
				require.Equal(t, want.Leaves(), got.Leaves(), what)
				require.Equal(t, want.Nodes(), got.Nodes(), what)
				root, err := lde.Root(ctx, monty, hash, o)
				require.NoError(t, err, what)
				require.Equal(t, want.Root(), root, what)
			})
		}
	}
	bad := merkle.MontyMatrix(4, 3, make([]koalabear.Element, 12))
	bad.Data[7] = f.P()
	for _, ctx := range append([]*wgpu.Context{nil}, contexts(t)...) {
		_, err := lde.Commit(ctx, bad, poseidon2.KoalaBearMerkle, lde.Options{Extend: lde.Plonky3(2)})
		require.ErrorContains(t, err, "lde: matrix element 7 (row 2, column 1): Montgomery word 0x7f000001 is not reduced: a koalabear element in Montgomery form is a word below p = 2130706433")
	}
	gold := randomMatrix[uint64](4, 3, rescue.P, 1)
	gold.Form = field.Montgomery
	_, err := lde.Commit(nil, gold, rescue.MerkleMerge{}, lde.Options{Extend: lde.Plonky3(2)})
	require.ErrorContains(t, err, "lde: a matrix of Montgomery form is over BabyBear or KoalaBear")
}

// contexts returns a Context of each backend under test.
func contexts(t *testing.T) []*wgpu.Context {
	var cs []*wgpu.Context
	for _, b := range gputest.Backends() {
		cs = append(cs, gputest.Context(t, b))
	}
	return cs
}
