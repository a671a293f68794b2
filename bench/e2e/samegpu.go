package main

import (
	"fmt"
	"slices"
	"time"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// sameGPU asks whether two devices opened on one GPU overlap what one
// device's single queue runs in turn: a batch's copies and its kernels.
// It times Poseidon2 and Rescue MergeMany of pairs merges from host memory
// on one device, and split over a Group of two devices of the same
// adapter, side by side, and checks that the digests agree.
func sameGPU(opts wgpu.Options, reps, pairs int) error {
	opts.Devices = ""
	var ctxs [2]*wgpu.Context
	for i := range ctxs {
		c, err := wgpu.Open(opts)
		if err != nil {
			return err
		}
		defer c.Close()
		ctxs[i] = c
	}
	fmt.Printf("two devices on %s (%s)\n", ctxs[0].Info().Name, ctxs[0].Info().Backend)
	one, err := sched.NewGroup(ctxs[0])
	if err != nil {
		return err
	}
	two, err := sched.NewGroup(ctxs[0], ctxs[1])
	if err != nil {
		return err
	}
	in := make([][8]uint64, pairs)
	for i := range in {
		in[i] = [8]uint64{uint64(i), uint64(i) * 3, 7, 11, 13, 17, 19, uint64(i) ^ 0xabc}
	}
	for _, c := range []struct {
		name string
		f    *batch.Family[uint64, [4]uint64, [8]uint64, [12]uint64]
	}{{"poseidon2", poseidon2.Batch}, {"rescue", rescue.Batch}} {
		var digests [2][][4]uint64
		var medians [2]time.Duration
		for k, g := range []*sched.Group{one, two} {
			dst := make([][4]uint64, pairs)
			call := func() error { return c.f.MergeMany(g.SplitAll(), dst, in, batch.Options{}) }
			if err := call(); err != nil {
				return err
			}
			times := make([]time.Duration, reps)
			for i := range times {
				start := time.Now()
				if err := call(); err != nil {
					return err
				}
				times[i] = time.Since(start)
			}
			slices.Sort(times)
			medians[k], digests[k] = times[reps/2], dst
		}
		if !slices.Equal(digests[0], digests[1]) {
			return fmt.Errorf("%s: two devices' digests differ from one's", c.name)
		}
		fmt.Printf("%s MergeMany %d pairs from host memory: one device %.2f ms, two devices on the GPU %.2f ms (%.2f×)\n",
			c.name, pairs, ms(medians[0]), ms(medians[1]), float64(medians[0])/float64(medians[1]))
	}
	return nil
}
