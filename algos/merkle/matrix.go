package merkle

import (
	"fmt"

	"github.com/wgcompute/wgcompute/internal/checked"
	"github.com/wgcompute/wgcompute/internal/par"
	"github.com/wgcompute/wgcompute/u64emu"
	"github.com/wgcompute/wgcompute/wgpu"
)

// A matrix commitment is the Merkle tree whose leaf i is the hash of row i
// of a matrix of Goldilocks field elements (the commitment of a STARK's
// trace or of its constraint evaluations). On the GPU the rows are hashed
// into the tree's leaf buffer and the tree is built from there: the leaves
// never make a round trip through the host before the levels are built.

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
func (m Matrix) Check() error {
	if m.Cols < 1 {
		return fmt.Errorf("merkle: matrix of %d columns: a matrix has 1 column or more", m.Cols)
	}
	if err := checkPerfect(m.Rows); err != nil {
		return fmt.Errorf("merkle: matrix of %d rows: %w", m.Rows, err)
	}
	return m.checkData("matrix")
}

// checkData returns an error unless m, whose Rows and Cols are checked,
// holds Rows × Cols elements, every one a Goldilocks field element; name
// names m in the errors ("matrix", or "matrix 2" of several). Check and
// checkMatrices ask for different heights, in errors of their own.
func (m Matrix) checkData(name string) error {
	want, err := checked.Mul(m.Rows, m.Cols)
	if err != nil {
		return fmt.Errorf("merkle: %s of %d × %d elements: %w elements", name, m.Rows, m.Cols, err)
	}
	if len(m.Data) != want {
		return fmt.Errorf("merkle: %s of %d × %d elements has %d: want rows × columns, row by row", name, m.Rows, m.Cols, len(m.Data))
	}
	if i := par.First(len(m.Data), 1<<16, func(i int) bool { return m.Data[i] >= u64emu.P }); i >= 0 {
		return fmt.Errorf("merkle: %s element %d (row %d, column %d) is %d, not a Goldilocks field element: elements are values below p = %d", name, i, i/m.Cols, i%m.Cols, m.Data[i], u64emu.P)
	}
	return nil
}

// fieldRow reports whether row is one a verifier hashes: 1 element or
// more, each below p.
func fieldRow(row []uint64) bool {
	if len(row) == 0 {
		return false
	}
	for _, v := range row {
		if v >= u64emu.P {
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
	if err := m.Check(); err != nil {
		return nil, err
	}
	leaves := make([][32]byte, m.Rows)
	matrixLeavesCPU(leaves, m, hash)
	return leaves, nil
}

func matrixLeavesCPU(leaves [][32]byte, m Matrix, hash RowHash) {
	par.For(m.Rows, max(1, 4096/m.Cols), func(lo, hi int) {
		for r := lo; r < hi; r++ {
			leaves[r] = hash.HashRow(m.Row(r))
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

// VerifyRow reports whether p proves that row is row p.Index of the
// matrix of n rows committed to with hash under root: every element below
// p, hash.HashRow(row) equal to p.Leaf, and Verify(hash, root, n, p).
func VerifyRow(hash RowHash, root [32]byte, n int, row []uint64, p Proof) bool {
	if hash == nil || !fieldRow(row) {
		return false
	}
	return hash.HashRow(row) == p.Leaf && Verify(hash, root, n, p)
}
