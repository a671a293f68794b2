package field

import (
	"errors"
	"io"
	"unsafe"
)

// ErrNotCanonical is the error a CheckedReader's read returns where the
// block it read holds an element not below p. It names no element: the
// caller, which knows the elements' shape (a matrix's rows and columns),
// checks them all again to name the first.
var ErrNotCanonical = errors.New("field: an element is not canonical: elements are values below the field's modulus p")

// CheckedBlock is the most bytes a CheckedReader checks before copying
// them out: a block stays in a core's L2 cache from the check to the
// copy, and is large enough for the copy's non-temporal stores (Go's
// memmove takes them from 1 MiB), which do not read the memory they
// write. Blocks of 16 KiB, copied with ordinary stores, made a matrix
// commitment's upload slower, as slow as checking first
// (bench/results/HISTORY.md, "Figures moved from code comments").
const CheckedBlock = 1 << 20

// CheckedReader is an io.Reader and io.ReaderAt over the bytes of a slice
// of elements (their memory, which on the little-endian hosts the project
// runs on is their canonical encoding, as PutElements writes it) that
// checks every element is below p as it reads: each block (CheckedBlock
// bytes at most, widened to whole elements) is checked right before it is
// copied out, and a block with an element not below p stops the read
// with ErrNotCanonical. A device upload that reads it (wgpu's UploadFrom,
// into staging memory on several goroutines) checks the elements in
// cache on their way up: one pass over host memory, where checking first
// and uploading after took two, the second a measurable share of a large
// commitment's upload (bench/results/HISTORY.md, "Figures moved from code
// comments"). ReadAt may be called from several goroutines at once; Read
// may not.
type CheckedReader[E Element] struct {
	els []E
	b   []byte // els' memory
	p   uint64
	pos int64 // Read's position
}

// NewCheckedReader returns a CheckedReader over els' bytes that checks
// every element is below p.
func NewCheckedReader[E Element](els []E, p uint64) *CheckedReader[E] {
	size := ElementSize[E]()
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(els))), len(els)*size)
	return &CheckedReader[E]{els: els, b: b, p: p}
}

// ReadAt copies the bytes from off into dst, checking every element of
// which it copies a byte, and returns io.EOF where fewer than len(dst)
// bytes are left. At a block with an element not below p it stops, and
// returns the bytes of the blocks before it and ErrNotCanonical.
func (r *CheckedReader[E]) ReadAt(dst []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("field: CheckedReader.ReadAt: negative offset")
	}
	if off >= int64(len(r.b)) {
		return 0, io.EOF
	}
	size := ElementSize[E]()
	n := min(len(dst), len(r.b)-int(off))
	for lo := 0; lo < n; lo += CheckedBlock {
		hi := min(n, lo+CheckedBlock)
		// Whole elements: a block that starts or ends inside one checks
		// it all, as its neighbour does.
		a := (int(off) + lo) / size
		b := (int(off) + hi + size - 1) / size
		if !canonical(r.els[a:b], r.p) {
			return lo, ErrNotCanonical
		}
		copy(dst[lo:hi], r.b[int(off)+lo:int(off)+hi])
	}
	if n < len(dst) {
		return n, io.EOF
	}
	return n, nil
}

// Read reads from where the last Read stopped, as ReadAt does.
func (r *CheckedReader[E]) Read(dst []byte) (int, error) {
	n, err := r.ReadAt(dst, r.pos)
	r.pos += int64(n)
	return n, err
}

// canonical reports whether every element of els is below p.
func canonical[E Element](els []E, p uint64) bool {
	for _, v := range els {
		if uint64(v) >= p {
			return false
		}
	}
	return true
}
