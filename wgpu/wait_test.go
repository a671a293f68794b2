//go:build !js

package wgpu

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// slowWGSL keeps each invocation busy for params.n steps of a recurrence
// no compiler can shorten. Mesa's software drivers stop an invocation
// after 65535 loop iterations (docs/PORTABILITY.md), so a longer wait
// takes more dispatches, not a larger n.
const slowWGSL = `
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
struct Params { n: u32 }
@group(0) @binding(1) var<uniform> params: Params;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	var x = id.x;
	for (var i = 0u; i < params.n; i++) {
		x = x * 1664525u + 1013904223u;
		x ^= x >> 13u;
	}
	out[id.x] = x;
}
`

// slowSteps is params.n: a dispatch of 64 workgroups takes 0.1-0.2 s on
// lavapipe and llvmpipe with two cores.
const slowSteps = 50000

// slowOut is what slowWGSL leaves in out[i].
func slowOut(i uint32) uint32 {
	x := i
	for range slowSteps {
		x = x*1664525 + 1013904223
		x ^= x >> 13
	}
	return x
}

// slowWork compiles slowWGSL on ctx and returns its output buffer and a
// function making dispatches for one submission of n dispatches.
func slowWork(t *testing.T, ctx *Context) (*Buffer, func(n int) []Dispatch) {
	t.Helper()
	k, err := ctx.Kernel(KernelSpec{Label: "slow", Module: rawModule{"slow", slowWGSL}, Entry: "main", Storage: 1, Uniform: true})
	require.NoError(t, err)
	out, err := ctx.NewBuffer("slow out", 64*64*4)
	require.NoError(t, err)
	return out, func(n int) []Dispatch {
		ds := make([]Dispatch, n)
		for i := range ds {
			ds[i] = Dispatch{Kernel: k, Bindings: []Binding{{Buffer: out}}, Params: []uint32{slowSteps}, Groups: [3]uint32{64, 1, 1}}
		}
		return ds
	}
}

// oneDispatch measures how long one dispatch of slowWGSL takes on ctx:
// the fastest and the slowest of three after one not counted (a first
// run's set-up), since a shared machine's load comes and goes.
func oneDispatch(t *testing.T, ctx *Context, work func(int) []Dispatch) (fastest, slowest time.Duration) {
	t.Helper()
	_, err := ctx.Run(work(1)...)
	require.NoError(t, err)
	for i := range 3 {
		start := time.Now()
		_, err := ctx.Run(work(1)...)
		require.NoError(t, err)
		d := time.Since(start)
		if i == 0 {
			fastest = d
		}
		fastest, slowest = min(fastest, d), max(slowest, d)
	}
	t.Logf("one dispatch: %v to %v", fastest, slowest)
	return fastest, slowest
}

// A wait ends when its work is done, however long that takes, while the
// device keeps within Options.WaitLimit per dispatch: a submission slower
// than the limit is waited for when it holds enough dispatches. A
// submission that runs past its bound ends the wait with ErrWaitLimit,
// which says the device was not reported lost, and the Context goes on
// working: a wait without the limit gets the submission's result. Vulkan
// only: wgpu's GL backend on llvmpipe runs a submission's kernels inside
// Submit, so no wait there is long.
func TestWaitLimit(t *testing.T) {
	ctx := openForTest(t, "vulkan")
	out, work := slowWork(t, ctx)
	fastest, slowest := oneDispatch(t, ctx, work)
	out.Release()
	require.NoError(t, ctx.Close())

	// Reopened (the parked device) with a limit of twice the slowest
	// dispatch, and one submission of sixteen, or of as many as last
	// three limits at the fastest dispatch's pace where the load made the
	// slowest far slower.
	limit := 2 * slowest
	n := max(16, int(3*limit/fastest)+1)
	o := TestOptions(t, "vulkan")
	o.WaitLimit, o.WaitLimitName = limit, "WGCOMPUTE_WAIT_LIMIT"
	ctx, err := Open(o)
	require.NoError(t, err)
	defer ctx.Close()
	require.Equal(t, limit, ctx.waitLimit)
	out, work = slowWork(t, ctx)
	defer out.Release()
	start := time.Now()
	_, err = ctx.Run(work(n)...)
	require.NoError(t, err)
	waited := time.Since(start)
	t.Logf("%d dispatches, limit %v: waited %v", n, limit, waited)
	require.Greater(t, waited, limit, "the submission outlasted the limit (else this test shows nothing)")

	// Twelve against a quarter of the fastest each: three dispatches'
	// time for the twelve.
	ctx.waitLimit = fastest / 4
	p, err := ctx.Submit(work(12)...)
	require.NoError(t, err)
	start = time.Now()
	_, err = p.Wait()
	t.Logf("gave up after %v: %v", time.Since(start), err)
	require.ErrorIs(t, err, ErrWaitLimit)
	require.False(t, errors.Is(err, ErrDeviceLost), "%v", err)
	require.Contains(t, err.Error(), "not reported lost")
	require.Contains(t, err.Error(), "raise or clear WGCOMPUTE_WAIT_LIMIT", "the error names the setting the user gave")
	require.Less(t, time.Since(start), 8*slowest, "gave up at the bound, not at the end of the work")
	require.NoError(t, ctx.native.lostError())
	ctx.waitLimit = 0
	require.NoError(t, ctx.Wait())
	got := make([]byte, 64*64*4)
	require.NoError(t, ctx.Download(got, out, 0))
	for _, i := range []uint32{0, 3, 4095} {
		require.Equal(t, slowOut(i), binary.LittleEndian.Uint32(got[4*i:]), "out[%d]", i)
	}
}

// A device lost while a wait runs (destroyed, as a driver reset would) ends
// the wait with ErrDeviceLost long before the work it waited for would
// have finished, without a wait limit. Vulkan only, as TestWaitLimit. The
// submission holds at least 12 dispatches and at least 200 ms of them, so
// that on a fast GPU too (0.6 ms a dispatch on an H200) the work outlasts
// the few milliseconds a loss takes to be seen.
func TestWaitDeviceLost(t *testing.T) {
	ctx := openForTest(t, "vulkan")
	out, work := slowWork(t, ctx)
	fastest, slowest := oneDispatch(t, ctx, work)
	n := max(12, int(200*time.Millisecond/fastest))
	p, err := ctx.Submit(work(n)...)
	require.NoError(t, err)
	start := time.Now()
	go func() {
		time.Sleep(fastest / 2)
		ctx.destroyForTest()
	}()
	_, err = p.Wait()
	waited := time.Since(start)
	t.Logf("lost after %v of %d dispatches of %v to %v", waited, n, fastest, slowest)
	require.ErrorIs(t, err, ErrDeviceLost)
	require.Less(t, waited, time.Duration(n)*fastest/2, "the loss ends the wait, not the work")
	_, err = ctx.NewBuffer("after loss", 64)
	require.ErrorIs(t, err, ErrDeviceLost)
	out.Release()
	require.NoError(t, ctx.Close())
}

// A negative WaitLimit is refused, by the name the Options give it.
func TestWaitLimitSettings(t *testing.T) {
	_, err := Open(Options{Backend: "vulkan", WaitLimit: -time.Second})
	require.ErrorContains(t, err, "Options.WaitLimit -1s: accepted is 0")
	_, err = Open(Options{Backend: "vulkan", WaitLimit: -time.Second, WaitLimitName: "WGCOMPUTE_WAIT_LIMIT"})
	require.ErrorContains(t, err, "WGCOMPUTE_WAIT_LIMIT -1s: accepted is 0")
}
