package wgpu

import (
	"fmt"
	"unsafe"

	gpu "github.com/rajveermalviya/go-webgpu/wgpu"
)

// Buffer is a device-local storage buffer that kernels read and write and
// that transfers copy to and from. Release it when done.
type Buffer struct {
	ctx   *Context
	buf   *gpu.Buffer
	size  uint64
	label string
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
	defer Span("allocate buffers")(int64(size))
	buf, err := c.device.CreateBuffer(&gpu.BufferDescriptor{
		Label: label,
		Usage: gpu.BufferUsage_Storage | gpu.BufferUsage_CopySrc | gpu.BufferUsage_CopyDst,
		Size:  size,
	})
	if err != nil {
		return nil, fmt.Errorf("wgpu: new buffer %s (%d bytes): %w", label, size, err)
	}
	c.liveBuffers++
	return &Buffer{ctx: c, buf: buf, size: size, label: label}, nil
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

// Release frees the device memory. It is safe to call more than once.
func (b *Buffer) Release() {
	if b == nil || b.buf == nil {
		return
	}
	b.ctx.mu.Lock()
	defer b.ctx.mu.Unlock()
	if !b.ctx.closed {
		b.buf.Destroy()
		b.buf.Release()
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
		return fmt.Errorf("wgpu: clear %s: offset %d is past its %d bytes", b.label, offset, b.size)
	}
	if size == 0 {
		size = b.size - offset
	}
	if offset%4 != 0 || size%4 != 0 || size > b.size-offset {
		return fmt.Errorf("wgpu: clear %s: range [%d, %d) is not 4-byte aligned inside its %d bytes", b.label, offset, offset+size, b.size)
	}
	enc, err := c.device.CreateCommandEncoder(nil)
	if err != nil {
		return fmt.Errorf("wgpu: clear %s: %w", b.label, err)
	}
	defer enc.Release()
	if err := enc.ClearBuffer(b.buf, offset, size); err != nil {
		return fmt.Errorf("wgpu: clear %s: %w", b.label, err)
	}
	return c.submitAndWait("clear "+b.label, enc)
}

// submitAndWait finishes enc, submits it and waits for the queue to finish
// it. Callers hold c.mu.
func (c *Context) submitAndWait(op string, enc *gpu.CommandEncoder) error {
	cmd, err := enc.Finish(nil)
	if err != nil {
		return fmt.Errorf("wgpu: %s: %w", op, err)
	}
	defer cmd.Release()
	c.queue.Submit(cmd)
	if err := c.waitIdle(); err != nil {
		return fmt.Errorf("wgpu: %s: %w", op, err)
	}
	return nil
}
