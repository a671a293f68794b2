package sched_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// TestGroupWarm: Warm keeps every member busy for the time asked, all at
// once, and the kernel time it runs shows in each member's KernelTimes.
func TestGroupWarm(t *testing.T) {
	gputest.ForEachGroup(t, func(t *testing.T, g *sched.Group) {
		before := g.KernelTimes()
		require.Len(t, before, g.Len())
		const d = 40 * time.Millisecond
		start := time.Now()
		require.NoError(t, g.Warm(d))
		took := time.Since(start)
		require.GreaterOrEqual(t, took, d)
		after := g.KernelTimes()
		for i, c := range g.Contexts() {
			require.GreaterOrEqual(t, after[i], before[i], "member %d", i)
			if c.Info().Timestamps {
				require.Greater(t, after[i], before[i], "member %d ran kernels", i)
			}
		}
	})
}

// TestGroupWarmCPU: a Group of the CPU backend has nothing to warm and no
// kernel time.
func TestGroupWarmCPU(t *testing.T) {
	g, err := sched.NewGroup(nil, nil)
	require.NoError(t, err)
	require.NoError(t, g.Warm(time.Second))
	require.Equal(t, []time.Duration{0, 0}, g.KernelTimes())
}

// TestGroupSetup: Setup runs once per member, all at once.
func TestGroupSetup(t *testing.T) {
	g, err := sched.NewGroup(nil, nil, nil)
	require.NoError(t, err)
	var mu sync.Mutex
	seen := map[int]int{}
	var running, most int
	require.NoError(t, g.Setup(func(member int, _ *wgpu.Context) error {
		mu.Lock()
		seen[member]++
		running++
		most = max(most, running)
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		running--
		mu.Unlock()
		return nil
	}))
	require.Equal(t, map[int]int{0: 1, 1: 1, 2: 1}, seen)
	require.Equal(t, 3, most, "the members set up at once")
}

// TestLearntMinimum: the prior until both times are known, then
// shareRoundTrips round trips' worth of items, within fitClamp of the
// prior.
func TestLearntMinimum(t *testing.T) {
	us := time.Microsecond
	for _, c := range []struct {
		prior              int
		perItem, roundTrip time.Duration
		want               int
	}{
		{1 << 16, 0, 100 * us, 1 << 16},
		{1 << 16, time.Nanosecond, 0, 1 << 16},
		{0, time.Nanosecond, 100 * us, 0},
		{1 << 16, 10 * time.Nanosecond, 100 * us, 80000},
		{1 << 16, 11 * time.Nanosecond, 100 * us, 72728}, // rounded up
		{1 << 16, time.Second, 100 * us, 1 << 12},        // clamped below
		{1 << 16, time.Nanosecond, time.Second, 1 << 20}, // clamped above
		{10, time.Second, time.Nanosecond, 1},
	} {
		require.Equal(t, c.want, sched.LearntMinimum(c.prior, c.perItem, c.roundTrip), "%+v", c)
	}
}

// TestGroupFitFor: FitFor decides as Fit until the members have timed the
// work, then from what they measured: slow items spread over more members
// than the prior gives them, fast ones over fewer.
func TestGroupFitFor(t *testing.T) {
	gputest.ForEachGroup(t, func(t *testing.T, all *sched.Group) {
		g, err := sched.NewGroup(all.Contexts()...)
		require.NoError(t, err)
		k := g.Len()
		for _, c := range g.Contexts() {
			if !c.Info().Timestamps {
				t.Skip("no timestamp queries: no round trip is learnt")
			}
		}
		require.NoError(t, g.Warm(time.Millisecond)) // a measured wait on each
		const prior = 1600
		slow, fast := new(int), new(int)
		require.Equal(t, g.Fit(250, prior).Len(), g.FitFor(slow, 250, prior).Len(), "nothing learnt: the prior")
		for i := range k {
			g.Learn(slow, i, 10, wgpu.Timing{Kernel: 10 * time.Second, Measured: true})
			g.Learn(fast, i, 1e9, wgpu.Timing{Kernel: time.Second, Measured: true})
			g.Learn(fast, i, 0, wgpu.Timing{Kernel: time.Hour, Measured: true}) // an empty share teaches nothing
		}
		// Slow items: the minimum falls to prior/16 = 100.
		require.Equal(t, 1, g.Fit(250, prior).Len())
		require.Equal(t, min(k, 2), g.FitFor(slow, 250, prior).Len())
		// Fast items: it rises to 16 × prior, where any round trip above
		// 3.2 µs puts it.
		require.Equal(t, k, g.Fit(prior*16*k-1, prior).Len())
		require.Equal(t, max(1, k-1), g.FitFor(fast, prior*16*k-1, prior).Len())
		require.Equal(t, k, g.SplitAll().FitFor(fast, 1, prior).Len(), "SplitAll keeps every member")
	})
}
