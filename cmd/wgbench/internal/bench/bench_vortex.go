package bench

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/consensys/gnark-crypto/field/koalabear"

	"github.com/wgcompute/wgcompute/algos/vortex"
	"github.com/wgcompute/wgcompute/cmd/internal/results"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/wgpu"
)

// benchVortex measures gnark-crypto's Vortex commitment (rate 2,
// sis.NewRSis(0, 9, 16, rows)) up to its BenchmarkVortexReal shape (2^11
// rows of 2^19): each stage's kernels (encoding, SIS, leaves, tree), the
// whole from host memory (rows in, root and prover state out), and
// gnark-crypto's vortex.Commit on all cores (the nil Context's path) in
// the same run. Each shape's root is checked against gnark-crypto's once.
func benchVortex(ctx *wgpu.Context, cfg *benchConfig) ([]results.Table, error) {
	shapes := [][2]int{{1 << 8, 14}, {1 << 11, 19}}
	if cfg.quick {
		shapes = [][2]int{{16, 10}}
	}
	where := "CPU backend"
	if ctx != nil {
		where = timeKind(ctx)
	}
	t := results.Table{
		Title:   "gnark-crypto's Vortex commitment over KoalaBear, rate 2, SIS degree 2^9 with 16-bit limbs",
		Columns: []string{"rows x columns", "encode ms", "SIS ms", "leaves ms", "tree ms", "kernels ms", "end to end ms", "gnark-crypto ms (all cores)", "end-to-end speedup", "checked"},
		Axes:    results.Axes{XLabel: "input bytes", YLabel: "end-to-end GB/s of input", LogX: true},
		Notes: []string{"encode, SIS, leaves, tree: " + where + " of each stage of vortex.Commit, rows uploaded first; kernels: their sum; end to end: a vortex.Committer's Commit from host memory, its tables and buffers kept from the commitment before (uploads overlapping the kernels; root back, the tree kept on the device), and the prover state's release.",
			"gnark-crypto: its vortex.Commit (the nil Context's path) on " + cli.HostCPU() + "."},
	}
	for _, s := range shapes {
		cfg.step(fmt.Sprintf("vortex %dx2^%d", s[0], s[1]))
		row, bytes, e2e, err := vortexRow(ctx, cfg, s[0], s[1])
		if err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, row)
		if e2e > 0 {
			t.Points = append(t.Points, results.Point{X: float64(bytes), Y: gbps(bytes, e2e)})
		}
	}
	return []results.Table{t}, nil
}

// vortexRow checks and times one shape.
func vortexRow(ctx *wgpu.Context, cfg *benchConfig, rows, k int) ([]string, int64, time.Duration, error) {
	shape := fmt.Sprintf("%dx2^%d", rows, k)
	p, err := vortex.NewParams(1<<k, rows, 2, vortex.SIS{LogTwoDegree: 9, LogTwoBound: 16}, 256)
	if err != nil {
		return nil, 0, 0, err
	}
	m := make([]koalabear.Element, rows<<k)
	rng := rand.New(rand.NewPCG(9, uint64(k)))
	for i := range m {
		m[i].SetUint64(uint64(rng.Uint32N(2130706433)))
	}
	bytes := int64(4 * len(m))
	var want vortex.Hash
	cpu, err := cfg.wallTime(func() error {
		st, err := vortex.Commit(nil, p, m, vortex.Options{})
		if err == nil {
			want = st.Root()
		}
		return err
	})
	if err != nil {
		return nil, 0, 0, err
	}
	if ctx == nil {
		return []string{shape, "-", "-", "-", "-", "-", ms(cpu), ms(cpu), "1.0", "CPU backend"}, bytes, 0, nil
	}
	// One Committer, as a prover keeps: its tables and buffers serve
	// every commitment after the first.
	c, err := vortex.NewCommitter(ctx, p)
	if err != nil {
		return nil, 0, 0, err
	}
	defer c.Release()
	rs := make([][]koalabear.Element, rows)
	for i := range rs {
		rs[i] = m[i<<k : (i+1)<<k]
	}
	var st vortex.Stages
	opts := vortex.Options{Stages: &st}
	commit := func() error {
		s, err := c.Commit(rs, opts)
		if err != nil {
			return err
		}
		defer s.Release()
		if s.Root() != want {
			return fmt.Errorf("vortex %s: the GPU's root differs from gnark-crypto's", shape)
		}
		return nil
	}
	// Each stage's median over the same commitments (the kernels' sum
	// picks them; the warm-up's are left out).
	repeats := max(1, cfg.repeats/2)
	var runs []vortex.Stages
	if _, err = cfg.medianOf(repeats, func() (time.Duration, error) {
		err := commit()
		runs = append(runs, st)
		return st.Kernels(), err
	}); err != nil {
		return nil, 0, 0, err
	}
	runs = runs[len(runs)-repeats:]
	var stages [5]time.Duration
	for i, of := range []func(vortex.Stages) time.Duration{
		func(s vortex.Stages) time.Duration { return s.Encode.Elapsed() },
		func(s vortex.Stages) time.Duration { return s.SIS.Elapsed() },
		func(s vortex.Stages) time.Duration { return s.Leaves.Elapsed() },
		func(s vortex.Stages) time.Duration { return s.Tree.Elapsed() },
		vortex.Stages.Kernels,
	} {
		ds := make([]time.Duration, len(runs))
		for j, r := range runs {
			ds[j] = of(r)
		}
		slices.Sort(ds)
		stages[i] = ds[len(ds)/2]
	}
	opts.Stages = nil // the uploads overlap the kernels
	e2e, err := cfg.wallTime(commit)
	if err != nil {
		return nil, 0, 0, err
	}
	return []string{shape, ms(stages[0]), ms(stages[1]), ms(stages[2]), ms(stages[3]), ms(stages[4]), ms(e2e), ms(cpu),
		fmt.Sprintf("%.1f", cpu.Seconds()/e2e.Seconds()), "root equal to gnark-crypto's"}, bytes, e2e, nil
}
