package bench

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/consensys/gnark-crypto/field/koalabear"
	fext "github.com/consensys/gnark-crypto/field/koalabear/extensions"
	gvortex "github.com/consensys/gnark-crypto/field/koalabear/vortex"

	"github.com/wgcompute/wgcompute/algos/vortex"
	"github.com/wgcompute/wgcompute/cmd/internal/results"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
)

// lineaShape is a shape of Linea's prover: rows × 2^logN columns at
// inverse rate rate, committed with SIS(9,16) in production where sis
// (the rounds of 512 rows or more), opened at entries columns.
type lineaShape struct {
	rows, logN, rate int
	sis              bool
	entries          int
}

// lineaBenchShapes are the shapes the linea suite measures: those of the
// issue's targets (a large first round; the small shape of Linea's own
// GPU report; a recursion round; a small recursion round, below 512 rows,
// without SIS), or small ones with --quick.
func lineaBenchShapes(quick bool) []lineaShape {
	if quick {
		return []lineaShape{
			{1 << 6, 10, 2, true, 32},
			{1 << 5, 9, 16, true, 16},
			{1 << 4, 9, 16, false, 16},
		}
	}
	return []lineaShape{
		{1 << 11, 19, 2, true, 256},
		{1 << 9, 16, 2, true, 256},
		{1 << 11, 15, 16, true, 64},
		{1 << 8, 14, 16, false, 64},
	}
}

// lineaVerifyElements bounds the matrices whose opening is also checked
// with vortex.VerifyLinea (its statement, a Lagrange evaluation of every
// row, costs about as much as the CPU's commitment).
const lineaVerifyElements = 1 << 24

func (s lineaShape) name() string {
	return fmt.Sprintf("2^%dx2^%d", bits.Len(uint(s.rows))-1, s.logN)
}

// benchLinea measures the Vortex of Linea's prover (vortex.LineaCommitter)
// at the shapes: commitments with SIS(9,16) and without, each
// stage's kernels (resident: the rows uploaded first) and the whole from
// host memory, beside the library's CPU path on all cores; then the
// round's opening (vortex.ProveLinea: the linear combination of every row,
// the columns and their Merkle proofs) of a state resident on the device,
// beside the CPU's. Every root and proof is checked against the CPU
// path's once, where it runs.
func benchLinea(ctx *wgpu.Context, cfg *benchConfig) ([]results.Table, error) {
	where := "CPU backend"
	if ctx != nil {
		where = timeKind(ctx)
	}
	commits := results.Table{
		Title: "Linea's Vortex commitment over KoalaBear (vortex.LineaCommitter), SIS degree 2^9 with 16-bit limbs or no SIS",
		Columns: []string{"rows x columns", "rate", "hashing", "encode ms", "SIS ms", "leaves ms", "tree ms", "kernels ms", "end to end ms",
			"CPU ms (all cores)", "end-to-end speedup", "checked"},
		Axes: results.Axes{XLabel: "input bytes", YLabel: "end-to-end GB/s of input", LogX: true},
		Notes: []string{"encode, SIS, leaves, tree: " + where + " of each stage of a LineaCommitter's Commit (LineaOptions.Stages), rows uploaded first; kernels: their sum (the commitment resident); end to end: a LineaCommitter's Commit from host memory, its kernels and buffers kept from the commitment before (uploads overlapping the kernels; root back, codewords and tree kept on the device), and the state's release.",
			"CPU: the same LineaCommitter with a nil Context (the library's CPU path) on " + cli.HostCPU() + ". Linea's own CPU code runs only from the generator (outside this module)."},
	}
	opens := results.Table{
		Title:   "The round's opening of Linea's Vortex (vortex.ProveLinea) from a state resident on the device",
		Columns: []string{"rows x columns", "rate", "hashing", "entries", "open ms", "CPU ms (all cores)", "speedup", "checked"},
		Notes: []string{"open: the wall time of ProveLinea over one commitment resident on the device: its linear combination with the powers of an E4 coin (the whole codeword, read back), the entries' columns and their Merkle proofs; the state committed with the shape's production hashing (SIS from 512 rows).",
			"CPU: ProveLinea over the CPU path's state of the same matrix on " + cli.HostCPU() + "."},
	}
	for _, s := range lineaBenchShapes(cfg.quick) {
		rowsC, rowO, e2e, err := lineaShapeRows(ctx, cfg, s)
		if err != nil {
			return nil, err
		}
		commits.Rows = append(commits.Rows, rowsC...)
		opens.Rows = append(opens.Rows, rowO)
		if e2e > 0 {
			bytes := int64(4*s.rows) << s.logN
			commits.Points = append(commits.Points, results.Point{X: float64(bytes), Y: gbps(bytes, e2e), Series: fmt.Sprintf("rate %d, %s", s.rate, lineaHashing(s.sis))})
		}
	}
	return []results.Table{commits, opens}, nil
}

func lineaHashing(sis bool) string {
	if sis {
		return "SIS(9,16)"
	}
	return "no SIS"
}

// lineaMatrix is a random matrix of the shape, its rows as the library
// takes them, made on every core.
func lineaMatrix(s lineaShape) []vortex.LineaRow {
	n := 1 << s.logN
	m := make([]koalabear.Element, s.rows*n)
	const chunk = 1 << 16
	par.For((len(m)+chunk-1)/chunk, 1, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			rng := rand.New(rand.NewPCG(uint64(s.rows), uint64(c)))
			for i := c * chunk; i < min(len(m), (c+1)*chunk); i++ {
				// Any value below p is a Montgomery form.
				m[i] = koalabear.Element{rng.Uint32N(2130706433)}
			}
		}
	})
	rows := make([]vortex.LineaRow, s.rows)
	for i := range rows {
		rows[i] = vortex.LineaValues(m[i*n : (i+1)*n : (i+1)*n])
	}
	return rows
}

// lineaShapeRows measures one shape: its commitment rows (with SIS and
// without), its opening row, and the end-to-end time of the production
// hashing's commitment.
func lineaShapeRows(ctx *wgpu.Context, cfg *benchConfig, s lineaShape) ([][]string, []string, time.Duration, error) {
	p, err := vortex.NewLineaParams(s.rate, 1<<s.logN, s.rows, 9, 16)
	if err != nil {
		return nil, nil, 0, err
	}
	rows := lineaMatrix(s)
	cpu, err := vortex.NewLineaCommitter(nil, p)
	if err != nil {
		return nil, nil, 0, err
	}
	defer cpu.Release()
	var dev *vortex.LineaCommitter
	if ctx != nil {
		if dev, err = vortex.NewLineaCommitter(ctx, p); err != nil {
			return nil, nil, 0, err
		}
		defer dev.Release()
	}
	var out [][]string
	var prodE2E time.Duration
	// The CPU state of the production hashing, for the opening's check.
	var cpuState *vortex.LineaState
	defer func() {
		if cpuState != nil {
			cpuState.Release()
		}
	}()
	// The production hashing last: its CPU state stays for the opening.
	for _, sis := range []bool{!s.sis, s.sis} {
		cfg.step(fmt.Sprintf("linea %s rate %d %s", s.name(), s.rate, lineaHashing(sis)))
		opts := vortex.LineaOptions{NoSIS: !sis, Context: cfg.ctx}
		row := []string{s.name(), fmt.Sprint(s.rate), lineaHashing(sis)}
		var want vortex.Hash
		cpuTime, err := cfg.medianOf(max(1, cfg.repeats/3), func() (time.Duration, error) {
			if cpuState != nil {
				cpuState.Release()
				cpuState = nil
			}
			start := time.Now()
			st, err := cpu.Commit(rows, opts)
			d := time.Since(start)
			if err != nil {
				return 0, err
			}
			want = st.Root()
			if sis == s.sis {
				cpuState = st
			} else {
				st.Release()
			}
			return d, nil
		})
		if err != nil {
			return nil, nil, 0, err
		}
		if dev == nil {
			out = append(out, append(row, "-", "-", "-", "-", "-", "-", ms(cpuTime), "-", "CPU backend"))
			continue
		}
		stages, kernels, e2e, err := lineaDeviceTimes(cfg, dev, rows, opts, want)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("linea %s rate %d %s: %w", s.name(), s.rate, lineaHashing(sis), err)
		}
		out = append(out, append(row, ms(stages[0]), ms(stages[1]), ms(stages[2]), ms(stages[3]), ms(kernels), ms(e2e), ms(cpuTime),
			fmt.Sprintf("%.1f", cpuTime.Seconds()/e2e.Seconds()), "root equal to the CPU path's"))
		if sis == s.sis {
			prodE2E = e2e
		}
	}
	open, err := lineaOpenRow(cfg, s, p, dev, rows, cpuState)
	if err != nil {
		return nil, nil, 0, err
	}
	return out, open, prodE2E, nil
}

// lineaDeviceTimes times dev's commitments of rows: each stage's kernels
// (the median of each over the same commitments) and their sum, then the
// whole from host memory. Every root is held to want, the CPU path's.
func lineaDeviceTimes(cfg *benchConfig, dev *vortex.LineaCommitter, rows []vortex.LineaRow, opts vortex.LineaOptions, want vortex.Hash) ([4]time.Duration, time.Duration, time.Duration, error) {
	var st vortex.Stages
	commit := func(o vortex.LineaOptions) error {
		s, err := dev.Commit(rows, o)
		if err != nil {
			return err
		}
		defer s.Release()
		if s.Root() != want {
			return errors.New("the device's root differs from the CPU path's")
		}
		return nil
	}
	var stages [4]time.Duration
	repeats := max(1, cfg.repeats/2)
	var runs []vortex.Stages
	timed := opts
	timed.Stages = &st
	kernels, err := cfg.medianOf(repeats, func() (time.Duration, error) {
		st = vortex.Stages{}
		err := commit(timed)
		runs = append(runs, st)
		return st.Kernels(), err
	})
	if err != nil {
		return stages, 0, 0, err
	}
	runs = runs[len(runs)-repeats:]
	for i, of := range []func(vortex.Stages) time.Duration{
		func(s vortex.Stages) time.Duration { return s.Encode.Elapsed() },
		func(s vortex.Stages) time.Duration { return s.SIS.Elapsed() },
		func(s vortex.Stages) time.Duration { return s.Leaves.Elapsed() },
		func(s vortex.Stages) time.Duration { return s.Tree.Elapsed() },
	} {
		ds := make([]time.Duration, len(runs))
		for j, r := range runs {
			ds[j] = of(r)
		}
		slices.Sort(ds)
		stages[i] = ds[len(ds)/2]
	}
	// No Stages: the uploads overlap the kernels.
	e2e, err := cfg.wallTime(func() error { return commit(opts) })
	return stages, kernels, e2e, err
}

// lineaOpenRow times the round's opening of one commitment of rows with
// the shape's production hashing, on the device (a state committed once)
// and on the CPU (cpuState, the CPU path's), and checks the device's
// proof against the CPU's, and with VerifyLinea at small shapes.
func lineaOpenRow(cfg *benchConfig, s lineaShape, p *vortex.LineaParams, dev *vortex.LineaCommitter, rows []vortex.LineaRow, cpuState *vortex.LineaState) ([]string, error) {
	cfg.step(fmt.Sprintf("linea %s rate %d opening", s.name(), s.rate))
	row := []string{s.name(), fmt.Sprint(s.rate), lineaHashing(s.sis), fmt.Sprint(s.entries)}
	var alpha fext.E4
	alpha.B0.A0.SetUint64(3)
	alpha.B0.A1.SetUint64(7)
	alpha.B1.A1.SetUint64(5)
	rng := rand.New(rand.NewPCG(5, uint64(s.logN)))
	entries := make([]int, s.entries)
	for i := range entries {
		entries[i] = rng.IntN(p.CodewordSize())
	}
	var want *vortex.LineaProof
	cpuTime, err := cfg.medianOf(max(1, cfg.repeats/3), func() (time.Duration, error) {
		start := time.Now()
		pr, err := vortex.ProveLinea([]*vortex.LineaState{cpuState}, alpha, entries)
		want = pr
		return time.Since(start), err
	})
	if err != nil {
		return nil, err
	}
	if dev == nil {
		return append(row, "-", ms(cpuTime), "-", "CPU backend"), nil
	}
	st, err := dev.Commit(rows, vortex.LineaOptions{NoSIS: !s.sis, Context: cfg.ctx})
	if err != nil {
		return nil, err
	}
	defer st.Release()
	var got *vortex.LineaProof
	d, err := cfg.medianOf(cfg.repeats, func() (time.Duration, error) {
		start := time.Now()
		pr, err := vortex.ProveLinea([]*vortex.LineaState{st}, alpha, entries)
		got = pr
		return time.Since(start), err
	})
	if err != nil {
		return nil, err
	}
	if err := sameLineaProof(got, want); err != nil {
		return nil, fmt.Errorf("linea %s rate %d opening: %w", s.name(), s.rate, err)
	}
	checked := "proof equal to the CPU path's"
	if s.rows<<s.logN <= lineaVerifyElements {
		if err := verifyLineaBench(p, got, st.Root(), s.sis, alpha, entries, rows); err != nil {
			return nil, fmt.Errorf("linea %s rate %d opening: %w", s.name(), s.rate, err)
		}
		checked += ", verified"
	}
	return append(row, ms(d), ms(cpuTime), fmt.Sprintf("%.1f", cpuTime.Seconds()/d.Seconds()), checked), nil
}

// sameLineaProof returns an error where got differs from want.
func sameLineaProof(got, want *vortex.LineaProof) error {
	if !slices.Equal(got.LinComb, want.LinComb) {
		return errors.New("the device's linear combination differs from the CPU path's")
	}
	for i := range want.Columns {
		for j := range want.Columns[i] {
			if !slices.Equal(got.Columns[i][j], want.Columns[i][j]) {
				return fmt.Errorf("the device's column %d differs from the CPU path's", j)
			}
			g, w := got.MerkleProofs[i][j], want.MerkleProofs[i][j]
			if g.Path != w.Path || !slices.Equal(g.Siblings, w.Siblings) {
				return fmt.Errorf("the device's Merkle proof of entry %d differs from the CPU path's", j)
			}
		}
	}
	return nil
}

// verifyLineaBench checks pr with VerifyLinea, the statement computed
// from rows at a point x.
func verifyLineaBench(p *vortex.LineaParams, pr *vortex.LineaProof, root vortex.Hash, sis bool, alpha fext.E4, entries []int, rows []vortex.LineaRow) error {
	var x fext.E4
	x.B0.A1.SetUint64(11)
	x.B1.A0.SetUint64(2)
	ys := make([]fext.E4, len(rows))
	if err := par.ForErr(len(rows), 1, func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			y, err := gvortex.EvalBasePolyLagrange(rows[i].Values, x)
			if err != nil {
				return err
			}
			ys[i] = y
		}
		return nil
	}); err != nil {
		return err
	}
	return vortex.VerifyLinea(p, pr, x, [][]fext.E4{ys}, alpha, entries, []vortex.Hash{root}, []bool{sis})
}
