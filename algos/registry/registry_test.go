package registry

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/internal/base/impl"
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
		if h.Field == Bytes {
			require.Nil(t, h.Batch, h.Name)
			require.Nil(t, h.Reference, h.Name)
			require.Empty(t, h.Command, h.Name)
			require.Zero(t, h.ElementBits(), h.Name)
			continue
		}
		require.NotEmpty(t, h.About, h.Name)
		require.NotNil(t, h.Batch, h.Name)
		require.Equal(t, h.Name, h.Batch.(interface{ Name() string }).Name())
		switch h.ElementBits() {
		case 32:
			require.Contains(t, Fields31, h.Field, h.Name)
			require.Contains(t, []string{"poseidon2", "poseidon2-gnark"}, h.Command, h.Name)
			require.NotNil(t, BatchOf[uint32, [8]uint32, [16]uint32, [16]uint32](h), h.Name)
			require.Nil(t, BatchOf[uint64, [4]uint64, [8]uint64, [12]uint64](h), h.Name)
			r, ok := ReferenceOf[uint32, [8]uint32, [16]uint32](h)
			require.True(t, ok, h.Name)
			require.NotNil(t, r.Permute, h.Name)
			require.NotNil(t, r.Merge, h.Name)
			require.NotNil(t, r.HashElements, h.Name)
			checkVariants[*batch.Monty31](t, h)
		case 64:
			require.Equal(t, Goldilocks, h.Field, h.Name)
			require.Equal(t, h.Name, h.Command)
			require.NotNil(t, BatchOf[uint64, [4]uint64, [8]uint64, [12]uint64](h), h.Name)
			require.Nil(t, BatchOf[uint32, [8]uint32, [16]uint32, [16]uint32](h), h.Name)
			r, ok := ReferenceOf[uint64, [4]uint64, [12]uint64](h)
			require.True(t, ok, h.Name)
			require.NotNil(t, r.Permute, h.Name)
			require.NotNil(t, r.Merge, h.Name)
			require.NotNil(t, r.HashElements, h.Name)
			checkVariants[*batch.Goldilocks](t, h)
		default:
			t.Fatalf("%s: elements of %d bits", h.Name, h.ElementBits())
		}
	}
	require.Equal(t, []string{"rescue", "rpo", "poseidon2"}, Names(Of(Goldilocks)))
	require.Equal(t, []string{"poseidon2-babybear", "poseidon2-gnark-babybear"}, Names(Of(BabyBear)))
	require.Equal(t, []string{"poseidon2-koalabear", "poseidon2-gnark-koalabear"}, Names(Of(KoalaBear)))
	require.Equal(t, []string{"rescue", "rpo", "poseidon2", "poseidon2-babybear", "poseidon2-koalabear", "poseidon2-gnark-koalabear", "poseidon2-gnark-babybear"}, Names(Batched()))
	require.Equal(t, []string{"rescue", "rpo", "poseidon2", "poseidon2-gnark"}, Commands())
}

// checkVariants checks that h's kernel variants, which internal/base/impl
// keeps under its name, are batch functions of type T named as h is, the
// default ("fast") first.
func checkVariants[T interface{ Name() string }](t *testing.T, h Hash) {
	vs := impl.List(h.Name)
	require.NotEmpty(t, vs, h.Name)
	require.Equal(t, "fast", vs[0], "%s: the default first", h.Name)
	for _, v := range vs {
		f, err := impl.Select[T](h.Name, v)
		require.NoError(t, err, h.Name)
		require.Equal(t, h.Name, f.Name())
	}
}

func TestLookup(t *testing.T) {
	h, err := Lookup("RPO")
	require.NoError(t, err)
	require.Equal(t, "rpo", h.Name)
	_, err = Lookup("sha256")
	require.EqualError(t, err, `unknown hash "sha256": accepted are blake3, rescue, rpo, poseidon2, poseidon2-babybear, poseidon2-koalabear, poseidon2-gnark-koalabear, poseidon2-gnark-babybear`)
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
		f := BatchOf[uint32, [8]uint32, [16]uint32, [16]uint32](h)
		r, _ := ReferenceOf[uint32, [8]uint32, [16]uint32](h)
		require.NoError(t, f.MergeMany(nil, dst, [][16]uint32{pair}, batch.Options{}))
		require.Equal(t, r.Merge([8]uint32(pair[:8]), [8]uint32(pair[8:])), dst[0], h.Name)
		require.NoError(t, f.HashElementsMany(nil, dst, pair[:11], 11, batch.Options{}))
		require.Equal(t, r.HashElements(pair[:11]), dst[0], h.Name)
		st := []([16]uint32){pair}
		require.NoError(t, f.PermuteMany(nil, st, batch.Options{}))
		r.Permute(&pair)
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
