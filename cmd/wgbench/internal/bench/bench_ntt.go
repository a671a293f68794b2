package bench

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/ntt"
	"github.com/wgcompute/wgcompute/cmd/internal/results"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/wgpu"
)

// benchNTT measures the KoalaBear transform of one row (2^16 to 2^24)
// and Reed-Solomon encoding at rate 2 (up to gnark-crypto's
// BenchmarkVortexReal shape, 2^11 rows of 2^19): the kernels on rows
// resident on the device, end to end from host memory, and gnark-crypto
// on all cores (the nil Context's path) in the same run. Each size is
// checked against the CPU path once before it is timed. A third table
// is the one-call trace commitment (ldeTable).
func benchNTT(ctx *wgpu.Context, cfg *benchConfig) ([]results.Table, error) {
	f := field.KoalaBear
	logs := []int{16, 20, 22, 24}
	shapes := [][2]int{{256, 16}, {1 << 11, 19}}
	if cfg.quick {
		logs, shapes = []int{12, 16}, [][2]int{{16, 12}}
	}
	where := "CPU backend"
	if ctx != nil {
		where = timeKind(ctx)
	}
	tt := results.Table{
		Title:   "KoalaBear NTT of one row, forward, natural order in",
		Columns: []string{"size", "resident ms (bit-reversed out)", "resident ms (natural out)", "end to end ms", "gnark-crypto ms (all cores)", "end-to-end speedup", "checked"},
		Axes:    results.Axes{XLabel: "elements", YLabel: "resident Melements/s", LogX: true},
		Notes: []string{"resident: " + where + " of the transform of a row already on the device, in Montgomery form; end to end: upload, kernels, read-back of canonical values (ntt.Transform).",
			"gnark-crypto: fft.Domain.FFT(a, DIF) on " + cli.HostCPU() + "."},
	}
	for _, k := range logs {
		cfg.step(fmt.Sprintf("ntt 2^%d", k))
		row, err := nttRow(ctx, cfg, f, k)
		if err != nil {
			return nil, err
		}
		tt.Rows = append(tt.Rows, row.cells)
		if row.resident > 0 {
			tt.Points = append(tt.Points, results.Point{X: float64(int(1) << k), Y: float64(int(1)<<k) / row.resident.Seconds() / 1e6})
		}
	}
	et := results.Table{
		Title:   "KoalaBear Reed-Solomon encoding at rate 2 (the codewords of gnark-crypto's vortex EncodeReedSolomon)",
		Columns: []string{"rows x columns", "resident ms", "end to end ms", "gnark-crypto fft ms (all cores)", "end-to-end speedup", "checked"},
		Axes:    results.Axes{XLabel: "input bytes", YLabel: "resident GB/s of input", LogX: true},
		Notes: []string{"resident: " + where + " of ntt.Extender's dispatches, input and codewords on the device, Montgomery form; end to end: ntt.EncodeReedSolomon from host memory.",
			"gnark-crypto fft: the nil Context's path (each row's inverse transform, zeros, the transform of the codeword, by gnark-crypto's fft.Domain) on " + cli.HostCPU() + "; go test -bench Encode ./algos/ntt times vortex's EncodeReedSolomon itself."},
	}
	for _, s := range shapes {
		cfg.step(fmt.Sprintf("encode %dx2^%d", s[0], s[1]))
		row, bytes, resident, err := encodeRow(ctx, cfg, f, s[0], s[1])
		if err != nil {
			return nil, err
		}
		et.Rows = append(et.Rows, row)
		if resident > 0 {
			et.Points = append(et.Points, results.Point{X: float64(bytes), Y: gbps(bytes, resident)})
		}
	}
	lt, err := ldeTable(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return []results.Table{tt, et, lt}, nil
}

// nttResult is one size's row of the transform table.
type nttResult struct {
	cells    []string
	resident time.Duration
}

// nttRow checks and times the transform of one row of 2^k.
func nttRow(ctx *wgpu.Context, cfg *benchConfig, f field.Monty31, k int) (nttResult, error) {
	rng := rand.New(rand.NewPCG(7, uint64(k)))
	data := make([]uint32, 1<<k)
	for i := range data {
		data[i] = rng.Uint32N(f.P())
	}
	want := slices.Clone(data)
	if err := ntt.Transform(nil, f, want, k, ntt.Options{}); err != nil {
		return nttResult{}, err
	}
	cpu, err := cfg.wallTime(func() error { return ntt.Transform(nil, f, slices.Clone(data), k, ntt.Options{}) })
	if err != nil {
		return nttResult{}, err
	}
	if ctx == nil {
		return nttResult{cells: []string{fmt.Sprintf("2^%d", k), "-", "-", ms(cpu), ms(cpu), "1.0", "CPU backend"}}, nil
	}
	got := slices.Clone(data)
	if err := ntt.Transform(ctx, f, got, k, ntt.Options{}); err != nil {
		return nttResult{}, err
	}
	if !slices.Equal(got, want) {
		return nttResult{}, fmt.Errorf("ntt 2^%d: the GPU's transform differs from gnark-crypto's", k)
	}
	p, err := ntt.NewPlan(ctx, f, k, ntt.PlanOptions{})
	if err != nil {
		return nttResult{}, err
	}
	defer p.Release()
	buf, err := residentBuffer(ctx, "bench ntt row", wgpu.Bytes(data))
	if err != nil {
		return nttResult{}, err
	}
	defer buf.Release()
	var resident [2]time.Duration
	for i, out := range []ntt.Order{ntt.BitReversed, ntt.Natural} {
		ds, err := p.Dispatches(wgpu.Bind(buf), 1, ntt.Options{Out: out}, ntt.Montgomery)
		if err != nil {
			return nttResult{}, err
		}
		if resident[i], err = cfg.median(func() (time.Duration, error) {
			t, err := ctx.Run(ds...)
			return t.Elapsed(), err
		}); err != nil {
			return nttResult{}, err
		}
	}
	e2e, err := cfg.wallTime(func() error { return ntt.Transform(ctx, f, slices.Clone(data), k, ntt.Options{}) })
	if err != nil {
		return nttResult{}, err
	}
	return nttResult{cells: []string{fmt.Sprintf("2^%d", k), ms(resident[0]), ms(resident[1]), ms(e2e), ms(cpu),
		fmt.Sprintf("%.1f", cpu.Seconds()/e2e.Seconds()), "equal to gnark-crypto"}, resident: resident[0]}, nil
}

// encodeRow checks and times Reed-Solomon encoding of rows x 2^k at rate
// 2, and returns its table row, the input's bytes and the resident time.
func encodeRow(ctx *wgpu.Context, cfg *benchConfig, f field.Monty31, rows, k int) ([]string, int64, time.Duration, error) {
	const rate = 2
	rng := rand.New(rand.NewPCG(8, uint64(k)))
	src := make([]uint32, rows<<k)
	for i := range src {
		src[i] = rng.Uint32N(f.P())
	}
	bytes := int64(4 * len(src))
	shape := fmt.Sprintf("%dx2^%d", rows, k)
	want := make([]uint32, len(src)*rate)
	cpu, err := cfg.wallTime(func() error { return ntt.EncodeReedSolomon(nil, f, want, src, k, rate) })
	if err != nil {
		return nil, 0, 0, err
	}
	if ctx == nil {
		return []string{shape, "-", ms(cpu), ms(cpu), "1.0", "CPU backend"}, bytes, 0, nil
	}
	got := make([]uint32, len(want))
	if err := ntt.EncodeReedSolomon(ctx, f, got, src, k, rate); err != nil {
		return nil, 0, 0, err
	}
	if !slices.Equal(got, want) {
		return nil, 0, 0, fmt.Errorf("encode %s: the GPU's codewords differ from the CPU path's", shape)
	}
	e, err := ntt.NewExtender(ctx, f, k, ntt.ExtendOptions{Rate: rate})
	if err != nil {
		return nil, 0, 0, err
	}
	defer e.Release()
	// The rows in as many buffers as the device's buffer size allows.
	rowBytes := uint64(4) << k
	per := int(min(ctx.Limits().MaxBufferSize/rowBytes/rate, uint64(rows)))
	if per < 1 {
		return nil, 0, 0, fmt.Errorf("encode %s: one codeword of %d bytes is larger than the device's buffers (%d bytes)", shape, rowBytes*rate, ctx.Limits().MaxBufferSize)
	}
	var ds []wgpu.Dispatch
	for r0 := 0; r0 < rows; r0 += per {
		nr := min(per, rows-r0)
		in, err := residentBuffer(ctx, "bench encode input", wgpu.Bytes(src[r0<<k:(r0+nr)<<k]))
		if err != nil {
			return nil, 0, 0, err
		}
		defer in.Release()
		out, err := ctx.NewBuffer("bench encode output", uint64(nr)*rowBytes*rate)
		if err != nil {
			return nil, 0, 0, err
		}
		defer out.Release()
		more, err := e.Dispatches(wgpu.Bind(in), wgpu.Bind(out), nr, ntt.Montgomery)
		if err != nil {
			return nil, 0, 0, err
		}
		ds = append(ds, more...)
	}
	resident, err := cfg.median(func() (time.Duration, error) {
		t, err := ctx.Run(ds...)
		return t.Elapsed(), err
	})
	if err != nil {
		return nil, 0, 0, err
	}
	e2e, err := cfg.wallTime(func() error { return ntt.EncodeReedSolomon(ctx, f, got, src, k, rate) })
	if err != nil {
		return nil, 0, 0, err
	}
	return []string{shape, ms(resident), ms(e2e), ms(cpu), fmt.Sprintf("%.1f", cpu.Seconds()/e2e.Seconds()), "equal to the CPU path"}, bytes, resident, nil
}
