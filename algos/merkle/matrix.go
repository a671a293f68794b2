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
	RowModule() wgpu.Module
}

// Matrix is a Rows × Cols matrix of field elements stored row by row:
// element (r, c) is Data[r*Cols+c], a canonical value below the field's p.
type Matrix[E field.Element] struct {
	Rows, Cols int
	Data       []E
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

// rowsOf is what a matrix commitment needs of a row hash over elements E.
type rowsOf[E field.Element] struct {
	hash    Hash
	field   fieldOf[E]
	hashRow func([]E) [32]byte
	module  func() wgpu.Module
	// file is the matrix kernel's WGSL file, which binds the elements and
	// defines mk_element on them.
	file string
}

func rowsFor[E field.Element](h RowHash[E]) rowsOf[E] {
	file := "merkle_matrix.wgsl"
	var e E
	if unsafe.Sizeof(e) == 4 {
		file = "merkle_matrix32.wgsl"
	}
	return rowsOf[E]{hash: h, field: fieldFrom(h), hashRow: h.HashRow, module: h.RowModule, file: file}
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
// cores, through the hash's rowsHasher where it has one.
func matrixLeavesCPU[E field.Element](leaves [][32]byte, m Matrix[E], rows rowsOf[E]) {
	if many, ok := rows.hash.(rowsHasher[E]); ok {
		par.For(m.Rows, max(rowsManyGrain, 4096/m.Cols), func(lo, hi int) {
			many.HashRowsMany(leaves[lo:hi], m.Data[lo*m.Cols:hi*m.Cols], m.Cols)
		})
		return
	}
	par.For(m.Rows, max(1, 4096/m.Cols), func(lo, hi int) {
		for r := lo; r < hi; r++ {
			leaves[r] = rows.hashRow(m.Row(r))
		}
	})
}

// CommitMatrix returns the tree whose leaf r is hash.HashRow of row r of
// m, merged with hash: on ctx's GPU, rows hashed straight into the leaf
// buffer the levels are built from, or with a nil ctx on all CPU cores.
// The tree's leaves are the row digests (a Proof of leaf r opens row r:
// VerifyRow). m must be a matrix of Cols at least 1, Rows at least 1,
// len(Data) = Rows*Cols and every element below hash's Modulus.
func CommitMatrix[E field.Element](t wgpu.Target, m Matrix[E], hash RowHash[E], opts Options) (*Tree, error) {
	if hash == nil {
		return nil, errNoHash
	}
	if ctx, one := sched.Device(t); one || opts.Committer != nil {
		return commitOnce(ctx, hash, opts, func(c *Committer) (*Tree, error) { return commitMatrix(c, m, rowsFor(hash)) })
	}
	return commitOn(sched.GroupOf(t), []Matrix[E]{m}, true, rowsFor(hash), opts)
}

// VerifyRow reports whether p proves that row is row p.Index of the
// matrix of n rows committed to with hash under root: every element below
// hash's Modulus, hash.HashRow(row) equal to p.Leaf, and Verify(hash,
// root, n, p).
func VerifyRow[E field.Element](hash RowHash[E], root [32]byte, n int, row []E, p Proof) bool {
	return hash != nil && verifyRow(rowsFor(hash), root, n, row, p)
}

func verifyRow[E field.Element](rows rowsOf[E], root [32]byte, n int, row []E, p Proof) bool {
	if !fieldRow(row, rows.field) {
		return false
	}
	return rows.hashRow(row) == p.Leaf && Verify(rows.hash, root, n, p)
}
