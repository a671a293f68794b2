package poseidon2

import (
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/field/koalabear"
	gnarkp2 "github.com/consensys/gnark-crypto/field/koalabear/poseidon2"
	"github.com/stretchr/testify/require"
)

// vecCounts are the state counts the block path is tested at: one state,
// tails below vecMinLanes, around each block size, and many blocks with
// a tail.
var vecCounts = []int{1, 2, vecMinLanes - 1, vecMinLanes, 15, 16, 17, 33, 63, 127, 128, 129, 128 + vecMinLanes - 1, 1000 + 3}

// vecPaths runs test on each block path: registers (permute16Fast, for
// width 16 where the CPU has it) and vector operations.
func vecPaths(t *testing.T, test func(t *testing.T)) {
	for _, fast := range []bool{true, false} {
		t.Run(map[bool]string{true: "fast", false: "vector"}[fast], func(t *testing.T) {
			defer func(was bool) { vecFast = was }(vecFast)
			vecFast = fast
			test(t)
		})
	}
}

// TestVecPermute holds the block path to the reference permute, state by
// state, for every 31-bit permutation (both fields, both widths).
func TestVecPermute(t *testing.T) { vecPaths(t, testVecPermute) }

func testVecPermute(t *testing.T) {
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
func TestVecMerge31(t *testing.T) { vecPaths(t, testVecMerge31) }

func testVecMerge31(t *testing.T) {
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
func TestVecHash31(t *testing.T) { vecPaths(t, testVecHash31) }

func testVecHash31(t *testing.T) {
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
			loopCPU(b, func() {
				for i := range n {
					p.permuteMonty(states[i*w : (i+1)*w])
				}
			})
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "perms/s")
		})
		b.Run(p.Name()+"/vec", func(b *testing.B) {
			defer func(was bool) { vecFast = was }(vecFast)
			vecFast = false
			b.SetBytes(int64(4 * w * n))
			loopCPU(b, func() { p.permuteMany(states) })
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "perms/s")
		})
		if p.vectorised().fast.b != 0 {
			b.Run(p.Name()+"/fast", func(b *testing.B) {
				b.SetBytes(int64(4 * w * n))
				loopCPU(b, func() { p.permuteMany(states) })
				b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "perms/s")
			})
		}
	}
}

// BenchmarkVecPermuteGnark is BenchmarkVecPermute31's count of
// gnark-crypto's KoalaBear permutations of Vortex, on one core: width 24
// sixteen states at a time (Permutation16x24, its sponge's), and width 16
// one at a time (Permutation, its compression's).
func BenchmarkVecPermuteGnark(b *testing.B) {
	const n = 1 << 12
	b.Run("koalabear24x16", func(b *testing.B) {
		perm := gnarkp2.NewPermutation(24, 6, 21)
		var states [n / 16][24][16]koalabear.Element
		loopCPU(b, func() {
			for i := range states {
				perm.Permutation16x24(&states[i])
			}
		})
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "perms/s")
	})
	b.Run("koalabear16", func(b *testing.B) {
		perm := gnarkp2.NewPermutation(16, 6, 21)
		states := make([]koalabear.Element, 16*n)
		loopCPU(b, func() {
			for i := range n {
				_ = perm.Permutation(states[16*i : 16*(i+1)])
			}
		})
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "perms/s")
	})
}

// loopCPU runs op b.N times (b.Loop) and reports the CPU time per op
// beside the wall time, as cpu-ms/op.
func loopCPU(b *testing.B, op func()) {
	start := cpuTime(b)
	for b.Loop() {
		op()
	}
	b.ReportMetric(float64((cpuTime(b)-start).Microseconds())/1e3/float64(b.N), "cpu-ms/op")
}
