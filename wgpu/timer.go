package wgpu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"time"

	gpu "github.com/oliverbestmann/webgpu/wgpu"
)

// timer brackets a run with two GPU timestamps, written by its first and
// last compute pass; ticks are scaled by the queue's timestamp period.
type timer struct {
	set        *gpu.QuerySet
	resolveBuf *gpu.Buffer
	readback   *gpu.Buffer
}

func newTimer(dev *gpu.Device) (*timer, error) {
	set, err := dev.TryCreateQuerySet(&gpu.QuerySetDescriptor{Label: "timing", Type: gpu.QueryTypeTimestamp, Count: 2})
	if err != nil {
		return nil, err
	}
	res, err := dev.TryCreateBuffer(&gpu.BufferDescriptor{Label: "timing resolve", Usage: gpu.BufferUsageQueryResolve | gpu.BufferUsageCopySrc, Size: 16})
	if err != nil {
		set.Release()
		return nil, err
	}
	rb, err := dev.TryCreateBuffer(&gpu.BufferDescriptor{Label: "timing read", Usage: gpu.BufferUsageMapRead | gpu.BufferUsageCopyDst, Size: 16})
	if err != nil {
		set.Release()
		res.Release()
		return nil, err
	}
	return &timer{set: set, resolveBuf: res, readback: rb}, nil
}

func (t *timer) resolve(enc *gpu.CommandEncoder) error {
	if err := enc.TryResolveQuerySet(t.set, 0, 2, t.resolveBuf, 0); err != nil {
		return err
	}
	return enc.TryCopyBufferToBuffer(t.resolveBuf, 0, t.readback, 0, 16)
}

func (t *timer) read(c *Context) (time.Duration, error) {
	if err := c.mapSync(t.readback, gpu.MapModeRead, 16); err != nil {
		return 0, err
	}
	b := t.readback.GetMappedRange(0, 16)
	start, end := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	if err := t.readback.TryUnmap(); err != nil {
		return 0, err
	}
	if end < start {
		return 0, nil
	}
	return time.Duration(float64(end-start) * c.info.TimestampPeriod), nil
}

func (t *timer) release() {
	t.set.Release()
	t.resolveBuf.Release()
	t.readback.Release()
}

// ErrWaitLimit is wrapped by the error of a wait that gave up because the
// queue finished no submission within the bound Options.WaitLimit sets.
// The device was not reported lost: it may only be slow, the Context can
// still be used, and a later wait may well succeed.
var ErrWaitLimit = errors.New("wgpu: the device did not answer within the wait limit")

// pollUntil polls the device without blocking until done reports true or
// the device is lost, whatever the time that takes: a slow device (a
// software adapter under load) is not a lost one, and a wait that ends
// early only loses the caller's work. Only a Context opened with a
// WaitLimit gives up, when the queue has finished no submission for
// WaitLimit times the dispatches of the oldest one still running (see
// Options.WaitLimit): the bound follows the work submitted.
//
// A kernel that hangs without the driver reporting the device lost is
// waited for unless the caller set a WaitLimit: GPU watchdogs report a
// hung kernel as a lost device. The blocking Poll is never used: no
// WaitLimit could bound it (wgpu 0.17's gave up after 5 seconds and
// returned as if the work were done), and it aborts the process on a lost
// device, where polling notices the loss.
func (c *Context) pollUntil(done func() bool) error {
	start := time.Now()
	answered := start // when the queue last finished a submission
	probed := start
	pause := time.Duration(0)
	for {
		// Never poll a lost device: wgpu-native aborts the process.
		if err := c.native.lostError(); err != nil {
			return err
		}
		c.poll()
		// The poll may have delivered the loss, and a loss can complete a
		// wait (a destroyed buffer's mapping ends).
		if err := c.native.lostError(); err != nil {
			return err
		}
		if done() {
			return nil
		}
		now := time.Now()
		if now.Sub(probed) >= probeEvery {
			probed = now
			if err := c.probeLost(); err != nil {
				return err
			}
		}
		if c.retire() {
			answered = now
		}
		if c.waitLimit > 0 && len(c.running) > 0 {
			if bound := c.waitLimit * time.Duration(c.running[0]); now.Sub(answered) >= bound {
				return fmt.Errorf("%w: a submission of %d dispatches did not finish in %v (%s %v per dispatch), and the device was not reported lost (it may be slow: raise or clear %[4]s; the Context can still be used)",
					ErrWaitLimit, c.running[0], bound, c.waitLimitName, c.waitLimit)
			}
		}
		// Most waits are short: poll back to back for the first
		// milliseconds (a sleep's wake-up alone costs tens of microseconds
		// and overshoots), then sleep briefly, so that a long submission
		// costs no core and is seen done within a fifth of a millisecond.
		if now.Sub(start) < spinFor {
			runtime.Gosched()
			continue
		}
		pause = min(max(pause*2, 25*time.Microsecond), 200*time.Microsecond)
		time.Sleep(pause)
	}
}

// submitted records a submission of the given number of dispatches just
// made (a copy counts as one). Callers hold c.mu.
func (c *Context) submitted(dispatches int) {
	c.native.submitted(c.queue)
	c.retire()
	c.running = append(c.running, max(1, dispatches))
}

// retire takes the submissions the queue has finished off c.running and
// reports whether there were any.
func (c *Context) retire() bool {
	_, finished := c.native.progress()
	n := min(int(finished-c.retired), len(c.running))
	if n <= 0 {
		return false
	}
	c.running = c.running[n:]
	c.retired += uint64(n)
	return true
}

// spinFor is how long a wait polls without sleeping.
const spinFor = 3 * time.Millisecond

// probeEvery is how often a long wait asks the device whether it is lost
// (probeLost).
const probeEvery = 20 * time.Millisecond

// probeLost returns an ErrDeviceLost error if a call on the device fails
// saying that it is lost. wgpu finishes the work a destroyed device was
// running (TestDeviceLost destroys one) and calls its device-lost
// callback only from a later call: without one, a wait would see the loss
// only once that work is done (TestWaitDeviceLost). An encoder is the
// cheapest object to ask for; any other failure is left to the wait's own
// calls.
func (c *Context) probeLost() error {
	enc, err := c.device.TryCreateCommandEncoder(nil)
	if err != nil {
		if err := c.lostFrom(err); errors.Is(err, ErrDeviceLost) {
			return err
		}
		return nil
	}
	enc.Release()
	return nil
}

// waitIdle waits until the queue has finished all submitted work: until
// the work-done callback of the last submission (wgc_submitted) has run.
// Callers hold c.mu, so no submission can join the queue meanwhile.
func (c *Context) waitIdle() error {
	submitted, _ := c.native.progress()
	return c.pollUntil(func() bool {
		_, finished := c.native.progress()
		return finished >= submitted
	})
}

// mapSync maps buf and waits for the mapping, polling the device. Callers
// hold c.mu.
func (c *Context) mapSync(buf *gpu.Buffer, mode gpu.MapMode, size uint64) error {
	var status gpu.MapAsyncStatus
	done := false
	if err := buf.TryMapAsync(mode, 0, size, func(s gpu.MapAsyncStatus) { status, done = s, true }); err != nil {
		return c.lostFrom(err)
	}
	if err := c.pollUntil(func() bool { return done }); err != nil {
		return fmt.Errorf("map buffer: %w", err)
	}
	if status != gpu.MapAsyncStatusSuccess {
		return c.lostFrom(fmt.Errorf("map buffer: %v", status))
	}
	// A destroyed device's mappings report success, and reading one
	// aborts the process: ask once more.
	return c.probeLost()
}

// KernelTime is the kernel time measured on c so far: the timestamp-query
// time of every submission waited for, summed (0 for the CPU backend, a
// nil Context, and adapters without timestamp queries). The difference of
// two calls is the device's kernel time in between, whatever ran.
func (c *Context) KernelTime() time.Duration {
	if c == nil {
		return 0
	}
	return time.Duration(c.kernelTime.Load())
}

// RoundTrip is the shortest host time a submission on c took beyond its
// kernels (wall minus kernel time, over every measured wait), 0 before
// the first: the fixed cost of a submission, which a Group weighs a
// member's share of work against (sched.Group.FitFor).
func (c *Context) RoundTrip() time.Duration {
	if c == nil {
		return 0
	}
	return time.Duration(c.roundTrip.Load())
}

// noteRoundTrip records a submission's host time beyond its kernels, of
// which c keeps the shortest (RoundTrip).
func (c *Context) noteRoundTrip(d time.Duration) {
	if d <= 0 {
		return
	}
	for {
		cur := c.roundTrip.Load()
		if cur != 0 && cur <= int64(d) {
			return
		}
		if c.roundTrip.CompareAndSwap(cur, int64(d)) {
			return
		}
	}
}
