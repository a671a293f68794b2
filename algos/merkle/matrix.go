package merkle

import (
	"fmt"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/internal/checked"
	"github.com/wgcompute/wgcompute/internal/par"
	"github.com/wgcompute/wgcompute/u64emu"
	"github.com/wgcompute/wgcompute/wgpu"
)

// A matrix commitment is the Merkle tree whose leaf i is the hash of row i
// of a matrix of field elements (the commitment of a STARK's trace or of
// its constraint evaluations). On the GPU the rows are hashed into the
// tree's leaf buffer and the tree is built from there: the leaves never
// make a round trip through the host before the levels are built.
//
// Elements are Goldilocks elements (Matrix, RowHash: a uint64 each) or
// elements of a 31-bit field (Matrix32, RowHash32: a uint32 each,
// BabyBear or KoalaBear); the two share every step but the element's
// width, written once over it.

// RowHash hashes the rows of a matrix of Goldilocks elements into leaves,
// in Go and in WGSL, and merges nodes as a Hash. Like Hash, it is
// satisfied by the hash packages' values without importing merkle
// (rescue.MerkleMerge), and any Goldilocks hash with a `hash_elements`
// function plugs in the same way.
type RowHash interface {
	Hash
	// HashRow returns the leaf of a row of at least one element, each
	// below p: the plain-Go oracle of the kernel (for Rescue, the digest
	// of HashElements(row)).
	HashRow(row []uint64) [32]byte
	// RowModule returns the WGSL module that defines
	//
	//	fn hash_row(row: u32, cols: u32) -> array<u32, 8>
	//
	// the digest of the cols elements (cols >= 1) of a row as 8
	// little-endian words, reading element c of the row with
	//
	//	fn mk_element(row: u32, c: u32) -> vec2<u32>
	//
	// (low word, high word), which the matrix kernel defines. Like
	// MergeModule, it brings its own includes and no bindings or entry
	// points, and its identifiers must not start with mk_ or MK_.
	RowModule() wgpu.Module
}

// RowHash32 is RowHash for matrices of a 31-bit field's elements
// (Matrix32): poseidon2.BabyBearMerkle, for one.
type RowHash32 interface {
	Hash
	// Modulus returns the field's p: a row's elements are values below it.
	Modulus() uint32
	// FieldName names the field in errors ("BabyBear").
	FieldName() string
	// HashRow32 returns the leaf of a row of at least one element, each
	// below Modulus: the plain-Go oracle of the kernel.
	HashRow32(row []uint32) [32]byte
	// RowModule returns the WGSL module that defines hash_row as
	// RowHash's does, reading element c of a row with
	//
	//	fn mk_element(row: u32, c: u32) -> u32
	//
	// which the matrix kernel defines.
	RowModule() wgpu.Module
}

// Matrix is a Rows × Cols matrix of Goldilocks field elements stored row
// by row: element (r, c) is Data[r*Cols+c], a value below p = 2^64 - 2^32 + 1.
type Matrix struct {
	Rows, Cols int
	Data       []uint64
}

// Row returns row r of m (it aliases m.Data).
func (m Matrix) Row(r int) []uint64 { return m.Data[r*m.Cols : (r+1)*m.Cols] }

// Check returns an error unless m is a matrix a tree commits to: Cols at
// least 1, Rows a tree size (CheckSize), len(Data) = Rows*Cols, and every
// element a Goldilocks field element (the error names the first that is
// not, by index, row and column).
func (m Matrix) Check() error { return checkMat(mat[uint64](m), goldilocks, true) }

// Matrix32 is a Rows × Cols matrix of a 31-bit field's elements stored row
// by row: element (r, c) is Data[r*Cols+c], a canonical value (below the
// field's p, not in Montgomery form).
type Matrix32 struct {
	Rows, Cols int
	Data       []uint32
}

// Row returns row r of m (it aliases m.Data).
func (m Matrix32) Row(r int) []uint32 { return m.Data[r*m.Cols : (r+1)*m.Cols] }

// Check returns an error unless m is a matrix a tree of hash commits to,
// as Matrix.Check says, its elements below hash's Modulus.
func (m Matrix32) Check(hash RowHash32) error {
	if hash == nil {
		return errNoHash
	}
	return checkMat(mat[uint32](m), rows32(hash).field, true)
}

// element is the type of a matrix's elements.
type element interface{ uint32 | uint64 }

// mat is a Matrix or a Matrix32.
type mat[E element] struct {
	Rows, Cols int
	Data       []E
}

func (m mat[E]) row(r int) []E { return m.Data[r*m.Cols : (r+1)*m.Cols] }

// fieldOf is the field of a matrix's elements: values below p.
type fieldOf[E element] struct {
	name string
	p    E
}

var goldilocks = fieldOf[uint64]{"Goldilocks", u64emu.P}

// rowsOf is what a matrix commitment needs of a row hash over elements E:
// RowHash or RowHash32, seen alike.
type rowsOf[E element] struct {
	hash    Hash
	field   fieldOf[E]
	hashRow func([]E) [32]byte
	module  func() wgpu.Module
	// file is the matrix kernel's WGSL file, which binds the elements and
	// defines mk_element on them.
	file string
}

func rows64(h RowHash) rowsOf[uint64] {
	return rowsOf[uint64]{hash: h, field: goldilocks, hashRow: h.HashRow, module: h.RowModule, file: "merkle_matrix.wgsl"}
}

func rows32(h RowHash32) rowsOf[uint32] {
	return rowsOf[uint32]{hash: h, field: fieldOf[uint32]{h.FieldName(), h.Modulus()}, hashRow: h.HashRow32, module: h.RowModule, file: "merkle_matrix32.wgsl"}
}

// checkMat is Matrix.Check over the field f; without elements it checks
// the shape alone, for a device's upload that checks each element on its
// way (checkedBytes).
func checkMat[E element](m mat[E], f fieldOf[E], elements bool) error {
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
func checkData[E element](m mat[E], f fieldOf[E], name string, elements bool) error {
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
func fieldRow[E element](row []E, f fieldOf[E]) bool {
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

// MatrixLeaves is the plain-Go reference of a matrix commitment's
// leaves: leaf r is hash.HashRow(m.Row(r)), on all cores. m must pass
// Check.
func MatrixLeaves(m Matrix, hash RowHash) ([][32]byte, error) {
	if hash == nil {
		return nil, errNoHash
	}
	return matrixLeaves(mat[uint64](m), rows64(hash))
}

// MatrixLeaves32 is MatrixLeaves for a matrix of a 31-bit field: leaf r
// is hash.HashRow32(m.Row(r)).
func MatrixLeaves32(m Matrix32, hash RowHash32) ([][32]byte, error) {
	if hash == nil {
		return nil, errNoHash
	}
	return matrixLeaves(mat[uint32](m), rows32(hash))
}

func matrixLeaves[E element](m mat[E], rows rowsOf[E]) ([][32]byte, error) {
	if err := checkMat(m, rows.field, true); err != nil {
		return nil, err
	}
	leaves := make([][32]byte, m.Rows)
	matrixLeavesCPU(leaves, m, rows)
	return leaves, nil
}

func matrixLeavesCPU[E element](leaves [][32]byte, m mat[E], rows rowsOf[E]) {
	par.For(m.Rows, max(1, 4096/m.Cols), func(lo, hi int) {
		for r := lo; r < hi; r++ {
			leaves[r] = rows.hashRow(m.row(r))
		}
	})
}

// CommitMatrix returns the tree whose leaf r is hash.HashRow of row r of
// m, merged with hash: on ctx's GPU, rows hashed straight into the leaf
// buffer the levels are built from, or with a nil ctx on all CPU cores.
// The tree's leaves are the row digests (a Proof of leaf r opens row r:
// VerifyRow). m must pass Matrix.Check.
func CommitMatrix(ctx *wgpu.Context, m Matrix, hash RowHash, opts Options) (*Tree, error) {
	return commitOnce(ctx, hash, opts, func(c *Committer) (*Tree, error) { return c.CommitMatrix(m, hash) })
}

// CommitMatrix32 is CommitMatrix for a matrix of a 31-bit field, its
// leaves hash.HashRow32 of its rows. m must pass Matrix32.Check.
func CommitMatrix32(ctx *wgpu.Context, m Matrix32, hash RowHash32, opts Options) (*Tree, error) {
	return commitOnce(ctx, hash, opts, func(c *Committer) (*Tree, error) { return c.CommitMatrix32(m, hash) })
}

// VerifyRow reports whether p proves that row is row p.Index of the
// matrix of n rows committed to with hash under root: every element below
// p, hash.HashRow(row) equal to p.Leaf, and Verify(hash, root, n, p).
func VerifyRow(hash RowHash, root [32]byte, n int, row []uint64, p Proof) bool {
	return hash != nil && verifyRow(rows64(hash), root, n, row, p)
}

// VerifyRow32 is VerifyRow for a row of a 31-bit field's matrix.
func VerifyRow32(hash RowHash32, root [32]byte, n int, row []uint32, p Proof) bool {
	return hash != nil && verifyRow(rows32(hash), root, n, row, p)
}

func verifyRow[E element](rows rowsOf[E], root [32]byte, n int, row []E, p Proof) bool {
	if !fieldRow(row, rows.field) {
		return false
	}
	return rows.hashRow(row) == p.Leaf && Verify(rows.hash, root, n, p)
}
