package poseidon2

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/internal/hashtest"
	"github.com/wgcompute/wgcompute/algos/poseidon2/internal/params31"
)

// spec31 is testdata/poseidon2_31.json.
type spec31 struct {
	Source struct {
		Repo   string   `json:"repo"`
		Commit string   `json:"commit"`
		Files  []string `json:"files"`
	} `json:"source"`
	Vectors []struct {
		Permutation string   `json:"permutation"`
		Test        string   `json:"test"`
		Input       []uint32 `json:"input"`
		Output      []uint32 `json:"output"`
	} `json:"vectors"`
}

func loadSpec31(t testing.TB) (s spec31) {
	hashtest.LoadJSON(t, "../../testdata/poseidon2_31.json", &s)
	return s
}

// perm31 returns the permutation named name.
func perm31(t testing.TB, name string) *Permutation31 {
	for _, p := range Permutations31 {
		if p.Name() == name {
			return p
		}
	}
	t.Fatalf("no permutation %q", name)
	return nil
}

func TestPermutation31Vectors(t *testing.T) {
	s := loadSpec31(t)
	require.Equal(t, "Plonky3/Plonky3", s.Source.Repo)
	require.Len(t, s.Source.Commit, 40)
	require.Len(t, s.Vectors, len(Permutations31))
	for _, v := range s.Vectors {
		p := perm31(t, v.Permutation)
		st := append([]uint32(nil), v.Input...)
		require.NoError(t, p.Permute(st))
		require.Equal(t, v.Output, st, "%s (%s)", v.Permutation, v.Test)
	}
}

func TestPermutation31Params(t *testing.T) {
	for _, p := range Permutations31 {
		require.Len(t, p.set.ExternalInitial, 4)
		require.Len(t, p.set.ExternalFinal, 4)
		for r := range 4 {
			require.Len(t, p.set.ExternalInitial[r], p.Width())
			require.Len(t, p.set.ExternalFinal[r], p.Width())
		}
		require.Len(t, p.set.DiagNum, p.Width())
		require.Len(t, p.set.DiagShift, p.Width())
		for _, c := range append(append([]uint32(nil), p.set.Internal...), flat31(p)...) {
			require.NoError(t, p.f.Check(c))
		}
		// The internal matrix 1 + Diag(V) is Plonky3's: its first entry -2.
		require.Equal(t, p.f.FromInt(-2), p.diag[0])
	}
	require.Equal(t, 13, BabyBear16.PartialRounds())
	require.Equal(t, 21, BabyBear24.PartialRounds())
	require.Equal(t, 20, KoalaBear16.PartialRounds())
	require.Equal(t, 23, KoalaBear24.PartialRounds())
	require.Equal(t, params31.KoalaBear16.Degree, 3)
	require.Equal(t, params31.BabyBear16.Degree, 7)
}

// flat31 returns p's external round constants.
func flat31(p *Permutation31) []uint32 {
	var out []uint32
	for r := range p.set.ExternalInitial {
		out = append(append(out, p.set.ExternalInitial[r]...), p.set.ExternalFinal[r]...)
	}
	return out
}

func TestPermutation31BadInput(t *testing.T) {
	st := make([]uint32, 15)
	require.ErrorContains(t, BabyBear16.Permute(st), "permutes 16 elements, given 15")
	st = make([]uint32, 16)
	st[3] = BabyBear16.Field().P()
	require.ErrorContains(t, BabyBear16.Permute(st), "state element 3")
	require.Equal(t, BabyBear16.Field().P(), st[3], "state unchanged")
}

func TestSponge31Plonky3Shape(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, p := range Permutations31 {
		f := p.Field()
		for _, n := range []int{1, 7, 8, 9, 16, 17} {
			in := make([]uint32, n)
			for i := range in {
				in[i] = rng.Uint32N(f.P())
			}
			got, err := p.Sponge().Hash(in)
			require.NoError(t, err)
			// By hand: overwrite, permute, per block of 8.
			st := make([]uint32, p.Width())
			for lo := 0; lo < n; lo += 8 {
				copy(st, in[lo:min(n, lo+8)])
				p.permute(st)
			}
			require.Equal(t, st[:8], got, "%s, %d elements", p.Name(), n)
		}
		l, r := make([]uint32, 8), make([]uint32, 8)
		for i := range 8 {
			l[i], r[i] = rng.Uint32N(f.P()), rng.Uint32N(f.P())
		}
		got, err := p.Compression().Compress(l, r)
		require.NoError(t, err)
		st := make([]uint32, p.Width())
		copy(st, l)
		copy(st[8:], r)
		p.permute(st)
		require.Equal(t, st[:8], got)
	}
}

// TestPermuteMontyMatchesReference holds the CPU path's twin equal to the
// reference on random states and the field's edges.
func TestPermuteMontyMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for _, p := range Permutations31 {
		states := randStates31(p, rng, 500)
		w := p.Width()
		for i := 0; i < len(states); i += w {
			want := append([]uint32(nil), states[i:i+w]...)
			p.permute(want)
			got := make([]uint32, w)
			for j, x := range states[i : i+w] {
				got[j] = p.f.ToMonty(x)
			}
			p.permuteMonty(got)
			for j, x := range got {
				got[j] = p.f.FromMonty(x)
			}
			require.Equal(t, want, got, "%s state %d", p.Name(), i/w)
		}
	}
}
