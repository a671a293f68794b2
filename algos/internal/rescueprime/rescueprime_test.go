package rescueprime

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/field/u64emu"
	"github.com/wgcompute/wgcompute/algos/internal/hashtest"
)

// TestGeneratedWGSLIsFresh fails when rescue_mds.wgsl was not
// regenerated after a change to MDSRow or the generator: run
// go generate ./algos/internal/rescueprime.
func TestGeneratedWGSLIsFresh(t *testing.T) {
	hashtest.GeneratedFresh(t, Shaders, Files(), "algos/internal/rescueprime")
}

func TestInvSboxChain(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	edge := []uint64{0, 1, 2, P - 1, P - 2, 1 << 32, 1<<32 - 1, 1 << 63}
	for i := 0; i < 2000; i++ {
		x := rng.Uint64() % P
		if i < len(edge) {
			x = edge[i]
		}
		require.Equal(t, u64emu.Exp(x, InvAlpha), InvSbox(x), "x=%d", x)
		require.Equal(t, x, InvSbox(u64emu.Pow7(x)), "x=%d", x)
	}
}

// TestMDSMatchesDense compares the single-reduction MDS with a big.Int
// matrix product, on elements near p where the wide sum is largest.
func TestMDSMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	bp := new(big.Int).SetUint64(P)
	for it := 0; it < 500; it++ {
		var st [Width]uint64
		for i := range st {
			st[i] = rng.Uint64() % P
			if it%2 == 0 {
				st[i] = P - 1 - rng.Uint64()%16
			}
		}
		want := make([]uint64, Width)
		for i := range want {
			acc := new(big.Int)
			for j := range st {
				acc.Add(acc, new(big.Int).Mul(new(big.Int).SetUint64(MDSRow[(j-i+Width)%Width]), new(big.Int).SetUint64(st[j])))
			}
			want[i] = acc.Mod(acc, bp).Uint64()
		}
		MDS(&st)
		require.Equal(t, want, st[:])
	}
	for _, c := range MDSRow {
		require.Less(t, c, uint64(32), "the small-constant MDS product needs constants below 32")
	}
}

// TestLayersMatchElementwise checks the whole-state layers against the
// per-element functions (themselves checked against Exp and big.Int
// above), on random states and states of elements near 0 and p.
func TestLayersMatchElementwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for it := 0; it < 3000; it++ {
		var s, c [Width]uint64
		for i := range s {
			switch it % 3 {
			case 0:
				s[i], c[i] = rng.Uint64()%P, rng.Uint64()%P
			case 1:
				s[i], c[i] = P-1-rng.Uint64()%8, P-1-rng.Uint64()%8
			case 2:
				s[i], c[i] = rng.Uint64()%8, rng.Uint64()%(1<<33)
			}
		}
		want := s
		for i := range want {
			want[i] = u64emu.Pow7(want[i])
		}
		got := s
		Pow7All(&got)
		require.Equal(t, want, got, "Pow7All of %v", s)

		for i := range want {
			want[i] = InvSbox(s[i])
		}
		got = s
		InvSboxAll(&got)
		require.Equal(t, want, got, "InvSboxAll of %v", s)

		want = s
		MDS(&want)
		for i := range want {
			want[i] = u64emu.Add(want[i], c[i])
		}
		got = s
		MDSAdd(&got, &c)
		require.Equal(t, want, got, "MDSAdd of %v, %v", s, c)
	}
}
