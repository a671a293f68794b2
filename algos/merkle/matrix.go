package merkle

import (
	"fmt"
	"unsafe"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/internal/base/checked"
	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// A matrix commitment is the Merkle tree whose leaf i is the hash of row i
// of a matrix of field elements (the commitment of a STARK's trace or of
// its constraint evaluations). On the GPU the rows are hashed into the
// tree's leaf buffer and the tree is built from there: the leaves never
// make a round trip through the host before the levels are built.
//
// The element type is a parameter (field.Element): a uint64 per Goldilocks
// element, a uint32 per element of a 31-bit field (BabyBear, KoalaBear);
// the field is the row hash's (RowHash.Modulus, FieldName). Every step but
// the element's width in the kernel is written once over it.

// RowHash hashes the rows of a matrix of elements E of its field into
// leaves, in Go and in WGSL, and merges nodes as a Hash. Like Hash, it is
// satisfied by the hash packages' values without importing merkle
// (rescue.MerkleMerge is a RowHash[uint64], poseidon2.BabyBearMerkle a
// RowHash[uint32]), and any hash with a `hash_row` function plugs in the
// same way.
type RowHash[E field.Element] interface {
	Hash
	// Modulus returns the field's p: a row's elements are values below it.
	Modulus() E
	// FieldName names the field in errors ("Goldilocks", "BabyBear").
	FieldName() string
	// HashRow returns the leaf of a row of at least one element, each
	// below Modulus: the plain-Go oracle of the kernel (for Rescue, the
	// digest of HashElements(row)).
	HashRow(row []E) [32]byte
	// RowModule returns the WGSL module that defines
	//
	//	fn hash_row(row: u32, cols: u32) -> array<u32, 8>
	//
	// the digest of the cols elements (cols >= 1) of a row as 8
	// little-endian words, reading element c of the row with
	//
	//	fn mk_element(row: u32, c: u32) -> vec2<u32> // E = uint64: (low word, high word)
	//	fn mk_element(row: u32, c: u32) -> u32       // E = uint32
	//
	// which the matrix kernel defines. Like MergeModule, it brings its own
	// includes and no bindings or entry points, and its identifiers must
	// not start with mk_ or MK_.
	//
	// A row hash that also reads elements held in Montgomery form has the
	// method
	//
	//	RowModuleIn(f field.Form) (wgpu.Module, error)
	//
	// RowModule for rows whose mk_element returns elements of form f
	// (poseidon2's 31-bit row hashes): a Matrix of Form field.Montgomery
	// is committed with it, and refused by a hash without it.
	RowModule() wgpu.Module
}

// formRowHash is the optional method of a RowHash that reads elements in
// another form than canonical (see RowHash).
type formRowHash interface {
	RowModuleIn(f field.Form) (wgpu.Module, error)
}

// Matrix is a Rows × Cols matrix of field elements stored row by row:
// element (r, c) is Data[r*Cols+c], a word below the field's p held in
// Form: a canonical value (the zero value), or for BabyBear and
// KoalaBear a Montgomery form as gnark-crypto holds its elements
// (MontyMatrix makes one of them). Either form commits to the same tree:
// the leaves are the hashes of the rows' values.
type Matrix[E field.Element] struct {
	Rows, Cols int
	Data       []E
	Form       field.Form
}

// MontyMatrix returns the rows × cols matrix of gnark-crypto's elements
// data ([]koalabear.Element, []babybear.Element, or Montgomery words),
// row by row, as they are in memory: a Matrix of Form field.Montgomery
// over data's words (field.MontyWords: nothing is copied or converted).
// CommitMatrix and CommitMatrices commit to it with a 31-bit Poseidon2
// row hash (poseidon2.KoalaBearMerkle, GnarkKoalaBear, ...), the same
// tree as for the canonical values.
func MontyMatrix[E field.Monty](rows, cols int, data []E) Matrix[uint32] {
	return Matrix[uint32]{Rows: rows, Cols: cols, Data: field.MontyWords(data), Form: field.Montgomery}
}

// Row returns row r of m (it aliases m.Data).
func (m Matrix[E]) Row(r int) []E { return m.Data[r*m.Cols : (r+1)*m.Cols] }

// fieldOf is the field of a matrix's elements: values below p.
type fieldOf[E field.Element] struct {
	name string
	p    E
}

func fieldFrom[E field.Element](h RowHash[E]) fieldOf[E] {
	return fieldOf[E]{h.FieldName(), h.Modulus()}
}

// rowsOf is what a matrix commitment needs of a row hash over elements E
// held in one form.
type rowsOf[E field.Element] struct {
	hash  Hash
	field fieldOf[E]
	// hashRow hashes a row of the form, hashValues a row of canonical
	// values (the hash's HashRow).
	hashRow, hashValues func([]E) [32]byte
	// many hashes many rows of canonical values, or is nil.
	many   rowsHasher[E]
	module func() wgpu.Module
	// file is the matrix kernel's WGSL file, which binds the elements and
	// defines mk_element on them.
	file string
	// form is the elements' form; for Montgomery, monty is their field,
	// whose FromMonty gives the values the CPU path hashes.
	form  field.Form
	monty field.Monty31
}

// rowsFor returns what a commitment needs of h for canonical elements.
func rowsFor[E field.Element](h RowHash[E]) rowsOf[E] {
	file := "merkle_matrix.wgsl"
	var e E
	if unsafe.Sizeof(e) == 4 {
		file = "merkle_matrix32.wgsl"
	}
	many, _ := h.(rowsHasher[E])
	return rowsOf[E]{hash: h, field: fieldFrom(h), hashRow: h.HashRow, hashValues: h.HashRow, many: many, module: h.RowModule, file: file}
}

// rowsIn returns what a commitment needs of h for elements of form f, or
// an error naming the hash and the forms it reads where it cannot read f.
func rowsIn[E field.Element](h RowHash[E], f field.Form) (rowsOf[E], error) {
	r := rowsFor(h)
	if err := f.Check(); err != nil {
		return rowsOf[E]{}, fmt.Errorf("merkle: matrix of %w", err)
	}
	if f == field.Canonical {
		return r, nil
	}
	fh, ok := h.(formRowHash)
	monty, err := field.ParseField(h.FieldName())
	if !ok || err != nil {
		return rowsOf[E]{}, fmt.Errorf("merkle: %s hashes rows of canonical elements only, not a matrix of %s form: Montgomery matrices (BabyBear and KoalaBear, MontyMatrix) are hashed by the 31-bit Poseidon2 row hashes (poseidon2.BabyBearMerkle, KoalaBearMerkle, GnarkBabyBear, GnarkKoalaBear); give this hash canonical values (Form field.Canonical)", h.Name(), f)
	}
	mod, err := fh.RowModuleIn(f)
	if err != nil {
		return rowsOf[E]{}, fmt.Errorf("merkle: %w", err)
	}
	r.form, r.monty = f, monty
	r.module = func() wgpu.Module { return mod }
	r.hashRow = func(row []E) [32]byte {
		v := make([]E, len(row))
		r.values(v, row)
		return h.HashRow(v)
	}
	return r, nil
}

// values sets dst to the canonical values of src, elements of r's form.
func (r rowsOf[E]) values(dst, src []E) {
	if r.form == field.Canonical {
		copy(dst, src)
		return
	}
	field.FromMontyAll(r.monty, dst, src)
}

// formOf returns the one form of ms, or an error naming the first matrix
// of another form than the first's: matrices committed together are
// hashed by one kernel.
func formOf[E field.Element](ms []Matrix[E]) (field.Form, error) {
	if len(ms) == 0 {
		return field.Canonical, nil
	}
	for k, m := range ms[1:] {
		if m.Form != ms[0].Form {
			return 0, fmt.Errorf("merkle: matrix %d is of %s form and matrix 0 of %s form: matrices committed together are of one form", k+1, m.Form, ms[0].Form)
		}
	}
	return ms[0].Form, nil
}

// checkMat checks m over the field f; without elements it checks
// the shape alone, for a device's upload that checks each element on its
// way (field.CheckedReader).
func checkMat[E field.Element](m Matrix[E], f fieldOf[E], elements bool) error {
	if m.Cols < 1 {
		return fmt.Errorf("merkle: matrix of %d columns: a matrix has 1 column or more", m.Cols)
	}
	if err := checkPerfect(m.Rows); err != nil {
		return fmt.Errorf("merkle: matrix of %d rows: %w", m.Rows, err)
	}
	return checkData(m, f, "matrix", elements)
}

// checkData returns an error unless m, whose Rows and Cols are checked,
// holds Rows × Cols elements, every one an element of f (with elements;
// else their count alone); name names m in the errors ("matrix", or
// "matrix 2" of several). checkMat and checkMatrices ask for different
// heights, in errors of their own.
func checkData[E field.Element](m Matrix[E], f fieldOf[E], name string, elements bool) error {
	want, err := checked.Mul(m.Rows, m.Cols)
	if err != nil {
		return fmt.Errorf("merkle: %s of %d × %d elements: %w elements", name, m.Rows, m.Cols, err)
	}
	if len(m.Data) != want {
		return fmt.Errorf("merkle: %s of %d × %d elements has %d: want rows × columns, row by row", name, m.Rows, m.Cols, len(m.Data))
	}
	if !elements {
		return nil
	}
	if i := batch.FirstNonCanonical(m.Data, uint64(f.p)); i >= 0 {
		if m.Form == field.Montgomery {
			return fmt.Errorf("merkle: %s element %d (row %d, column %d): %s", name, i, i/m.Cols, i%m.Cols, m.Form.NotElement(uint64(m.Data[i]), f.name, uint64(f.p)))
		}
		return fmt.Errorf("merkle: %s element %d (row %d, column %d) is %d, not a %s field element: elements are values below p = %d", name, i, i/m.Cols, i%m.Cols, m.Data[i], f.name, f.p)
	}
	return nil
}

// fieldRow reports whether row is one a verifier hashes: 1 element or
// more, each below p.
func fieldRow[E field.Element](row []E, f fieldOf[E]) bool {
	if len(row) == 0 {
		return false
	}
	for _, v := range row {
		if v >= f.p {
			return false
		}
	}
	return true
}

// matrixLeavesCPU sets leaves[r] to the row hash of row r of m on all
// cores, through the hash's rowsHasher where it has one. Elements in
// Montgomery form are converted to their values a block of rows at a
// time (the reference: the values are what the rows hash).
func matrixLeavesCPU[E field.Element](leaves [][32]byte, m Matrix[E], rows rowsOf[E]) {
	if rows.form != field.Canonical {
		par.For(m.Rows, max(rowsManyGrain, 4096/m.Cols), func(lo, hi int) {
			block := max(1, min(hi-lo, (64<<10)/m.Cols)) // rows of about 256 KiB
			buf := make([]E, block*m.Cols)
			for b := lo; b < hi; b += block {
				e := min(hi, b+block)
				vals := buf[:(e-b)*m.Cols]
				rows.values(vals, m.Data[b*m.Cols:e*m.Cols])
				hashRowsCPU(leaves[b:e], vals, m.Cols, rows)
			}
		})
		return
	}
	grain := max(1, 4096/m.Cols)
	if rows.many != nil {
		grain = max(rowsManyGrain, grain)
	}
	par.For(m.Rows, grain, func(lo, hi int) {
		hashRowsCPU(leaves[lo:hi], m.Data[lo*m.Cols:hi*m.Cols], m.Cols, rows)
	})
}

// hashRowsCPU sets leaves[r] to the hash of row r of data, canonical
// values in rows of cols, on the calling goroutine.
func hashRowsCPU[E field.Element](leaves [][32]byte, data []E, cols int, rows rowsOf[E]) {
	if rows.many != nil {
		rows.many.HashRowsMany(leaves, data, cols)
		return
	}
	for r := range leaves {
		leaves[r] = rows.hashValues(data[r*cols : (r+1)*cols])
	}
}

// CommitMatrix returns the tree whose leaf r is hash.HashRow of row r of
// m, merged with hash: on ctx's GPU, rows hashed straight into the leaf
// buffer the levels are built from, or with a nil ctx on all CPU cores.
// The tree's leaves are the row digests (a Proof of leaf r opens row r:
// VerifyRow). m must be a matrix of Cols at least 1, Rows at least 1,
// len(Data) = Rows*Cols and every element below hash's Modulus, in
// m.Form: a Montgomery matrix (MontyMatrix) gives the tree of its values,
// with a hash that reads that form (RowHash's RowModuleIn); another hash
// refuses it, naming the hashes that take it.
func CommitMatrix[E field.Element](t wgpu.Target, m Matrix[E], hash RowHash[E], opts Options) (*Tree, error) {
	if hash == nil {
		return nil, errNoHash
	}
	rows, err := rowsIn(hash, m.Form)
	if err != nil {
		return nil, err
	}
	if ctx, one := sched.Device(t); one || opts.Committer != nil {
		return commitOnce(ctx, hash, opts, func(c *Committer) (*Tree, error) { return commitMatrix(c, m, rows) })
	}
	return commitOn(sched.GroupOf(t), []Matrix[E]{m}, true, rows, opts)
}

// VerifyRow reports whether p proves that row is row p.Index of the
// matrix of n rows committed to with hash under root: every element below
// hash's Modulus (canonical values, whatever the committed matrix's
// Form), hash.HashRow(row) equal to p.Leaf, and Verify(hash, root, n, p).
func VerifyRow[E field.Element](hash RowHash[E], root [32]byte, n int, row []E, p Proof) bool {
	return hash != nil && verifyRow(rowsFor(hash), root, n, row, p)
}

func verifyRow[E field.Element](rows rowsOf[E], root [32]byte, n int, row []E, p Proof) bool {
	if !fieldRow(row, rows.field) {
		return false
	}
	return rows.hashRow(row) == p.Leaf && Verify(rows.hash, root, n, p)
}
