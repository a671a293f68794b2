package wgpu

import (
	"bytes"
	"fmt"
	"time"

	gpu "github.com/oliverbestmann/webgpu/wgpu"
)

// The Batcher's pieces in host memory. wgpu-native has one queue per
// device, and it runs copy commands and dispatches one after the other,
// with barriers between them, however the host overlaps its side: the
// transfers and the kernels add up, so the staged path is bounded by
// their sum even with perfect overlap on the host (bench/results/HISTORY.md,
// "Several GPUs, one instance").
//
// So where the device may map any buffer (wgpu's mappable-primary-buffers
// feature, on Vulkan, as for upload staging) a piece's inputs and output
// are storage buffers in host memory (MAP_READ | STORAGE, which wgpu
// places in cached host memory): the host fills the inputs through a
// mapping, unmaps them, and the kernels read them and write the output
// across the bus, so the piece's transfers happen inside its kernels'
// time instead of before and after them on the queue. While they run, the
// host copies out the previous piece's output and fills the next piece's
// inputs in the other set. The kernels and WGSL are the same in both
// modes; BatcherOptions.Memory chooses (BatchMemory says when each
// measured faster).

// hostBuffer is a storage buffer in host memory that the host writes
// through a read mapping (as upload staging in host memory is written).
type hostBuffer struct {
	b      *Buffer // its binding; b.buf is the host buffer
	mapped bool
}

// HostBatches reports whether c's Batchers keep their pieces in host
// memory that the kernels read and write in place (BatcherOptions.Memory,
// on Vulkan where the device maps any buffer), rather than staged in device
// memory. Kernel times
// of host pieces include the kernels' reads and writes across the bus.
func (c *Context) HostBatches() bool { return c != nil && c.hostBatchPool() != nil }

// hostBatchesFor reports whether a Context on c's adapter keeps its
// Batchers' pieces in host memory under o. Host pieces are written
// through read mappings, as upload staging in host memory is, so they
// need what it needs, whichever staging uploads use.
func (c *Context) hostBatchesFor(o BatcherOptions) bool {
	sharedMemory := c.info.Type == "cpu" || c.info.Type == "integrated"
	return c.mappablePrimary && c.info.Backend == "vulkan" &&
		(o.Memory == BatchHost || o.Memory == BatchAuto && sharedMemory)
}

// hostBatchPool is c's staging pool where the Batcher keeps its pieces in
// host memory, else nil.
func (c *Context) hostBatchPool() *stagingPool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.staging == nil || !c.hostBatches {
		return nil
	}
	return c.staging
}

// newHostBuffer returns a host buffer of at least size bytes: a pooled
// one of its class, else a new one, unmapped (its first mapping
// zero-fills it, which marks all of it initialized, so wgpu never clears
// what the host writes). A pooled buffer holds what it held.
func (c *Context) newHostBuffer(label string, size uint64) (h *hostBuffer, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer guard("new host buffer "+label, &err)
	if err := c.check("new host buffer " + label); err != nil {
		return nil, err
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
	return &hostBuffer{b: &Buffer{ctx: c, buf: buf, size: size, cap: cp, label: label}}, nil
}

// hostPoolLimit is the most bytes of released host buffers c keeps: a
// Batcher's two sets of three bindings, each of the staging ring's size,
// for the next one-shot batch, which would otherwise create host memory
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

// mappedRange maps h for the host, unless it is mapped already, and returns its
// memory: C memory, valid until h is unmapped. The device must have
// finished every submission that uses h.
func (h *hostBuffer) mappedRange() (m []byte, err error) {
	c := h.b.ctx
	c.mu.Lock()
	defer c.mu.Unlock()
	defer guard("map "+h.b.label, &err)
	if err := c.check("map " + h.b.label); err != nil {
		return nil, err
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

// unmap hands h back to the device, if it is mapped.
func (h *hostBuffer) unmap() (err error) {
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

// release gives h back to its Context's pool of host buffers, or frees
// it; after the Context's Close the device frees it, as it does a
// Buffer's memory. h may stay mapped in the pool.
func (h *hostBuffer) release() {
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
	// The pool keeps its own handle: the Batcher's is dropped, so a
	// second release of it does nothing.
	kept := &hostBuffer{b: &Buffer{ctx: c, buf: h.b.buf, size: h.b.size, cap: h.b.cap, label: h.b.label}, mapped: h.mapped}
	h.b.buf, h.mapped = nil, false
	c.hostPool = append(c.hostPool, kept)
	c.hostPoolBytes += kept.b.cap
}

// reserveHost makes host set s hold count items of each size, keeping
// buffers that are large enough already.
func (r *Batcher) reserveHost(s int, label string, sizes []int, count int) error {
	set, err := reserveSet(r.host[s], sizes, count, func(h *hostBuffer) uint64 { return h.b.Size() }, func(k int, need uint64) (*hostBuffer, error) {
		return r.ctx.newHostBuffer(fmt.Sprintf("%s host binding %d", label, k), need)
	}, (*hostBuffer).release)
	r.host[s] = set
	if err != nil {
		return fmt.Errorf("wgpu: %s: %w", label, err)
	}
	return nil
}

// unmapHost unmaps every host buffer of r, so that a failed Run leaves
// none mapped; it returns the first error.
func (r *Batcher) unmapHost() error {
	var first error
	for _, set := range r.host {
		for _, h := range set {
			if err := h.unmap(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// runHost is Run with the pieces in host memory: b has been checked, and
// limit is the most items of one piece.
func (r *Batcher) runHost(b Batch, p *stagingPool, sizes []int, limit int, guardItem []byte) (total Timing, err error) {
	c := r.ctx
	out := b.Output
	guard := 0
	if guardItem != nil {
		guard = 1
	}
	type inflight struct {
		p          *Pending
		set, lo, n int
	}
	var prev *inflight
	defer func() {
		if prev != nil {
			prev.p.Wait() // every submission is waited for, even after an error
		}
		if err != nil {
			r.unmapHost()
		}
	}()
	// The second set is made only when a second piece needs it.
	if err := r.reserveHost(0, b.Label, sizes, limit+guard); err != nil {
		return total, err
	}
	// collect waits for f's kernels, maps its output and copies it out
	// (or hands it to Gather). The output stays mapped until its set's
	// next piece is submitted.
	collect := func(f *inflight) (time.Duration, error) {
		t, err := f.p.Wait()
		total = total.Add(t)
		if err != nil {
			return 0, fmt.Errorf("items %d..%d: %w", f.lo, f.lo+f.n, err)
		}
		m, err := r.host[f.set][len(b.Inputs)].mappedRange()
		if err != nil {
			return 0, fmt.Errorf("items %d..%d: %w", f.lo, f.lo+f.n, err)
		}
		size := f.n * out.ItemBytes
		if guard > 0 {
			if got := m[size : size+len(guardItem)]; !bytes.Equal(got, guardItem) {
				return 0, fmt.Errorf("wgpu: %s: a kernel wrote past the %d items of its piece (guard item now % x)", b.Label, f.n, got)
			}
		}
		if out.Gather != nil {
			out.Gather(f.lo, f.n, m[:size])
		} else {
			dst := out.Data[f.lo*out.ItemBytes:][:size]
			p.parallel(size, func(lo, hi int) error {
				copy(dst[lo:hi], m[lo:hi])
				return nil
			})
		}
		return t.Elapsed(), nil
	}
	piece := min(limit, firstPiece)
	for lo, i := 0, 0; lo < b.Count; i++ {
		n := min(piece, b.Count-lo)
		if i == 1 {
			if err := r.reserveHost(1, b.Label, sizes, limit+guard); err != nil {
				return total, err
			}
		}
		// The set's last piece (i-2) has been collected: the device is
		// done with its buffers, and the host may map them.
		set := r.host[i%2]
		bind := make([]Binding, 0, len(sizes)+len(b.Extra))
		for k, in := range b.Inputs {
			m, err := set[k].mappedRange()
			if err != nil {
				return total, fmt.Errorf("items %d..%d: %w", lo, lo+n, err)
			}
			src := in.Data[lo*in.ItemBytes : (lo+n)*in.ItemBytes]
			endFill := Span("batch: fill host piece")
			p.parallel(len(src), func(l, h int) error {
				copy(m[l:h], src[l:h])
				return nil
			})
			endFill(int64(len(src)))
			bind = append(bind, Binding{Buffer: set[k].b, Size: uint64(len(src))})
		}
		ob := set[len(b.Inputs)]
		if guard > 0 {
			m, err := ob.mappedRange()
			if err != nil {
				return total, fmt.Errorf("guard: %w", err)
			}
			copy(m[n*out.ItemBytes:], guardItem)
		}
		bind = append(bind, Binding{Buffer: ob.b, Size: uint64(n * out.ItemBytes)})
		bind = append(bind, b.Extra...)
		for _, h := range set {
			if err := h.unmap(); err != nil {
				return total, fmt.Errorf("items %d..%d: %w", lo, lo+n, err)
			}
		}
		// Submitted before the previous piece is collected: nothing
		// else is queued between two pieces' kernels, so the device
		// never waits for the host while it has work.
		pend, err := c.Submit(b.Dispatches(n, bind)...)
		if err != nil {
			return total, fmt.Errorf("items %d..%d: %w", lo, lo+n, err)
		}
		last := prev
		prev = &inflight{p: pend, set: i % 2, lo: lo, n: n}
		if last != nil {
			took, err := collect(last)
			if err != nil {
				return total, err
			}
			piece = nextPiece(piece, last.n, took, limit)
		}
		lo += n
	}
	f := prev
	prev = nil
	_, err = collect(f)
	return total, err
}
