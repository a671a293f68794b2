package rescueprime

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/internal/hashtest"
	"github.com/wgcompute/wgcompute/u64emu"
)

// TestGeneratedWGSLIsFresh fails when wgsl/rescue_mds.wgsl was not
// regenerated after a change to MDSRow or the generator: run
// go generate ./algos/internal/rescueprime.
func TestGeneratedWGSLIsFresh(t *testing.T) {
	hashtest.GeneratedFresh(t, Files(), "../../../wgsl", "algos/internal/rescueprime")
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
