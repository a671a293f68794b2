package vortex

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/field/koalabear"
	fext "github.com/consensys/gnark-crypto/field/koalabear/extensions"

	"github.com/wgcompute/wgcompute/internal/base/trace"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// lineaBenchShapes are issue-sized shapes of Linea's prover: a large
// first round (2^11 × 2^19, rate 2, SIS), the small shape of Linea's
// own GPU report (2^9 × 2^16), a recursion round (2^11 × 2^15, rate 16)
// and a small recursion round without SIS (2^8 × 2^14, rate 16), and a
// small one for quick runs. -bench 'Linea/2\^8x2\^12' runs the quick one.
var lineaBenchShapes = []struct {
	rows, logN, rate int
	sis              bool
}{
	{1 << 8, 12, 2, true},
	{1 << 11, 19, 2, true},
	{1 << 9, 16, 2, true},
	{1 << 11, 15, 16, true},
	{1 << 8, 14, 16, false},
}

// BenchmarkLinea commits at each shape with Linea's scheme: on the CPU
// (cpu, all cores), from host memory on the device (e2e: rows in, root
// out, a committer's steady state), and the kernels alone (resident:
// kernel-ms/op and each stage's); and the round's opening (the linear
// combination, 256 columns and their Merkle proofs) of the e2e state
// (open). VORTEX_BENCH_TRACE=FILE writes the phases of steady-state
// commitments at the largest shape (FILE.linea) and at Linea's CUDA
// report's small one (FILE.linea-small), and of the openings at the
// largest (FILE.linea-open).
func BenchmarkLinea(b *testing.B) {
	for _, s := range lineaBenchShapes {
		name := fmt.Sprintf("2^%dx2^%d/rate%d", bitsLen(s.rows)-1, s.logN, s.rate)
		if !s.sis {
			name += "/nosis"
		}
		p, err := NewLineaParams(s.rate, 1<<s.logN, s.rows, 9, 16)
		if err != nil {
			b.Fatal(err)
		}
		// The matrix is made on first use: a run filtered to one shape
		// makes no other's (the largest is 4 GiB).
		var flat []koalabear.Element
		var rows []LineaRow
		matrix := func() {
			if flat != nil {
				return
			}
			flat = benchMatrix(s.rows, s.logN)
			rows = make([]LineaRow, s.rows)
			for i := range rows {
				rows[i] = LineaValues(flat[i<<s.logN : (i+1)<<s.logN : (i+1)<<s.logN])
			}
		}
		opts := LineaOptions{NoSIS: !s.sis}
		var want Hash
		b.Run(name+"/cpu", func(b *testing.B) {
			if testing.Short() && s.rows<<s.logN > 1<<24 {
				b.Skip("-short: the CPU path at this shape takes seconds")
			}
			matrix()
			c, _ := NewLineaCommitter(nil, p)
			b.SetBytes(int64(4 * len(flat)))
			for range b.N {
				st, err := c.Commit(rows, opts)
				if err != nil {
					b.Fatal(err)
				}
				want = st.Root()
				st.Release()
			}
		})
		committer := func(b *testing.B) *LineaCommitter {
			c, err := NewLineaCommitter(gputest.Context(b, gputest.Backends()[0]), p)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(c.Release)
			return c
		}
		commit := func(b *testing.B, c *LineaCommitter, st *Stages) *LineaState {
			matrix()
			o := opts
			o.Stages = st
			s, err := c.Commit(rows, o)
			if err != nil {
				b.Fatal(err)
			}
			if want != (Hash{}) && s.Root() != want {
				b.Fatal("the device's root differs from the CPU's")
			}
			return s
		}
		b.Run(name+"/e2e", func(b *testing.B) {
			c := committer(b)
			commit(b, c, nil).Release() // compiles and warms
			b.SetBytes(int64(4 * s.rows << s.logN))
			b.ResetTimer()
			for range b.N {
				commit(b, c, nil).Release()
			}
		})
		if f := os.Getenv("VORTEX_BENCH_TRACE"); f != "" && traceSuffix(s.rows, s.logN) != "" {
			b.Run(name+"/trace", func(b *testing.B) {
				c := committer(b)
				commit(b, c, nil).Release()
				trace.Enable(true)
				defer trace.Enable(false)
				for range b.N {
					commit(b, c, nil).Release()
				}
				out, err := os.Create(f + traceSuffix(s.rows, s.logN))
				if err != nil {
					b.Fatal(err)
				}
				defer out.Close()
				if err := trace.Write(out); err != nil {
					b.Fatal(err)
				}
			})
		}
		b.Run(name+"/resident", func(b *testing.B) {
			c := committer(b)
			commit(b, c, nil).Release()
			var sum [5]time.Duration
			b.SetBytes(int64(4 * s.rows << s.logN))
			b.ResetTimer()
			for range b.N {
				var st Stages
				commit(b, c, &st).Release()
				for i, d := range []time.Duration{st.Kernels(), st.Encode.Elapsed(), st.SIS.Elapsed(), st.Leaves.Elapsed(), st.Tree.Elapsed()} {
					sum[i] += d
				}
			}
			for i, unit := range []string{"kernel-ms/op", "encode-ms/op", "sis-ms/op", "leaves-ms/op", "tree-ms/op"} {
				b.ReportMetric(float64(sum[i].Microseconds())/1e3/float64(b.N), unit)
			}
		})
		b.Run(name+"/open", func(b *testing.B) {
			c := committer(b)
			st := commit(b, c, nil)
			defer func() {
				b.StopTimer() // the state's release is no part of the opening
				st.Release()
			}()
			var alpha fext.E4
			alpha.B0.A0.SetUint64(3)
			alpha.B1.A1.SetUint64(5)
			rng := rand.New(rand.NewPCG(5, 6))
			entries := make([]int, 256)
			for i := range entries {
				entries[i] = rng.IntN(p.CodewordSize())
			}
			states := []*LineaState{st}
			tf := os.Getenv("VORTEX_BENCH_TRACE")
			if tf != "" && s.rows<<s.logN == 1<<30 {
				defer func() {
					trace.Enable(false)
					if out, err := os.Create(tf + ".linea-open"); err == nil {
						trace.Write(out)
						out.Close()
					}
				}()
			} else {
				tf = ""
			}
			for i := 0; i <= b.N; i++ {
				if i == 1 {
					b.ResetTimer() // the first compiles
					if tf != "" {
						trace.Enable(true)
					}
				}
				if _, err := ProveLinea(states, alpha, entries); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// traceSuffix names the trace file of a shape that VORTEX_BENCH_TRACE
// traces (appended to its FILE): the largest and Linea's CUDA report's
// small shape; "" for the others.
func traceSuffix(rows, logN int) string {
	switch rows << logN {
	case 1 << 30:
		return ".linea"
	case 1 << 25:
		return ".linea-small"
	}
	return ""
}
