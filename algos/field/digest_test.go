package field

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGoldilocksLeaves(t *testing.T) {
	ds := [][4]uint64{{1, 2, 3, 4}, {GoldilocksP - 1, 0, 1 << 40, 7}, {GoldilocksP, ^uint64(0), 0, 1}}
	leaves := GoldilocksLeaves(ds)
	require.Len(t, leaves, len(ds))
	for i, d := range ds {
		require.Equal(t, GoldilocksLeaf(d), leaves[i])
		require.Equal(t, d, GoldilocksDigest(leaves[i]), "unchecked: any four words go back and forth")
	}
	require.Equal(t, byte(1), leaves[0][0], "little-endian: the low byte of element 0 first")
	require.Equal(t, byte(2), leaves[0][8])
	require.Equal(t, [32]byte{4: 0xff, 5: 0xff, 6: 0xff, 7: 0xff, 21: 1, 24: 7}, leaves[1], "p-1 = 0xffffffff00000000, then 0, 2^40, 7")
	require.Empty(t, GoldilocksLeaves(nil))
}
