package sched_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// Choose decides CPU, one adapter or a Group's, as Open and OpenGroup
// open them, and Choice.Open opens what it chose.
func TestChoose(t *testing.T) {
	ch, err := wgpu.Choose(wgpu.Options{Backend: "CPU"})
	require.NoError(t, err)
	require.True(t, ch.CPU)
	require.Empty(t, ch.Adapters)
	require.False(t, ch.Software())
	g, err := sched.Open(ch)
	require.NoError(t, err)
	require.Equal(t, []*wgpu.Context{nil}, g.Contexts())
	require.NoError(t, g.Close())

	b := gputest.Backends()[0]
	ch, err = wgpu.Choose(wgpu.Options{Backend: b})
	require.NoError(t, err)
	want, err := wgpu.ChosenAdapter(wgpu.Options{Backend: b})
	require.NoError(t, err)
	require.False(t, ch.CPU)
	require.Equal(t, []wgpu.AdapterInfo{want}, ch.Adapters, "one adapter: Open's")
	require.Equal(t, want.Type == "cpu", ch.Software())
	g, err = sched.Open(ch)
	require.NoError(t, err)
	require.Equal(t, 1, g.Len())
	require.Equal(t, want.Name, g.Contexts()[0].Info().Name)
	require.NoError(t, g.Close())

	infos, err := wgpu.Adapters(wgpu.Options{Backend: b})
	require.NoError(t, err)
	_, err = wgpu.Choose(wgpu.Options{Backend: b, Devices: "0"})
	require.ErrorContains(t, err, "a count must be at least 1")
	ch, err = wgpu.Choose(wgpu.Options{Backend: b, Devices: "all"})
	require.NoError(t, err)
	require.NotEmpty(t, ch.Adapters)
	for _, a := range ch.Adapters {
		require.Equal(t, b, a.Backend)
		require.Equal(t, len(infos) == 1 || a.Type != "cpu", true, "all: the GPUs, or the one software adapter")
	}

	_, err = wgpu.Choose(wgpu.Options{Backend: "bogus"})
	require.ErrorContains(t, err, `unknown backend "bogus"`)
	_, err = wgpu.Choose(wgpu.Options{Backend: b, Adapter: "no such adapter"})
	require.ErrorIs(t, err, wgpu.ErrNoAdapter)
	_, err = sched.Open(wgpu.Choice{})
	require.ErrorContains(t, err, "make it with Choose")
}

// TestChoiceFit checks when a choice of several adapters keeps them for a
// piece of work: only where splitting it saves more than opening the
// others costs.
func TestChoiceFit(t *testing.T) {
	two := wgpu.Choice{Adapters: []wgpu.AdapterInfo{{Index: 0}, {Index: 1}}}
	three := wgpu.Choice{Adapters: []wgpu.AdapterInfo{{Index: 0}, {Index: 1}, {Index: 2}}}
	ms := time.Millisecond
	for _, c := range []struct {
		ch          wgpu.Choice
		work, extra time.Duration
		want        int
	}{
		{two, 0, 160 * ms, 1},          // unknown work: one device
		{two, 300 * ms, 160 * ms, 1},   // saves 150 ms < 160
		{two, 330 * ms, 160 * ms, 2},   // saves 165 ms
		{three, 200 * ms, 120 * ms, 3}, // saves 133 ms
		{three, 150 * ms, 120 * ms, 1}, // saves 100 ms
		{two, time.Hour, 0, 2},
	} {
		require.Len(t, c.ch.Fit(c.work, c.extra).Adapters, c.want, "%d adapters, work %v, extra %v", len(c.ch.Adapters), c.work, c.extra)
	}
	one := wgpu.Choice{Adapters: []wgpu.AdapterInfo{{Index: 3}}}
	require.Equal(t, one.Adapters, one.Fit(time.Hour, 0).Adapters)
	require.True(t, wgpu.Choice{CPU: true}.Fit(time.Hour, 0).CPU)
}
