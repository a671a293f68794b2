package vortex

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/field/koalabear"
	gvortex "github.com/consensys/gnark-crypto/field/koalabear/vortex"

	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/internal/gputest"
)

// benchShapes are gnark-crypto's BenchmarkVortexReal shape (2^11 rows of
// 2^19, rate 2, sis.NewRSis(0, 9, 16, rows)) and a small one for quick
// runs (-bench 'Vortex/2\^8').
var benchShapes = [][2]int{{1 << 8, 14}, {1 << 11, 19}}

// benchMatrix is a seeded rows × 2^k matrix, filled on all cores.
func benchMatrix(rows, k int) []koalabear.Element {
	m := make([]koalabear.Element, rows<<k)
	par.For(rows, 1, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			rng := rand.New(rand.NewPCG(uint64(r), 11))
			for j := r << k; j < (r+1)<<k; j++ {
				m[j].SetUint64(uint64(rng.Uint32N(2130706433)))
			}
		}
	})
	return m
}

// BenchmarkVortex commits at each shape: gnark-crypto's vortex.Commit on
// all cores (cpu-gnark), ours from host memory (e2e: rows in, root and
// prover state out; its kernel time reported as kernel-ms/op), and the
// stages' kernel times (resident: the rows uploaded before the kernels
// are timed), side by side in one run.
func BenchmarkVortex(b *testing.B) {
	for _, s := range benchShapes {
		rows, k := s[0], s[1]
		name := fmt.Sprintf("2^%dx2^%d", bitsLen(rows)-1, k)
		p, err := NewParams(1<<k, rows, 2, SIS{LogTwoDegree: 9, LogTwoBound: 16}, 256)
		if err != nil {
			b.Fatal(err)
		}
		m := benchMatrix(rows, k)
		var want Hash
		b.Run(name+"/cpu-gnark", func(b *testing.B) {
			rs := make([][]koalabear.Element, rows)
			for i := range rs {
				rs[i] = m[i<<k : (i+1)<<k]
			}
			b.SetBytes(int64(4 * len(m)))
			for range b.N {
				st, err := gvortex.Commit(p.Gnark(), rs)
				if err != nil {
					b.Fatal(err)
				}
				want = st.GetCommitment()
			}
		})
		b.Run(name+"/e2e", func(b *testing.B) {
			ctx := gputest.Context(b, gputest.Backends()[0])
			var kernels, enc, sis, leaves, tree time.Duration
			b.SetBytes(int64(4 * len(m)))
			for i := 0; i <= b.N; i++ {
				if i == 1 {
					b.ResetTimer() // the first compiles and warms
					kernels, enc, sis, leaves, tree = 0, 0, 0, 0, 0
				}
				var st Stages
				s, err := Commit(ctx, p, m, Options{Stages: &st})
				if err != nil {
					b.Fatal(err)
				}
				if want != (Hash{}) && s.Root() != want {
					b.Fatal("the root differs from gnark-crypto's")
				}
				s.Release()
				kernels += st.Kernels()
				enc += st.Encode.Elapsed()
				sis += st.SIS.Elapsed()
				leaves += st.Leaves.Elapsed()
				tree += st.Tree.Elapsed()
			}
			per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 / float64(b.N) }
			b.ReportMetric(per(kernels), "kernel-ms/op")
			b.ReportMetric(per(enc), "encode-ms/op")
			b.ReportMetric(per(sis), "sis-ms/op")
			b.ReportMetric(per(leaves), "leaves-ms/op")
			b.ReportMetric(per(tree), "tree-ms/op")
		})
	}
}

func bitsLen(n int) int {
	l := 0
	for ; n > 0; n >>= 1 {
		l++
	}
	return l
}
