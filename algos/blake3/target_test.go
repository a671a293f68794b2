package blake3

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// TestTarget: the functions of one device (SumMany, SumManyBuffer,
// MergeMany, SumPieces, NewEngine) take a Group of one as its member and
// a nil Group as the CPU, giving the reference's digests, and refuse a
// Group of several, naming its size, with dst left unchanged.
func TestTarget(t *testing.T) {
	const n, size = 7, 1500
	rng := rand.New(rand.NewPCG(41, 3))
	data := make([]byte, n*size)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	want := make([][32]byte, n)
	pairs := make([][64]byte, n)
	wantMerge := make([][32]byte, n)
	for i := range want {
		want[i] = Sum256(data[i*size : (i+1)*size])
		copy(pairs[i][:], data[i*64:])
		wantMerge[i] = Merge([32]byte(pairs[i][:32]), [32]byte(pairs[i][32:]))
	}
	wantPieces, err := SumPieces(nil, bytes.NewReader(data), uint64(len(data)), 0, uint64(len(data)), Options{})
	require.NoError(t, err)

	var noGroup *sched.Group
	run := func(t *testing.T, tg wgpu.Target) {
		got := make([][32]byte, n)
		require.NoError(t, SumMany(tg, got, data, size, Options{}))
		require.Equal(t, want, got)
		got = make([][32]byte, n)
		require.NoError(t, MergeMany(tg, got, pairs, Options{}))
		require.Equal(t, wantMerge, got)
		p, err := SumPieces(tg, bytes.NewReader(data), uint64(len(data)), 0, uint64(len(data)), Options{})
		require.NoError(t, err)
		require.Equal(t, wantPieces, p)
		e, err := NewEngine(tg, Options{})
		require.NoError(t, err)
		d, err := e.Sum(data)
		e.Release()
		require.NoError(t, err)
		require.Equal(t, Sum256(data), [32]byte(d))
	}
	run(t, noGroup)

	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		one, err := sched.NewGroup(ctx)
		require.NoError(t, err)
		run(t, one)

		src, err := ctx.NewBuffer("blake3 target test in", uint64(len(data)))
		require.NoError(t, err)
		defer src.Release()
		dst, err := ctx.NewBuffer("blake3 target test out", n*32)
		require.NoError(t, err)
		defer dst.Release()
		require.NoError(t, SumManyBuffer(one, dst, src, n, size, Options{}))

		two, err := sched.NewGroup(ctx, ctx)
		require.NoError(t, err)
		got := make([][32]byte, n)
		require.EqualError(t, SumMany(two, got, data, size, Options{}),
			"blake3: SumMany runs on one device: give a Context, a Group of one or nil (the CPU), not a Group of 2")
		require.ErrorContains(t, MergeMany(two, got, pairs, Options{}), "blake3: MergeMany runs on one device")
		require.Equal(t, make([][32]byte, n), got, "refused, and dst left unchanged")
		require.ErrorContains(t, SumManyBuffer(two, dst, src, n, size, Options{}), "blake3: SumManyBuffer runs on one device")
		_, err = SumPieces(two, bytes.NewReader(data), uint64(len(data)), 0, uint64(len(data)), Options{})
		require.ErrorContains(t, err, "blake3: SumPieces runs on one device")
		_, err = NewEngine(two, Options{})
		require.ErrorContains(t, err, "blake3: an Engine runs on one device")
	})
}
