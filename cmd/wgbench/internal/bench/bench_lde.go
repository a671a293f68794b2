package bench

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/wgcompute/wgcompute/algos/lde"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/cmd/internal/results"
	"github.com/wgcompute/wgcompute/wgpu"
)

// ldeTable measures Plonky3's trace commitment of BabyBear matrices of
// 2^k rows x 128 columns at blowup 2 (lde.Commit and lde.Root: one
// upload, the coset LDE and the Poseidon2 MMCS on the device) beside the
// upload of the unextended matrix alone, in the same run; the issue's
// target is a one-call time of at most 1.2x the upload plus the kernels.
// Each shape up to 2^16 rows is checked against the CPU path first.
func ldeTable(ctx *wgpu.Context, cfg *benchConfig) (results.Table, error) {
	logs := []int{16, 20}
	if cfg.quick {
		logs = []int{10}
	}
	const cols, rate = 128, 2
	where := "CPU backend"
	if ctx != nil {
		where = timeKind(ctx)
	}
	t := results.Table{
		Title:   "BabyBear trace commitment at blowup 2 (Plonky3's coset LDE and Poseidon2 MMCS), one call from host memory",
		Columns: []string{"rows x columns", "upload ms (unextended)", "kernels ms", "one call ms (tree back)", "one call ms (root back)", "root / (upload + kernels)", "checked"},
		Axes:    results.Axes{XLabel: "input bytes", YLabel: "one call GB/s of input", LogX: true},
		Notes:   []string{"upload: the unextended matrix into a device buffer (wall time); kernels: " + where + " of the transpose, the LDE and the commitment; one call: an lde.Committer's Commit (every leaf and node read back) and Root (the root alone)."},
	}
	hash := merkle.RowHash[uint32](poseidon2.BabyBearMerkle)
	o := lde.Options{Extend: lde.Plonky3(rate)}
	for _, k := range logs {
		shape := fmt.Sprintf("2^%dx%d", k, cols)
		cfg.step("lde commit " + shape)
		rng := rand.New(rand.NewPCG(9, uint64(k)))
		m := merkle.Matrix[uint32]{Rows: 1 << k, Cols: cols, Data: make([]uint32, cols<<k)}
		for i := range m.Data {
			m.Data[i] = rng.Uint32N(hash.Modulus())
		}
		bytes := int64(4 * len(m.Data))
		var want [32]byte
		checked := "-"
		if k <= 16 || ctx == nil {
			w, err := lde.Root(nil, m, hash, o)
			if err != nil {
				return results.Table{}, err
			}
			want, checked = w, "equal to the CPU path"
		}
		if ctx == nil {
			cpu, err := cfg.wallTime(func() error { _, err := lde.Root(nil, m, hash, o); return err })
			if err != nil {
				return results.Table{}, err
			}
			t.Rows = append(t.Rows, []string{shape, "-", "-", ms(cpu), ms(cpu), "-", "CPU backend"})
			continue
		}
		var tm wgpu.Timing
		ko := o
		ko.Timing = &tm
		c, err := lde.NewCommitter(ctx, hash, ko)
		if err != nil {
			return results.Table{}, err
		}
		row, one, err := func() ([]string, time.Duration, error) {
			defer c.Release()
			got, err := c.Root(m)
			if err != nil {
				return nil, 0, err
			}
			if checked != "-" && got != want {
				return nil, 0, fmt.Errorf("lde commit %s: the GPU's root differs from the CPU path's", shape)
			}
			buf, err := ctx.NewBuffer("bench lde upload", uint64(bytes))
			if err != nil {
				return nil, 0, err
			}
			defer buf.Release()
			up, err := cfg.wallTime(func() error {
				if err := ctx.Upload(buf, 0, wgpu.Bytes(m.Data)); err != nil {
					return err
				}
				return ctx.Wait()
			})
			if err != nil {
				return nil, 0, err
			}
			kernels, err := cfg.gpuTime(&tm, func() error { _, err := c.Root(m); return err })
			if err != nil {
				return nil, 0, err
			}
			tree, err := cfg.wallTime(func() error { _, err := c.Commit(m); return err })
			if err != nil {
				return nil, 0, err
			}
			root, err := cfg.wallTime(func() error { _, err := c.Root(m); return err })
			if err != nil {
				return nil, 0, err
			}
			return []string{shape, ms(up), ms(kernels), ms(tree), ms(root), fmt.Sprintf("%.2f", root.Seconds()/(up+kernels).Seconds()), checked}, root, nil
		}()
		if err != nil {
			return results.Table{}, err
		}
		t.Rows = append(t.Rows, row)
		t.Points = append(t.Points, results.Point{X: float64(bytes), Y: gbps(bytes, one)})
	}
	return t, nil
}
