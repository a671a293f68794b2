package wgpu

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"time"

	gpu "github.com/rajveermalviya/go-webgpu/wgpu"
)

// timer brackets a run with two GPU timestamps. wgpu 0.17 exposes no
// timestamp period; Vulkan drivers we run on (NVIDIA, lavapipe) tick in
// nanoseconds, so ticks are read as nanoseconds.
type timer struct {
	set        *gpu.QuerySet
	resolveBuf *gpu.Buffer
	readback   *gpu.Buffer
}

func newTimer(dev *gpu.Device) (*timer, error) {
	set, err := dev.CreateQuerySet(&gpu.QuerySetDescriptor{Label: "timing", Type: gpu.QueryType_Timestamp, Count: 2})
	if err != nil {
		return nil, err
	}
	res, err := dev.CreateBuffer(&gpu.BufferDescriptor{Label: "timing resolve", Usage: gpu.BufferUsage_QueryResolve | gpu.BufferUsage_CopySrc, Size: 16})
	if err != nil {
		set.Release()
		return nil, err
	}
	rb, err := dev.CreateBuffer(&gpu.BufferDescriptor{Label: "timing read", Usage: gpu.BufferUsage_MapRead | gpu.BufferUsage_CopyDst, Size: 16})
	if err != nil {
		set.Release()
		res.Release()
		return nil, err
	}
	return &timer{set: set, resolveBuf: res, readback: rb}, nil
}

func (t *timer) resolve(enc *gpu.CommandEncoder) error {
	if err := enc.WriteTimestamp(t.set, 1); err != nil {
		return err
	}
	if err := enc.ResolveQuerySet(t.set, 0, 2, t.resolveBuf, 0); err != nil {
		return err
	}
	return enc.CopyBufferToBuffer(t.resolveBuf, 0, t.readback, 0, 16)
}

func (t *timer) read(c *Context) (time.Duration, error) {
	if err := c.mapSync(t.readback, gpu.MapMode_Read, 16); err != nil {
		return 0, err
	}
	b := t.readback.GetMappedRange(0, 16)
	start, end := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	if err := t.readback.Unmap(); err != nil {
		return 0, err
	}
	if end < start {
		return 0, nil
	}
	return time.Duration(end - start), nil
}

func (t *timer) release() {
	t.set.Release()
	t.resolveBuf.Release()
	t.readback.Release()
}

// mapTimeout bounds a wait for a buffer mapping. go-webgpu 0.17.1 cannot
// report a lost device (its callback's userdata breaks cgo's pointer rules),
// and a lost device's map never completes: without a bound that is a hang.
const mapTimeout = 2 * time.Minute

// idleTimeout bounds a wait for submitted work: long enough for any kernel
// we run on a software adapter, short of a hang.
const idleTimeout = 10 * time.Minute

var errMapTimeout = fmt.Errorf("map buffer: no answer from the device in %v (device lost?)", mapTimeout)

// pollUntil polls the device without blocking until done reports true,
// sleeping a little longer each time nothing has changed, up to limit.
// wgpu 0.17's blocking Poll is never used: it gives up after 5 seconds and
// returns as if the work were done, and what is released after that is
// still in use by the GPU (a crash in lavapipe's worker threads).
func (c *Context) pollUntil(limit time.Duration, done func(queueEmpty bool) bool) bool {
	start := time.Now()
	deadline := start.Add(limit)
	pause := time.Duration(0)
	for {
		if done(c.device.Poll(false, nil)) {
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
		return fmt.Errorf("the device has not finished its work in %v", idleTimeout)
	}
	return nil
}

// mapSync maps buf and waits for the mapping, polling the device. A map
// is only asked for right before waiting for it: go-webgpu 0.17.1 hands
// wgpu a pointer to a Go variable as the callback's userdata, so a map left
// pending while the garbage collector runs, or across Close, can fire its
// callback on freed memory. Callers hold c.mu.
func (c *Context) mapSync(buf *gpu.Buffer, mode gpu.MapMode, size uint64) error {
	var status gpu.BufferMapAsyncStatus
	done := false
	if err := buf.MapAsync(mode, 0, size, func(s gpu.BufferMapAsyncStatus) { status, done = s, true }); err != nil {
		return err
	}
	if !c.pollUntil(mapTimeout, func(bool) bool { return done }) {
		return errMapTimeout
	}
	if status != gpu.BufferMapAsyncStatus_Success {
		return fmt.Errorf("map buffer: %v", status)
	}
	return nil
}
