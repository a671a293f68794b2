package hashtest

import (
	"encoding/json"
	"math/big"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgsl"
)

// LoadJSON reads the test vector file at path into v.
func LoadJSON(t testing.TB, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, v))
}

// JSONVector is a known answer as the test vector files list it: Fn is
// one of Vector's, Input and Output its elements, and Root, in a
// "merklize" vector, the tree's root.
type JSONVector struct {
	Fn     string   `json:"fn"`
	Input  []string `json:"input"`
	Output []string `json:"output"`
	Root   []string `json:"root"`
}

// Vector parses v's elements.
func (v JSONVector) Vector(t testing.TB) Vector {
	return Vector{Fn: v.Fn, In: Nums(t, v.Input), Want: Nums(t, v.Output)}
}

// Vectors parses the elements of every vector of vs.
func Vectors(t testing.TB, vs []JSONVector) []Vector {
	out := make([]Vector, len(vs))
	for i, v := range vs {
		out[i] = v.Vector(t)
	}
	return out
}

// CheckReference checks vector i on f's Go reference: Permute for
// "permutation", HashElements for "hash_elements", and Merge of the one
// pair of a "merge", which must equal HashElements of its eight elements
// too. Any other function fails the test.
func (f *Family) CheckReference(t *testing.T, i int, vec Vector) {
	t.Helper()
	in, want := vec.In, vec.Want
	switch vec.Fn {
	case "permutation":
		st := [12]uint64(in)
		f.Permute(&st)
		require.Equal(t, want, st[:], "vector %d", i)
	case "hash_elements":
		got := f.HashElements(in)
		require.Equal(t, want, got[:], "vector %d (%d elements)", i, len(in))
	case "merge":
		got := f.Merge([4]uint64(in[:4]), [4]uint64(in[4:]))
		require.Equal(t, want, got[:], "vector %d", i)
		he := f.HashElements(in)
		require.Equal(t, want, he[:], "vector %d: merge must equal hash_elements", i)
	default:
		t.Fatalf("vector %d: unknown fn %q", i, vec.Fn)
	}
}

// GeneratedFresh fails when a file of files, what package pkg's generator
// ("algos/rescue") writes under pkg's folder (the test's working
// directory), differs from the one there or from the file of its name
// that lib (pkg's library) embeds: the file was not regenerated after a
// change to the constants or the generator.
func GeneratedFresh(t *testing.T, lib *wgsl.Library, files map[string][]byte, pkg string) {
	t.Helper()
	for name, want := range files {
		got, err := lib.Source(path.Base(name))
		require.NoError(t, err)
		if got != string(want) {
			t.Fatalf("%s/%s is stale: run go generate ./%s and commit the result", pkg, name, pkg)
		}
		onDisk, err := os.ReadFile(filepath.FromSlash(name))
		require.NoError(t, err)
		require.Equal(t, string(want), string(onDisk), "%s/%s is stale: run go generate ./%s", pkg, name, pkg)
	}
}

// RescueSpec is the constants' part of a Rescue-Prime test vector file
// (testdata/rp64_256.json, testdata/rpo256.json).
type RescueSpec struct {
	Modulus  string     `json:"field_modulus"`
	InvAlpha string     `json:"inv_alpha"`
	Rounds   int        `json:"num_rounds"`
	MDS      [][]string `json:"mds"`
	ARK1     [][]string `json:"ark1"`
	ARK2     [][]string `json:"ark2"`
}

// Check holds the file's constants equal to a hash's: the modulus P, the
// inverse S-box exponent invAlpha (7^-1 mod p-1), the circulant MDS matrix
// of first row mdsRow (constants below 32, as the small-constant product
// needs), and the round constants ark1 and ark2, one row per round, each
// below P.
func (s RescueSpec) Check(t *testing.T, invAlpha uint64, mdsRow [12]uint64, ark1, ark2 [][12]uint64) {
	t.Helper()
	const width = len(mdsRow)
	require.Equal(t, strconv.FormatUint(P, 10), s.Modulus)
	require.Equal(t, strconv.FormatUint(invAlpha, 10), s.InvAlpha)
	require.Equal(t, len(ark1), s.Rounds)
	require.Len(t, s.MDS, width)
	for i, row := range s.MDS {
		for j, v := range Nums(t, row) {
			require.Equal(t, v, mdsRow[(j-i+width)%width], "MDS[%d][%d]", i, j)
			require.Less(t, v, uint64(32), "MDS constants must fit the small-constant product")
		}
	}
	require.Len(t, s.ARK1, len(ark1))
	require.Len(t, s.ARK2, len(ark2))
	for r := range ark1 {
		require.Equal(t, Nums(t, s.ARK1[r]), ark1[r][:], "ARK1[%d]", r)
		require.Equal(t, Nums(t, s.ARK2[r]), ark2[r][:], "ARK2[%d]", r)
		for i := 0; i < width; i++ {
			require.Less(t, ark1[r][i], P)
			require.Less(t, ark2[r][i], P)
		}
	}
	// invAlpha * 7 = 1 mod p-1.
	prod := new(big.Int).Mul(new(big.Int).SetUint64(invAlpha), big.NewInt(7))
	require.Equal(t, int64(1), prod.Mod(prod, new(big.Int).SetUint64(P-1)).Int64())
}
