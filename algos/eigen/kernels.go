package eigen

import (
	"fmt"
	"math"

	"github.com/wgcompute/wgcompute/internal/base/checked"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// Kernels runs the method's row-sum and max kernels on their own, on
// buffers already on the GPU: what the per-kernel tables measure. Every
// kernel of eigen.wgsl shares one binding layout, so Kernels keeps the
// small buffers a kernel binds but does not use (and max_v2's partial
// maxima) from one call to the next until Release. It is not safe for
// concurrent use.
type Kernels struct {
	ctx  *wgpu.Context
	opts Options
	// mat and sIn are placeholders; part holds max_v2's partials and is a
	// placeholder for the row sums' vector; st is the state the max kernels
	// leave their result in.
	mat, sIn, part, st *wgpu.Buffer
}

// NewKernels returns the kernels opts.Variant chooses on t's GPU (a
// Context or a Group of one), reporting each call's timing to
// opts.Timing. The kernels work on GPU buffers, so t must not be nil.
func NewKernels(t wgpu.Target, opts Options) (_ *Kernels, err error) {
	ctx, err := sched.OneDevice(t)
	if err != nil {
		return nil, fmt.Errorf("eigen: NewKernels %w", err)
	}
	if opts, err = opts.withDefaults(); err != nil {
		return nil, err
	}
	k := &Kernels{ctx: ctx, opts: opts}
	for _, b := range []struct {
		b    **wgpu.Buffer
		size uint64
	}{{&k.mat, 4}, {&k.sIn, 4}, {&k.part, 4}, {&k.st, stWords * 4}} {
		if *b.b, err = ctx.NewBuffer("eigen kernels scratch", b.size); err != nil {
			k.Release()
			return nil, fmt.Errorf("eigen: kernels: %w", err)
		}
	}
	return k, nil
}

// Release frees the buffers Kernels holds; it is safe to call more than
// once.
func (k *Kernels) Release() {
	for _, b := range []*wgpu.Buffer{k.st, k.part, k.sIn, k.mat} {
		b.Release()
	}
}

// RowSums is `for r := range n { dst[r] = Σ_c m[r*n+c] }`, each row added
// in the variant's fixed order, on buffers already on the GPU: m holds the
// n×n row-major matrix, dst n float32. M is bound in blocks of rows when it
// exceeds the storage binding limit.
func (k *Kernels) RowSums(dst, m *wgpu.Buffer, n int) error {
	v := k.opts.Variant
	if n <= 0 {
		return fmt.Errorf("eigen: row sums: n = %d: the size must be at least 1", n)
	}
	mBytes, err := checked.Mul(uint64(n), uint64(n), 4)
	if err != nil {
		return fmt.Errorf("eigen: row sums: n = %d: the matrix's bytes, %w", n, err)
	}
	if m.Size() < mBytes || dst.Size() < uint64(n)*4 {
		return fmt.Errorf("eigen: row sums: n = %d needs a %d-byte matrix and a %d-byte result; have %d and %d bytes",
			n, mBytes, uint64(n)*4, m.Size(), dst.Size())
	}
	blocks, err := rowBlocks(n, k.ctx.Limits())
	if err != nil {
		return err
	}
	kern, err := kernel(k.ctx, "rowsum_"+v.String())
	if err != nil {
		return err
	}
	rowBytes := uint64(n) * 4
	var ds []wgpu.Dispatch
	for _, b := range blocks {
		ds = append(ds, wgpu.Dispatch{Kernel: kern,
			Bindings: []wgpu.Binding{{Buffer: m, Offset: uint64(b.row0) * rowBytes, Size: uint64(b.rows) * rowBytes}, wgpu.Bind(k.sIn), wgpu.Bind(dst), wgpu.Bind(k.part), wgpu.Bind(k.st)},
			Params:   []uint32{uint32(n), uint32(b.row0), uint32(b.rows), modePlain, 0, 0, 0, 0},
			Groups:   rowGroups(k.ctx, v, b.rows)})
	}
	t, err := k.ctx.Run(ds...)
	k.opts.report(t)
	if err != nil {
		return fmt.Errorf("eigen: row sums %s: %w", v, err)
	}
	return nil
}

// Max returns max(x[0..count)) for a vector of non-negative float32 on the
// GPU (the max of their bit patterns, which orders them as floats; a NaN
// or a negative number gives a meaningless result). The vector must fit
// one storage binding.
func (k *Kernels) Max(x *wgpu.Buffer, count int) (float32, error) {
	v := k.opts.Variant
	if count <= 0 {
		return 0, fmt.Errorf("eigen: max: %d elements: the count must be at least 1", count)
	}
	bytes, err := checked.Mul(uint64(count), 4)
	if err != nil {
		return 0, fmt.Errorf("eigen: max: %d elements need %w bytes", count, err)
	}
	if x.Size() < bytes {
		return 0, fmt.Errorf("eigen: max: %d elements need %d bytes; the buffer has %d", count, bytes, x.Size())
	}
	if lim := k.ctx.Limits().MaxStorageBindingSize; bytes > lim {
		return 0, fmt.Errorf("eigen: max: %d elements (%d bytes) exceed the device's storage binding limit of %d bytes", count, bytes, lim)
	}
	groups := (count + wg*maxItems - 1) / (wg * maxItems)
	if k.part.Size() < uint64(groups)*4 {
		part, err := k.ctx.NewBuffer("eigen max partials", uint64(groups)*4)
		if err != nil {
			return 0, fmt.Errorf("eigen: max: %w", err)
		}
		k.part.Release()
		k.part = part
	}
	bind := []wgpu.Binding{wgpu.Bind(k.mat), wgpu.Bind(k.sIn), {Buffer: x, Size: uint64(count) * 4}, wgpu.Bind(k.part), wgpu.Bind(k.st)}
	params := []uint32{uint32(count), 0, uint32(groups), 0, 0, 0, 0, 0}
	names, grids := []string{"max_v2_partial", "max_v2_final"}, [][3]uint32{k.ctx.Grid(uint64(count), wg*maxItems), {1, 1, 1}}
	switch v {
	case V0:
		names, grids = []string{"max_v0"}, [][3]uint32{k.ctx.Grid(uint64(count), wg)}
	case V1:
		names, grids = []string{"max_v1"}, [][3]uint32{k.ctx.Grid(uint64(count), wg*maxItems)}
	}
	ds := make([]wgpu.Dispatch, len(names))
	for i, name := range names {
		kern, err := kernel(k.ctx, name)
		if err != nil {
			return 0, err
		}
		ds[i] = wgpu.Dispatch{Kernel: kern, Bindings: bind, Params: params, Groups: grids[i]}
	}
	// The max kernels atomicMax into the state's first record.
	if err := k.ctx.Clear(k.st, stHistBase*4, 4); err != nil {
		return 0, fmt.Errorf("eigen: max: %w", err)
	}
	t, err := k.ctx.Run(ds...)
	k.opts.report(t)
	if err != nil {
		return 0, fmt.Errorf("eigen: max %s: %w", v, err)
	}
	out := make([]uint32, 1)
	if err := k.ctx.Download(wgpu.Bytes(out), k.st, stHistBase*4); err != nil {
		return 0, fmt.Errorf("eigen: max: %w", err)
	}
	return math.Float32frombits(out[0]), nil
}
