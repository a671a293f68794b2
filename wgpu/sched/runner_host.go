package sched

import (
	"bytes"
	"fmt"
	"time"

	"github.com/wgcompute/wgcompute/wgpu"
)

// A Runner's pieces in host memory (wgpu.HostBuffer, where the Context's
// RunnerOptions.Memory puts them: Context.HostPieces). wgpu-native runs
// copies and kernels one after the other on its one queue; with the
// pieces in host memory the kernels read the inputs and write the output
// across the bus, and while they run the host copies out the previous
// piece's output and fills the next piece's inputs in the other set. The
// kernels and WGSL are the same in both modes.

// reserveHost makes host set s hold count items of each size, keeping
// buffers that are large enough already.
func (r *Runner) reserveHost(s int, label string, sizes []int, count int) error {
	set, err := reserveSet(r.host[s], sizes, count, (*wgpu.HostBuffer).Size, func(k int, need uint64) (*wgpu.HostBuffer, error) {
		return r.ctx.NewHostBuffer(fmt.Sprintf("%s host binding %d", label, k), need)
	}, (*wgpu.HostBuffer).Release)
	r.host[s] = set
	if err != nil {
		return fmt.Errorf("sched: %s: %w", label, err)
	}
	return nil
}

// unmapHost unmaps every host buffer of r, so that a failed Run leaves
// none mapped; it returns the first error.
func (r *Runner) unmapHost() error {
	var first error
	for _, set := range r.host {
		for _, h := range set {
			if err := h.Unmap(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// runHost is Run with the pieces in host memory: b has been checked, and
// limit is the most items of one piece.
func (r *Runner) runHost(b Job, sizes []int, limit int, guardItem []byte) (total wgpu.Timing, err error) {
	c := r.ctx
	out := b.Output
	guard := 0
	if guardItem != nil {
		guard = 1
	}
	type inflight struct {
		p          *wgpu.Pending
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
		h := r.host[f.set][len(b.Inputs)]
		m, err := h.Map()
		if err != nil {
			return 0, fmt.Errorf("items %d..%d: %w", f.lo, f.lo+f.n, err)
		}
		size := f.n * out.ItemBytes
		if guard > 0 {
			if got := m[size : size+len(guardItem)]; !bytes.Equal(got, guardItem) {
				return 0, fmt.Errorf("sched: %s: a kernel wrote past the %d items of its piece (guard item now % x)", b.Label, f.n, got)
			}
		}
		if out.Gather != nil {
			out.Gather(f.lo, f.n, m[:size])
		} else if err := h.Read(out.Data[f.lo*out.ItemBytes:][:size]); err != nil {
			return 0, fmt.Errorf("items %d..%d: %w", f.lo, f.lo+f.n, err)
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
		bind := make([]wgpu.Binding, 0, len(sizes)+len(b.Extra))
		for k, in := range b.Inputs {
			src := in.Data[lo*in.ItemBytes : (lo+n)*in.ItemBytes]
			endFill := wgpu.Span("sched: fill host piece")
			err := set[k].Write(0, src)
			endFill(int64(len(src)))
			if err != nil {
				return total, fmt.Errorf("items %d..%d: %w", lo, lo+n, err)
			}
			bind = append(bind, wgpu.Binding{Buffer: set[k].Buffer(), Size: uint64(len(src))})
		}
		ob := set[len(b.Inputs)]
		if guard > 0 {
			if err := ob.Write(uint64(n*out.ItemBytes), guardItem); err != nil {
				return total, fmt.Errorf("guard: %w", err)
			}
		}
		bind = append(bind, wgpu.Binding{Buffer: ob.Buffer(), Size: uint64(n * out.ItemBytes)})
		bind = append(bind, b.Extra...)
		for _, h := range set {
			if err := h.Unmap(); err != nil {
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
