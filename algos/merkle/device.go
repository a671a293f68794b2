package merkle

import (
	"fmt"
	"unsafe"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/internal/base/checked"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// DeviceMatrix is a Rows × Cols matrix of field elements that is already
// on the device, in the buffer range Data (Data.Size 0: to the buffer's
// end), where a kernel wrote it (an NTT's codewords, ntt.Extender): row by
// row, element (r, c) at index r·Cols + c of the range, or with
// ColumnMajor column by column, element (r, c) at c·Rows + r (a
// polynomial per column, as a transform of rows leaves them). Elements
// are words below the field's p in Form (canonical values, the zero
// value, or Montgomery forms as Matrix takes them), of the row hash's
// element type (4 bytes for a 31-bit field, 8 for Goldilocks); the
// device's elements are not checked, so one that is not below p gives a
// tree no host matrix has (ntt.Extender writes either form, as its
// Dispatches are told).
type DeviceMatrix struct {
	Data        wgpu.Binding
	Rows, Cols  int
	ColumnMajor bool
	Form        field.Form
}

// CommitDeviceMatrix returns the tree whose leaf r is hash.HashRow of row
// r of m, merged with hash, as CommitMatrix returns it for the same
// matrix in host memory: the rows are hashed on the device straight from
// m's buffer into the leaf buffer, with nothing uploaded. t must be the
// Context whose device holds m (or a Group of it alone; the CPU is
// refused); with opts.Committer, that Committer's Context, and hash its
// schedule's first hash (by Name).
func CommitDeviceMatrix[E field.Element](t wgpu.Target, m DeviceMatrix, hash RowHash[E], opts Options) (*Tree, error) {
	ctx, err := deviceOf(t, opts)
	if err != nil {
		return nil, err
	}
	return commitOnce(ctx, hash, opts, func(c *Committer) (*Tree, error) { return commitDevice(c, m, hash) })
}

// deviceOf returns the Context a device matrix is committed on: opts'
// Committer's, else t's, which must be one GPU.
func deviceOf(t wgpu.Target, opts Options) (*wgpu.Context, error) {
	ctx, one := sched.Device(t)
	if c := opts.Committer; c != nil {
		ctx, one = c.ctx, true
	}
	if !one {
		return nil, fmt.Errorf("merkle: a device matrix is committed on the one device that holds it: give its Context, not a Group of %d", sched.GroupOf(t).Len())
	}
	if ctx == nil {
		return nil, fmt.Errorf("merkle: a device matrix needs the GPU Context that holds it, not the CPU backend")
	}
	return ctx, nil
}

// commitDevice is CommitDeviceMatrix with c.
func commitDevice[E field.Element](c *Committer, m DeviceMatrix, rows RowHash[E]) (*Tree, error) {
	if rows == nil {
		return nil, errNoHash
	}
	r, err := rowsIn(rows, m.Form)
	if err != nil {
		return nil, err
	}
	if err := checkDevice[E](m, c.ctx.Limits()); err != nil {
		return nil, err
	}
	hs, err := c.leafLevels(r.hash, m.Rows)
	if err != nil {
		return nil, err
	}
	return c.commit(hs, m.Rows, nil, func() (rowFill, error) { return deviceFill[E](c, m, r) })
}

// DeviceMatrixRoot returns the root of the tree CommitDeviceMatrix
// builds, reading back nothing but the nodes it is made from: no leaf and
// no level the device merges below the root (or below the levels the
// host merges). It takes t and opts as CommitDeviceMatrix does.
func DeviceMatrixRoot[E field.Element](t wgpu.Target, m DeviceMatrix, hash RowHash[E], opts Options) ([32]byte, error) {
	ctx, err := deviceOf(t, opts)
	if err != nil {
		return [32]byte{}, err
	}
	var root [32]byte
	_, err = commitOnce(ctx, hash, opts, func(c *Committer) (*Tree, error) {
		c.rootOnly = true
		defer func() { c.rootOnly = false }()
		t, err := commitDevice(c, m, hash)
		if err != nil {
			return nil, err
		}
		root = t.Root() // t is c's scratch: only its root is returned
		return nil, nil
	})
	return root, err
}

// checkDevice returns an error unless m is a matrix shape a tree commits
// to whose elements its binding holds, within u32 element indices, and,
// column by column, within one storage binding.
func checkDevice[E field.Element](m DeviceMatrix, lim wgpu.Limits) error {
	if m.Cols < 1 {
		return fmt.Errorf("merkle: matrix of %d columns: a matrix has 1 column or more", m.Cols)
	}
	if err := checkPerfect(m.Rows); err != nil {
		return fmt.Errorf("merkle: matrix of %d rows: %w", m.Rows, err)
	}
	var e E
	eb := int(unsafe.Sizeof(e))
	n, err := checked.Mul(m.Rows, m.Cols)
	if err != nil {
		return fmt.Errorf("merkle: device matrix of %d × %d elements: %w elements", m.Rows, m.Cols, err)
	}
	size, err := checked.Mul(n, eb)
	if err != nil {
		return fmt.Errorf("merkle: device matrix of %d × %d elements: %w bytes", m.Rows, m.Cols, err)
	}
	b := m.Data
	if b.Buffer == nil {
		return fmt.Errorf("merkle: device matrix without a buffer")
	}
	avail := b.Buffer.Size() - min(b.Offset, b.Buffer.Size())
	if b.Size != 0 {
		avail = min(avail, b.Size)
	}
	if uint64(size) > avail || b.Offset%uint64(eb) != 0 {
		return fmt.Errorf("merkle: device matrix of %d × %d elements (%d bytes) does not fit its binding of %d bytes at offset %d (aligned to its %d-byte elements)", m.Rows, m.Cols, size, avail, b.Offset, eb)
	}
	if m.ColumnMajor {
		// The whole matrix is one binding, indexed by u32 elements.
		whole := uint64(size) + b.Offset%storageAlign
		if whole > lim.MaxStorageBindingSize || whole/uint64(eb) > 1<<32-1 {
			return fmt.Errorf("merkle: a device matrix of %d × %d elements stored by columns (%d bytes) is read as one binding, and exceeds the device's storage binding size of %d bytes (or 2^32 elements)", m.Rows, m.Cols, size, lim.MaxStorageBindingSize)
		}
	} else if rowBytes := eb * m.Cols; uint64(rowBytes)+storageAlign > min(lim.MaxStorageBindingSize, 1<<32-1) {
		return fmt.Errorf("merkle: a row of %d elements (%d bytes) does not fit the device's storage binding limit of %d bytes", m.Cols, rowBytes, lim.MaxStorageBindingSize)
	}
	return nil
}

// storageAlign is the alignment of storage binding offsets that every
// device accepts (WebGPU's largest minStorageBufferOffsetAlignment).
const storageAlign = 256

// deviceFill is the rowFill that hashes rows of m, on the device, with
// the matrix kernels of rows: each piece of rows bound from the aligned
// offset at or below its first element, which the kernel skips (base);
// stored by columns, the whole matrix in one binding, the columns
// m.Rows elements apart (stride).
func deviceFill[E field.Element](c *Committer, m DeviceMatrix, rows rowsOf[E]) (rowFill, error) {
	var e E
	eb := uint64(unsafe.Sizeof(e))
	file := rows.file
	if m.ColumnMajor {
		file = "merkle_matrix_cols.wgsl"
		if eb == 4 {
			file = "merkle_matrix32_cols.wgsl"
		}
	}
	k, err := c.kernel(file, "mk_rows", rows.hash, rows.module(), "RowModule", 2)
	if err != nil {
		return nil, err
	}
	lim := c.ctx.Limits()
	const align = storageAlign
	rowBytes := eb * uint64(m.Cols)
	per := m.Rows
	if !m.ColumnMajor {
		per = int(min((min(lim.MaxStorageBindingSize, 1<<32-1)-align)/rowBytes, 1<<31))
	}
	return func(total *wgpu.Timing, dst *wgpu.Buffer, dstFirst, lo, count int) error {
		var ds []wgpu.Dispatch
		for first, n := range pieces(count, per) {
			row := uint64(lo + first)
			start := m.Data.Offset + row*rowBytes // the piece's first element
			end := start + uint64(n)*rowBytes
			stride := uint32(0)
			if m.ColumnMajor {
				start = m.Data.Offset + row*eb
				end = m.Data.Offset + (uint64(m.Cols-1)*uint64(m.Rows)+row+uint64(n))*eb
				stride = uint32(m.Rows)
			}
			at := start &^ (align - 1)
			bind := []wgpu.Binding{
				{Buffer: m.Data.Buffer, Offset: at, Size: (end - at + 3) &^ 3},
				{Buffer: dst, Size: uint64((dstFirst + count) * DigestSize)},
			}
			params := []uint32{uint32(n), uint32(m.Cols), uint32(dstFirst + first), uint32((start - at) / eb), stride}
			ds = append(ds, wgpu.Dispatch{Kernel: k, Bindings: bind, Params: params, Groups: c.ctx.Grid(uint64(n), nodeWG)})
		}
		t, err := c.ctx.Run(ds...)
		*total = total.Add(t)
		if err != nil {
			return fmt.Errorf("merkle: hash device rows %d..%d: %w", lo, lo+count, err)
		}
		return nil
	}, nil
}
