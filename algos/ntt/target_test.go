package ntt

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// TestTarget: a transform and an extension run on one device. A Group of
// one is its member (the Context's result), a nil Group is the CPU (nil's
// result), and a Group of several is refused, naming its size, with the
// output left unchanged; NewPlan and NewExtender refuse it too.
func TestTarget(t *testing.T) {
	const logN, rows, rate = 5, 3, 2
	f := field.KoalaBear
	rng := rand.New(rand.NewPCG(41, 7))
	src := randRows(f, rng, rows, logN)
	o := Options{Coset: true, Out: BitReversed}

	want := slices.Clone(src)
	require.NoError(t, Transform(nil, f, want, logN, o))
	wantExt := make([]uint32, len(src)*rate)
	require.NoError(t, EncodeReedSolomon(nil, f, wantExt, src, logN, rate))
	var noGroup *sched.Group
	got := slices.Clone(src)
	require.NoError(t, Transform(noGroup, f, got, logN, o))
	require.Equal(t, want, got)

	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		one, err := sched.NewGroup(ctx)
		require.NoError(t, err)
		got := slices.Clone(src)
		require.NoError(t, Transform(one, f, got, logN, o))
		require.Equal(t, want, got)
		ext := make([]uint32, len(src)*rate)
		require.NoError(t, EncodeReedSolomon(one, f, ext, src, logN, rate))
		require.Equal(t, wantExt, ext)

		two, err := sched.NewGroup(ctx, ctx)
		require.NoError(t, err)
		got = slices.Clone(src)
		require.EqualError(t, Transform(two, f, got, logN, o),
			"ntt: Transform runs on one device: give a Context, a Group of one or nil (the CPU), not a Group of 2")
		require.Equal(t, src, got, "refused, and data left unchanged")
		require.ErrorContains(t, TransformMonty(two, f, got, logN, o), "ntt: TransformMonty runs on one device")
		ext = make([]uint32, len(src)*rate)
		require.ErrorContains(t, EncodeReedSolomon(two, f, ext, src, logN, rate), "ntt: Extend runs on one device")
		require.ErrorContains(t, ExtendMonty(two, f, ext, src, logN, ExtendOptions{Rate: rate}), "ntt: ExtendMonty runs on one device")
		require.Equal(t, make([]uint32, len(ext)), ext, "refused, and dst left unchanged")
		_, err = NewPlan(two, f, logN, PlanOptions{})
		require.ErrorContains(t, err, "ntt: a Plan runs on one device")
		_, err = NewExtender(two, f, logN, ExtendOptions{Rate: rate})
		require.ErrorContains(t, err, "ntt: an Extender runs on one device")
	})
}
