// Package webbench holds measurements that the web page's measurement mode
// (cmd/wgweb) and the native build run as the same code, so that a number
// from the browser and one from lavapipe differ only in the path to the
// GPU: the browser's goes through JavaScript and Dawn, the native one
// through cgo and wgpu-native.
package webbench

import (
	"errors"
	"fmt"
	"time"

	"github.com/wgcompute/wgcompute/algos/field/u64emu"
	"github.com/wgcompute/wgcompute/wgpu"
)

// Dispatches is what DispatchCost measured.
type Dispatches struct {
	// Submission is the best time of a submission of one dispatch: its
	// recording, its parameters' upload, the submit and the wait for it.
	Submission time.Duration
	// PerDispatch is what each further dispatch of the same submission
	// adds: the best time of N dispatches less Submission, over N-1.
	PerDispatch time.Duration
	// N is the dispatches of the long submission.
	N int
}

// DispatchCost runs the smallest kernel there is (u64emu's k_add over 256
// zeros, one workgroup) as one dispatch and as n dispatches in one
// submission, each reps times, and returns the best times. n must be at
// least 2 and reps at least 1.
func DispatchCost(ctx *wgpu.Context, n, reps int) (Dispatches, error) {
	if ctx == nil {
		return Dispatches{}, errors.New("webbench: DispatchCost needs a GPU Context, got the CPU backend")
	}
	if n < 2 || reps < 1 {
		return Dispatches{}, fmt.Errorf("webbench: DispatchCost(n = %d, reps = %d): n must be at least 2 and reps at least 1", n, reps)
	}
	k, err := u64emu.AddKernel(ctx)
	if err != nil {
		return Dispatches{}, fmt.Errorf("webbench: %w", err)
	}
	const elems = 256 // one workgroup
	var bufs [3]*wgpu.Buffer
	defer func() {
		for _, b := range bufs {
			b.Release()
		}
	}()
	for i := range bufs {
		if bufs[i], err = ctx.NewBuffer("webbench", elems*8); err != nil {
			return Dispatches{}, fmt.Errorf("webbench: %w", err)
		}
	}
	d := wgpu.Dispatch{Kernel: k, Bindings: []wgpu.Binding{wgpu.Bind(bufs[0]), wgpu.Bind(bufs[1]), wgpu.Bind(bufs[2])},
		Params: []uint32{elems, 0}, Groups: [3]uint32{1, 1, 1}}
	ds := make([]wgpu.Dispatch, n)
	for i := range ds {
		ds[i] = d
	}
	best := func(ds []wgpu.Dispatch) (time.Duration, error) {
		b := time.Duration(1<<63 - 1)
		for r := -1; r < reps; r++ { // after a warm-up
			start := time.Now()
			if _, err := ctx.Run(ds...); err != nil {
				return 0, fmt.Errorf("webbench: %d dispatches: %w", len(ds), err)
			}
			if t := time.Since(start); r >= 0 {
				b = min(b, t)
			}
		}
		return b, nil
	}
	one, err := best(ds[:1])
	if err != nil {
		return Dispatches{}, err
	}
	all, err := best(ds)
	if err != nil {
		return Dispatches{}, err
	}
	return Dispatches{Submission: one, PerDispatch: max(all-one, 0) / time.Duration(n-1), N: n}, nil
}
