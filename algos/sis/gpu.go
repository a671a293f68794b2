package sis

import (
	"fmt"
	"time"

	"github.com/consensys/gnark-crypto/field/koalabear"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/internal/base/checked"
	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Options tune one call; the zero value reports no timing.
type Options struct {
	// Timing, when not nil, receives the call's timing (on the CPU path,
	// a nil Target, the host time as Wall).
	Timing *wgpu.Timing
}

// HashColumns is
//
//	for c := range cols { RSis.Hash(column c of m, dst[c*Degree : (c+1)*Degree]) }
//
// for the rows × cols matrix m in row-major order (element (r, c) at
// m[r*cols+c]), as vortex.transversalHashSIS hashes its codewords' columns
// and lays out their hashes: on t's GPU (a Context or a Group of one: a
// Group of several is refused, see wgpu.Target), or with gnark-crypto's
// RSis.Hash on all cores when t is nil. rows must be at most MaxElements, and
// every element a reduced Montgomery form (every koalabear.Element is).
//
// A matrix that fits one binding of the device is uploaded as it is and
// the kernel reads its columns in place; a larger one (and the CPU's) is
// transposed into columns on the host first, and hashed a piece of columns
// at a time.
func (k *Key) HashColumns(t wgpu.Target, dst, m []koalabear.Element, rows, cols int, opts Options) error {
	ctx, err := sched.OneDevice(t)
	if err != nil {
		return fmt.Errorf("sis: HashColumns %w", err)
	}
	if err := k.checkShape(dst, m, rows, cols); err != nil {
		return err
	}
	in := field.MontyWords(m)
	if err := check(in, func(i int) string { return fmt.Sprintf("element (%d, %d)", i/cols, i%cols) }); err != nil {
		return err
	}
	if ctx != nil && fits(ctx, 4*len(in), 4*cols*k.d) {
		return k.gpuRowMajor(ctx, field.MontyWords(dst), in, rows, cols, opts)
	}
	tr := par.Transpose(m, rows, cols)
	if ctx == nil {
		return k.cpu(dst, rows, cols, opts, func(c int, col []koalabear.Element) { copy(col, tr[c*rows:]) })
	}
	return k.gpu(ctx, field.MontyWords(dst), field.MontyWords(tr), rows, cols, opts)
}

// HashColumnMajor is HashColumns of a matrix in column-major order: column
// c is m[c*rows : (c+1)*rows]. The GPU reads it as it is.
func (k *Key) HashColumnMajor(t wgpu.Target, dst, m []koalabear.Element, rows int, opts Options) error {
	ctx, err := sched.OneDevice(t)
	if err != nil {
		return fmt.Errorf("sis: HashColumnMajor %w", err)
	}
	if rows < 1 {
		return fmt.Errorf("sis: %d rows: a column has at least one element", rows)
	}
	if len(m)%rows != 0 {
		return fmt.Errorf("sis: %d elements are not columns of %d rows", len(m), rows)
	}
	cols := len(m) / rows
	if err := k.checkShape(dst, m, rows, cols); err != nil {
		return err
	}
	in := field.MontyWords(m)
	if err := check(in, func(i int) string { return fmt.Sprintf("element (%d, %d)", i%rows, i/rows) }); err != nil {
		return err
	}
	if ctx == nil {
		return k.cpu(dst, rows, cols, opts, func(c int, col []koalabear.Element) { copy(col, m[c*rows:]) })
	}
	return k.gpu(ctx, field.MontyWords(dst), in, rows, cols, opts)
}

// checkShape returns an error unless m is rows × cols elements the key
// hashes and dst has room for their hashes.
func (k *Key) checkShape(dst, m []koalabear.Element, rows, cols int) error {
	if rows < 1 || cols < 0 {
		return fmt.Errorf("sis: a %d × %d matrix: give at least one row and no negative column count", rows, cols)
	}
	if rows > k.maxElements {
		return fmt.Errorf("sis: columns of %d rows: the key (sis.NewRSis's maxNbElementsToHash) takes at most %d", rows, k.maxElements)
	}
	n, err := checked.Mul(rows, cols)
	if err != nil {
		return fmt.Errorf("sis: a %d × %d matrix: %w", rows, cols, err)
	}
	if len(m) != n {
		return fmt.Errorf("sis: a %d × %d matrix is %d elements, given %d", rows, cols, n, len(m))
	}
	out, err := checked.Mul(cols, k.d)
	if err != nil {
		return fmt.Errorf("sis: hashes of %d columns: %w", cols, err)
	}
	if len(dst) != out {
		return fmt.Errorf("sis: the hashes of %d columns are %d elements (%d each), given room for %d", cols, out, k.d, len(dst))
	}
	return nil
}

// cpu hashes every column with gnark-crypto's RSis.Hash on all cores,
// column c gathered by fill.
func (k *Key) cpu(dst []koalabear.Element, rows, cols int, opts Options, fill func(c int, col []koalabear.Element)) error {
	start := time.Now()
	err := par.ForErr(cols, 16, func(lo, hi int) error {
		col := make([]koalabear.Element, rows)
		for c := lo; c < hi; c++ {
			fill(c, col)
			if err := k.rs.Hash(col, dst[c*k.d:(c+1)*k.d]); err != nil {
				return fmt.Errorf("sis: column %d: %w", c, err)
			}
		}
		return nil
	})
	if opts.Timing != nil {
		*opts.Timing = wgpu.Timing{Wall: time.Since(start)}
	}
	return err
}

// wg is sis_hash's workgroup size for degree d.
func wg(d int) int { return min(d/2, 256) }

// wg8 is sis_hash8's workgroup size: d/8 invocations a column, as many
// columns as make 256 invocations (and its two buffers WebGPU's default
// 16 KiB of workgroup memory). Fewer columns load fewer adjacent words of
// each row of a row-major matrix and run slower; more ran no faster where
// the device allows them (BENCHMARKS.md).
const wg8 = 256

// passes8 returns log8 d where d is a power of 8 at least 8 (sis_hash8
// hashes those degrees), else 0 (sis_hash does).
func passes8(d int) int {
	switch d {
	case 8:
		return 1
	case 64:
		return 2
	case 512:
		return 3
	}
	return 0
}

// columns returns how many columns a workgroup of the key's kernel hashes.
func (k *Key) columns() int {
	if passes8(k.d) > 0 {
		return wg8 / (k.d / 8)
	}
	return 1
}

// entry returns the key's kernel's entry point in sis.wgsl.
func (k *Key) entry() string {
	if passes8(k.d) > 0 {
		return "sis_hash8"
	}
	return "sis_hash"
}

// module is sis.wgsl for the key's degree and limbs.
func (k *Key) module() wgsl.Module {
	return wgsl.Module{Library: shaders, Files: []string{"sis.wgsl"}, Consts: append(field.KoalaBear.Consts(),
		wgsl.Const{Name: "SIS_D", Value: uint32(k.d)},
		wgsl.Const{Name: "SIS_WG", Value: uint32(wg(k.d))},
		wgsl.Const{Name: "SIS8_WG", Value: uint32(wg8)},
		wgsl.Const{Name: "SIS8_PASSES", Value: uint32(passes8(k.d))},
		wgsl.Const{Name: "SIS_LIMB_BITS", Value: uint32(k.limbBits)})}
}

// keyWords returns the evaluations of the key's first polys polynomials
// as the key's kernel reads them: sis_hash in order, sis_hash8 with point
// 8t+m of each polynomial at m*d/8 + t, so that a column's neighbouring
// invocations read neighbouring words.
func (k *Key) keyWords(polys int) []uint32 {
	e := k.eval[:polys*k.d]
	if passes8(k.d) == 0 {
		return e
	}
	t := k.d / 8
	w := make([]uint32, len(e))
	for i := 0; i < len(e); i += k.d {
		for j := range t {
			for m := range 8 {
				w[i+m*t+j] = e[i+8*j+m]
			}
		}
	}
	return w
}

// gpu hashes the cols columns of in (column-major, rows each, Montgomery
// forms) into out on ctx, a piece of columns at a time.
func (k *Key) gpu(ctx *wgpu.Context, out, in []uint32, rows, cols int, opts Options) error {
	if cols == 0 {
		if opts.Timing != nil {
			*opts.Timing = wgpu.Timing{}
		}
		return nil
	}
	kern, key, tw, err := k.resident(ctx, rows)
	if err != nil {
		return err
	}
	defer key.Release()
	defer tw.Release()
	polys := k.polys(rows)
	t, err := sched.Run(ctx, sched.Job{
		Label:  "sis hash columns",
		Count:  cols,
		Inputs: []sched.Input{{Data: wgpu.Bytes(in), ItemBytes: 4 * rows}},
		Output: sched.Output{Data: wgpu.Bytes(out), ItemBytes: 4 * k.d},
		Extra:  []wgpu.Binding{wgpu.Bind(key), wgpu.Bind(tw)},
		// The kernel indexes a piece's words with u32s.
		MaxItems: (1<<32 - 1) / max(rows, k.d),
		Dispatches: func(n int, bind []wgpu.Binding) []wgpu.Dispatch {
			return []wgpu.Dispatch{k.dispatch(ctx, kern, bind, n, rows, polys)}
		},
	})
	if opts.Timing != nil {
		*opts.Timing = t
	}
	if err != nil {
		return fmt.Errorf("sis: %w", err)
	}
	return nil
}

// fits reports whether buffers of in and out bytes fit one binding each
// on ctx.
func fits(ctx *wgpu.Context, in, out int) bool {
	most := ctx.Limits().Binding()
	return uint64(in) <= most && uint64(out) <= most
}

// gpuRowMajor hashes the columns of the row-major rows × cols matrix in,
// uploaded as it is, into out.
func (k *Key) gpuRowMajor(ctx *wgpu.Context, out, in []uint32, rows, cols int, opts Options) error {
	r, err := k.NewResident(ctx, rows)
	if err != nil {
		return err
	}
	defer r.Release()
	inBuf, err := ctx.NewBuffer("sis matrix", uint64(4*len(in)))
	if err != nil {
		return fmt.Errorf("sis: %w", err)
	}
	defer inBuf.Release()
	outBuf, err := ctx.NewBuffer("sis hashes", uint64(4*len(out)))
	if err != nil {
		return fmt.Errorf("sis: %w", err)
	}
	defer outBuf.Release()
	if err := ctx.Upload(inBuf, 0, wgpu.Bytes(in)); err != nil {
		return fmt.Errorf("sis: upload the matrix: %w", err)
	}
	d, err := r.Dispatch(wgpu.Bind(inBuf), wgpu.Bind(outBuf), cols, cols, 1)
	if err != nil {
		return err
	}
	t, err := ctx.Run(d)
	if opts.Timing != nil {
		*opts.Timing = t
	}
	if err != nil {
		return fmt.Errorf("sis: %w", err)
	}
	if err := ctx.Download(wgpu.Bytes(out), outBuf, 0); err != nil {
		return fmt.Errorf("sis: read the hashes back: %w", err)
	}
	return nil
}

// Resident is a Key's kernel, and the part of its key that columns of a
// given length multiply, on one device: for hashing columns that are on
// the device already (Vortex's encoded rows) with Dispatch. Release frees
// its buffers.
type Resident struct {
	k           *Key
	ctx         *wgpu.Context
	kern        *wgpu.Kernel
	key, tw     *wgpu.Buffer
	rows, polys int
}

// NewResident returns k's kernel and key on t's GPU (a Context or a Group
// of one) for columns of rows elements (1 to MaxElements).
func (k *Key) NewResident(t wgpu.Target, rows int) (*Resident, error) {
	ctx, err := sched.OneDevice(t)
	if err != nil {
		return nil, fmt.Errorf("sis: a Resident %w", err)
	}
	if rows < 1 || rows > k.maxElements {
		return nil, fmt.Errorf("sis: columns of %d rows: the key takes 1 to %d", rows, k.maxElements)
	}
	if ctx == nil {
		return nil, fmt.Errorf("sis: a Resident holds its key on a GPU: give a Context, not nil (the CPU hashes with HashColumns)")
	}
	kern, key, tw, err := k.resident(ctx, rows)
	if err != nil {
		return nil, err
	}
	return &Resident{k: k, ctx: ctx, kern: kern, key: key, tw: tw, rows: rows, polys: k.polys(rows)}, nil
}

// Release frees the key's buffers.
func (r *Resident) Release() {
	r.key.Release()
	r.tw.Release()
}

// Dispatch returns the work of hashing n columns: element (row, c) at word
// c*colStride + row*rowStride of in (Montgomery forms), the hash of column
// c at words c*Degree .. (c+1)*Degree of out (Montgomery forms); in, out,
// then the key's buffers are its bindings. Run it with wgpu.Context.Run.
// Every word must be indexable with a u32.
func (r *Resident) Dispatch(in, out wgpu.Binding, n, rowStride, colStride int) (wgpu.Dispatch, error) {
	if n < 1 || rowStride < 0 || colStride < 0 {
		return wgpu.Dispatch{}, fmt.Errorf("sis: dispatch of %d columns, strides %d and %d: give a column at least, and no negative stride", n, rowStride, colStride)
	}
	last := uint64(n-1)*uint64(colStride) + uint64(r.rows-1)*uint64(rowStride)
	if last >= 1<<32 || uint64(n)*uint64(r.k.d) > 1<<32 {
		return wgpu.Dispatch{}, fmt.Errorf("sis: dispatch of %d columns of %d rows, strides %d and %d: the kernel indexes words with u32s; split it", n, r.rows, rowStride, colStride)
	}
	return wgpu.Dispatch{Kernel: r.kern, Bindings: []wgpu.Binding{in, out, wgpu.Bind(r.key), wgpu.Bind(r.tw)},
		Params: []uint32{uint32(n), uint32(r.rows), uint32(r.polys), uint32(rowStride), uint32(colStride)},
		Groups: r.ctx.Grid(uint64(n), uint32(r.k.columns()))}, nil
}

// resident returns the kernel on ctx and the key's evaluations (the
// polynomials a column of rows elements multiplies) and twiddles in
// buffers of their own, which the caller releases.
func (k *Key) resident(ctx *wgpu.Context, rows int) (kern *wgpu.Kernel, key, tw *wgpu.Buffer, err error) {
	kern, err = ctx.Kernel(wgpu.KernelSpec{
		Label: fmt.Sprintf("sis.wgsl:%s (degree %d, %d-bit limbs)", k.entry(), k.d, k.limbBits), Module: k.module(),
		Entry: k.entry(), Storage: 4, Uniform: true, ReadOnly: []bool{true, false, true, true},
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("sis: %w", err)
	}
	polys := k.polys(rows)
	if key, err = ctx.NewBuffer("sis key", uint64(4*polys*k.d)); err != nil {
		return nil, nil, nil, fmt.Errorf("sis: %w", err)
	}
	if tw, err = ctx.NewBuffer("sis twiddles", uint64(4*len(k.tw))); err != nil {
		key.Release()
		return nil, nil, nil, fmt.Errorf("sis: %w", err)
	}
	if err = ctx.Upload(key, 0, wgpu.Bytes(k.keyWords(polys))); err == nil {
		err = ctx.Upload(tw, 0, wgpu.Bytes(k.tw))
	}
	if err != nil {
		key.Release()
		tw.Release()
		return nil, nil, nil, fmt.Errorf("sis: upload the key: %w", err)
	}
	return kern, key, tw, nil
}

// dispatch is the kernel over n column-major columns of rows elements:
// bind is the columns, the hashes, the key and the twiddles.
func (k *Key) dispatch(ctx *wgpu.Context, kern *wgpu.Kernel, bind []wgpu.Binding, n, rows, polys int) wgpu.Dispatch {
	return wgpu.Dispatch{Kernel: kern, Bindings: bind,
		Params: []uint32{uint32(n), uint32(rows), uint32(polys), 1, uint32(rows)},
		Groups: ctx.Grid(uint64(n), uint32(k.columns()))}
}
