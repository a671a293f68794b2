package goldilocks

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestChecks(t *testing.T) {
	h := &Hash{Name: "h"}
	pairs := make([][8]uint64, 4)
	pairs[2][6] = P
	require.ErrorContains(t, h.CheckMerge(make([][4]uint64, 4), pairs), "h: merge: pair 2 element 6 is")
	require.ErrorContains(t, h.CheckMerge(nil, pairs), "h: merge: 0 destination digests for 4 pairs")
	in := make([]uint64, 12)
	in[7] = P + 1
	require.ErrorContains(t, h.CheckHash(make([][4]uint64, 4), in, 3), "h: hash: input 2 element 1")
	require.ErrorContains(t, h.CheckHash(make([][4]uint64, 4), in, 2), "need exactly 8")
	require.ErrorContains(t, h.CheckHash(nil, nil, -1), "zero or more")
	states := make([][12]uint64, 2)
	states[1][0] = ^uint64(0)
	require.ErrorContains(t, h.CheckPermute(states), "h: permute: state 1 element 0")
	require.NoError(t, h.CheckPermute(nil))

	bounded := &Hash{Name: "b", MaxElements: 16}
	require.ErrorContains(t, bounded.CheckHash(nil, nil, 17), "b: hash: 17 elements per input: must be 0 to 16")
	require.ErrorContains(t, bounded.CheckHash(nil, nil, -1), "must be 0 to 16")
	require.NoError(t, bounded.CheckHash(make([][4]uint64, 1), make([]uint64, 16), 16))

	d := DigestBytes([4]uint64{1, 2, P, 4})
	require.Equal(t, [4]uint64{1, 2, P, 4}, DigestElements(d))
	err := CheckDigest("Name", d)
	require.ErrorContains(t, err, "element 2 is")
	require.True(t, strings.Contains(err.Error(), "Name digests are 4 little-endian uint64 values below p"))
	require.NoError(t, CheckDigest("Name", DigestBytes([4]uint64{P - 1})))
}

func TestConvertDigest(t *testing.T) {
	require.Equal(t, DigestBytes([4]uint64{0, 1, P - 1, 1<<32 - 2}), ConvertDigest(DigestBytes([4]uint64{P, P + 1, P - 1, ^uint64(0)})))
	d := DigestBytes([4]uint64{5, 6, 7, 8})
	require.Equal(t, d, ConvertDigest(d), "a digest maps to itself")
}

func TestFirstNonCanonical(t *testing.T) {
	for _, n := range []int{0, 1, 5, 3<<20 + 7} {
		els := make([]uint64, n)
		require.Equal(t, -1, FirstNonCanonical(els))
		if n == 0 {
			continue
		}
		for _, at := range []int{n - 1, n / 2, 0} {
			els[at] = P
			require.Equal(t, at, FirstNonCanonical(els), "n=%d", n)
		}
	}
}

func TestVariants(t *testing.T) {
	vs := Variants{Hash: "h", Names: []string{"fast", "slow"}}
	require.Equal(t, "slow", vs.Name(1))
	require.Equal(t, "Variant(2)", vs.Name(2))
	require.Equal(t, "Variant(-1)", vs.Name(-1))
	v, err := vs.Parse("slow")
	require.NoError(t, err)
	require.Equal(t, 1, v)
	_, err = vs.Parse("nope")
	require.EqualError(t, err, `h: unknown variant "nope": accepted are [fast slow]`)
	require.NoError(t, vs.Check(0))
	require.EqualError(t, vs.Check(2), "h: unknown variant 2: accepted are [fast slow] (0..1)")
	require.Error(t, vs.Check(-1))
}

func TestOpString(t *testing.T) {
	require.Equal(t, "permute", OpPermute.String())
	require.Equal(t, "merge", OpMerge.String())
	require.Equal(t, "hash", OpHash.String())
	require.Equal(t, "Op(7)", Op(7).String())
}
