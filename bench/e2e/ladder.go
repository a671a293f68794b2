package main

import (
	"fmt"
	"slices"
	"time"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// ladder times the library's several-GPU calls from host memory over a
// ladder of sizes (2^12 to 2^maxLog items), on the first device alone and
// on the whole Group, side by side: a Group must never be slower than its
// first device (Group.Fit and the split decide), and the ratio shows where
// a second device pays.
func ladder(opts wgpu.Options, reps, maxLog int) error {
	g, err := openGroup(opts)
	if err != nil {
		return err
	}
	defer g.Close()
	all := g.Contexts()
	one, err := sched.NewGroup(all[0])
	if err != nil {
		return err
	}
	median := func(call func() error) (time.Duration, error) {
		if err := call(); err != nil { // warm-up: compiles, buffers
			return 0, err
		}
		times := make([]time.Duration, reps)
		for i := range times {
			start := time.Now()
			if err := call(); err != nil {
				return 0, err
			}
			times[i] = time.Since(start)
		}
		slices.Sort(times)
		return times[len(times)/2], nil
	}
	leaves := make([][32]byte, 1<<maxLog)
	for i := range leaves {
		leaves[i][0], leaves[i][1], leaves[i][2] = byte(i), byte(i>>8), byte(i>>16)
	}
	pairs := make([][8]uint64, 1<<maxLog)
	for i := range pairs {
		pairs[i] = [8]uint64{uint64(i), uint64(i) * 3, 7, 11, 13, 17, 19, uint64(i) ^ 0xabc}
	}
	dst := make([][4]uint64, 1<<maxLog)
	fmt.Printf("\n| call | size | 1 device, ms | %d devices, ms | speed-up |\n|---|---|---|---|---|\n", len(all))
	for _, c := range []struct {
		name string
		call func(g *sched.Group, n int) ([32]byte, error)
	}{
		{"merkle.Root on a Group, rescue", func(g *sched.Group, n int) ([32]byte, error) {
			return merkle.Root(g, leaves[:n], rescue.MerkleMerge{}, merkle.Options{})
		}},
		{"merkle.Root on a Group, blake3", func(g *sched.Group, n int) ([32]byte, error) {
			return merkle.Root(g, leaves[:n], blake3.MerkleMerge{}, merkle.Options{})
		}},
		{"rescue.Batch.MergeMany on a Group", func(g *sched.Group, n int) ([32]byte, error) {
			err := rescue.Batch.MergeMany(g, dst[:n], pairs[:n], batch.Options{})
			return [32]byte{byte(dst[n-1][0]), byte(dst[n/2][1])}, err
		}},
	} {
		for lg := 12; lg <= maxLog; lg++ {
			n := 1 << lg
			var roots [2][32]byte
			var times [2]time.Duration
			for i, grp := range []*sched.Group{one, g} {
				times[i], err = median(func() error {
					var err error
					roots[i], err = c.call(grp, n)
					return err
				})
				if err != nil {
					return fmt.Errorf("%s, 2^%d on %d device(s): %w", c.name, lg, grp.Len(), err)
				}
			}
			if roots[0] != roots[1] {
				return fmt.Errorf("%s, 2^%d: the Group's result differs from one device's", c.name, lg)
			}
			fmt.Printf("| %s | 2^%d | %.2f | %.2f | %.2f× |\n", c.name, lg, ms(times[0]), ms(times[1]), float64(times[0])/float64(times[1]))
		}
	}
	return nil
}
