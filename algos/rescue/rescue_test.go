package rescue

import (
	"bytes"
	"encoding/json"
	"math/big"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/internal/hashtest"
	"github.com/wgcompute/wgcompute/algos/internal/rescueprime"
	"github.com/wgcompute/wgcompute/algos/rescue/internal/params"
	"github.com/wgcompute/wgcompute/u64emu"
	"github.com/wgcompute/wgcompute/wgsl"
)

// spec is the part of testdata/rp64_256.json the tests read.
type spec struct {
	Modulus    string     `json:"field_modulus"`
	InvAlpha   string     `json:"inv_alpha"`
	MDS        [][]string `json:"mds"`
	ARK1       [][]string `json:"ark1"`
	ARK2       [][]string `json:"ark2"`
	Vectors    []vector   `json:"vectors"`
	Components []vector   `json:"component_vectors"`
	Rounds     int        `json:"num_rounds"`
}

type vector struct {
	Fn     string   `json:"fn"`
	Input  []string `json:"input"`
	Output []string `json:"output"`
	Root   []string `json:"root"`
}

func loadSpec(t testing.TB) spec {
	t.Helper()
	raw, err := os.ReadFile("../../testdata/rp64_256.json")
	require.NoError(t, err)
	var s spec
	require.NoError(t, json.Unmarshal(raw, &s))
	return s
}

// nums parses the file's elements.
var nums = hashtest.Nums

func TestConstantsMatchSpec(t *testing.T) {
	s := loadSpec(t)
	require.Equal(t, strconv.FormatUint(P, 10), s.Modulus)
	require.Equal(t, strconv.FormatUint(InvAlpha, 10), s.InvAlpha)
	require.Equal(t, Rounds, s.Rounds)
	require.Len(t, s.MDS, Width)
	for i, row := range s.MDS {
		for j, v := range nums(t, row) {
			require.Equal(t, v, rescueprime.MDSRow[(j-i+Width)%Width], "MDS[%d][%d]", i, j)
			require.Less(t, v, uint64(32), "MDS constants must fit the small-constant product")
		}
	}
	require.Len(t, s.ARK1, Rounds)
	require.Len(t, s.ARK2, Rounds)
	for r := 0; r < Rounds; r++ {
		require.Equal(t, nums(t, s.ARK1[r]), params.ARK1[r][:], "ARK1[%d]", r)
		require.Equal(t, nums(t, s.ARK2[r]), params.ARK2[r][:], "ARK2[%d]", r)
		for i := 0; i < Width; i++ {
			require.Less(t, params.ARK1[r][i], P)
			require.Less(t, params.ARK2[r][i], P)
		}
	}
	// InvAlpha * 7 = 1 mod p-1.
	prod := new(big.Int).Mul(new(big.Int).SetUint64(InvAlpha), big.NewInt(7))
	require.Equal(t, int64(1), prod.Mod(prod, new(big.Int).SetUint64(P-1)).Int64())
}

// TestGeneratedWGSLIsFresh fails when a generated file in wgsl/ was not
// regenerated after a change to the constants or the generator:
// run go generate ./algos/rescue.
func TestGeneratedWGSLIsFresh(t *testing.T) {
	files := params.Files()
	require.Len(t, files, 2)
	for name, want := range files {
		got, err := wgsl.Source(name)
		require.NoError(t, err)
		if !bytes.Equal([]byte(got), want) {
			t.Fatalf("wgsl/%s is stale: run go generate ./algos/rescue and commit the result", name)
		}
		onDisk, err := os.ReadFile("../../wgsl/" + name)
		require.NoError(t, err)
		require.Equal(t, string(want), string(onDisk), "wgsl/%s is stale: run go generate ./algos/rescue", name)
	}
}

func TestVectors(t *testing.T) {
	s := loadSpec(t)
	seen := map[string]int{}
	for i, v := range s.Vectors {
		in, want := nums(t, v.Input), nums(t, v.Output)
		seen[v.Fn]++
		switch v.Fn {
		case "permutation":
			st := [Width]uint64(in)
			Permute(&st)
			require.Equal(t, want, st[:], "vector %d", i)
		case "hash_elements":
			got := HashElements(in)
			require.Equal(t, want, got[:], "vector %d (%d elements)", i, len(in))
		case "merge":
			got := Merge([4]uint64(in[:4]), [4]uint64(in[4:]))
			require.Equal(t, want, got[:], "vector %d", i)
			he := HashElements(in)
			require.Equal(t, want, he[:], "vector %d: merge must equal hash_elements", i)
		case "merklize":
			n := len(in) / 4
			nodes := make([][4]uint64, n)
			for k := n - 1; k >= 1; k-- {
				child := func(c int) [4]uint64 {
					if c >= n {
						return [4]uint64(in[4*(c-n):])
					}
					return nodes[c]
				}
				nodes[k] = Merge(child(2*k), child(2*k+1))
			}
			var flat []uint64
			for _, d := range nodes {
				flat = append(flat, d[:]...)
			}
			require.Equal(t, want, flat, "vector %d", i)
			require.Equal(t, nums(t, v.Root), nodes[1][:])
		default:
			t.Fatalf("vector %d: unknown fn %q", i, v.Fn)
		}
	}
	require.Equal(t, 17, len(s.Vectors))
	require.Equal(t, map[string]int{"permutation": 3, "hash_elements": 10, "merge": 3, "merklize": 1}, seen)
}

func TestComponentVectors(t *testing.T) {
	s := loadSpec(t)
	for _, v := range s.Components {
		in, want := nums(t, v.Input), nums(t, v.Output)
		switch v.Fn {
		case "sbox_x7":
			for i := range in {
				require.Equal(t, want[i], u64emu.Pow7(in[i]))
			}
		case "inv_sbox_x^INV_ALPHA":
			for i := range in {
				require.Equal(t, want[i], rescueprime.InvSbox(in[i]), "input %d", in[i])
			}
		case "mds":
			st := [Width]uint64(in)
			rescueprime.MDS(&st)
			require.Equal(t, want, st[:])
		default:
			t.Fatalf("unknown component %q", v.Fn)
		}
	}
}
