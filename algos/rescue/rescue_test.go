package rescue

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/field/u64emu"
	"github.com/wgcompute/wgcompute/algos/internal/hashtest"
	"github.com/wgcompute/wgcompute/algos/internal/rescueprime"
	"github.com/wgcompute/wgcompute/algos/rescue/internal/params"
)

// spec is the part of testdata/rp64_256.json the tests read.
type spec struct {
	hashtest.RescueSpec
	Vectors    []hashtest.JSONVector `json:"vectors"`
	Components []hashtest.JSONVector `json:"component_vectors"`
}

func loadSpec(t testing.TB) (s spec) {
	hashtest.LoadJSON(t, "../../testdata/rp64_256.json", &s)
	return s
}

// nums parses the file's elements.
var nums = hashtest.Nums

func TestConstantsMatchSpec(t *testing.T) {
	loadSpec(t).Check(t, InvAlpha, rescueprime.MDSRow, params.ARK1[:], params.ARK2[:])
}

// TestGeneratedWGSLIsFresh fails when a generated WGSL file was not
// regenerated after a change to the constants or the generator:
// run go generate ./algos/rescue.
func TestGeneratedWGSLIsFresh(t *testing.T) {
	files := params.Files()
	require.Len(t, files, 2)
	hashtest.GeneratedFresh(t, measured, files, "algos/rescue")
}

func TestVectors(t *testing.T) {
	s := loadSpec(t)
	seen := map[string]int{}
	for i, v := range s.Vectors {
		seen[v.Fn]++
		if v.Fn != "merklize" {
			family.CheckReference(t, i, v.Vector(t))
			continue
		}
		// The whole tree over the leaves, in heap order: nodes[1] is the root.
		in, want := nums(t, v.Input), nums(t, v.Output)
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
