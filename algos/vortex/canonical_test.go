package vortex

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/field/koalabear"
	"github.com/stretchr/testify/require"
)

// TestFromCanonicalInPlace holds the in-place conversion, and
// FromCanonical's into a new slice, to gnark-crypto's SetUint64 at odd
// sizes (past the vector's blocks of 16 and the ranges of the cores), and
// checks that a value not below p is named and leaves the values as they
// were, wherever it lies.
func TestFromCanonicalInPlace(t *testing.T) {
	const p = 2130706433
	r := rand.New(rand.NewPCG(3, 9))
	for _, sh := range [][2]int{{1, 1}, {3, 5}, {7, 17}, {33, 1000}, {129, 2049}} {
		rows, cols := sh[0], sh[1]
		vals := make([]uint32, rows*cols)
		for i := range vals {
			vals[i] = r.Uint32N(p)
		}
		vals[0], vals[len(vals)-1] = p-1, 0
		orig := slices.Clone(vals)
		copied, err := FromCanonical(vals, rows, cols)
		require.NoError(t, err)
		require.Equal(t, orig, vals, "FromCanonical leaves vals as they were")
		els, err := FromCanonicalInPlace(vals, rows, cols)
		require.NoError(t, err)
		require.Len(t, els, rows*cols)
		for i, v := range orig {
			var want koalabear.Element
			want.SetUint64(uint64(v))
			require.Equal(t, want, els[i], "element %d of %d × %d", i, rows, cols)
			require.Equal(t, want, copied[i], "FromCanonical: element %d of %d × %d", i, rows, cols)
		}
		require.Equal(t, &els[0][0], &vals[0], "the elements are vals' memory")
	}
	for _, bad := range []int{0, 4095, 4096, 70000, 262143} {
		rows, cols := 64, 4096
		vals := make([]uint32, rows*cols)
		for i := range vals {
			vals[i] = r.Uint32N(p)
		}
		vals[bad] = p + uint32(bad%3)
		if bad+5 < len(vals) {
			vals[bad+5] = 0xffffffff
		}
		orig := slices.Clone(vals)
		_, err := FromCanonicalInPlace(vals, rows, cols)
		require.EqualError(t, err, fmt.Sprintf("vortex: element (%d, %d) is %d: KoalaBear's elements are below p = %d", bad/cols, bad%cols, p+uint32(bad%3), p))
		require.Equal(t, orig, vals, "bad element %d: the values as they were", bad)
	}
	_, err := FromCanonicalInPlace([]uint32{1, 2, 3}, 2, 2)
	require.ErrorContains(t, err, "given 3")
	_, err = FromCanonicalInPlace(nil, 0, 2)
	require.ErrorContains(t, err, "positive sizes")
}
