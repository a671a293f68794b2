package wgpu

import (
	"fmt"
	"io"
	"runtime"
	"slices"

	gpu "github.com/oliverbestmann/webgpu/wgpu"
	"github.com/wgcompute/wgcompute/internal/base/par"
)

// Transfers between host and device go through a ring of persistent staging
// buffers. queue.WriteBuffer copies everything twice and ran far below the
// bus's rate (bench/results/HISTORY.md, "Staging-ring tuning sweep"); here
// the host copies straight into mapped staging memory with several goroutines
// while the GPU copies the previous slot into place.

const (
	// stagingSlot is the size of one staging buffer, and stagingRing how
	// many each direction keeps. Two of 32 MiB moved 1 GiB as fast as four
	// of 64 MiB, and creating mapped memory costs far more than using it,
	// so a one-shot upload that creates its ring is much faster with the
	// smaller ring (bench/results/HISTORY.md, "Staging-ring tuning sweep"
	// and "Figures moved from code comments").
	stagingSlot = 32 << 20
	stagingRing = 2
	// smallTransfer is the size under which queue.WriteBuffer is cheaper
	// than a trip through the staging ring.
	smallTransfer = 1 << 20
	// copyGrain is the smallest piece one goroutine copies.
	copyGrain = 1 << 20
)

type slot struct {
	buf    *gpu.Buffer
	size   uint64
	mapped bool // mapped and ready for the host
}

type stagingPool struct {
	c       *Context
	slotSz  uint64
	ring    int
	up      []*slot
	down    []*slot
	next    int
	workers int
	// hostUploads: upload staging is MAP_READ | COPY_SRC, written through
	// a read mapping (TransferOptions.MapWriteUploads says where and why).
	hostUploads bool
}

// upMode is how upload staging is mapped: for reading where it is in
// host memory (hostUploads), else for writing.
func (p *stagingPool) upMode() gpu.MapMode {
	if p.hostUploads {
		return gpu.MapModeRead
	}
	return gpu.MapModeWrite
}

func newStagingPool(c *Context, o TransferOptions) *stagingPool {
	p := &stagingPool{c: c, slotSz: o.SlotBytes, ring: o.Slots, workers: o.Workers}
	p.hostUploads = !o.MapWriteUploads && c.mappablePrimary && c.info.Backend == "vulkan"
	if p.slotSz == 0 {
		p.slotSz = stagingSlot
	}
	p.slotSz = (p.slotSz + 7) &^ 7
	if p.slotSz > c.info.Limits.MaxBufferSize {
		p.slotSz = c.info.Limits.MaxBufferSize &^ 7
	}
	if p.ring <= 0 {
		p.ring = stagingRing
	}
	if p.workers <= 0 {
		p.workers = runtime.NumCPU()
		if p.workers > 16 {
			p.workers = 16
		}
	}
	return p
}

// GrowStaging makes the staging slots at least slotBytes (within the
// device's largest buffer) from the next transfer on, for a caller that
// moves gigabytes again and again (vortex.Committer): larger slots cost
// more to create, which a one-shot transfer pays, and less a byte moved,
// which repeated ones gain (BENCHMARKS.md, "Vortex"). Slots never shrink.
func (c *Context) GrowStaging(slotBytes uint64) error {
	if c == nil {
		return errNilContext("grow staging")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.check("grow staging"); err != nil {
		return err
	}
	p := c.staging
	if p == nil {
		return nil // no staging: the device's memory is the host's
	}
	b := min((slotBytes+7)&^7, c.info.Limits.MaxBufferSize&^7)
	if b > p.slotSz {
		p.slotSz = b
	}
	return nil
}

func (p *stagingPool) release() {
	for _, s := range append(p.up, p.down...) {
		if s != nil {
			s.buf.Release()
		}
	}
	p.up, p.down = nil, nil
}

// minSlot is the smallest staging buffer made: transfers are sized to
// their data, so a 32-byte read-back maps 64 KiB, not the whole ring.
const minSlot = 64 << 10

// slotFor is the size of a staging buffer for a transfer that still has
// remaining bytes to go: the remainder rounded up to a power of two, within
// [minSlot, slotSz].
func (p *stagingPool) slotFor(remaining uint64) uint64 {
	if remaining >= p.slotSz {
		return p.slotSz
	}
	return max(minSlot, min(p.slotSz, PowerOfTwoBelow(max(remaining, 1)*2-1)))
}

// slot returns ring slot i of ring, at least size bytes: a slot that is too
// small is replaced, so the ring grows with the transfers it serves and
// stays small for small ones.
func (p *stagingPool) slot(ring *[]*slot, i int, size uint64, upload bool) (*slot, error) {
	for len(*ring) <= i {
		*ring = append(*ring, nil)
	}
	s := (*ring)[i]
	if s != nil && s.size < size {
		// Waits for any copy still reading or writing it.
		if err := p.c.waitIdle(); err != nil {
			return nil, err
		}
		s.buf.Release()
		(*ring)[i], s = nil, nil
	}
	if s == nil {
		desc := &gpu.BufferDescriptor{Label: "download staging", Usage: gpu.BufferUsageMapRead | gpu.BufferUsageCopyDst, Size: size}
		switch {
		case upload && p.hostUploads:
			desc = &gpu.BufferDescriptor{Label: "upload staging (host)", Usage: gpu.BufferUsageMapRead | gpu.BufferUsageCopySrc, Size: size}
		case upload:
			desc = &gpu.BufferDescriptor{Label: "upload staging", Usage: gpu.BufferUsageMapWrite | gpu.BufferUsageCopySrc, Size: size, MappedAtCreation: true}
		}
		end := Span("create staging")
		buf, err := p.c.createBuffer(desc)
		end(int64(size))
		if err != nil {
			return nil, err
		}
		s = &slot{buf: buf, size: size, mapped: desc.MappedAtCreation}
		(*ring)[i] = s
	}
	if upload {
		return s, p.waitMapped(s, p.upMode())
	}
	return s, nil
}

// upSlot returns upload slot i, at least size bytes, mapped for the host
// to write.
func (p *stagingPool) upSlot(i int, size uint64) (*slot, error) {
	return p.slot(&p.up, i, size, true)
}

// downSlot returns download slot i, at least size bytes.
func (p *stagingPool) downSlot(i int, size uint64) (*slot, error) {
	return p.slot(&p.down, i, size, false)
}

// waitMapped maps s for the host, unless it is mapped already, and waits
// for the mapping: a slot is mapped only right before it is used (see
// mapSync).
func (p *stagingPool) waitMapped(s *slot, mode gpu.MapMode) error {
	if s.mapped {
		return nil
	}
	if err := p.c.mapSync(s.buf, mode, s.size); err != nil {
		return err
	}
	s.mapped = true
	return nil
}

// parallel runs fn over [0, n) split into at most p.workers pieces of at
// least copyGrain bytes, each on its own goroutine; pieces start on cache
// lines (64 bytes).
func (p *stagingPool) parallel(n int, fn func(lo, hi int) error) error {
	const line = 64
	pieces := max(1, min(n/copyGrain, p.workers))
	lines := (n + line - 1) / line
	return par.ForErrWorkers(lines, (lines+pieces-1)/pieces, p.workers, func(lo, hi int) error {
		return fn(lo*line, min(hi*line, n))
	})
}

func (c *Context) checkRange(op string, b *Buffer, offset uint64, n int) error {
	if b == nil || b.buf == nil {
		return fmt.Errorf("wgpu: %s: no (or a released) buffer", op)
	}
	if offset%4 != 0 {
		return fmt.Errorf("wgpu: %s %s: offset %d is not a multiple of 4", op, b.label, offset)
	}
	// Compared without adding, so that no offset can wrap past 2^64.
	if n < 0 || offset > b.size || (uint64(n)+3)&^3 > b.size-offset {
		return fmt.Errorf("wgpu: %s %s: %d bytes at offset %d do not fit in its %d bytes", op, b.label, n, offset, b.size)
	}
	return nil
}

// Upload copies src into dst at dstOffset (a multiple of 4). A length that
// is not a multiple of 4 is padded with zeros up to one, and the padding
// must fit in dst. Upload returns once src may be reused; the copy is
// ordered before any later Run.
func (c *Context) Upload(dst *Buffer, dstOffset uint64, src []byte) (err error) {
	n := int64(len(src))
	return c.upload(dst, dstOffset, n, func(m []byte, pos int64) error {
		return c.staging.parallel(len(m), func(lo, hi int) error {
			copy(m[lo:hi], src[pos+int64(lo):])
			return nil
		})
	}, src)
}

// UploadParts copies the parts, one after another, into dst at dstOffset
// (a multiple of 4), as Upload copies their concatenation, filling staging
// memory from every part on all cores: many rows of one matrix that lie
// in separate allocations go up as fast as one slice.
func (c *Context) UploadParts(dst *Buffer, dstOffset uint64, parts [][]byte) error {
	// ends[i] is where part i ends in the concatenation.
	ends := make([]int64, len(parts))
	var n int64
	for i, p := range parts {
		n += int64(len(p))
		ends[i] = n
	}
	if len(parts) == 1 {
		return c.Upload(dst, dstOffset, parts[0])
	}
	return c.upload(dst, dstOffset, n, func(m []byte, pos int64) error {
		return c.staging.parallel(len(m), func(lo, hi int) error {
			at := pos + int64(lo)
			i, _ := slices.BinarySearch(ends, at+1)
			for k := lo; k < hi; i++ {
				start := ends[i] - int64(len(parts[i]))
				k += copy(m[k:hi], parts[i][at+int64(k-lo)-start:])
			}
			return nil
		})
	}, nil)
}

// UploadFrom reads n bytes from r straight into staging memory and copies
// them to dst at dstOffset, with no intermediate host buffer. When r is an
// io.ReaderAt (an *os.File, say), several goroutines read at once. A short
// read is an error.
func (c *Context) UploadFrom(dst *Buffer, dstOffset uint64, r io.Reader, n int64) error {
	ra, isAt := r.(io.ReaderAt)
	var base int64
	if s, ok := r.(io.Seeker); ok && isAt {
		cur, err := s.Seek(0, io.SeekCurrent)
		if err != nil {
			isAt = false
		}
		base = cur
	}
	err := c.upload(dst, dstOffset, n, func(m []byte, pos int64) error {
		if isAt {
			return c.staging.parallel(len(m), func(lo, hi int) error {
				// A full read may come with io.EOF at the end of the
				// source; a short one is an error whatever it says.
				k, err := ra.ReadAt(m[lo:hi], base+pos+int64(lo))
				if k == hi-lo {
					return nil
				}
				if err == nil || err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return err
			})
		}
		_, err := io.ReadFull(r, m)
		return err
	}, nil)
	if err == nil && isAt {
		if s, ok := r.(io.Seeker); ok {
			_, err = s.Seek(base+n, io.SeekStart)
		}
	}
	return err
}

func (c *Context) upload(dst *Buffer, dstOffset uint64, n int64, fill func(m []byte, pos int64) error, small []byte) (err error) {
	if c == nil {
		return errNilContext("upload")
	}
	defer Span("upload")(n)
	if n < 0 {
		return fmt.Errorf("wgpu: upload: negative length %d", n)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	defer guard("upload", &err)
	if err := c.check("upload"); err != nil {
		return err
	}
	if err := c.checkRange("upload to", dst, dstOffset, int(n)); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if small != nil && n < smallTransfer {
		padded := small
		if n%4 != 0 {
			padded = make([]byte, (n+3)&^3)
			copy(padded, small)
		}
		if err := c.writeBuffer(dst.buf, dstOffset, padded); err != nil {
			return fmt.Errorf("wgpu: upload to %s: %w", dst.label, err)
		}
		return nil
	}
	if !mappedStaging {
		if err := c.uploadByWrites(dst, dstOffset, n, fill); err != nil {
			return fmt.Errorf("wgpu: upload to %s: %w", dst.label, err)
		}
		return nil
	}
	p := c.staging
	for pos := int64(0); pos < n; {
		endWait := Span("upload: map a staging slot")
		s, err := p.upSlot(p.next%p.ring, p.slotFor(uint64(n-pos)))
		endWait(0)
		if err != nil {
			return fmt.Errorf("wgpu: upload to %s: %w", dst.label, err)
		}
		p.next++
		chunk := int64(s.size)
		if n-pos < chunk {
			chunk = n - pos
		}
		padded := (chunk + 3) &^ 3
		m := s.buf.GetMappedRange(0, uint(s.size))[:padded]
		for i := chunk; i < padded; i++ {
			m[i] = 0
		}
		endFill := Span("upload: fill staging")
		err = fill(m[:chunk], pos)
		endFill(chunk)
		if err != nil {
			s.buf.TryUnmap()
			s.mapped = false
			return fmt.Errorf("wgpu: upload to %s: %w", dst.label, err)
		}
		endUnmap := Span("upload: unmap")
		err = s.buf.TryUnmap()
		endUnmap(0)
		if err != nil {
			return fmt.Errorf("wgpu: upload to %s: %w", dst.label, err)
		}
		s.mapped = false
		if err := c.submitCommands(func(enc *gpu.CommandEncoder) error {
			return enc.TryCopyBufferToBuffer(s.buf, 0, dst.buf, dstOffset+uint64(pos), uint64(padded))
		}); err != nil {
			return fmt.Errorf("wgpu: upload to %s: %w", dst.label, err)
		}
		pos += chunk
	}
	return nil
}

// Download copies len(dst) bytes of src from srcOffset (a multiple of 4)
// into dst, and returns when they are there.
func (c *Context) Download(dst []byte, src *Buffer, srcOffset uint64) error {
	d, err := c.StartDownload(dst, src, srcOffset)
	if err != nil {
		return err
	}
	return d.Finish()
}

// Download is Context.Download in two halves, so that a caller can queue
// a kernel between them: StartDownload queues the GPU copies of as much of
// the transfer as the download ring holds, ahead of any later submission,
// and Finish copies them out and queues the rest. A job runner (package
// sched) queues the read-back of a piece before the next piece's kernels
// this way, so the host copies it out while they run. Between the two
// halves the download ring belongs to this transfer: every other download
// on the Context waits for Finish, which must be called.
type Download struct {
	c        *Context
	dst      []byte
	src      *Buffer
	srcOff   uint64
	pos      int64 // the next byte to queue a copy of
	slots    int   // ring slots used so far
	queue    []downloadPiece
	end      func(int64)
	finished bool
}

type downloadPiece struct {
	s        *slot
	pos, len int64
}

// StartDownload starts copying len(dst) bytes of src from srcOffset (a
// multiple of 4) into dst: the first half of Download. Where it returns an
// error nothing is left to finish.
func (c *Context) StartDownload(dst []byte, src *Buffer, srcOffset uint64) (d *Download, err error) {
	if c == nil {
		return nil, errNilContext("download")
	}
	c.downloads.Lock()
	end := Span("download")
	d = &Download{c: c, dst: dst, src: src, srcOff: srcOffset, end: end}
	c.mu.Lock()
	defer c.mu.Unlock()
	defer func() {
		if err != nil {
			end(0)
			c.downloads.Unlock()
		}
	}()
	defer guard("download", &err)
	if err := c.check("download"); err != nil {
		return nil, err
	}
	if err := c.checkRange("download from", src, srcOffset, len(dst)); err != nil {
		return nil, err
	}
	if err := d.queueCopies(); err != nil {
		return nil, fmt.Errorf("wgpu: download from %s: %w", src.label, err)
	}
	return d, nil
}

// queueCopies queues copies into free ring slots until the ring is full
// or the transfer is all queued. Callers hold c.mu.
func (d *Download) queueCopies() error {
	p := d.c.staging
	n := int64(len(d.dst))
	for d.pos < n && len(d.queue) < p.ring {
		s, err := p.downSlot(d.slots%p.ring, p.slotFor(uint64(n-d.pos)))
		if err != nil {
			return err
		}
		d.slots++
		chunk := min(int64(s.size), n-d.pos)
		if err := d.c.submitCommands(func(enc *gpu.CommandEncoder) error {
			return enc.TryCopyBufferToBuffer(d.src.buf, d.srcOff+uint64(d.pos), s.buf, 0, uint64((chunk+3)&^3))
		}); err != nil {
			return err
		}
		d.queue = append(d.queue, downloadPiece{s, d.pos, chunk})
		d.pos += chunk
	}
	return nil
}

// Finish waits for the queued copies, copies them into dst and queues the
// rest of the transfer, until all of it is in dst. A second call does
// nothing.
func (d *Download) Finish() (err error) {
	c := d.c
	if d.finished {
		return nil
	}
	d.finished = true
	defer c.downloads.Unlock()
	defer func() { d.end(int64(len(d.dst))) }()
	c.mu.Lock()
	defer c.mu.Unlock()
	defer guard("download", &err)
	if err := c.check("download"); err != nil {
		return err
	}
	p := c.staging
	for len(d.queue) > 0 {
		pc := d.queue[0]
		d.queue = d.queue[1:]
		if err := p.waitMapped(pc.s, gpu.MapModeRead); err != nil {
			return fmt.Errorf("wgpu: download from %s: %w", d.src.label, err)
		}
		m := pc.s.buf.GetMappedRange(0, uint(pc.s.size))
		err := p.parallel(int(pc.len), func(lo, hi int) error {
			copy(d.dst[pc.pos+int64(lo):pc.pos+int64(hi)], m[lo:hi])
			return nil
		})
		pc.s.mapped = false
		if uerr := pc.s.buf.TryUnmap(); err == nil {
			err = uerr
		}
		if err == nil {
			err = d.queueCopies()
		}
		if err != nil {
			return fmt.Errorf("wgpu: download from %s: %w", d.src.label, err)
		}
	}
	return nil
}

// StagingRingBytes is how many bytes one direction's staging ring holds
// (0 once c is closed, or where transfers need no staging): a transfer
// that fits is queued whole before the host waits, so that a job runner
// keeps each piece's bindings within it.
func (c *Context) StagingRingBytes() uint64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.staging == nil {
		return 0
	}
	return c.staging.ringBytes()
}

// ringBytes is how many bytes one direction's staging ring holds at most:
// a transfer that fits is queued whole before the host waits.
func (p *stagingPool) ringBytes() uint64 { return uint64(p.ring) * p.slotSz }

// uploadByWrites is upload where staging cannot be written through a
// mapping (mappedStaging: the browser): each staging slot's worth is
// filled in host memory and written with queue.writeBuffer, which copies
// it on. Callers hold c.mu.
func (c *Context) uploadByWrites(dst *Buffer, dstOffset uint64, n int64, fill func(m []byte, pos int64) error) error {
	most := int64(c.staging.slotSz)
	host := make([]byte, (min(n, most)+3)&^3)
	for pos := int64(0); pos < n; {
		chunk := min(n-pos, most)
		m := host[:(chunk+3)&^3]
		clear(m[chunk:])
		if err := fill(m[:chunk], pos); err != nil {
			return err
		}
		if err := c.writeBuffer(dst.buf, dstOffset+uint64(pos), m); err != nil {
			return err
		}
		pos += chunk
	}
	return nil
}
