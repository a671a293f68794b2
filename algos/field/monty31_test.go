package field

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// bigOf returns a as a big.Int.
func bigOf(a uint32) *big.Int { return new(big.Int).SetUint64(uint64(a)) }

// mod returns x mod p as a uint32.
func mod(x *big.Int, p uint32) uint32 {
	return uint32(new(big.Int).Mod(x, bigOf(p)).Uint64())
}

// randomElements returns n elements of f, the edges (0, 1, p-1, p-2, 2^30)
// first.
func randomElements(f Monty31, rng *rand.Rand, n int) []uint32 {
	out := []uint32{0, 1, f.p - 1, f.p - 2, 1 << 30}
	for len(out) < n {
		out = append(out, rng.Uint32N(f.p))
	}
	return out
}

func TestConstants(t *testing.T) {
	for _, f := range Fields {
		require.Equal(t, uint32(1), f.p*f.mu, "%s: mu is p^-1 mod 2^32", f)
		r := new(big.Int).Lsh(big.NewInt(1), 64)
		require.Equal(t, mod(r, f.p), f.r2, "%s: r2", f)
		require.True(t, bigOf(f.p).ProbablyPrime(20), "%s: p", f)
	}
	require.Equal(t, uint32(15<<27+1), BabyBear.P())
	require.Equal(t, uint32(1<<31-1<<24+1), KoalaBear.P())
}

func TestArithmeticAgainstBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, f := range Fields {
		p := bigOf(f.p)
		r := new(big.Int).Lsh(big.NewInt(1), 32)
		rinv := new(big.Int).ModInverse(r, p)
		xs := randomElements(f, rng, 2000)
		for i, a := range xs {
			b := xs[(i*7+3)%len(xs)]
			A, B := bigOf(a), bigOf(b)
			require.Equal(t, mod(new(big.Int).Add(A, B), f.p), f.Add(a, b), "%s: %d + %d", f, a, b)
			require.Equal(t, mod(new(big.Int).Sub(A, B), f.p), f.Sub(a, b), "%s: %d - %d", f, a, b)
			require.Equal(t, mod(new(big.Int).Neg(A), f.p), f.Neg(a), "%s: -%d", f, a)
			require.Equal(t, mod(new(big.Int).Mul(A, B), f.p), f.Mul(a, b), "%s: %d * %d", f, a, b)
			e := rng.Uint64()
			require.Equal(t, uint32(new(big.Int).Exp(A, new(big.Int).SetUint64(e), p).Uint64()), f.Exp(a, e), "%s: %d^%d", f, a, e)
			require.Equal(t, mod(new(big.Int).Mul(A, r), f.p), f.ToMonty(a), "%s: monty(%d)", f, a)
			require.Equal(t, mod(new(big.Int).Mul(A, rinv), f.p), f.FromMonty(a), "%s: from monty(%d)", f, a)
			require.Equal(t, mod(new(big.Int).Mul(new(big.Int).Mul(A, B), rinv), f.p), f.MontyMul(a, b), "%s: montymul(%d, %d)", f, a, b)
			require.Equal(t, a, f.FromMonty(f.ToMonty(a)))
			k := uint(rng.IntN(31))
			require.Equal(t, mod(new(big.Int).Mul(A, new(big.Int).ModInverse(new(big.Int).Lsh(big.NewInt(1), k), p)), f.p), f.Div2Exp(a, k), "%s: %d / 2^%d", f, a, k)
			inv, ok := f.Inverse(a)
			if a == 0 {
				require.False(t, ok)
				continue
			}
			require.True(t, ok)
			require.Equal(t, uint32(new(big.Int).ModInverse(A, p).Uint64()), inv, "%s: 1/%d", f, a)
			x := rng.Uint64()
			require.Equal(t, mod(new(big.Int).SetUint64(x), f.p), f.Reduce(x))
		}
		require.Equal(t, f.p-5, f.FromInt(-5))
		require.Equal(t, uint32(5), f.FromInt(int64(f.p)+5))
		require.NoError(t, f.Check(f.p-1))
		require.ErrorContains(t, f.Check(f.p), "below p")
	}
}

func TestParseField(t *testing.T) {
	f, err := ParseField("koalabear")
	require.NoError(t, err)
	require.Equal(t, KoalaBear, f)
	_, err = ParseField("goldilocks")
	require.ErrorContains(t, err, "babybear and koalabear")
}

// TestZeroValue checks that the zero Monty31 is BabyBear, so that none of
// its methods divides by a zero p.
func TestZeroValue(t *testing.T) {
	var z Monty31
	f := BabyBear
	require.Equal(t, f.Name(), z.Name())
	require.Equal(t, f.P(), z.P())
	require.Equal(t, f.Consts(), z.Consts())
	require.Equal(t, f.Mul(123456789, 987654321), z.Mul(123456789, 987654321))
	require.Equal(t, f.Reduce(1<<40), z.Reduce(1<<40))
	require.Equal(t, f.FromInt(-5), z.FromInt(-5))
	require.Equal(t, f.Div2Exp(3, 4), z.Div2Exp(3, 4))
	require.Equal(t, f.FromMonty(f.ToMonty(77)), z.FromMonty(z.ToMonty(77)))
	inv, ok := z.Inverse(2)
	require.True(t, ok)
	require.Equal(t, uint32(1), f.Mul(inv, 2))
	require.NoError(t, z.Check(f.P()-1))
	require.Error(t, z.Check(f.P()))
}

// FromMontyAll is FromMonty of each element, for both widths of element.
func TestFromMontyAll(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, f := range Fields {
		xs := randomElements(f, rng, 999)
		got := make([]uint32, len(xs))
		FromMontyAll(f, got, xs)
		wide := make([]uint64, len(xs))
		for i, x := range xs {
			wide[i] = uint64(x)
		}
		FromMontyAll(f, wide, wide)
		for i, x := range xs {
			require.Equal(t, f.FromMonty(x), got[i], "%s: element %d", f, i)
			require.Equal(t, uint64(f.FromMonty(x)), wide[i], "%s: element %d in place, 64-bit", f, i)
		}
	}
}
