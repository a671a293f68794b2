package sched_test

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

func TestGroupRanges(t *testing.T) {
	for _, members := range []int{1, 2, 3, 7} {
		ctxs := make([]*wgpu.Context, members)
		g, err := sched.NewGroup(ctxs...)
		require.NoError(t, err)
		for _, c := range []struct{ n, align int }{{0, 1}, {1, 1}, {5, 1}, {1000003, 1}, {1 << 20, 1024}, {3*1024 + 7, 1024}, {10, 0}} {
			b := g.Ranges(c.n, c.align)
			require.Len(t, b, members+1)
			require.Equal(t, 0, b[0])
			require.Equal(t, c.n, b[members], "%+v: the ranges cover [0, n)", c)
			for i := 0; i < members; i++ {
				require.LessOrEqual(t, b[i], b[i+1])
				if i > 0 && b[i] < c.n {
					require.Zero(t, b[i]%max(c.align, 1), "%+v: boundary %d aligned", c, i)
				}
				// As even as alignment allows: no range is more than one
				// unit (and a rounding) longer than another.
				require.LessOrEqual(t, b[i+1]-b[i], c.n/members+2*max(c.align, 1), "%+v: range %d", c, i)
			}
		}
	}
	_, err := sched.NewGroup()
	require.Error(t, err)
}

func TestGroupSplitAndEach(t *testing.T) {
	gputest.ForEachGroup(t, func(t *testing.T, g *sched.Group) {
		const n = 1000003
		seen := make([]int32, n)
		var mu sync.Mutex
		require.NoError(t, g.Split(n, 1, func(_ int, ctx *wgpu.Context, lo, hi int) error {
			mu.Lock()
			defer mu.Unlock()
			for i := lo; i < hi; i++ {
				seen[i]++
			}
			return nil
		}))
		for i, v := range seen {
			require.EqualValues(t, 1, v, "item %d", i)
		}
		// Each hands out every task once, the faster members taking more.
		counts := make([]int, 50)
		byMember := map[*wgpu.Context]int{}
		require.NoError(t, g.Each(len(counts), func(_ int, ctx *wgpu.Context, task int) error {
			if ctx != g.Contexts()[0] {
				time.Sleep(time.Millisecond)
			}
			mu.Lock()
			defer mu.Unlock()
			counts[task]++
			byMember[ctx]++
			return nil
		}))
		for task, c := range counts {
			require.Equal(t, 1, c, "task %d", task)
		}
		// An error names the device and stops new tasks.
		boom := errors.New("boom")
		started := 0
		err := g.Each(1000, func(_ int, ctx *wgpu.Context, task int) error {
			mu.Lock()
			started++
			mu.Unlock()
			if task == 3 {
				return boom
			}
			time.Sleep(100 * time.Microsecond)
			return nil
		})
		require.ErrorIs(t, err, boom)
		require.ErrorContains(t, err, "device ")
		require.Less(t, started, 1000)
	})
}

func TestOpenGroup(t *testing.T) {
	b := gputest.Backends()[0]
	infos, err := wgpu.Adapters(wgpu.Options{Backend: b})
	require.NoError(t, err)
	g, err := sched.OpenGroup(wgpu.Options{Backend: b})
	require.NoError(t, err)
	require.GreaterOrEqual(t, g.Len(), 1)
	for _, c := range g.Contexts() {
		require.Equal(t, b, c.Info().Backend)
	}
	require.NoError(t, g.Close())

	for spec, want := range map[string]string{
		"99":  "GPUs asked",
		"0":   "at least 1",
		"x":   "is not an adapter index",
		"0,9": "is not an adapter index",
		// An index twice is a mistake, not two devices on one adapter.
		"0,0":   `devices "0,0": adapter 0 is named twice; accepted: "all", a count from 1 to`,
		"0, 0":  "adapter 0 is named twice",
		"0,1,0": "adapter 0 is named twice",
	} {
		_, err := sched.OpenGroup(wgpu.Options{Backend: b, Devices: spec})
		if spec == "99" && len(infos) >= 99 {
			continue
		}
		require.ErrorContains(t, err, want, "devices %q", spec)
	}

	g, err = sched.OpenGroup(wgpu.Options{Backend: "cpu"})
	require.NoError(t, err)
	require.Equal(t, []*wgpu.Context{nil}, g.Contexts())
	require.NoError(t, g.Close())
}

// TestGroupFit checks how many members get a piece of work of n items at
// a minimum per member, and that SplitAll keeps them all.
func TestGroupFit(t *testing.T) {
	g, err := sched.NewGroup(nil, nil, nil)
	require.NoError(t, err)
	for _, c := range []struct{ n, min, want int }{
		{0, 10, 1}, {9, 10, 1}, {19, 10, 1}, {20, 10, 2}, {29, 10, 2}, {30, 10, 3}, {1000, 10, 3}, {5, 0, 3},
	} {
		require.Equal(t, c.want, g.Fit(c.n, c.min).Len(), "Fit(%d, %d)", c.n, c.min)
		require.Equal(t, 3, g.SplitAll().Fit(c.n, c.min).Len(), "SplitAll().Fit(%d, %d)", c.n, c.min)
	}
	require.Same(t, g, g.Fit(30, 10), "a Group that fits is itself")
}

// TestGroupDeal: alike members take equal contiguous shares whatever
// their pace; members that differ (a GPU and the CPU backend) take tasks
// as they come free, so the slow one takes fewer.
func TestGroupDeal(t *testing.T) {
	for _, b := range gputest.Backends() {
		t.Run(b, func(t *testing.T) {
			ctx := gputest.Context(t, b)
			deal := func(g *sched.Group, slow int) [][]int {
				got := make([][]int, g.Len())
				require.NoError(t, g.Deal(40, func(member int, _ *wgpu.Context, task int) error {
					if member == slow {
						time.Sleep(2 * time.Millisecond)
					}
					got[member] = append(got[member], task) // a member's tasks run on its own goroutine
					return nil
				}))
				return got
			}
			alike, err := sched.NewGroup(ctx, gputest.Limited(t, b, gputest.SmallLimits))
			require.NoError(t, err)
			require.True(t, alike.Alike())
			var first, second []int
			for i := range 20 {
				first, second = append(first, i), append(second, 20+i)
			}
			require.Equal(t, [][]int{first, second}, deal(alike, 0))

			mixed, err := sched.NewGroup(ctx, nil)
			require.NoError(t, err)
			require.False(t, mixed.Alike())
			got := deal(mixed, 0)
			require.Len(t, slices.Concat(got...), 40)
			require.Less(t, len(got[0]), len(got[1]), "the slow member took as many tasks: %v", got)

			boom := errors.New("boom")
			require.ErrorIs(t, alike.Deal(40, func(_ int, _ *wgpu.Context, task int) error {
				if task == 3 {
					return boom
				}
				return nil
			}), boom)
		})
	}
}

// TestDevicesSoftwareOnly: where a backend has only software adapters
// (lavapipe, llvmpipe), a count of 1 is the first of them, as "all" is,
// and more says there is no GPU (it said "2 GPUs asked, 0 found ...;
// accepted: a count from 1 to 1", refusing 1 too).
func TestDevicesSoftwareOnly(t *testing.T) {
	b := gputest.Backends()[0]
	infos, err := wgpu.Adapters(wgpu.Options{Backend: b})
	require.NoError(t, err)
	for _, in := range infos {
		if in.Type != "cpu" && in.Unusable == "" {
			t.Skipf("the %s backend has a GPU: %s", b, in.Name)
		}
	}
	g, err := sched.OpenGroup(wgpu.Options{Backend: b, Devices: "1"})
	require.NoError(t, err)
	require.Equal(t, 1, g.Len())
	require.NoError(t, g.Close())
	_, err = sched.OpenGroup(wgpu.Options{Backend: b, Devices: "2"})
	require.ErrorContains(t, err, `devices "2": 2 GPUs asked, but the `+b+` backend has no GPU, only the software adapter`)
	require.ErrorContains(t, err, `accepted: 1 or "all" for it`)
}

// TestSplitCounts: work over k devices is weighed on k, and on the power
// of two below where k is not one.
func TestSplitCounts(t *testing.T) {
	for k, want := range map[int][]int{0: nil, 1: nil, 2: {2}, 3: {2, 3}, 4: {4}, 5: {4, 5}, 6: {4, 6}, 7: {4, 7}, 8: {8}, 12: {8, 12}} {
		require.Equal(t, want, sched.SplitCounts(k), "%d devices", k)
	}
}
