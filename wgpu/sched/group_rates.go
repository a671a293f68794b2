package sched

import (
	"fmt"
	"math/bits"
	"strings"
	"sync"
	"time"

	"github.com/wgcompute/wgcompute/wgpu"
)

// probeBytes is what UploadRates uploads into each device: past the
// staging ring's first buffer, so that the rate is the ring's sustained
// one, yet a few milliseconds at the rates of PCIe.
const probeBytes = 48 << 20

// uploadRates holds UploadRates' measurements by the Group's members, so
// that each set of devices is measured once per process.
var uploadRates sync.Map // string (the members) -> map[int]float64

// UploadRates returns the bytes a second the host uploads into g's first
// member alone (key 1) and into all its members at once, together (key
// g.Len()), measured the first time a set of members is asked about:
// probeBytes into each (or the most a buffer of the smallest device
// holds), after a smaller upload that sets up the staging. A member that
// fails leaves its rate unknown (absent), as does a CPU member: the
// decisions that read the rates (whether a commitment splits over the
// Group) then keep the work on one device. The map is shared: callers
// only read it.
func (g *Group) UploadRates() map[int]float64 {
	var key strings.Builder
	for _, ctx := range g.members {
		if ctx == nil {
			return map[int]float64{}
		}
		fmt.Fprintf(&key, "%p,", ctx)
	}
	if r, ok := uploadRates.Load(key.String()); ok {
		return r.(map[int]float64)
	}
	defer wgpu.Span("sched: measure the upload rates")(0)
	out := map[int]float64{}
	size := uint64(probeBytes)
	for _, ctx := range g.members {
		size = min(size, ctx.Limits().MaxBufferSize&^3)
	}
	data := make([]byte, size)
	for _, k := range []int{1, g.Len()} {
		sub := g.Fit(k, 1)
		bufs := make([]*wgpu.Buffer, sub.Len())
		var elapsed time.Duration
		err := func() error {
			defer func() {
				for _, b := range bufs {
					if b != nil {
						b.Release()
					}
				}
			}()
			for i, ctx := range sub.members {
				var err error
				if bufs[i], err = ctx.NewBuffer("upload probe", size); err != nil {
					return err
				}
				if err := ctx.Upload(bufs[i], 0, data[:size/8]); err != nil {
					return err
				}
				if err := ctx.Wait(); err != nil {
					return err
				}
			}
			start := time.Now()
			err := sub.Split(sub.Len(), 1, func(i int, ctx *wgpu.Context, _, _ int) error {
				if err := ctx.Upload(bufs[i], 0, data); err != nil {
					return err
				}
				return ctx.Wait()
			})
			elapsed = time.Since(start)
			return err
		}()
		if err == nil && elapsed > 0 {
			out[k] = float64(sub.Len()) * float64(size) / elapsed.Seconds()
		}
	}
	uploadRates.Store(key.String(), out)
	return out
}

// SplitMargin is how much faster work split over a Group's devices must
// be predicted to be than on one device before it is split (SplitPays):
// the algorithms' predictions are rough (uploads and kernels never
// overlap perfectly), and a split predicted a few percent faster can
// measure slower.
const SplitMargin = 0.15

// SplitPays reports whether a split predicted to take split is worth
// making over one device, predicted to take one: faster by SplitMargin.
func SplitPays(one, split time.Duration) bool {
	return float64(split) < (1-SplitMargin)*float64(one)
}

// SplitCounts returns the counts of devices, past one, that work over a
// Group of k alike devices is weighed on: k, and where k is not a power
// of two, the power of two below it, over which work that splits into
// halves and quarters (a Merkle tree's subtrees) takes one even piece a
// device. The algorithms predict each and keep the fastest that
// SplitPays.
func SplitCounts(k int) []int {
	if k < 2 {
		return nil
	}
	if p := 1 << (bits.Len(uint(k)) - 1); p != k {
		return []int{p, k}
	}
	return []int{k}
}

// FastestCount returns the count of devices, of one and SplitCounts(k),
// that work over a Group of k alike devices is predicted fastest on by
// predict (false for a count it cannot predict), where that count's split
// SplitPays over one device; else 1. predict(1) must be known for any
// split to be chosen. No split predicted slower than one device, or than
// another count, is returned.
func FastestCount(k int, predict func(devices int) (time.Duration, bool)) int {
	one, ok := predict(1)
	if k <= 1 || !ok {
		return 1
	}
	best, bestTime := 1, one
	for _, j := range SplitCounts(k) {
		t, ok := predict(j)
		if ok && t < bestTime && SplitPays(one, t) {
			best, bestTime = j, t
		}
	}
	return best
}
