package registry

import (
	"testing"

	"github.com/stretchr/testify/require"
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
		if h.Field != Goldilocks {
			require.Nil(t, h.Batch, h.Name)
			continue
		}
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
}

func TestLookup(t *testing.T) {
	h, err := Lookup("RPO")
	require.NoError(t, err)
	require.Equal(t, "rpo", h.Name)
	_, err = Lookup("sha256")
	require.EqualError(t, err, `unknown hash "sha256": accepted are blake3, rescue, rpo, poseidon2`)
	b, err := Lookup("blake3")
	require.NoError(t, err)
	_, err = b.Variant("fast")
	require.EqualError(t, err, "blake3: no batch functions over field elements")
	r, _ := Lookup("rescue")
	_, err = r.Variant("nope")
	require.ErrorContains(t, err, `rescue: unknown variant "nope": accepted are [fast densemds`)
}
