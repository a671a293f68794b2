package poseidon2

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// vecCounts are the state counts the block path is tested at: one state,
// tails below vecMinLanes, around each block size, and many blocks with
// a tail.
var vecCounts = []int{1, 2, vecMinLanes - 1, vecMinLanes, 15, 16, 17, 33, 63, 127, 128, 129, 128 + vecMinLanes - 1, 1000 + 3}

// TestVecPermute holds the block path to the reference permute, state by
// state, for every 31-bit permutation (both fields, both widths).
func TestVecPermute(t *testing.T) {
	rng := newRand(t)
	for _, p := range Permutations31 {
		for _, n := range vecCounts {
			t.Run(fmt.Sprintf("%s/%d", p.Name(), n), func(t *testing.T) {
				w := p.Width()
				states := randStates31(p, rng, n)
				want := append([]uint32(nil), states...)
				for i := range n {
					p.permute(want[i*w : (i+1)*w])
				}
				p.permuteMany(states)
				for i := range n {
					require.Equal(t, want[i*w:(i+1)*w], states[i*w:(i+1)*w], "state %d of %d", i, n)
				}
			})
		}
	}
}

// TestVecMerge31 holds merge8Many to the reference's compression, pair by
// pair, over every 31-bit permutation.
func TestVecMerge31(t *testing.T) {
	rng := newRand(t)
	for _, p := range Permutations31 {
		for _, n := range vecCounts {
			els := randStates31(BabyBear16, rng, n) // 16 elements a pair, below either p
			pairs := make([][2 * Digest31]uint32, n)
			for i := range pairs {
				copy(pairs[i][:], els[16*i:])
				for j := range pairs[i] {
					pairs[i][j] %= p.Field().P()
				}
			}
			dst := make([][Digest31]uint32, n)
			p.merge8Many(dst, pairs)
			for i, pr := range pairs {
				require.Equal(t, refMerge31(t, p, [Digest31]uint32(pr[:8]), [Digest31]uint32(pr[8:])), dst[i], "%s: pair %d of %d", p.Name(), i, n)
			}
		}
	}
}

// TestVecHash31 holds hash8Many to the reference's sponge for inputs of
// lengths around the rate, and to hash8 (which reduces any uint32) on
// elements not below p.
func TestVecHash31(t *testing.T) {
	rng := newRand(t)
	for _, p := range Permutations31 {
		for _, n := range []int{1, 15, 17, vecLanes[0] + 3, 1000 + 3} {
			for _, m := range []int{0, 1, 7, 8, 9, 16, 23, 128} {
				in := make([]uint32, n*m)
				for i := range in {
					in[i] = rng.Uint32N(p.Field().P())
				}
				dst := make([][Digest31]uint32, n)
				p.hash8Many(dst, in, m)
				for i := range n {
					require.Equal(t, refHash31(t, p, in[i*m:(i+1)*m]), dst[i], "%s: input %d of %d, %d elements", p.Name(), i, n, m)
				}
			}
		}
		in := make([]uint32, 17*9)
		for i := range in {
			in[i] = rng.Uint32()
		}
		dst := make([][Digest31]uint32, 17)
		p.hash8Many(dst, in, 9)
		for i := range dst {
			require.Equal(t, p.hash8(in[9*i:9*(i+1)]), dst[i], "%s: any uint32, input %d", p.Name(), i)
		}
	}
}

// BenchmarkVecPermute31 permutes 2^12 states of each 31-bit permutation
// on one core, one by one in Montgomery form (permuteMonty) and a block
// at a time (permuteMany).
func BenchmarkVecPermute31(b *testing.B) {
	const n = 1 << 12
	for _, p := range Permutations31 {
		w := p.Width()
		states := randStates31(p, newRand(b), n)
		b.Run(p.Name()+"/scalar", func(b *testing.B) {
			b.SetBytes(int64(4 * w * n))
			for b.Loop() {
				for i := range n {
					p.permuteMonty(states[i*w : (i+1)*w])
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "perms/s")
		})
		b.Run(p.Name()+"/vec", func(b *testing.B) {
			b.SetBytes(int64(4 * w * n))
			for b.Loop() {
				p.permuteMany(states)
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "perms/s")
		})
	}
}
