package eigen

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// TestTarget: the method runs on one device. A nil Group is the CPU
// (Reference32 exactly) and a Group of one its member (the Context's
// result, bit for bit); a Group of several is refused, naming its size,
// by MaxEigen, NewSolver, CheckSize and NewKernels alike.
func TestTarget(t *testing.T) {
	const n = 50
	a := Random(n, 3)
	want, err := Reference32(a, n, Options{})
	require.NoError(t, err)
	var noGroup *sched.Group
	got, err := MaxEigen(noGroup, a, n, Options{})
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.NoError(t, CheckSize(noGroup, n))

	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		want, err := MaxEigen(ctx, a, n, Options{})
		require.NoError(t, err)
		one, err := sched.NewGroup(ctx)
		require.NoError(t, err)
		got, err := MaxEigen(one, a, n, Options{})
		require.NoError(t, err)
		require.Equal(t, want, got)
		require.NoError(t, CheckSize(one, n))
		k, err := NewKernels(one, Options{})
		require.NoError(t, err)
		k.Release()

		two, err := sched.NewGroup(ctx, ctx)
		require.NoError(t, err)
		_, err = MaxEigen(two, a, n, Options{})
		require.EqualError(t, err, "eigen: MaxEigen runs on one device: give a Context, a Group of one or nil (the CPU), not a Group of 2")
		_, err = NewSolver(two, n, Options{})
		require.ErrorContains(t, err, "eigen: a Solver runs on one device")
		require.ErrorContains(t, CheckSize(two, n), "eigen: CheckSize runs on one device")
		_, err = NewKernels(two, Options{})
		require.ErrorContains(t, err, "eigen: NewKernels runs on one device")
	})
}
