package wgpu

import (
	"encoding/binary"
	"fmt"
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
	if err := c.mapSync(t.readback, gpu.MapMode_Read, 16, nil); err != nil {
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

// waitIdle waits until the queue has finished all submitted work. A single
// blocking Poll is not enough: wgpu 0.17 gives up waiting after 5 seconds
// and returns with the work still running (slow software adapters get
// there), and resources released after that crashed lavapipe. Callers
// hold c.mu, so no submission can join the queue meanwhile.
func (c *Context) waitIdle() error {
	deadline := time.Now().Add(idleTimeout)
	for !c.device.Poll(true, nil) {
		if time.Now().After(deadline) {
			return fmt.Errorf("the device has not finished its work in %v", idleTimeout)
		}
	}
	return nil
}

// mapSync maps buf and waits for the mapping, polling the device. With a
// submission index it waits only for that submission. Callers hold c.mu.
func (c *Context) mapSync(buf *gpu.Buffer, mode gpu.MapMode, size uint64, idx *gpu.SubmissionIndex) error {
	var status gpu.BufferMapAsyncStatus
	done := false
	if err := buf.MapAsync(mode, 0, size, func(s gpu.BufferMapAsyncStatus) { status, done = s, true }); err != nil {
		return err
	}
	var wrapped *gpu.WrappedSubmissionIndex
	if idx != nil {
		wrapped = &gpu.WrappedSubmissionIndex{Queue: c.queue, SubmissionIndex: *idx}
	}
	deadline := time.Now().Add(mapTimeout)
	for !done {
		c.device.Poll(true, wrapped)
		wrapped = nil
		if !done && time.Now().After(deadline) {
			return errMapTimeout
		}
	}
	if status != gpu.BufferMapAsyncStatus_Success {
		return fmt.Errorf("map buffer: %v", status)
	}
	return nil
}
