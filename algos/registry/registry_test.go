package registry

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/batch"
)

// TestHashes checks that every hash's names agree: its Merkle merge, its
// batch functions and its variants carry the registry's name, and that a
// Goldilocks hash has what the commands and the self-test read.
func TestHashes(t *testing.T) {
	seen := map[string]bool{}
	for _, h := range Hashes() {
		require.False(t, seen[h.Name], "%s listed twice", h.Name)
		seen[h.Name] = true
		require.Equal(t, h.Name, h.Merkle.Name())
		require.NotEmpty(t, h.Title)
		if slices.Contains(Fields31, h.Field) {
			require.Nil(t, h.Batch, h.Name)
			require.NotNil(t, h.Batch31, h.Name)
			require.Equal(t, h.Name, h.Batch31.Name())
			require.Contains(t, []string{"poseidon2", "poseidon2-gnark"}, h.Command, h.Name)
			require.NotEmpty(t, h.About, h.Name)
			require.NotNil(t, h.Reference31.Permute, h.Name)
			require.NotNil(t, h.Reference31.Merge, h.Name)
			require.NotNil(t, h.Reference31.HashElements, h.Name)
			require.Equal(t, []string{"fast"}, h.Variants())
			f, err := h.Variant31("fast")
			require.NoError(t, err)
			require.Equal(t, h.Name, f.Name())
			continue
		}
		require.Nil(t, h.Batch31, h.Name)
		if h.Field != Goldilocks {
			require.Nil(t, h.Batch, h.Name)
			require.Empty(t, h.Command, h.Name)
			continue
		}
		require.Equal(t, h.Name, h.Command)
		require.NotNil(t, h.Batch, h.Name)
		require.Equal(t, h.Name, h.Batch.Name())
		require.NotEmpty(t, h.About, h.Name)
		require.NotNil(t, h.Reference.Permute, h.Name)
		require.NotNil(t, h.Reference.Merge, h.Name)
		require.NotNil(t, h.Reference.HashElements, h.Name)
		vs := h.Variants()
		require.Equal(t, "fast", vs[0], "%s: the default first", h.Name)
		for _, v := range vs {
			f, err := h.Variant(v)
			require.NoError(t, err)
			require.Equal(t, h.Name, f.Name())
		}
	}
	require.Equal(t, []string{"rescue", "rpo", "poseidon2"}, Names(Of(Goldilocks)))
	require.Equal(t, []string{"poseidon2-babybear", "poseidon2-gnark-babybear"}, Names(Of(BabyBear)))
	require.Equal(t, []string{"poseidon2-koalabear", "poseidon2-gnark-koalabear"}, Names(Of(KoalaBear)))
	require.Equal(t, []string{"rescue", "rpo", "poseidon2", "poseidon2-babybear", "poseidon2-koalabear", "poseidon2-gnark-koalabear", "poseidon2-gnark-babybear"}, Names(Batched()))
	require.Equal(t, []string{"rescue", "rpo", "poseidon2", "poseidon2-gnark"}, Commands())
}

func TestLookup(t *testing.T) {
	h, err := Lookup("RPO")
	require.NoError(t, err)
	require.Equal(t, "rpo", h.Name)
	_, err = Lookup("sha256")
	require.EqualError(t, err, `unknown hash "sha256": accepted are blake3, rescue, rpo, poseidon2, poseidon2-babybear, poseidon2-koalabear, poseidon2-gnark-koalabear, poseidon2-gnark-babybear`)
	b, err := Lookup("blake3")
	require.NoError(t, err)
	_, err = b.Variant("fast")
	require.EqualError(t, err, "blake3: no batch functions over field elements")
	r, _ := Lookup("rescue")
	_, err = r.Variant31("fast")
	require.EqualError(t, err, "rescue: no batch functions over a 31-bit field")
	_, err = r.Variant("nope")
	require.ErrorContains(t, err, `rescue: unknown variant "nope": accepted are [fast densemds`)
}

// TestReference31 holds each 31-bit hash's reference to its batch
// functions' CPU path, the Montgomery twin the golden outputs check.
func TestReference31(t *testing.T) {
	for _, f := range Fields31 {
		h := Of(f)[0]
		p := uint32(h.Merkle.(interface{ Modulus() uint32 }).Modulus())
		var pair [16]uint32
		for i := range pair {
			pair[i] = p - 1 - uint32(i)*977
		}
		dst := make([][8]uint32, 1)
		require.NoError(t, h.Batch31.MergeMany(nil, dst, [][16]uint32{pair}, batch.Options{}))
		require.Equal(t, h.Reference31.Merge([8]uint32(pair[:8]), [8]uint32(pair[8:])), dst[0], h.Name)
		require.NoError(t, h.Batch31.HashElementsMany(nil, dst, pair[:11], 11, batch.Options{}))
		require.Equal(t, h.Reference31.HashElements(pair[:11]), dst[0], h.Name)
		st := []([16]uint32){pair}
		require.NoError(t, h.Batch31.PermuteMany(nil, st, batch.Options{}))
		h.Reference31.Permute(&pair)
		require.Equal(t, pair, st[0], h.Name)
	}
}

// TestFields: the fields come from the hashes, each once, with their
// elements' width and p; the defaults are each field's first hash.
func TestFields(t *testing.T) {
	fs := Fields()
	require.Equal(t, []string{Goldilocks, BabyBear, KoalaBear}, func() []string {
		var names []string
		for _, f := range fs {
			names = append(names, f.Name)
		}
		return names
	}())
	require.Equal(t, Field{Goldilocks, "Goldilocks", 64, 0xffffffff00000001}, fs[0])
	require.Equal(t, Field{BabyBear, "BabyBear", 32, 2013265921}, fs[1])
	require.Equal(t, "uint32", fs[2].Element())
	require.Equal(t, uint64(2130706433), fs[2].Modulus)
	require.Equal(t, []string{BabyBear, KoalaBear}, Fields31)
	f, err := FieldOf("BabyBear")
	require.NoError(t, err)
	require.Equal(t, BabyBear, f.Name)
	_, err = FieldOf("bytes")
	require.ErrorContains(t, err, `unknown field "bytes": accepted are goldilocks, babybear, koalabear`)
	for field, want := range map[string]string{Bytes: "blake3", Goldilocks: "rescue", BabyBear: "poseidon2-babybear"} {
		h, err := Default(field)
		require.NoError(t, err)
		require.Equal(t, want, h.Name, field)
	}
	_, err = Default("nope")
	require.Error(t, err)
}
