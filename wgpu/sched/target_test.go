package sched

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
)

// TestTarget: a nil Target, and a nil *Context or *Group in one, is the
// CPU; a Context is a Group of one; a Group of one member is that member's
// device, and a Group of several is split over.
func TestTarget(t *testing.T) {
	var noCtx *wgpu.Context
	var noGroup *Group
	for _, tg := range []wgpu.Target{nil, noCtx, noGroup} {
		require.Nil(t, GroupOf(tg))
		ctx, one := Device(tg)
		require.Nil(t, ctx)
		require.True(t, one)
	}
	c := &wgpu.Context{}
	g := GroupOf(c)
	require.Equal(t, []*wgpu.Context{c}, g.Contexts())
	require.NoError(t, g.Close()) // closes nothing: c stays the caller's
	ctx, one := Device(c)
	require.Same(t, c, ctx)
	require.True(t, one)

	single, err := NewGroup(c)
	require.NoError(t, err)
	require.Same(t, single, GroupOf(single))
	ctx, one = Device(single)
	require.Same(t, c, ctx)
	require.True(t, one)

	cpu, err := NewGroup(nil) // the CPU backend's Group
	require.NoError(t, err)
	ctx, one = Device(cpu)
	require.Nil(t, ctx)
	require.True(t, one)

	two, err := NewGroup(c, nil)
	require.NoError(t, err)
	require.Same(t, two, GroupOf(two))
	ctx, one = Device(two)
	require.Nil(t, ctx)
	require.False(t, one)

	// A Target of a type this package does not know (GroupTarget embedded
	// elsewhere) is the CPU, never a crash.
	var other wgpu.Target = &struct{ wgpu.GroupTarget }{}
	require.Nil(t, GroupOf(other))
	ctx, one = Device(other)
	require.Nil(t, ctx)
	require.True(t, one)
}

// TestOneDevice: a function of one device takes the CPU, a Context and a
// Group of one as Device does, and refuses a Group of several, naming its
// size.
func TestOneDevice(t *testing.T) {
	var noCtx *wgpu.Context
	for _, tg := range []wgpu.Target{nil, noCtx} {
		ctx, err := OneDevice(tg)
		require.NoError(t, err)
		require.Nil(t, ctx)
	}
	c := &wgpu.Context{}
	ctx, err := OneDevice(c)
	require.NoError(t, err)
	require.Same(t, c, ctx)
	single, err := NewGroup(c)
	require.NoError(t, err)
	ctx, err = OneDevice(single)
	require.NoError(t, err)
	require.Same(t, c, ctx)
	two, err := NewGroup(c, nil)
	require.NoError(t, err)
	_, err = OneDevice(two)
	require.ErrorContains(t, err, "not a Group of 2")
}
