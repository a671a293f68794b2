package wgpu_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/internal/gputest"
	"github.com/wgcompute/wgcompute/wgpu"
)

// TestGroupWarm: Warm keeps every member busy for the time asked, all at
// once, and the kernel time it runs shows in each member's KernelTimes.
func TestGroupWarm(t *testing.T) {
	gputest.ForEachGroup(t, func(t *testing.T, g *wgpu.Group) {
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
	g, err := wgpu.NewGroup(nil, nil)
	require.NoError(t, err)
	require.NoError(t, g.Warm(time.Second))
	require.Equal(t, []time.Duration{0, 0}, g.KernelTimes())
}

// TestGroupSetup: Setup runs once per member, all at once.
func TestGroupSetup(t *testing.T) {
	g, err := wgpu.NewGroup(nil, nil, nil)
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
