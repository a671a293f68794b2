package sched

import (
	"fmt"
	"time"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgsl"
)

// warmItems is how many invocations one warm-up dispatch runs at most:
// 4096 workgroups of 64, within every device's grid limit, about as many
// threads as a large GPU keeps resident at once, so every SM is busy.
const warmItems = 1 << 18

// warmSubmission is the length one warm-up submission grows to: long
// enough that a GPU's clock governor sees a busy device, short enough
// that Warm ends close to the time it was given.
const warmSubmission = 10 * time.Millisecond

// Warm keeps every member's GPU busy with arithmetic for about d, all
// members at once, and returns when each has run for d (at least one
// submission, which also compiles the warm-up kernel). An idle GPU sits
// at low clocks, and raises them only after some time under load, so a
// measurement or a split that starts on cold devices is paced by the
// slowest to wake; Warm is for callers that time work on a Group, or that
// split a large piece of work over devices that were idle. A nil member
// (the CPU backend) is skipped; a Context that is a member twice is
// warmed once for each.
func (g *Group) Warm(d time.Duration) error {
	return g.run(func(_ int, ctx *wgpu.Context) error {
		if ctx == nil {
			return nil
		}
		return warm(ctx, d)
	})
}

// warm is Warm on one device: dispatches of the warm-up kernel, each
// longer than the last (twice the rounds) until one takes warmSubmission,
// until d has passed.
func warm(c *wgpu.Context, d time.Duration) error {
	k, err := c.Kernel(wgpu.KernelSpec{
		Label:   "warm.wgsl:warm",
		Module:  wgsl.Module{Library: shaders, Files: []string{"warm.wgsl"}},
		Entry:   "warm",
		Storage: 1,
		Uniform: true,
	})
	if err != nil {
		return fmt.Errorf("warm: %w", err)
	}
	// One word per invocation, within the storage binding limit.
	items := min(warmItems, c.Limits().MaxStorageBindingSize/4)
	out, err := c.NewBuffer("warm", 4*items)
	if err != nil {
		return fmt.Errorf("warm: %w", err)
	}
	defer out.Release()
	groups := wgpu.Grid(items, 64, c.Limits().MaxWorkgroupsPerDimension)
	rounds := uint32(64)
	for start := time.Now(); ; {
		t, err := c.Run(wgpu.Dispatch{Kernel: k, Bindings: []wgpu.Binding{wgpu.Bind(out)}, Params: []uint32{rounds}, Groups: groups})
		if err != nil {
			return fmt.Errorf("warm: %w", err)
		}
		if time.Since(start) >= d {
			return nil
		}
		if t.Wall < warmSubmission && rounds < 1<<24 {
			rounds *= 2
		}
	}
}
