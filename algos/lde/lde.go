// Package lde commits to the low-degree extension of a matrix's columns
// in one call, as Plonky3's TwoAdicFriPcs commits a trace: the matrix
// (a polynomial per column, its rows the evaluations on the subgroup, in
// natural order) is extended on a coset of a subgroup Rate times as
// large (Plonky3's coset_lde_batch), its rows taken in bit-reversed
// order (bit_reverse_rows), and the rows of that extended matrix are the
// leaves of a Merkle tree (Plonky3's MerkleTreeMmcs over one matrix).
//
// On a GPU the matrix goes up once and stays on the device: a transpose
// kernel lays each column out as a row (lde_transpose.wgsl), ntt's
// Extender extends those rows, and merkle commits the extended matrix
// straight from the Extender's output, read by columns
// (merkle.DeviceMatrix with ColumnMajor), so only the tree comes back.
// With a nil wgpu.Target the same composition runs on the CPU:
// gnark-crypto's fft (ntt.Extend) and merkle.CommitMatrix. A commitment
// runs on one device: a Group of one is its member, and a Group of
// several is refused (see wgpu.Target).
//
// The package sits above ntt and merkle, which do not import each other.
package lde

import (
	"errors"
	"fmt"
	"math/bits"
	"unsafe"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/ntt"
	"github.com/wgcompute/wgcompute/internal/base/checked"
	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Options say how Commit extends and commits.
type Options struct {
	// Extend is the extension of each column (its Timing is not used):
	// Rate, the blowup, a power of two from 2 to 16; Coset, Shift and
	// Root; Out, the order of the extended matrix's rows. Plonky3 sets
	// the Rate as Plonky3 does.
	Extend ntt.ExtendOptions
	// Merkle are the tree's options (its Timing is not used).
	Merkle merkle.Options
	// Timing, where not nil, receives the call's kernels' timing: the
	// transpose, the extension and the commitment.
	Timing *wgpu.Timing
}

// Plonky3 returns the extension Plonky3's TwoAdicFriPcs commits at
// blowup rate over BabyBear or KoalaBear: on the coset F::GENERATOR·<W>
// (Shift 0: gnark-crypto's GeneratorFullMultiplicativeGroup, 31 for
// BabyBear and 3 for KoalaBear, which are Plonky3's GENERATOR), rows in
// bit-reversed order. Root 0 takes gnark-crypto's fft.Generator, which for
// BabyBear is Plonky3's two_adic_generator (0x1a427a41^(2^(27-bits)));
// over another field whose Plonky3 roots differ from gnark-crypto's, set
// Root to Plonky3's two_adic_generator(log2(rows·rate)).
func Plonky3(rate int) ntt.ExtendOptions {
	return ntt.ExtendOptions{Rate: rate, Coset: true, Out: ntt.BitReversed}
}

// Commit returns the tree whose leaf t is hash.HashRow of row t of the
// extension of m: m's columns, each a polynomial of degree below m.Rows
// given by its evaluations on the subgroup <W^Rate> (W = o.Extend.Root,
// of order m.Rows·Rate) in natural order, evaluated on o.Extend's domain
// (Shift·<W> with Coset) in o.Extend.Out's order, so that the committed
// matrix has m.Rows·Rate rows and m.Cols columns. It is
// merkle.CommitMatrix of that matrix, computed on t's GPU from one
// upload of m (nil: on all CPU cores). m.Rows is a power of two from 2
// up to what the field's two-adicity leaves for the rate; every element
// must be below the hash's p (an element that is not is named, by row and
// column). A matrix of Form field.Montgomery (gnark-crypto's BabyBear or
// KoalaBear elements as they are, merkle.MontyMatrix) gives the tree of
// its values; on the GPU it is extended and hashed in that form, with no
// conversion.
func Commit[E field.Element](t wgpu.Target, m merkle.Matrix[E], hash merkle.RowHash[E], o Options) (*merkle.Tree, error) {
	c, err := NewCommitter(t, hash, o)
	if err != nil {
		return nil, err
	}
	defer c.Release()
	return c.Commit(m)
}

// Root returns the root of the tree Commit returns, reading back from
// the device nothing but the few nodes it is made from (Commit reads
// back every leaf and node, for proofs).
func Root[E field.Element](t wgpu.Target, m merkle.Matrix[E], hash merkle.RowHash[E], o Options) ([32]byte, error) {
	c, err := NewCommitter(t, hash, o)
	if err != nil {
		return [32]byte{}, err
	}
	defer c.Release()
	return c.Root(m)
}

// Committer is the resident object of Commit and Root for one row hash
// and one Options on one Context: the matrix commitment's
// merkle.Committer, the Extender of the last height committed, the
// transpose kernel and the device buffers of the matrix, its columns and
// its extension, kept from one call to the next until Release. It is not
// safe for concurrent use. A Committer on a nil Context commits on the
// CPU.
type Committer[E field.Element] struct {
	ctx  *wgpu.Context
	hash merkle.RowHash[E]
	f    field.Field[E]
	o    Options
	mc   *merkle.Committer
	mt   wgpu.Timing // the commitment's timing, from mc
	ext  *ntt.Extender
	logN int // ext's rows: 2^logN elements
	tr   *wgpu.Kernel
	// in holds the matrix as uploaded, cols its transpose, out the
	// extension of cols's rows.
	in, cols, out *wgpu.Buffer
}

// NewCommitter returns a Committer of extensions as o says, committed
// with hash, on t's one device (nil: the CPU).
func NewCommitter[E field.Element](t wgpu.Target, hash merkle.RowHash[E], o Options) (*Committer[E], error) {
	ctx, err := sched.OneDevice(t)
	if err != nil {
		return nil, fmt.Errorf("lde: a Committer %w", err)
	}
	if hash == nil {
		return nil, fmt.Errorf("lde: no row hash given")
	}
	f, err := field.Lookup[E](hash.FieldName())
	if err != nil {
		return nil, fmt.Errorf("lde: rows hashed by %s: %w", hash.(merkle.Hash).Name(), err)
	}
	if r := o.Extend.Rate; r < 2 || r > ntt.MaxRate || r&(r-1) != 0 {
		return nil, fmt.Errorf("lde: rate %d: the blowup is a power of two from 2 to %d", r, ntt.MaxRate)
	}
	c := &Committer[E]{ctx: ctx, hash: hash, f: f, o: o}
	if ctx == nil {
		return c, nil
	}
	mo := o.Merkle
	mo.Timing = &c.mt
	if c.mc, err = merkle.NewCommitter(ctx, merkle.Schedule{{Hash: hash}}, mo); err != nil {
		return nil, fmt.Errorf("lde: %w", err)
	}
	var e E
	c.tr, err = ctx.Kernel(wgpu.KernelSpec{
		Label:  "lde_transpose.wgsl:tr_main",
		Module: wgsl.Module{Library: shaders, Files: []string{"lde_transpose.wgsl"}, Consts: []wgsl.Const{{Name: "TR_WORDS", Value: uint32(unsafe.Sizeof(e) / 4)}}},
		Entry:  "tr_main", Storage: 2, Uniform: true, ReadOnly: []bool{true, false},
	})
	if err != nil {
		c.Release()
		return nil, fmt.Errorf("lde: %w", err)
	}
	return c, nil
}

// Release frees the Committer's buffers and tables. The Committer may be
// used again.
func (c *Committer[E]) Release() {
	if c.mc != nil {
		c.mc.Release()
	}
	c.ext.Release()
	c.ext = nil
	for _, b := range []**wgpu.Buffer{&c.in, &c.cols, &c.out} {
		if *b != nil {
			(*b).Release()
			*b = nil
		}
	}
}

// Commit is the package's Commit with c's kernels and buffers.
func (c *Committer[E]) Commit(m merkle.Matrix[E]) (*merkle.Tree, error) {
	logN, err := check(c.f, m, c.o)
	if err != nil {
		return nil, err
	}
	if c.ctx == nil {
		return commitCPU(c.f, m, c.hash, logN, c.o)
	}
	t, _, err := c.commitGPU(m, logN, false)
	return t, err
}

// Root is the package's Root with c's kernels and buffers.
func (c *Committer[E]) Root(m merkle.Matrix[E]) ([32]byte, error) {
	logN, err := check(c.f, m, c.o)
	if err != nil {
		return [32]byte{}, err
	}
	if c.ctx == nil {
		t, err := commitCPU(c.f, m, c.hash, logN, c.o)
		if err != nil {
			return [32]byte{}, err
		}
		return t.Root(), nil
	}
	_, root, err := c.commitGPU(m, logN, true)
	return root, err
}

// check returns log2 m.Rows, and an error unless m is a matrix of f that
// Commit extends at o's rate: its shape; its elements are checked as
// they are read.
func check[E field.Element](f field.Field[E], m merkle.Matrix[E], o Options) (int, error) {
	if m.Cols < 1 {
		return 0, fmt.Errorf("lde: matrix of %d columns: a matrix has 1 column or more", m.Cols)
	}
	logN, err := ntt.LogOf(f, m.Rows)
	if err != nil {
		return 0, fmt.Errorf("lde: matrix of %d rows: %w", m.Rows, err)
	}
	if o.Extend.Rate < 2 || o.Extend.Rate > ntt.MaxRate || o.Extend.Rate&(o.Extend.Rate-1) != 0 {
		return 0, fmt.Errorf("lde: rate %d: the blowup is a power of two from 2 to %d", o.Extend.Rate, ntt.MaxRate)
	}
	if big := logN + bits.TrailingZeros(uint(o.Extend.Rate)); big > f.TwoAdicity() {
		return 0, fmt.Errorf("lde: matrix of %d rows at rate %d: the extension's 2^%d rows exceed %s's two-adicity, 2^%d", m.Rows, o.Extend.Rate, big, f.Name(), f.TwoAdicity())
	}
	if _, err := checked.Mul(m.Rows, m.Cols, o.Extend.Rate); err != nil {
		return 0, fmt.Errorf("lde: matrix of %d × %d elements at rate %d: %w elements", m.Rows, m.Cols, o.Extend.Rate, err)
	}
	if want := m.Rows * m.Cols; len(m.Data) != want {
		return 0, fmt.Errorf("lde: matrix of %d × %d elements has %d: want rows × columns, row by row", m.Rows, m.Cols, len(m.Data))
	}
	if err := m.Form.Check(); err != nil {
		return 0, fmt.Errorf("lde: matrix of %w", err)
	}
	if _, ok := any(f).(field.Monty31); m.Form == field.Montgomery && !ok {
		return 0, fmt.Errorf("lde: a matrix of Montgomery form is over BabyBear or KoalaBear (gnark-crypto's elements, merkle.MontyMatrix), not %s: give %s elements canonical", f.Name(), f.Name())
	}
	return logN, nil
}

// elementError returns the error that names m's first element that is
// not below hash's p, by row and column, or nil.
func elementError[E field.Element](m merkle.Matrix[E], hash merkle.RowHash[E]) error {
	p := uint64(hash.Modulus())
	if i := batch.FirstNonCanonical(m.Data, p); i >= 0 {
		if m.Form == field.Montgomery {
			return fmt.Errorf("lde: matrix element %d (row %d, column %d): %s", i, i/m.Cols, i%m.Cols, m.Form.NotElement(uint64(m.Data[i]), hash.FieldName(), p))
		}
		return fmt.Errorf("lde: matrix element %d (row %d, column %d) is %d, not a %s field element: elements are values below p = %d", i, i/m.Cols, i%m.Cols, uint64(m.Data[i]), hash.FieldName(), p)
	}
	return nil
}

// commitCPU is Commit on the CPU: the columns extended as rows of the
// transpose by ntt.Extend (gnark-crypto's fft on all cores), transposed
// back and committed by merkle.CommitMatrix. A Montgomery matrix's
// columns are its values (the reference: the same tree).
func commitCPU[E field.Element](f field.Field[E], m merkle.Matrix[E], hash merkle.RowHash[E], logN int, o Options) (*merkle.Tree, error) {
	if err := elementError(m, hash); err != nil {
		return nil, err
	}
	rate := o.Extend.Rate
	cols := columnValues(f, m)
	ext := make([]E, len(cols)*rate)
	eo := o.Extend
	eo.Timing = nil
	if err := ntt.Extend(nil, f, ext, cols, logN, eo); err != nil {
		return nil, fmt.Errorf("lde: %w", err)
	}
	lde := merkle.Matrix[E]{Rows: m.Rows * rate, Cols: m.Cols, Data: par.Transpose(ext, m.Cols, m.Rows*rate)}
	mo := o.Merkle
	mo.Timing = o.Timing
	return merkle.CommitMatrix(nil, lde, hash, mo)
}

// columnValues returns m's columns one after another, as values: m
// transposed, and a Montgomery matrix's transpose then made values in
// place on every core. BenchmarkColumnValues times it; a conversion
// inside the transpose, a call an element, was slower in an earlier run
// whose benchmark was not kept (BENCHMARKS.md, "The CPU path").
func columnValues[E field.Element](f field.Field[E], m merkle.Matrix[E]) []E {
	cols := par.Transpose(m.Data, m.Rows, m.Cols)
	if mf, ok := any(f).(field.Monty31); ok && m.Form == field.Montgomery {
		par.For(len(cols), 1<<16, func(lo, hi int) { field.FromMontyAll(mf, cols[lo:hi], cols[lo:hi]) })
	}
	return cols
}

// trWG is the transpose kernel's workgroup: 32 × 8 invocations.
const trWG = 256

// grow makes *buf hold size bytes (wgpu.Context.Grow).
func (c *Committer[E]) grow(buf **wgpu.Buffer, label string, size uint64) error {
	if err := c.ctx.Grow(buf, label, size); err != nil {
		return fmt.Errorf("lde: %w", err)
	}
	return nil
}

// commitGPU is Commit on c's device: m uploaded once (its elements
// checked on their way up), transposed, extended and committed on the
// device; with rootOnly (Root) the root alone read back, and no tree
// returned.
func (c *Committer[E]) commitGPU(m merkle.Matrix[E], logN int, rootOnly bool) (t *merkle.Tree, root [32]byte, err error) {
	ctx := c.ctx
	var e E
	eb := int(unsafe.Sizeof(e))
	rate := c.o.Extend.Rate
	size := uint64(len(m.Data) * eb)
	if lim := ctx.Limits(); size > lim.MaxStorageBindingSize || size/4 > 1<<32-1 {
		return nil, root, fmt.Errorf("lde: a matrix of %d bytes exceeds the device's storage binding size of %d bytes: the transpose reads it as one binding", size, lim.MaxStorageBindingSize)
	}
	if c.ext == nil || c.logN != logN {
		c.ext.Release()
		c.ext = nil
		eo := c.o.Extend
		eo.Timing = nil
		if c.ext, err = ntt.NewExtender(ctx, c.f, logN, eo); err != nil {
			return nil, root, fmt.Errorf("lde: %w", err)
		}
		c.logN = logN
	}
	if err := c.grow(&c.in, "lde input", size); err != nil {
		return nil, root, err
	}
	if err := c.grow(&c.cols, "lde columns", size); err != nil {
		return nil, root, err
	}
	if err := c.grow(&c.out, "lde extension", size*uint64(rate)); err != nil {
		return nil, root, err
	}
	// The elements are checked on their way up.
	up := field.NewCheckedReader(m.Data, uint64(c.hash.Modulus()))
	if err := ctx.UploadFrom(c.in, 0, up, int64(size)); err != nil {
		if errors.Is(err, field.ErrNotCanonical) {
			if err := elementError(m, c.hash); err != nil {
				return nil, root, err
			}
		}
		return nil, root, fmt.Errorf("lde: upload: %w", err)
	}
	cols := wgpu.Binding{Buffer: c.cols, Size: size}
	out := wgpu.Binding{Buffer: c.out, Size: size * uint64(rate)}
	tiles := uint64((m.Rows+31)/32) * uint64((m.Cols+31)/32)
	ds := []wgpu.Dispatch{{Kernel: c.tr, Bindings: []wgpu.Binding{{Buffer: c.in, Size: size}, cols},
		Params: []uint32{uint32(m.Rows), uint32(m.Cols)}, Groups: ctx.Grid(tiles*trWG, trWG)}}
	// The extension is linear, so it is right in either form; in the
	// matrix's own it skips the conversions at load and store, and the
	// rows are hashed in that form.
	more, err := c.ext.Dispatches(cols, out, m.Cols, m.Form)
	if err != nil {
		return nil, root, fmt.Errorf("lde: %w", err)
	}
	tm, err := ctx.Run(append(ds, more...)...)
	if err != nil {
		return nil, root, fmt.Errorf("lde: extend %d × %d at rate %d: %w", m.Rows, m.Cols, rate, err)
	}
	dm := merkle.DeviceMatrix{Data: out, Rows: m.Rows * rate, Cols: m.Cols, ColumnMajor: true, Form: m.Form}
	if rootOnly {
		root, err = merkle.DeviceMatrixRoot(nil, dm, c.hash, merkle.Options{Committer: c.mc})
	} else if t, err = merkle.CommitDeviceMatrix(nil, dm, c.hash, merkle.Options{Committer: c.mc}); err == nil {
		root = t.Root()
	}
	if err != nil {
		return nil, root, fmt.Errorf("lde: %w", err)
	}
	if c.o.Timing != nil {
		*c.o.Timing = tm.Add(c.mt)
	}
	return t, root, nil
}
