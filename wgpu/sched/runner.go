package sched

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/wgcompute/wgcompute/wgpu"
)

// This file is the dispatcher of item-parallel work: every algorithm that
// maps count independent items through a kernel (Rescue merges, Goldilocks
// operations, BLAKE3 merges) describes the work as a Job, and a Runner
// sizes pieces from the device's limits, keeps one piece's buffers, overlaps
// the upload of a piece with the kernels of the previous one, bounds every
// submission's duration, and sums the timings.

// Input is one host array a Job reads: ItemBytes bytes per item.
type Input struct {
	Data      []byte
	ItemBytes int
}

// Output is where a Job's results go. The kernel writes ItemBytes
// per item; they are copied to Data, or handed to Gather when the host
// wants less than the kernel writes (Rescue hashing keeps 4 of a state's
// 12 elements).
type Output struct {
	Data      []byte
	ItemBytes int
	// Gather, when set, receives the device's output for items
	// [lo, lo+n) instead of Data. raw is valid only during the call: it
	// may be mapped memory that the next piece reuses.
	Gather func(lo, n int, raw []byte)
}

// Job is item-parallel work: Count items, each reading ItemBytes of
// every input and writing Output.ItemBytes, through the kernels its
// Dispatches return for each piece.
type Job struct {
	Label  string // names the job in errors, for example "rescue merge"
	Count  int
	Inputs []Input
	Output Output
	// Extra bindings follow the inputs and the output (constants a
	// kernel reads, for example).
	Extra []wgpu.Binding
	// MaxItems caps the items of one piece below what the limits allow
	// (a kernel that indexes items with u32 words, say); 0: no cap.
	MaxItems int
	// Dispatches returns the work of one piece of n items, given its
	// bindings: the inputs, the output, then Extra, each sized to n items.
	Dispatches func(n int, bind []wgpu.Binding) []wgpu.Dispatch
	// Guard places a sentinel item after each piece's output and fails the
	// job if a kernel wrote there. Tests turn it on.
	Guard bool
}

// Runner runs Jobs on one device, keeping its buffers from one call to
// the next (a resident object for repeated calls); Release frees them. It
// is not safe for concurrent use; the one-shot Run makes a Runner per
// call.
type Runner struct {
	ctx *wgpu.Context
	// sets are two buffer sets, one per piece in flight: set[i] holds the
	// inputs then the output.
	sets [2][]*wgpu.Buffer
	// host are the two sets in host memory where the kernels read and
	// write pieces in place (Context.HostPieces; runner_host.go).
	host [2][]*wgpu.HostBuffer
	// gather is the host memory a Gather reads a piece's output from,
	// kept from piece to piece and call to call.
	gather []byte
}

// NewRunner returns a Runner on c. It holds no device memory until its
// first Run.
func NewRunner(c *wgpu.Context) *Runner { return &Runner{ctx: c} }

// Run runs j on c with a Runner of its own and releases its buffers.
func Run(c *wgpu.Context, j Job) (wgpu.Timing, error) {
	r := NewRunner(c)
	defer r.Release()
	return r.Run(j)
}

// Release frees the Runner's buffers; it may be used again after.
func (r *Runner) Release() {
	for i := range r.sets {
		for _, b := range r.sets[i] {
			b.Release()
		}
		r.sets[i] = nil
		for _, h := range r.host[i] {
			h.Release()
		}
		r.host[i] = nil
	}
	r.gather = nil
}

// SubmitTarget is how long one submission should take at most, for every
// kind of work that splits into submissions (a Runner's pieces, eigen's
// rounds): well short
// of the watchdogs that reset a GPU whose submission runs for seconds
// (Windows' 2 s) and of slow adapters' timeouts, long enough that the cost
// of a submission is noise.
const SubmitTarget = 250 * time.Millisecond

// firstPiece is the most items the first piece of a job takes: small
// enough that even a software adapter finishes it quickly; later pieces
// grow or shrink toward SubmitTarget.
const firstPiece = 1 << 16

// PieceItems is how many items of the given per-item sizes (bytes, one per
// binding) one piece may hold: every binding within the device's storage
// binding and buffer limits, and at most 2^31 items so that a kernel can
// index them with u32. It is zero when one item does not fit.
func PieceItems(l wgpu.Limits, itemBytes ...int) int {
	maxBytes := l.Binding()
	n := uint64(1 << 31)
	for _, b := range itemBytes {
		if b > 0 {
			n = min(n, maxBytes/uint64(b))
		}
	}
	return int(n)
}

// errNilContext is Run's error on a nil Context, the CPU backend, which
// algorithms handle before they reach this layer (wgpu's own words).
var errNilContext = errors.New("nil Context (the CPU backend has no device; open one with wgpu.Open)")

// Run runs b and returns the kernels' timing summed over its pieces.
func (r *Runner) Run(b Job) (total wgpu.Timing, err error) {
	c := r.ctx
	if c == nil {
		return total, fmt.Errorf("sched: %s: %w", b.Label, errNilContext)
	}
	if b.Count < 0 {
		return total, fmt.Errorf("sched: %s: negative item count %d", b.Label, b.Count)
	}
	if b.Count == 0 {
		return total, nil
	}
	if b.Dispatches == nil {
		return total, fmt.Errorf("sched: %s: the job has no Dispatches", b.Label)
	}
	sizes := make([]int, 0, len(b.Inputs)+1)
	for i, in := range b.Inputs {
		if in.ItemBytes <= 0 || in.ItemBytes%4 != 0 || len(in.Data) != b.Count*in.ItemBytes {
			return total, fmt.Errorf("sched: %s: input %d has %d bytes for %d items of %d bytes (item sizes must be positive multiples of 4)", b.Label, i, len(in.Data), b.Count, in.ItemBytes)
		}
		sizes = append(sizes, in.ItemBytes)
	}
	out := b.Output
	if out.ItemBytes <= 0 || out.ItemBytes%4 != 0 || (out.Gather == nil && len(out.Data) != b.Count*out.ItemBytes) {
		return total, fmt.Errorf("sched: %s: output has %d bytes for %d items of %d bytes (item sizes must be positive multiples of 4)", b.Label, len(out.Data), b.Count, out.ItemBytes)
	}
	sizes = append(sizes, out.ItemBytes)
	guard := 0
	if b.Guard {
		guard = 1
	}
	limit := PieceItems(c.Limits(), sizes...) - guard
	if limit <= 0 {
		return total, fmt.Errorf("sched: %s: one item (%v bytes per binding) does not fit the device's storage binding limit of %d bytes", b.Label, sizes, c.Limits().MaxStorageBindingSize)
	}
	if b.MaxItems > 0 {
		limit = min(limit, b.MaxItems)
	}
	limit = min(limit, b.Count)
	// Each piece's read-back is queued right after its kernels end and
	// before the next piece's kernels, and copied out while they run: one
	// queue runs copies and kernels in order, so a read-back queued after
	// the next kernels would wait for them. A piece's inputs and output
	// each fit the staging ring, so that all of a read-back is queued at
	// once and the next upload fills staging while the kernels run.
	ring := int(c.StagingRingBytes())
	for _, sz := range sizes {
		limit = min(limit, max(1, ring/sz-guard))
	}
	var guardItem []byte
	if guard > 0 {
		guardItem = bytes.Repeat([]byte{0xA5, 0x5A, 0xC3, 0x3C}, out.ItemBytes/4)
	}
	if c.HostPieces() {
		return r.runHost(b, sizes, limit, guardItem)
	}
	// The second set is made only when a second piece needs it: a job
	// of one piece allocates one set.
	if err := r.reserve(0, b.Label, sizes, limit+guard); err != nil {
		return total, err
	}

	type inflight struct {
		p     *wgpu.Pending
		out   *wgpu.Buffer // the piece's output
		lo, n int
	}
	var prev *inflight
	// collect waits for f's kernels and queues its read-back; the returned
	// function copies it out.
	collect := func(f *inflight) (func() (time.Duration, error), error) {
		t, err := f.p.Wait()
		total = total.Add(t)
		if err != nil {
			return nil, fmt.Errorf("items %d..%d: %w", f.lo, f.lo+f.n, err)
		}
		size := f.n * out.ItemBytes
		var dst []byte
		if out.Gather != nil || guard > 0 {
			if len(r.gather) < size+guard*out.ItemBytes {
				r.gather = make([]byte, size+guard*out.ItemBytes)
			}
			dst = r.gather[:size+guard*out.ItemBytes]
		} else {
			dst = out.Data[f.lo*out.ItemBytes:][:size]
		}
		d, err := c.StartDownload(dst, f.out, 0)
		if err != nil {
			return nil, fmt.Errorf("items %d..%d: %w", f.lo, f.lo+f.n, err)
		}
		return func() (time.Duration, error) {
			if err := d.Finish(); err != nil {
				return 0, fmt.Errorf("items %d..%d: %w", f.lo, f.lo+f.n, err)
			}
			if guard > 0 {
				if got := dst[size:]; !bytes.Equal(got, guardItem) {
					return 0, fmt.Errorf("sched: %s: a kernel wrote past the %d items of its piece (guard item now % x)", b.Label, f.n, got)
				}
				dst = dst[:size]
				if out.Gather == nil {
					copy(out.Data[f.lo*out.ItemBytes:], dst)
				}
			}
			if out.Gather != nil {
				out.Gather(f.lo, f.n, dst)
			}
			return t.Elapsed(), nil
		}, nil
	}
	defer func() {
		if prev != nil {
			prev.p.Wait() // every submission is waited for, even after an error
		}
	}()
	piece := min(limit, firstPiece)
	for lo, i := 0, 0; lo < b.Count; i++ {
		n := min(piece, b.Count-lo)
		if i == 1 {
			if err := r.reserve(1, b.Label, sizes, limit+guard); err != nil {
				return total, err
			}
		}
		set := r.sets[i%2]
		bind := make([]wgpu.Binding, 0, len(sizes)+len(b.Extra))
		for k, in := range b.Inputs {
			if err := c.Upload(set[k], 0, in.Data[lo*in.ItemBytes:(lo+n)*in.ItemBytes]); err != nil {
				return total, fmt.Errorf("items %d..%d: %w", lo, lo+n, err)
			}
			bind = append(bind, wgpu.Binding{Buffer: set[k], Size: uint64(n * in.ItemBytes)})
		}
		ob := set[len(b.Inputs)]
		if guard > 0 {
			if err := c.Upload(ob, uint64(n*out.ItemBytes), guardItem); err != nil {
				return total, fmt.Errorf("guard: %w", err)
			}
		}
		bind = append(bind, wgpu.Binding{Buffer: ob, Size: uint64(n * out.ItemBytes)})
		bind = append(bind, b.Extra...)
		var copyOut func() (time.Duration, error)
		last := prev // the piece copyOut brings back
		if last != nil {
			prev = nil
			var err error
			if copyOut, err = collect(last); err != nil {
				return total, err
			}
		}
		p, err := c.Submit(b.Dispatches(n, bind)...)
		if err == nil {
			prev = &inflight{p: p, out: ob, lo: lo, n: n}
		}
		if copyOut != nil {
			took, cerr := copyOut()
			if err == nil {
				err = cerr
			}
			if err == nil {
				piece = nextPiece(piece, last.n, took, limit)
			}
		}
		if err != nil {
			return total, fmt.Errorf("items %d..%d: %w", lo, lo+n, err)
		}
		lo += n
	}
	f := prev
	prev = nil
	copyOut, err := collect(f)
	if err != nil {
		return total, err
	}
	_, err = copyOut()
	return total, err
}

// nextPiece scales the piece size toward half of SubmitTarget from the
// last piece's duration, in proportion (up to 256 times larger at once, so
// a fast GPU reaches its limit-sized pieces after one small piece).
func nextPiece(piece, lastN int, took time.Duration, limit int) int {
	aim := float64(SubmitTarget / 2)
	switch {
	case took > SubmitTarget && lastN > 1:
		return max(1, int(float64(lastN)*aim/float64(took)))
	case took < SubmitTarget/4 && lastN == piece:
		scale := 256.0
		if took > 0 {
			scale = min(scale, aim/float64(took))
		}
		return int(min(float64(limit), float64(piece)*scale))
	}
	return piece
}

// reserve makes buffer set s hold count items of each size, keeping
// buffers that are large enough already.
func (r *Runner) reserve(s int, label string, sizes []int, count int) error {
	set, err := reserveSet(r.sets[s], sizes, count, (*wgpu.Buffer).Size, func(k int, need uint64) (*wgpu.Buffer, error) {
		return r.ctx.NewBuffer(fmt.Sprintf("%s binding %d", label, k), need)
	}, (*wgpu.Buffer).Release)
	r.sets[s] = set
	if err != nil {
		return fmt.Errorf("sched: %s: %w", label, err)
	}
	return nil
}

// reserveSet makes set, one buffer per binding, hold count items of each
// of sizes: a buffer large enough already is kept, a smaller one released
// and replaced by one that create makes for binding k. On an error the set
// holds what it held or was given so far.
func reserveSet[T any](set []T, sizes []int, count int, size func(T) uint64, create func(k int, need uint64) (T, error), release func(T)) ([]T, error) {
	for k, sz := range sizes {
		need := uint64(count * sz)
		if k < len(set) && size(set[k]) >= need {
			continue
		}
		b, err := create(k, need)
		if err != nil {
			return set, err
		}
		if k < len(set) {
			release(set[k])
			set[k] = b
		} else {
			set = append(set, b)
		}
	}
	return set, nil
}
