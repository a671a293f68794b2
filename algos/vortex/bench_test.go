package vortex

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/field/koalabear"
	fext "github.com/consensys/gnark-crypto/field/koalabear/extensions"
	gvortex "github.com/consensys/gnark-crypto/field/koalabear/vortex"

	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/internal/base/trace"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// benchShapes are gnark-crypto's BenchmarkVortexReal shape (2^11 rows of
// 2^19, rate 2, sis.NewRSis(0, 9, 16, rows)) and a small one for quick
// runs (-bench 'Vortex/2\^8').
var benchShapes = [][2]int{{1 << 8, 14}, {1 << 11, 19}}

// benchCase returns the parameters of rows × 2^k matrices (rate 2,
// SIS(9,16), 256 columns opened, as BenchmarkVortexReal), a seeded
// matrix and its rows.
func benchCase(b *testing.B, rows, k int) (*Params, []koalabear.Element, [][]koalabear.Element) {
	p, err := NewParams(1<<k, rows, 2, SIS{LogTwoDegree: 9, LogTwoBound: 16}, 256)
	if err != nil {
		b.Fatal(err)
	}
	m := benchMatrix(rows, k)
	rs := make([][]koalabear.Element, rows)
	for i := range rs {
		rs[i] = m[i<<k : (i+1)<<k]
	}
	return p, m, rs
}

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
// prover state out, the uploads overlapping the kernels), and the
// kernels' time (resident: kernel-ms/op, the stages' sum, and each
// stage's, every upload finished before the kernels are timed), side by
// side in one run; and the openings (OpenLinComb and 256 columns by
// OpenColumns, BenchmarkVortexReal's), ours and gnark-crypto's.
func BenchmarkVortex(b *testing.B) {
	for _, s := range benchShapes {
		rows, k := s[0], s[1]
		name := fmt.Sprintf("2^%dx2^%d", bitsLen(rows)-1, k)
		p, m, rs := benchCase(b, rows, k)
		var want Hash
		var gnarkState *gvortex.ProverState
		var alpha fext.E4
		alpha.B0.A0.SetUint64(3)
		alpha.B1.A1.SetUint64(5)
		sel := make([]int, 256)
		rng := rand.New(rand.NewPCG(5, 6))
		for i := range sel {
			sel[i] = rng.IntN(p.SizeCodeWord())
		}
		b.Run(name+"/cpu-gnark", func(b *testing.B) {
			b.SetBytes(int64(4 * len(m)))
			for range b.N {
				st, err := gvortex.Commit(p.Gnark(), rs)
				if err != nil {
					b.Fatal(err)
				}
				want, gnarkState = st.GetCommitment(), st
			}
		})
		b.Run(name+"/open/cpu-gnark", func(b *testing.B) {
			if gnarkState == nil {
				b.Skip("run with the cpu-gnark commitment")
			}
			for range b.N {
				gnarkState.OpenLinComb(alpha)
				if _, err := gnarkState.OpenColumns(sel); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/open/gpu", func(b *testing.B) {
			ctx := gputest.Context(b, gputest.Backends()[0])
			s, err := Commit(ctx, p, m, Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer func() {
				b.StopTimer() // the state's release is no part of the openings
				s.Release()
			}()
			if f := os.Getenv("VORTEX_BENCH_TRACE"); f != "" && rows == benchShapes[len(benchShapes)-1][0] {
				defer func() {
					trace.Enable(false)
					if out, err := os.Create(f + ".open"); err == nil {
						trace.Write(out)
						out.Close()
					}
				}()
			}
			for i := 0; i <= b.N; i++ {
				if i == 1 {
					b.ResetTimer() // the first compiles
					if os.Getenv("VORTEX_BENCH_TRACE") != "" {
						trace.Enable(true)
					}
				}
				if _, err := s.OpenLinComb(alpha); err != nil {
					b.Fatal(err)
				}
				if _, err := s.OpenColumns(sel); err != nil {
					b.Fatal(err)
				}
			}
		})
		commit := func(b *testing.B, c *Committer, st *Stages) {
			var s *ProverState
			var err error
			if c != nil {
				s, err = c.Commit(rs, Options{Stages: st})
			} else {
				s, err = Commit(gputest.Context(b, gputest.Backends()[0]), p, m, Options{Stages: st})
			}
			if err != nil {
				b.Fatal(err)
			}
			if want != (Hash{}) && s.Root() != want {
				b.Fatal("the root differs from gnark-crypto's")
			}
			s.Release()
		}
		committer := func(b *testing.B) *Committer {
			c, err := NewCommitter(gputest.Context(b, gputest.Backends()[0]), p)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(c.Release)
			return c
		}
		// e2e is a prover's steady state: one Committer, whose tables and
		// buffers serve every commitment; e2e-once is Commit, which makes
		// and frees them each call.
		b.Run(name+"/e2e", func(b *testing.B) {
			c := committer(b)
			commit(b, c, nil) // compiles and warms
			b.SetBytes(int64(4 * len(m)))
			b.ResetTimer()
			for range b.N {
				commit(b, c, nil)
			}
		})
		if f := os.Getenv("VORTEX_BENCH_TRACE"); f != "" && rows == benchShapes[len(benchShapes)-1][0] {
			// One steady-state commitment's phases, for BENCHMARKS.md.
			b.Run(name+"/trace", func(b *testing.B) {
				c := committer(b)
				commit(b, c, nil)
				trace.Enable(true)
				defer trace.Enable(false)
				for range b.N {
					commit(b, c, nil)
				}
				out, err := os.Create(f)
				if err != nil {
					b.Fatal(err)
				}
				defer out.Close()
				if err := trace.Write(out); err != nil {
					b.Fatal(err)
				}
			})
		}
		b.Run(name+"/e2e-once", func(b *testing.B) {
			commit(b, nil, nil)
			b.SetBytes(int64(4 * len(m)))
			b.ResetTimer()
			for range b.N {
				commit(b, nil, nil)
			}
		})
		b.Run(name+"/resident", func(b *testing.B) {
			c := committer(b)
			commit(b, c, nil)
			var sum [5]time.Duration
			b.SetBytes(int64(4 * len(m)))
			b.ResetTimer()
			for range b.N {
				var st Stages
				commit(b, c, &st)
				for i, d := range []time.Duration{st.Kernels(), st.Encode.Elapsed(), st.SIS.Elapsed(), st.Leaves.Elapsed(), st.Tree.Elapsed()} {
					sum[i] += d
				}
			}
			for i, unit := range []string{"kernel-ms/op", "encode-ms/op", "sis-ms/op", "leaves-ms/op", "tree-ms/op"} {
				b.ReportMetric(float64(sum[i].Microseconds())/1e3/float64(b.N), unit)
			}
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

// splitShapes are the split benchmark's shapes: BenchmarkVortexReal's,
// whose upload and encoding every device repeats, and 2^5 rows of 2^21,
// whose columns' hashes dominate.
var splitShapes = [][2]int{{1 << 11, 19}, {1 << 5, 21}}

// BenchmarkVortexSplit commits at each shape on the first device alone
// (1), split over every device of the Group WGCOMPUTE_DEVICES (default:
// all) opens (all, Group.SplitAll), and as the Committer decides
// (auto), side by side in one run: e2e the steady state from host
// memory, per-device kernel-ms/op from each device's timestamps
// (Group.KernelTimes, device i as dev<i>-kernel-ms/op), and resident the
// stages' kernels, the slowest device's each, uploads finished first.
func BenchmarkVortexSplit(b *testing.B) {
	o := gputest.Options(b, gputest.Backends()[0])
	if o.Devices == "" {
		o.Devices = "all"
	}
	g, err := sched.OpenGroup(o)
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	if v := os.Getenv("VORTEX_BENCH_OVERLAP"); v != "" {
		// Where the rows start to go up in pieces, for tuning it.
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		defer func(v uint64) { overlapFrom = v }(overlapFrom)
		overlapFrom = n
	}
	for _, s := range splitShapes {
		rows, k := s[0], s[1]
		b.Run(fmt.Sprintf("2^%dx2^%d", bitsLen(rows)-1, k), func(b *testing.B) { benchSplit(b, g, rows, k) })
	}
}

// benchSplit is BenchmarkVortexSplit at one shape.
func benchSplit(b *testing.B, g *sched.Group, rows, k int) {
	p, m, rs := benchCase(b, rows, k)
	var want Hash
	for _, c := range []struct {
		name string
		g    *sched.Group
	}{{"1", g.Fit(1, 1)}, {"all", g.SplitAll()}, {"auto", g}} {
		cm, err := NewCommitter(c.g, p)
		if err != nil {
			b.Fatal(err)
		}
		shares := 0
		commit := func(b *testing.B, st *Stages) {
			s, err := cm.Commit(rs, Options{Stages: st})
			if err != nil {
				b.Fatal(err)
			}
			if want == (Hash{}) {
				want = s.Root()
			} else if s.Root() != want {
				b.Fatal("the root differs from one device's")
			}
			shares = len(s.dev.parts)
			s.Release()
		}
		b.Run("e2e/"+c.name, func(b *testing.B) {
			commit(b, nil) // compiles, warms, teaches the decision
			commit(b, nil)
			if err := c.g.Warm(300 * time.Millisecond); err != nil {
				b.Fatal(err)
			}
			before := c.g.KernelTimes()
			f := os.Getenv("VORTEX_BENCH_TRACE")
			if f != "" {
				trace.Enable(true)
			}
			rowsBefore := map[string]trace.Row{}
			for _, r := range trace.Rows() {
				rowsBefore[r.Phase] = r
			}
			b.SetBytes(int64(4 * len(m)))
			b.ResetTimer()
			for range b.N {
				commit(b, nil)
			}
			b.StopTimer()
			if f != "" {
				// The phases of this shape's and Group's commitments.
				trace.Enable(false)
				out, err := os.Create(fmt.Sprintf("%s.split-2e%dx2e%d-%s", f, bitsLen(rows)-1, k, c.name))
				if err != nil {
					b.Fatal(err)
				}
				defer out.Close()
				// The phases' time per commitment, of these runs alone.
				for _, r := range trace.Rows() {
					if n := r.Count - rowsBefore[r.Phase].Count; n > 0 {
						fmt.Fprintf(out, "%-52s %6d per op %10.3f ms per op\n", r.Phase, n/b.N, float64((r.Total-rowsBefore[r.Phase].Total).Microseconds())/1e3/float64(b.N))
					}
				}
			}
			for i, t := range c.g.KernelTimes() {
				b.ReportMetric(float64((t-before[i]).Microseconds())/1e3/float64(b.N), fmt.Sprintf("dev%d-kernel-ms/op", i))
			}
			b.ReportMetric(float64(shares), "shares")
		})
		b.Run("resident/"+c.name, func(b *testing.B) {
			commit(b, nil)
			var sum [4]time.Duration
			b.ResetTimer()
			for range b.N {
				var st Stages
				commit(b, &st)
				for i, d := range []time.Duration{st.Kernels(), st.Encode.Elapsed(), st.SIS.Elapsed() + st.Leaves.Elapsed(), st.Tree.Wall} {
					sum[i] += d
				}
			}
			for i, unit := range []string{"kernel-ms/op", "encode-ms/op", "hash-ms/op", "tree-wall-ms/op"} {
				b.ReportMetric(float64(sum[i].Microseconds())/1e3/float64(b.N), unit)
			}
			b.ReportMetric(float64(shares), "shares")
		})
		cm.Release()
	}
}
