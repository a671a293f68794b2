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
// With a nil Context the same composition runs on the CPU: gnark-crypto's
// fft (ntt.Extend) and merkle.CommitMatrix.
//
// The package sits above ntt and merkle, which do not import each other.
package lde

import (
	"errors"
	"fmt"
	"io"
	"math/bits"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/ntt"
	"github.com/wgcompute/wgcompute/internal/base/checked"
	"github.com/wgcompute/wgcompute/wgpu"
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
// merkle.CommitMatrix of that matrix, computed on ctx's GPU from one
// upload of m (nil: on all CPU cores). m.Rows is a power of two from 2
// up to what the field's two-adicity leaves for the rate; every element
// must be below the hash's p (an element that is not is named, by row and
// column).
func Commit[E merkle.Element](ctx *wgpu.Context, m merkle.Matrix[E], hash merkle.RowHash[E], o Options) (*merkle.Tree, error) {
	f, logN, err := check(m, hash, o)
	if err != nil {
		return nil, err
	}
	if ctx == nil {
		return commitCPU(f, m, hash, logN, o)
	}
	t, _, err := commitGPU(ctx, f, m, hash, logN, o, false)
	return t, err
}

// Root returns the root of the tree Commit returns, reading back from
// the device nothing but the few nodes it is made from (Commit reads
// back every leaf and node, for proofs).
func Root[E merkle.Element](ctx *wgpu.Context, m merkle.Matrix[E], hash merkle.RowHash[E], o Options) ([32]byte, error) {
	f, logN, err := check(m, hash, o)
	if err != nil {
		return [32]byte{}, err
	}
	if ctx == nil {
		t, err := commitCPU(f, m, hash, logN, o)
		if err != nil {
			return [32]byte{}, err
		}
		return t.Root(), nil
	}
	_, root, err := commitGPU(ctx, f, m, hash, logN, o, true)
	return root, err
}

// check returns the field of hash (as ntt knows it) and log2 m.Rows, and
// an error unless m is a matrix Commit extends at o's rate: its shape;
// its elements are checked as they are read.
func check[E merkle.Element](m merkle.Matrix[E], hash merkle.RowHash[E], o Options) (ntt.Field, int, error) {
	if hash == nil {
		return nil, 0, fmt.Errorf("lde: no row hash given")
	}
	f, err := ntt.ParseField(strings.ToLower(hash.FieldName()))
	if err != nil {
		return nil, 0, fmt.Errorf("lde: rows hashed by %s: %w", hash.(merkle.Hash).Name(), err)
	}
	if m.Cols < 1 {
		return nil, 0, fmt.Errorf("lde: matrix of %d columns: a matrix has 1 column or more", m.Cols)
	}
	logN, err := ntt.LogOf(f, m.Rows)
	if err != nil {
		return nil, 0, fmt.Errorf("lde: matrix of %d rows: %w", m.Rows, err)
	}
	if o.Extend.Rate < 2 || o.Extend.Rate > ntt.MaxRate || o.Extend.Rate&(o.Extend.Rate-1) != 0 {
		return nil, 0, fmt.Errorf("lde: rate %d: the blowup is a power of two from 2 to %d", o.Extend.Rate, ntt.MaxRate)
	}
	if big := logN + bits.TrailingZeros(uint(o.Extend.Rate)); big > ntt.TwoAdicity(f) {
		return nil, 0, fmt.Errorf("lde: matrix of %d rows at rate %d: the extension's 2^%d rows exceed %s's two-adicity, 2^%d", m.Rows, o.Extend.Rate, big, f.Name(), ntt.TwoAdicity(f))
	}
	if _, err := checked.Mul(m.Rows, m.Cols, o.Extend.Rate); err != nil {
		return nil, 0, fmt.Errorf("lde: matrix of %d × %d elements at rate %d: %w elements", m.Rows, m.Cols, o.Extend.Rate, err)
	}
	if want := m.Rows * m.Cols; len(m.Data) != want {
		return nil, 0, fmt.Errorf("lde: matrix of %d × %d elements has %d: want rows × columns, row by row", m.Rows, m.Cols, len(m.Data))
	}
	return f, logN, nil
}

// elementError returns the error that names m's first element that is
// not below hash's p, by row and column, or nil.
func elementError[E merkle.Element](m merkle.Matrix[E], hash merkle.RowHash[E]) error {
	p := uint64(hash.Modulus())
	if i := batch.FirstNonCanonical(m.Data, p); i >= 0 {
		return fmt.Errorf("lde: matrix element %d (row %d, column %d) is %d, not a %s field element: elements are values below p = %d", i, i/m.Cols, i%m.Cols, uint64(m.Data[i]), hash.FieldName(), p)
	}
	return nil
}

// transpose returns the cols × rows transpose of src (rows × cols, row
// by row), on all cores in blocks.
func transpose[E any](src []E, rows, cols int) []E {
	dst := make([]E, len(src))
	const b = 64
	for r0 := 0; r0 < rows; r0 += b {
		for c0 := 0; c0 < cols; c0 += b {
			for r := r0; r < min(rows, r0+b); r++ {
				for c := c0; c < min(cols, c0+b); c++ {
					dst[c*rows+r] = src[r*cols+c]
				}
			}
		}
	}
	return dst
}

// commitCPU is Commit on the CPU: the columns extended as rows of the
// transpose by ntt.Extend (gnark-crypto's fft on all cores), transposed
// back and committed by merkle.CommitMatrix.
func commitCPU[E merkle.Element](f ntt.Field, m merkle.Matrix[E], hash merkle.RowHash[E], logN int, o Options) (*merkle.Tree, error) {
	if err := elementError(m, hash); err != nil {
		return nil, err
	}
	rate := o.Extend.Rate
	cols := transpose(m.Data, m.Rows, m.Cols)
	ext := make([]E, len(cols)*rate)
	eo := o.Extend
	eo.Timing = nil
	if err := ntt.Extend(nil, f, ext, cols, logN, eo); err != nil {
		return nil, fmt.Errorf("lde: %w", err)
	}
	lde := merkle.Matrix[E]{Rows: m.Rows * rate, Cols: m.Cols, Data: transpose(ext, m.Cols, m.Rows*rate)}
	mo := o.Merkle
	mo.Timing = o.Timing
	return merkle.CommitMatrix(nil, lde, hash, mo)
}

// trWG is the transpose kernel's workgroup: 32 × 8 invocations.
const trWG = 256

// commitGPU is Commit on ctx: m uploaded once (its elements checked on
// their way up), transposed, extended and committed on the device; with
// rootOnly Root, the root alone read back (and no tree returned).
func commitGPU[E merkle.Element](ctx *wgpu.Context, f ntt.Field, m merkle.Matrix[E], hash merkle.RowHash[E], logN int, o Options, rootOnly bool) (t *merkle.Tree, root [32]byte, err error) {
	var e E
	eb := int(unsafe.Sizeof(e))
	rate := o.Extend.Rate
	size := uint64(len(m.Data) * eb)
	lim := ctx.Limits()
	if size > lim.MaxStorageBindingSize || size/4 > 1<<32-1 {
		return nil, root, fmt.Errorf("lde: a matrix of %d bytes exceeds the device's storage binding size of %d bytes: the transpose reads it as one binding", size, lim.MaxStorageBindingSize)
	}
	eo := o.Extend
	eo.Timing = nil
	ext, err := ntt.NewExtender(ctx, f, logN, eo)
	if err != nil {
		return nil, root, fmt.Errorf("lde: %w", err)
	}
	defer ext.Release()
	k, err := ctx.Kernel(wgpu.KernelSpec{
		Label:  "lde_transpose.wgsl:tr_main",
		Module: wgsl.Module{Files: []string{"lde_transpose.wgsl"}, Consts: []wgsl.Const{{Name: "TR_WORDS", Value: uint32(eb / 4)}}},
		Entry:  "tr_main", Storage: 2, Uniform: true, ReadOnly: []bool{true, false},
	})
	if err != nil {
		return nil, root, fmt.Errorf("lde: %w", err)
	}
	in, err := ctx.NewBuffer("lde input", size)
	if err != nil {
		return nil, root, fmt.Errorf("lde: %w", err)
	}
	defer in.Release()
	cols, err := ctx.NewBuffer("lde columns", size)
	if err != nil {
		return nil, root, fmt.Errorf("lde: %w", err)
	}
	defer cols.Release()
	out, err := ctx.NewBuffer("lde extension", size*uint64(rate))
	if err != nil {
		return nil, root, fmt.Errorf("lde: %w", err)
	}
	defer out.Release()

	data := wgpu.Bytes(m.Data)
	p := uint64(hash.Modulus())
	up := &checkedBytes{b: data, size: eb, check: func(b []byte) bool { return canonical[E](b, p) }}
	if err := ctx.UploadFrom(in, 0, up, int64(len(data))); err != nil {
		if up.bad.Load() {
			if err := elementError(m, hash); err != nil {
				return nil, root, err
			}
		}
		return nil, root, fmt.Errorf("lde: upload: %w", err)
	}
	across := (m.Cols + 31) / 32
	tiles := uint64((m.Rows+31)/32) * uint64(across)
	ds := []wgpu.Dispatch{{Kernel: k, Bindings: []wgpu.Binding{{Buffer: in, Size: size}, {Buffer: cols, Size: size}},
		Params: []uint32{uint32(m.Rows), uint32(m.Cols)}, Groups: ctx.Grid(tiles*trWG, trWG)}}
	more, err := ext.Dispatches(wgpu.Bind(cols), wgpu.Bind(out), m.Cols, ntt.Canonical)
	if err != nil {
		return nil, root, fmt.Errorf("lde: %w", err)
	}
	tm, err := ctx.Run(append(ds, more...)...)
	if err != nil {
		return nil, root, fmt.Errorf("lde: extend %d × %d at rate %d: %w", m.Rows, m.Cols, rate, err)
	}
	var ct wgpu.Timing
	mo := o.Merkle
	mo.Timing = &ct
	dm := merkle.DeviceMatrix{Data: wgpu.Bind(out), Rows: m.Rows * rate, Cols: m.Cols, ColumnMajor: true}
	if rootOnly {
		root, err = merkle.DeviceMatrixRoot(ctx, dm, hash, mo)
	} else if t, err = merkle.CommitDeviceMatrix(ctx, dm, hash, mo); err == nil {
		root = t.Root()
	}
	if err != nil {
		return nil, root, fmt.Errorf("lde: %w", err)
	}
	if o.Timing != nil {
		*o.Timing = tm.Add(ct)
	}
	return t, root, nil
}

// checkedBytes is an io.ReaderAt over b, elements of size bytes, that
// has check read each block of it (checkBlock bytes at most, widened to
// whole elements) right before copying it out: the elements are checked
// in cache on their way up (UploadFrom reads blocks into staging memory
// on several goroutines), one pass over host memory, as merkle's upload
// of a matrix checks it.
type checkedBytes struct {
	b     []byte
	size  int
	check func([]byte) bool
	bad   atomic.Bool // a block failed its check
	pos   int64       // Read's position
}

// checkBlock is the most checkedBytes checks before copying: a block
// stays in a core's cache from the check to the copy.
const checkBlock = 1 << 20

// errBad stops an upload at an element out of the field; Commit then
// names the element.
var errBad = errors.New("lde: an element is not a field element")

func (r *checkedBytes) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(r.b)) {
		return 0, io.EOF
	}
	n := min(len(p), len(r.b)-int(off))
	for lo := 0; lo < n; lo += checkBlock {
		hi := min(n, lo+checkBlock)
		// Whole elements: a block that starts or ends inside one checks
		// it all, as its neighbour does.
		a := (int(off) + lo) / r.size * r.size
		b := min(len(r.b), (int(off)+hi+r.size-1)/r.size*r.size)
		if !r.check(r.b[a:b]) {
			r.bad.Store(true)
			return lo, errBad
		}
		copy(p[lo:hi], r.b[int(off)+lo:int(off)+hi])
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (r *checkedBytes) Read(p []byte) (int, error) {
	n, err := r.ReadAt(p, r.pos)
	r.pos += int64(n)
	return n, err
}

// canonical reports whether every element in b (whole elements of E,
// little-endian, b aligned to them) is below p.
func canonical[E merkle.Element](b []byte, p uint64) bool {
	var e E
	for _, v := range unsafe.Slice((*E)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/int(unsafe.Sizeof(e))) {
		if uint64(v) >= p {
			return false
		}
	}
	return true
}
