package goldilocks

import (
	"strings"
	"testing"
	"time"

	"github.com/wgcompute/wgcompute/algos/field"

	"github.com/stretchr/testify/require"
)

func TestDigests(t *testing.T) {
	d := field.GoldilocksLeaf([4]uint64{1, 2, P, 4})
	require.Equal(t, [4]uint64{1, 2, P, 4}, field.GoldilocksDigest(d))
	err := CheckDigest("Name", d)
	require.ErrorContains(t, err, "element 2 is")
	require.True(t, strings.Contains(err.Error(), "Name digests are 4 little-endian uint64 values below p"))
	require.NoError(t, CheckDigest("Name", field.GoldilocksLeaf([4]uint64{P - 1})))
}

func TestConvertDigest(t *testing.T) {
	require.Equal(t, field.GoldilocksLeaf([4]uint64{0, 1, P - 1, 1<<32 - 2}), ConvertDigest(field.GoldilocksLeaf([4]uint64{P, P + 1, P - 1, ^uint64(0)})))
	d := field.GoldilocksLeaf([4]uint64{5, 6, 7, 8})
	require.Equal(t, d, ConvertDigest(d), "a digest maps to itself")
}

// TestMerkleHostWidth: Rescue's figures (a merge in 13 µs on one core,
// 350 µs a level on an H200) give the widths the model's comment names,
// and a merge slower on the CPU than a GPU level gives none.
func TestMerkleHostWidth(t *testing.T) {
	for _, tc := range []struct{ cores, want int }{{1, 32}, {2, 64}, {16, 512}, {32, 1024}, {0, 0}} {
		require.Equal(t, tc.want, MerkleHostWidth(tc.cores, 13*time.Microsecond, 350*time.Microsecond), "%d cores", tc.cores)
	}
	require.Equal(t, 2, MerkleHostWidth(1, 10*time.Microsecond, 10*time.Microsecond))
	require.Zero(t, MerkleHostWidth(1, 11*time.Microsecond, 10*time.Microsecond))
	require.Zero(t, MerkleHostWidth(4, 0, 10*time.Microsecond))
}
