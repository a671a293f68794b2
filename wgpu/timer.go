package wgpu

import (
	"encoding/binary"
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

// mapTimeout bounds a wait for a buffer mapping: a lost device is seen
// through its callback, but a device that hangs without being declared lost
// never completes a map, and without a bound that is a hang.
const mapTimeout = 2 * time.Minute

// idleTimeout bounds a wait for submitted work: long enough for any kernel
// we run on a software adapter, short of a hang.
const idleTimeout = 10 * time.Minute

var errMapTimeout = fmt.Errorf("map buffer: no answer from the device in %v (device lost?)", mapTimeout)

// pollUntil polls the device without blocking until done reports true,
// sleeping a little longer each time nothing has changed, up to limit.
// The blocking Poll is never used: it waits without limit, so a hung
// kernel would hang the caller with it (wgpu 0.17's gave up after 5 seconds
// and returned as if the work were done); polling also notices a lost
// device.
func (c *Context) pollUntil(limit time.Duration, done func(queueEmpty bool) bool) bool {
	start := time.Now()
	deadline := start.Add(limit)
	pause := time.Duration(0)
	for {
		// Never poll a lost device: wgpu-native aborts the process.
		if c.native.lostError() != nil {
			return false
		}
		if done(c.poll()) {
			return true
		}
		now := time.Now()
		if now.After(deadline) {
			return false
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

// spinFor is how long a wait polls without sleeping.
const spinFor = 3 * time.Millisecond

// waitIdle waits until the queue has finished all submitted work. Callers
// hold c.mu, so no submission can join the queue meanwhile.
func (c *Context) waitIdle() error {
	if !c.pollUntil(idleTimeout, func(empty bool) bool { return empty }) {
		if err := c.native.lostError(); err != nil {
			return err
		}
		return fmt.Errorf("the device has not finished its work in %v", idleTimeout)
	}
	return nil
}

// mapSync maps buf and waits for the mapping, polling the device. Callers
// hold c.mu.
func (c *Context) mapSync(buf *gpu.Buffer, mode gpu.MapMode, size uint64) error {
	var status gpu.MapAsyncStatus
	done := false
	if err := buf.TryMapAsync(mode, 0, size, func(s gpu.MapAsyncStatus) { status, done = s, true }); err != nil {
		return err
	}
	if !c.pollUntil(mapTimeout, func(bool) bool { return done }) {
		if err := c.native.lostError(); err != nil {
			return err
		}
		return errMapTimeout
	}
	if status != gpu.MapAsyncStatusSuccess {
		return fmt.Errorf("map buffer: %v", status)
	}
	return nil
}
