package wgpu

import (
	"fmt"
	"math/bits"
	"unsafe"

	gpu "github.com/oliverbestmann/webgpu/wgpu"
)

// Buffer is a device-local storage buffer that kernels read and write and
// that transfers copy to and from. Release it when done.
type Buffer struct {
	ctx   *Context
	buf   *gpu.Buffer
	size  uint64 // what the caller asked for, rounded to 4: bindings and range checks use it
	cap   uint64 // the device buffer's size, a pool class (see poolClass)
	label string
}

// Released buffers go back to their Context's pool, and NewBuffer takes a
// pooled buffer of the same class before it creates one: creating device
// memory costs far more than using it (creating Rescue's buffers cost about a
// third of its batch's transfers: bench/results/HISTORY.md, "Figures
// moved from code comments"), and one-shot calls (blake3.Sum, rescue.MergeMany,
// eigen.MaxEigen) would pay it on every call. A pooled buffer is cleared on
// the GPU before it is handed out again, so NewBuffer's memory reads as zeros
// either way.
//
// Sizes are rounded up to a class (an eighth of their power of two) so
// that calls of nearly the same size share buffers; at most 12.5% is
// unused. The pool holds at most poolLimit bytes, oldest out first, and is
// emptied when a creation fails (the device may be out of memory) and by
// Close.

// poolClass is the device size of a buffer of size bytes.
func poolClass(size uint64) uint64 {
	if size <= 64<<10 {
		return (size + 255) &^ 255
	}
	step := PowerOfTwoBelow(size) / 8
	return (size + step - 1) / step * step
}

// poolLimit is the most bytes of released buffers c keeps: four of its
// largest bindings, at most 4 GiB (on a CPU adapter the pool is host
// memory).
func (c *Context) poolLimit() uint64 {
	return min(4*c.info.Limits.MaxStorageBindingSize, 4<<30)
}

// takePooled removes a pooled buffer of class cp from the pool. Callers
// hold c.mu.
func (c *Context) takePooled(cp uint64) *gpu.Buffer {
	for i, b := range c.pool {
		if b.cap == cp {
			c.pool = append(c.pool[:i], c.pool[i+1:]...)
			c.poolBytes -= cp
			return b.buf
		}
	}
	return nil
}

// putPooled keeps buf (cap bytes) for a later NewBuffer, dropping the
// oldest pooled buffers past the limit. Callers hold c.mu.
func (c *Context) putPooled(buf *gpu.Buffer, cp uint64) {
	limit := c.poolLimit()
	if cp > limit {
		buf.Destroy()
		buf.Release()
		return
	}
	for c.poolBytes+cp > limit {
		old := c.pool[0]
		c.pool = c.pool[1:]
		c.poolBytes -= old.cap
		old.buf.Destroy()
		old.buf.Release()
	}
	c.pool = append(c.pool, pooled{buf: buf, cap: cp})
	c.poolBytes += cp
}

// FreeUnused frees the device memory the Context keeps for reuse: the
// released buffers of its pool. Later calls create buffers again. Close
// frees them too; this is for a program that keeps a Context open and
// wants the memory back for something else.
func (c *Context) FreeUnused() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.emptyPool()
	}
}

// emptyPool frees every pooled buffer. Callers hold c.mu.
func (c *Context) emptyPool() {
	for _, b := range c.pool {
		b.buf.Destroy()
		b.buf.Release()
	}
	c.pool, c.poolBytes = nil, 0
	c.emptyHostPool()
}

// pooled is a released device buffer kept for reuse.
type pooled struct {
	buf *gpu.Buffer
	cap uint64
}

// NewBuffer allocates a device buffer of at least size bytes (rounded up to
// a multiple of 4), zero-filled. label names it in error messages.
func (c *Context) NewBuffer(label string, size uint64) (b *Buffer, err error) {
	if c == nil {
		return nil, errNilContext("new buffer " + label)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	defer guard("new buffer "+label, &err)
	if err := c.check("new buffer " + label); err != nil {
		return nil, err
	}
	if size == 0 {
		size = 4
	}
	if size > c.info.Limits.MaxBufferSize {
		return nil, fmt.Errorf("wgpu: new buffer %s: %d bytes exceeds the device's largest buffer, %d bytes", label, size, c.info.Limits.MaxBufferSize)
	}
	size = (size + 3) &^ 3 // cannot wrap: MaxBufferSize is far below 2^64
	cp := min(poolClass(size), c.info.Limits.MaxBufferSize&^3)
	if buf := c.takePooled(cp); buf != nil {
		defer Span("reuse a pooled buffer")(int64(size))
		if err := c.submitCommands(func(enc *gpu.CommandEncoder) error { return enc.TryClearBuffer(buf, 0, size) }); err != nil {
			buf.Destroy()
			buf.Release()
			return nil, fmt.Errorf("wgpu: new buffer %s (%d bytes): %w", label, size, err)
		}
		c.liveBuffers++
		return &Buffer{ctx: c, buf: buf, size: size, cap: cp, label: label}, nil
	}
	defer Span("allocate buffers")(int64(size))
	create := func() (*gpu.Buffer, error) {
		return c.createBuffer(&gpu.BufferDescriptor{
			Label: label,
			Usage: gpu.BufferUsageStorage | gpu.BufferUsageCopySrc | gpu.BufferUsageCopyDst,
			Size:  cp,
		})
	}
	buf, err := create()
	if err != nil && len(c.pool) > 0 {
		// The pool's memory may be what the device lacks.
		c.emptyPool()
		buf, err = create()
	}
	if err != nil {
		return nil, fmt.Errorf("wgpu: new buffer %s (%d bytes): %w", label, size, err)
	}
	c.liveBuffers++
	return &Buffer{ctx: c, buf: buf, size: size, cap: cp, label: label}, nil
}

// submitCommands records commands with record and submits them, ordered
// before any later submission, without waiting for them. Callers hold
// c.mu.
func (c *Context) submitCommands(record func(enc *gpu.CommandEncoder) error) error {
	enc, err := c.device.TryCreateCommandEncoder(nil)
	if err != nil {
		return c.lostFrom(err)
	}
	defer enc.Release()
	if err := record(enc); err != nil {
		return err
	}
	cmd, err := enc.TryFinish(nil)
	if err != nil {
		return err
	}
	defer cmd.Release()
	c.queue.Submit(cmd)
	c.submitted(1)
	return c.native.takeError()
}

// LiveBuffers counts the Buffers created on c and not yet released. Tests
// use it to check that a call releases every buffer it allocates; the
// Context's own staging buffers are not counted.
func (c *Context) LiveBuffers() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.liveBuffers
}

// Size is the buffer's size in bytes.
func (b *Buffer) Size() uint64 { return b.size }

// Release gives the device memory back: to the Context's pool of
// buffers for the next NewBuffer, or to the device. It is safe to call
// more than once.
func (b *Buffer) Release() {
	if b == nil || b.buf == nil {
		return
	}
	b.ctx.mu.Lock()
	defer b.ctx.mu.Unlock()
	if !b.ctx.closed {
		b.ctx.putPooled(b.buf, b.cap)
	}
	b.ctx.liveBuffers--
	b.buf = nil
}

// Bytes reinterprets a slice of fixed-size values (uint32, uint64, float32,
// arrays of them) as its bytes in memory order, without copying. wgcompute
// runs on little-endian hosts, where this is the layout WGSL reads.
func Bytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(zero)))
}

// Clear fills size bytes of b from offset with zeros (size 0: to the end).
func (c *Context) Clear(b *Buffer, offset, size uint64) (err error) {
	if c == nil {
		return errNilContext("clear")
	}
	if b == nil || b.buf == nil {
		return fmt.Errorf("wgpu: clear: no (or a released) buffer")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	defer guard("clear "+b.label, &err)
	if err := c.check("clear " + b.label); err != nil {
		return err
	}
	if offset > b.size {
		return fmt.Errorf("wgpu: clear %s: offset %d is out of range: the buffer holds %d bytes", b.label, offset, b.size)
	}
	if size == 0 {
		size = b.size - offset
	}
	// Offset and size are printed apart: their sum may wrap.
	if size > b.size-offset {
		return fmt.Errorf("wgpu: clear %s: %d bytes from offset %d are out of range: the buffer holds %d bytes", b.label, size, offset, b.size)
	}
	if offset%4 != 0 || size%4 != 0 {
		return fmt.Errorf("wgpu: clear %s: offset %d and size %d must be multiples of 4", b.label, offset, size)
	}
	err = c.submitCommands(func(enc *gpu.CommandEncoder) error { return enc.TryClearBuffer(b.buf, offset, size) })
	if err == nil {
		err = c.waitIdle()
	}
	if err != nil {
		return fmt.Errorf("wgpu: clear %s: %w", b.label, err)
	}
	return nil
}

// Grow makes *b a buffer of at least size bytes for scratch that a
// caller keeps between calls: *b stays where it is large enough, else it
// is released and replaced by a new one named label (contents are not
// kept). On an error *b is nil.
func (c *Context) Grow(b **Buffer, label string, size uint64) error {
	if *b != nil && (*b).Size() >= size {
		return nil
	}
	if *b != nil {
		(*b).Release()
		*b = nil
	}
	nb, err := c.NewBuffer(label, size)
	if err != nil {
		return err
	}
	*b = nb
	return nil
}

// Wait returns once every transfer and kernel queued on c has finished.
// Upload returns with its last copies still queued, ahead of any later
// kernel; a caller timing its kernels (Timing.Kernel) waits for them
// first, so that the copies are not counted as kernel time.
func (c *Context) Wait() (err error) {
	if c == nil {
		return errNilContext("wait")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	defer guard("wait", &err)
	if err := c.check("wait"); err != nil {
		return err
	}
	defer Span("wait for queued transfers")(0)
	if err := c.waitIdle(); err != nil {
		return fmt.Errorf("wgpu: wait: %w", err)
	}
	return nil
}

// PowerOfTwoBelow returns the largest power of two <= n, for n >= 1.
func PowerOfTwoBelow(n uint64) uint64 { return 1 << (bits.Len64(n) - 1) }
