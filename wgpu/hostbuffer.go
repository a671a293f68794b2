package wgpu

import (
	"fmt"

	gpu "github.com/oliverbestmann/webgpu/wgpu"
)

// Storage buffers in host memory, for the job runners of package sched.
// wgpu-native has one queue per device, and it runs copy commands and
// dispatches one after the other, with barriers between them, however the
// host overlaps its side: the transfers and the kernels add up, so a
// staged job is bounded by their sum even with perfect overlap on the
// host (bench/results/HISTORY.md, "Several GPUs, one instance").
//
// So where the device may map any buffer (wgpu's mappable-primary-buffers
// feature, on Vulkan, as for upload staging) a job's pieces may be storage
// buffers in host memory (MAP_READ | STORAGE, which wgpu places in cached
// host memory): the host fills the inputs through a mapping, unmaps them,
// and the kernels read them and write the output across the bus, so the
// piece's transfers happen inside its kernels' time instead of before and
// after them on the queue. RunnerOptions.Memory chooses (PieceMemory says
// when each measured faster); HostPieces reports the choice.

// HostBuffer is a storage buffer in host memory that the host writes
// through a read mapping (as upload staging in host memory is written)
// and kernels read and write in place: a piece of a job that the runners
// of package sched keep in host memory (Context.HostPieces). It is not
// safe for concurrent use. The device must have finished every submission
// that uses it before the host maps it.
type HostBuffer struct {
	b      *Buffer // its binding; b.buf is the host buffer
	mapped bool
}

// HostPieces reports whether c's job runners keep their pieces in host
// memory that the kernels read and write in place (RunnerOptions.Memory,
// on Vulkan where the device maps any buffer), rather than staged in
// device memory. Kernel times of host pieces include the kernels' reads
// and writes across the bus.
func (c *Context) HostPieces() bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.staging != nil && c.hostPieces
}

// hostPiecesFor reports whether a Context on c's adapter keeps its job
// runners' pieces in host memory under o. Host pieces are written through
// read mappings, as upload staging in host memory is, so they need what
// it needs, whichever staging uploads use.
func (c *Context) hostPiecesFor(o RunnerOptions) bool {
	sharedMemory := c.info.Type == "cpu" || c.info.Type == "integrated"
	return c.hostBuffers() &&
		(o.Memory == PiecesInHost || o.Memory == PiecesAuto && sharedMemory)
}

// hostBuffers reports whether c can make HostBuffers.
func (c *Context) hostBuffers() bool { return c.mappablePrimary && c.info.Backend == "vulkan" }

// NewHostBuffer returns a HostBuffer of at least size bytes: a pooled one
// of its class, else a new one, unmapped (its first mapping zero-fills
// it, which marks all of it initialized, so wgpu never clears what the
// host writes). A pooled buffer holds what it held. Only a device that
// maps any buffer (Vulkan with mappable primary buffers) has them.
func (c *Context) NewHostBuffer(label string, size uint64) (h *HostBuffer, err error) {
	if c == nil {
		return nil, errNilContext("new host buffer " + label)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	defer guard("new host buffer "+label, &err)
	if err := c.check("new host buffer " + label); err != nil {
		return nil, err
	}
	if !c.hostBuffers() {
		return nil, fmt.Errorf("wgpu: new host buffer %s: the %s adapter %s does not map storage buffers (host buffers need Vulkan with mappable primary buffers)", label, c.info.Backend, c.info.Name)
	}
	size = max(4, (size+3)&^3)
	if size > c.info.Limits.MaxBufferSize {
		return nil, fmt.Errorf("wgpu: new host buffer %s: %d bytes exceeds the device's largest buffer, %d bytes", label, size, c.info.Limits.MaxBufferSize)
	}
	cp := min(poolClass(size), c.info.Limits.MaxBufferSize&^3)
	for i, p := range c.hostPool {
		if p.b.cap == cp {
			c.hostPool = append(c.hostPool[:i], c.hostPool[i+1:]...)
			c.hostPoolBytes -= cp
			c.liveBuffers++
			p.b.size, p.b.label = size, label
			return p, nil
		}
	}
	defer Span("create host buffers")(int64(cp))
	buf, err := c.createBuffer(&gpu.BufferDescriptor{Label: label, Usage: gpu.BufferUsageMapRead | gpu.BufferUsageStorage, Size: cp})
	if err != nil && len(c.hostPool) > 0 {
		c.emptyHostPool()
		buf, err = c.createBuffer(&gpu.BufferDescriptor{Label: label, Usage: gpu.BufferUsageMapRead | gpu.BufferUsageStorage, Size: cp})
	}
	if err != nil {
		return nil, fmt.Errorf("wgpu: new host buffer %s (%d bytes): %w", label, size, err)
	}
	c.liveBuffers++
	return &HostBuffer{b: &Buffer{ctx: c, buf: buf, size: size, cap: cp, label: label}}, nil
}

// hostPoolLimit is the most bytes of released host buffers c keeps: a
// runner's two sets of three bindings, each of the staging ring's size,
// for the next one-shot job, which would otherwise create host memory
// again (creating mapped memory costs far more than using it).
func (c *Context) hostPoolLimit() uint64 {
	if c.staging == nil {
		return 0
	}
	return 6 * c.staging.ringBytes()
}

// emptyHostPool frees every pooled host buffer. Callers hold c.mu.
func (c *Context) emptyHostPool() {
	for _, h := range c.hostPool {
		h.b.buf.Destroy()
		h.b.buf.Release()
		h.b.buf = nil
	}
	c.hostPool, c.hostPoolBytes = nil, 0
}

// Buffer is h as a binding of kernels: bind it as any Buffer, unmapped.
func (h *HostBuffer) Buffer() *Buffer { return h.b }

// Size is h's size in bytes, as asked of NewHostBuffer (rounded up to 4).
func (h *HostBuffer) Size() uint64 { return h.b.Size() }

// Mapped reports whether h is mapped for the host.
func (h *HostBuffer) Mapped() bool { return h.mapped }

// Map maps h for the host, unless it is mapped already, and returns its
// memory: C memory, valid until h is unmapped.
func (h *HostBuffer) Map() (m []byte, err error) {
	c := h.b.ctx
	c.mu.Lock()
	defer c.mu.Unlock()
	defer guard("map "+h.b.label, &err)
	if err := c.check("map " + h.b.label); err != nil {
		return nil, err
	}
	if h.b.buf == nil {
		return nil, fmt.Errorf("wgpu: map %s: the host buffer was released", h.b.label)
	}
	if !h.mapped {
		// All of it, whatever size it serves now: a pooled buffer
		// stays mapped for its next, maybe larger, use.
		if err := c.mapSync(h.b.buf, gpu.MapModeRead, h.b.cap); err != nil {
			return nil, fmt.Errorf("wgpu: map %s: %w", h.b.label, err)
		}
		h.mapped = true
	}
	return h.b.buf.GetMappedRange(0, uint(h.b.cap))[:h.b.size], nil
}

// Write copies src into h at offset, mapping it first, on the transfer
// workers (TransferOptions.Workers) as uploads fill staging memory.
func (h *HostBuffer) Write(offset uint64, src []byte) error {
	m, err := h.Map()
	if err != nil {
		return err
	}
	if offset > uint64(len(m)) || uint64(len(src)) > uint64(len(m))-offset {
		return fmt.Errorf("wgpu: write %s: %d bytes at offset %d do not fit in its %d bytes", h.b.label, len(src), offset, len(m))
	}
	dst := m[offset:]
	return h.b.ctx.copyParallel(len(src), func(lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
}

// Read copies the first len(dst) bytes of h into dst, mapping it first,
// on the transfer workers.
func (h *HostBuffer) Read(dst []byte) error {
	m, err := h.Map()
	if err != nil {
		return err
	}
	if len(dst) > len(m) {
		return fmt.Errorf("wgpu: read %s: %d bytes asked of its %d bytes", h.b.label, len(dst), len(m))
	}
	return h.b.ctx.copyParallel(len(dst), func(lo, hi int) { copy(dst[lo:hi], m[lo:hi]) })
}

// copyParallel runs cp over [0, n) on the staging pool's workers, or on
// this goroutine where c has none.
func (c *Context) copyParallel(n int, cp func(lo, hi int)) error {
	c.mu.Lock()
	p := c.staging
	c.mu.Unlock()
	if p == nil {
		cp(0, n)
		return nil
	}
	return p.parallel(n, func(lo, hi int) error {
		cp(lo, hi)
		return nil
	})
}

// Unmap hands h back to the device, if it is mapped.
func (h *HostBuffer) Unmap() (err error) {
	c := h.b.ctx
	c.mu.Lock()
	defer c.mu.Unlock()
	defer guard("unmap "+h.b.label, &err)
	if !h.mapped || h.b.buf == nil {
		return nil
	}
	h.mapped = false
	if err := h.b.buf.TryUnmap(); err != nil {
		return fmt.Errorf("wgpu: unmap %s: %w", h.b.label, err)
	}
	return nil
}

// Release gives h back to its Context's pool of host buffers, or frees
// it; after the Context's Close the device frees it, as it does a
// Buffer's memory. h may stay mapped in the pool. A second Release does
// nothing.
func (h *HostBuffer) Release() {
	c := h.b.ctx
	c.mu.Lock()
	defer c.mu.Unlock()
	if h.b.buf == nil {
		return
	}
	c.liveBuffers--
	if c.closed {
		h.b.buf = nil
		return
	}
	limit := c.hostPoolLimit()
	for len(c.hostPool) > 0 && c.hostPoolBytes+h.b.cap > limit {
		old := c.hostPool[0]
		c.hostPool = c.hostPool[1:]
		c.hostPoolBytes -= old.b.cap
		old.b.buf.Destroy()
		old.b.buf.Release()
		old.b.buf = nil
	}
	if h.b.cap > limit {
		h.b.buf.Destroy()
		h.b.buf.Release()
		h.b.buf = nil
		return
	}
	// The pool keeps its own handle: the caller's is dropped, so a
	// second release of it does nothing.
	kept := &HostBuffer{b: &Buffer{ctx: c, buf: h.b.buf, size: h.b.size, cap: h.b.cap, label: h.b.label}, mapped: h.mapped}
	h.b.buf, h.mapped = nil, false
	c.hostPool = append(c.hostPool, kept)
	c.hostPoolBytes += kept.b.cap
}
