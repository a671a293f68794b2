package poseidon2

import (
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/field/u64emu"
	"github.com/wgcompute/wgcompute/algos/internal/hashtest"
	"github.com/wgcompute/wgcompute/algos/poseidon2/internal/params"
)

// spec is the part of testdata/poseidon2_goldilocks_w12.json the tests read.
type spec struct {
	Source struct {
		Repo   string `json:"repo"`
		Commit string `json:"commit"`
	} `json:"source"`
	Modulus         string                `json:"field_modulus"`
	Width           int                   `json:"state_width"`
	Rate            int                   `json:"rate"`
	DigestSize      int                   `json:"digest_size"`
	Alpha           int                   `json:"alpha"`
	FullRounds      int                   `json:"full_rounds"`
	PartialRounds   int                   `json:"partial_rounds"`
	MDS4            [][]uint64            `json:"mds4"`
	ExternalInitial [][]string            `json:"external_initial"`
	ExternalFinal   [][]string            `json:"external_final"`
	Internal        []string              `json:"internal"`
	DiagM1          []string              `json:"matrix_diag_m1"`
	Vectors         []hashtest.JSONVector `json:"vectors"`
	Computed        []hashtest.JSONVector `json:"computed_vectors"`
}

func loadSpec(t testing.TB) (s spec) {
	hashtest.LoadJSON(t, "../../testdata/poseidon2_goldilocks_w12.json", &s)
	return s
}

// nums parses the file's elements.
var nums = hashtest.Nums

// allVectors are the official vectors, then the computed ones.
func allVectors(s spec) []hashtest.JSONVector {
	return append(append([]hashtest.JSONVector(nil), s.Vectors...), s.Computed...)
}

func TestConstantsMatchSpec(t *testing.T) {
	s := loadSpec(t)
	require.Equal(t, "Plonky3/Plonky3", s.Source.Repo)
	require.Len(t, s.Source.Commit, 40)
	require.Equal(t, strconv.FormatUint(P, 10), s.Modulus)
	require.Equal(t, Width, s.Width)
	require.Equal(t, Rate, s.Rate)
	require.Equal(t, DigestSize, s.DigestSize)
	require.Equal(t, 7, s.Alpha)
	require.Equal(t, FullRounds, s.FullRounds)
	require.Equal(t, PartialRounds, s.PartialRounds)
	for i, row := range s.MDS4 {
		require.Equal(t, row, params.MDS4[i][:], "MDS4 row %d", i)
	}
	require.Len(t, s.ExternalInitial, FullRounds/2)
	require.Len(t, s.ExternalFinal, FullRounds/2)
	for r := range s.ExternalInitial {
		require.Equal(t, nums(t, s.ExternalInitial[r]), params.ExternalInitial[r][:], "external initial %d", r)
		require.Equal(t, nums(t, s.ExternalFinal[r]), params.ExternalFinal[r][:], "external final %d", r)
	}
	require.Equal(t, nums(t, s.Internal), params.Internal[:])
	require.Equal(t, nums(t, s.DiagM1), params.DiagM1[:])
	for _, c := range append(append(append([]uint64(nil), params.Internal[:]...), params.DiagM1[:]...), flatConsts()...) {
		require.Less(t, c, P)
	}
	// The diagonal is -2, 1, 2, 1/2, 3, 4, -1/2, -3, -4, 1/4, -1/4, 1/8,
	// the fractions and signs the WGSL internal layer is written for.
	num := []int64{-2, 1, 2, 1, 3, 4, -1, -3, -4, 1, -1, 1}
	den := []int64{1, 1, 1, 2, 1, 1, 2, 1, 1, 4, 4, 8}
	bp := new(big.Int).SetUint64(P)
	for i, d := range params.DiagM1 {
		want := new(big.Int).Mul(big.NewInt(num[i]), new(big.Int).ModInverse(big.NewInt(den[i]), bp))
		require.Equal(t, want.Mod(want, bp).Uint64(), d, "DiagM1[%d]", i)
	}
}

func flatConsts() []uint64 {
	var out []uint64
	for r := range params.ExternalInitial {
		out = append(out, params.ExternalInitial[r][:]...)
		out = append(out, params.ExternalFinal[r][:]...)
	}
	return out
}

// TestVectors checks the reference against Plonky3's test vector and the
// vectors computed with Plonky3's Python reference permutation.
func TestVectors(t *testing.T) {
	s := loadSpec(t)
	require.Len(t, s.Vectors, 1, "Plonky3 has one width-12 Goldilocks vector")
	seen := map[string]int{}
	for i, v := range allVectors(s) {
		seen[v.Fn]++
		family.CheckReference(t, i, v.Vector(t))
	}
	require.Equal(t, map[string]int{"permutation": 9, "merge": 5, "hash_elements": 14}, seen)
}

// TestMDSLightMatchesDense compares mdsLight with the product by the
// dense external matrix circ(2·M4, M4, M4) in big integers.
func TestMDSLightMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	bp := new(big.Int).SetUint64(P)
	for it := 0; it < 300; it++ {
		st := randState(rng, it)
		want := make([]uint64, Width)
		for i := range want {
			acc := new(big.Int)
			for j := range st {
				c := params.MDS4[i%4][j%4]
				if i/4 == j/4 {
					c *= 2
				}
				acc.Add(acc, new(big.Int).Mul(new(big.Int).SetUint64(c), new(big.Int).SetUint64(st[j])))
			}
			want[i] = acc.Mod(acc, bp).Uint64()
		}
		mdsLight(&st)
		require.Equal(t, want, st[:])
	}
}

// TestInternalLayerMatchesDense compares internalLayer with the product by
// the internal matrix (ones plus the diagonal) in big integers.
func TestInternalLayerMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	bp := new(big.Int).SetUint64(P)
	for it := 0; it < 300; it++ {
		st := randState(rng, it)
		want := make([]uint64, Width)
		for i := range want {
			acc := new(big.Int)
			for j := range st {
				c := big.NewInt(1)
				if i == j {
					c.Add(c, new(big.Int).SetUint64(params.DiagM1[i]))
				}
				acc.Add(acc, c.Mul(c, new(big.Int).SetUint64(st[j])))
			}
			want[i] = acc.Mod(acc, bp).Uint64()
		}
		internalLayer(&st)
		require.Equal(t, want, st[:])
	}
}

// randState is a random state, near p on even iterations, where sums
// wrap most.
func randState(rng *rand.Rand, it int) [Width]uint64 {
	var st [Width]uint64
	for i := range st {
		st[i] = rng.Uint64N(P)
		if it%2 == 0 {
			st[i] = P - 1 - rng.Uint64N(16)
		}
	}
	return st
}

// TestSponge checks HashElements' overwrite rule on its own terms: a
// partial block keeps the lanes past its end, so [x..., y] and a full
// block ending in the previous state's lanes collide, and an input of
// whole blocks is one permutation per block.
func TestSponge(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	require.Equal(t, [4]uint64{}, HashElements(nil))
	els := make([]uint64, 19)
	for i := range els {
		els[i] = rng.Uint64N(P)
	}
	var s [Width]uint64
	copy(s[:8], els[:8])
	Permute(&s)
	copy(s[:8], els[8:16])
	Permute(&s)
	copy(s[:3], els[16:])
	Permute(&s)
	require.Equal(t, [4]uint64(s[:4]), HashElements(els))

	// No padding: a short last block followed by the lanes it leaves is
	// the same input to the permutation.
	var st [Width]uint64
	copy(st[:8], els[:8])
	Permute(&st)
	long := append(append([]uint64(nil), els[:8]...), els[8])
	long = append(long, st[1:8]...)
	require.Equal(t, HashElements(els[:9]), HashElements(long))
	require.Equal(t, HashElements(els[:1]), HashElements([]uint64{els[0], 0}), "[a] and [a, 0] collide")
}

// TestGeneratedWGSLIsFresh fails when the generated WGSL file was not
// regenerated after a change to the constants or the generator: run
// go generate ./algos/poseidon2.
func TestGeneratedWGSLIsFresh(t *testing.T) {
	hashtest.GeneratedFresh(t, shaders, params.Files(), "algos/poseidon2")
}

// randElementT draws canonical elements with the edges over-represented.
func randElementT(rng *rand.Rand) uint64 {
	switch rng.IntN(6) {
	case 0:
		return P - 1 - rng.Uint64N(1<<33)
	case 1:
		return rng.Uint64N(1 << 33)
	case 2:
		return uint64(rng.Uint32()) | 0xFFFF_FFFE_0000_0000
	}
	return rng.Uint64N(P)
}

// TestFastMatchesReference holds the CPU backend's permutation, merge and
// hash equal to the reference's, on states near p and at random.
func TestFastMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, x := range []uint64{0, 1, 2, 3, P - 1, P - 2, P / 2, P/2 + 1, 1 << 63, 1<<32 - 1, 1 << 32} {
		require.Equal(t, u64emu.Mul(x, params.DiagM1[3]), halve(x), "x=%d", x)
	}
	for it := 0; it < 20000; it++ {
		a, b := randElementT(rng), randElementT(rng)
		require.Equal(t, u64emu.Add(a, b), add(a, b), "%d + %d", a, b)
		require.Equal(t, u64emu.Sub(a, b), sub(a, b), "%d - %d", a, b)
		require.Equal(t, u64emu.Mul(a, b), mul(a, b), "%d * %d", a, b)
		require.Equal(t, u64emu.Pow7(a), pow7(a), "%d^7", a)
		c := rng.Uint64()
		require.Equal(t, u64emu.Canon(c), canon(c), "canon %d", c)
	}
	for it := 0; it < 2000; it++ {
		st := randState(rng, it)
		want, got := st, st
		mdsLight(&want)
		mdsLightFast(&got)
		require.Equal(t, want, got, "external layer, state %v", st)
		internalLayer(&want)
		internalLayerFast(&got)
		require.Equal(t, want, got, "internal layer, state %v", st)
		if it%10 == 0 {
			Permute(&want)
			permuteFast(&got)
			require.Equal(t, want, got)
			a, b := [4]uint64(st[:4]), [4]uint64(st[4:8])
			require.Equal(t, Merge(a, b), mergeFast(a, b))
			els := st[:1+it%12]
			require.Equal(t, HashElements(els), hashElementsFast(els))
		}
	}
}
