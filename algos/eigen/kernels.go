package eigen

import (
	"fmt"
	"math"

	"github.com/wgcompute/wgcompute/wgpu"
)

// The single kernels of the method, on their own, for tests and the
// per-kernel benchmark tables.

// scratch holds small buffers a single-kernel call binds but does not use.
type scratch struct{ bufs []*wgpu.Buffer }

func (s *scratch) buf(ctx *wgpu.Context, label string, size uint64) (*wgpu.Buffer, error) {
	b, err := ctx.NewBuffer(label, size)
	if err != nil {
		return nil, fmt.Errorf("eigen: %w", err)
	}
	s.bufs = append(s.bufs, b)
	return b, nil
}

func (s *scratch) release() {
	for i := len(s.bufs) - 1; i >= 0; i-- {
		s.bufs[i].Release()
	}
}

// RowSumsBuffer is `for r := range n { dst[r] = Σ_c m[r*n+c] }` (each row
// added in the kernel's fixed order) on buffers already on the GPU: m holds
// the n×n row-major matrix, dst n float32. M is bound in blocks of rows
// when it exceeds the storage binding limit.
func RowSumsBuffer(ctx *wgpu.Context, dst, m *wgpu.Buffer, n int, variant Variant) (wgpu.Timing, error) {
	variant, err := variant.resolve()
	if err != nil {
		return wgpu.Timing{}, err
	}
	if n <= 0 || m.Size() < uint64(n)*uint64(n)*4 || dst.Size() < uint64(n)*4 {
		return wgpu.Timing{}, fmt.Errorf("eigen: row sums: n = %d needs a %d-byte matrix and a %d-byte result; have %d and %d bytes",
			n, uint64(n)*uint64(n)*4, uint64(n)*4, m.Size(), dst.Size())
	}
	blocks, err := rowBlocks(n, ctx.Limits().MaxStorageBindingSize)
	if err != nil {
		return wgpu.Timing{}, err
	}
	k, err := kernel(ctx, "rowsum_"+variant.String())
	if err != nil {
		return wgpu.Timing{}, err
	}
	var sc scratch
	defer sc.release()
	sIn, err := sc.buf(ctx, "eigen unused s_in", 4)
	if err != nil {
		return wgpu.Timing{}, err
	}
	v, err := sc.buf(ctx, "eigen unused v", 4)
	if err != nil {
		return wgpu.Timing{}, err
	}
	st, err := sc.buf(ctx, "eigen unused state", stWords*4)
	if err != nil {
		return wgpu.Timing{}, err
	}
	rowBytes := uint64(n) * 4
	var ds []wgpu.Dispatch
	for _, b := range blocks {
		ds = append(ds, wgpu.Dispatch{Kernel: k,
			Bindings: []wgpu.Binding{{Buffer: m, Offset: uint64(b.row0) * rowBytes, Size: uint64(b.rows) * rowBytes}, wgpu.Bind(sIn), wgpu.Bind(dst), wgpu.Bind(v), wgpu.Bind(st)},
			Params:   []uint32{uint32(n), uint32(b.row0), uint32(b.rows), modePlain, 0, 0, 0, 0},
			Groups:   rowGroups(ctx, variant, b.rows)})
	}
	t, err := ctx.Run(ds...)
	if err != nil {
		return t, fmt.Errorf("eigen: row sums %s: %w", variant, err)
	}
	return t, nil
}

// RowSums is RowSumsBuffer on host memory: dst[r] = Σ_c m[r*n+c].
func RowSums(ctx *wgpu.Context, dst, m []float32, n int, variant Variant) error {
	if n <= 0 || len(m) != n*n || len(dst) != n {
		return fmt.Errorf("eigen: row sums: n = %d needs %d matrix entries and %d results; have %d and %d", n, n*n, n, len(m), len(dst))
	}
	mb, err := ctx.NewBuffer("eigen matrix", uint64(len(m))*4)
	if err != nil {
		return fmt.Errorf("eigen: %w", err)
	}
	defer mb.Release()
	db, err := ctx.NewBuffer("eigen row sums", uint64(n)*4)
	if err != nil {
		return fmt.Errorf("eigen: %w", err)
	}
	defer db.Release()
	if err := ctx.Upload(mb, 0, wgpu.Bytes(m)); err != nil {
		return fmt.Errorf("eigen: %w", err)
	}
	if _, err := RowSumsBuffer(ctx, db, mb, n, variant); err != nil {
		return err
	}
	if err := ctx.Download(wgpu.Bytes(dst), db, 0); err != nil {
		return fmt.Errorf("eigen: %w", err)
	}
	return nil
}

// MaxBuffer returns max(x[0..count)) for a vector of non-negative float32
// on the GPU (the max of their bit patterns, which orders them as floats).
func MaxBuffer(ctx *wgpu.Context, x *wgpu.Buffer, count int, variant Variant) (float32, wgpu.Timing, error) {
	variant, err := variant.resolve()
	if err != nil {
		return 0, wgpu.Timing{}, err
	}
	if count <= 0 || x.Size() < uint64(count)*4 {
		return 0, wgpu.Timing{}, fmt.Errorf("eigen: max: %d elements need %d bytes; the buffer has %d", count, uint64(count)*4, x.Size())
	}
	if lim := ctx.Limits().MaxStorageBindingSize; uint64(count)*4 > lim {
		return 0, wgpu.Timing{}, fmt.Errorf("eigen: max: %d elements (%d bytes) exceed the device's storage binding limit of %d bytes", count, uint64(count)*4, lim)
	}
	var sc scratch
	defer sc.release()
	mat, err := sc.buf(ctx, "eigen unused matrix", 4)
	if err != nil {
		return 0, wgpu.Timing{}, err
	}
	sIn, err := sc.buf(ctx, "eigen unused s_in", 4)
	if err != nil {
		return 0, wgpu.Timing{}, err
	}
	groups := (count + wg*maxItems - 1) / (wg * maxItems)
	partial, err := sc.buf(ctx, "eigen max partials", uint64(groups)*4)
	if err != nil {
		return 0, wgpu.Timing{}, err
	}
	st, err := sc.buf(ctx, "eigen max state", stWords*4)
	if err != nil {
		return 0, wgpu.Timing{}, err
	}
	bind := []wgpu.Binding{wgpu.Bind(mat), wgpu.Bind(sIn), {Buffer: x, Size: uint64(count) * 4}, wgpu.Bind(partial), wgpu.Bind(st)}
	params := []uint32{uint32(count), 0, uint32(groups), 0, 0, 0, 0, 0}
	var names []string
	var grids [][3]uint32
	switch variant {
	case V0:
		names, grids = []string{"max_v0"}, [][3]uint32{ctx.Grid(uint64(count), wg)}
	case V1:
		names, grids = []string{"max_v1"}, [][3]uint32{ctx.Grid(uint64(count), wg*maxItems)}
	default:
		names, grids = []string{"max_v2_partial", "max_v2_final"}, [][3]uint32{ctx.Grid(uint64(count), wg*maxItems), {1, 1, 1}}
	}
	var ds []wgpu.Dispatch
	for i, name := range names {
		k, err := kernel(ctx, name)
		if err != nil {
			return 0, wgpu.Timing{}, err
		}
		ds = append(ds, wgpu.Dispatch{Kernel: k, Bindings: bind, Params: params, Groups: grids[i]})
	}
	t, err := ctx.Run(ds...)
	if err != nil {
		return 0, t, fmt.Errorf("eigen: max %s: %w", variant, err)
	}
	out := make([]uint32, 1)
	if err := ctx.Download(wgpu.Bytes(out), st, stHistBase*4); err != nil {
		return 0, t, fmt.Errorf("eigen: max: %w", err)
	}
	return math.Float32frombits(out[0]), t, nil
}

// Max is MaxBuffer on host memory: the largest of x, which must be
// non-negative (NaN is not accepted either).
func Max(ctx *wgpu.Context, x []float32, variant Variant) (float32, error) {
	for i, f := range x {
		if !(f >= 0) {
			return 0, fmt.Errorf("eigen: max: element %d is %v: the bit-pattern max needs non-negative numbers", i, f)
		}
	}
	if len(x) == 0 {
		return 0, fmt.Errorf("eigen: max: empty vector")
	}
	b, err := ctx.NewBuffer("eigen max input", uint64(len(x))*4)
	if err != nil {
		return 0, fmt.Errorf("eigen: %w", err)
	}
	defer b.Release()
	if err := ctx.Upload(b, 0, wgpu.Bytes(x)); err != nil {
		return 0, fmt.Errorf("eigen: %w", err)
	}
	m, _, err := MaxBuffer(ctx, b, len(x), variant)
	return m, err
}
