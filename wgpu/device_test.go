package wgpu_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// The limits knob caps what the device grants, and wgpu enforces it.
func TestLimitsCap(t *testing.T) {
	for _, b := range gputest.Backends() {
		ctx := gputest.Limited(t, b, wgpu.WebGPULimits)
		l := ctx.Limits()
		require.LessOrEqual(t, l.MaxStorageBindingSize, wgpu.WebGPULimits.MaxStorageBindingSize)
		require.LessOrEqual(t, l.MaxBufferSize, wgpu.WebGPULimits.MaxBufferSize)
		require.LessOrEqual(t, l.MaxWorkgroupStorage, wgpu.WebGPULimits.MaxWorkgroupStorage)
		require.LessOrEqual(t, l.MaxWorkgroupsPerDimension, wgpu.WebGPULimits.MaxWorkgroupsPerDimension)
		_, err := ctx.NewBuffer("too large", wgpu.WebGPULimits.MaxBufferSize+4)
		require.ErrorContains(t, err, "exceeds")

		small := gputest.Limited(t, b, gputest.SmallLimits)
		require.Equal(t, gputest.SmallLimits.MaxStorageBindingSize, small.Limits().MaxStorageBindingSize)
		buf, err := small.NewBuffer("b", 128<<10)
		require.NoError(t, err)
		k, err := small.Kernel(wgpu.KernelSpec{Label: "addone", Module: text{"addOne", addOne}, Entry: "main", Storage: 2, Uniform: true, ReadOnly: []bool{true}})
		require.NoError(t, err)
		_, err = small.Run(wgpu.Dispatch{Kernel: k, Bindings: []wgpu.Binding{wgpu.Bind(buf), {Buffer: buf, Size: 16}}, Params: []uint32{1}, Groups: [3]uint32{1, 1, 1}})
		require.ErrorContains(t, err, "storage binding limit")
		buf.Release()
	}
	// The profile from the environment caps the tests' small limits too.
	t.Setenv("WGCOMPUTE_LIMITS", "webgpu")
	both := gputest.Limited(t, gputest.Backends()[0], gputest.SmallLimits)
	require.Equal(t, gputest.SmallLimits.MaxStorageBindingSize, both.Limits().MaxStorageBindingSize)
	require.LessOrEqual(t, both.Limits().MaxWorkgroupStorage, wgpu.WebGPULimits.MaxWorkgroupStorage)
}

func TestLimitsMin(t *testing.T) {
	a := wgpu.Limits{MaxBufferSize: 100, MaxWorkgroupStorage: 7}
	b := wgpu.Limits{MaxBufferSize: 50, MaxStorageBindingSize: 9}
	require.Equal(t, wgpu.Limits{MaxBufferSize: 50, MaxStorageBindingSize: 9, MaxWorkgroupStorage: 7}, a.Min(b))
	require.Equal(t, a.Min(b), b.Min(a))
	require.Equal(t, wgpu.WebGPULimits, wgpu.Limits{}.Min(wgpu.WebGPULimits))
	require.Equal(t, uint64(128<<20), wgpu.WebGPULimits.Binding())
	require.Equal(t, uint64(50), wgpu.Limits{MaxBufferSize: 50, MaxStorageBindingSize: 90}.Binding())
}

func TestTiming(t *testing.T) {
	var sum wgpu.Timing
	sum = sum.Add(wgpu.Timing{Kernel: 2, Measured: true, Wall: 5})
	sum = sum.Add(wgpu.Timing{Kernel: 3, Measured: true, Wall: 7})
	require.Equal(t, wgpu.Timing{Kernel: 5, Measured: true, Wall: 12}, sum)
	require.Equal(t, time.Duration(5), sum.Elapsed())
	sum = sum.Add(wgpu.Timing{Wall: 1})
	require.False(t, sum.Measured)
	require.Equal(t, time.Duration(13), sum.Elapsed())

	// The zero Timing is no work on either side: a device that ran
	// nothing leaves its neighbours' timing measured.
	m := wgpu.Timing{Kernel: 4, Measured: true, Wall: 6}
	require.Equal(t, m, m.Add(wgpu.Timing{}))
	require.Equal(t, m, m.Parallel(wgpu.Timing{}))
	require.Equal(t, m, wgpu.Timing{}.Parallel(m))
	require.Equal(t, wgpu.Timing{Kernel: 4, Measured: true, Wall: 9}, m.Parallel(wgpu.Timing{Kernel: 1, Measured: true, Wall: 9}))
}

// Ranges near 2^64 are rejected, not wrapped; a nil Context is an error.
func TestRangeOverflowAndNil(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		b, err := ctx.NewBuffer("small", 16)
		require.NoError(t, err)
		defer b.Release()
		require.ErrorContains(t, ctx.Upload(b, ^uint64(0)-3, make([]byte, 8)), "do not fit")
		require.ErrorContains(t, ctx.Download(make([]byte, 8), b, ^uint64(0)-3), "do not fit")
		require.ErrorContains(t, ctx.Clear(b, ^uint64(0)-3, 8), "offset 18446744073709551612 is out of range: the buffer holds 16 bytes")
		require.ErrorContains(t, ctx.Clear(b, 8, 16), "16 bytes from offset 8 are out of range: the buffer holds 16 bytes")
		require.ErrorContains(t, ctx.Clear(b, 4, ^uint64(0)-3), "from offset 4 are out of range")
		require.ErrorContains(t, ctx.Clear(b, 2, 4), "offset 2 and size 4 must be multiples of 4")
		_, err = ctx.NewBuffer("wrap", ^uint64(0))
		require.ErrorContains(t, err, "exceeds")
	})
	var c *wgpu.Context
	_, err := c.NewBuffer("x", 4)
	require.ErrorContains(t, err, "nil Context")
	require.ErrorContains(t, c.Upload(nil, 0, nil), "nil Context")
	_, err = c.Run()
	require.ErrorContains(t, err, "nil Context")
	require.NoError(t, c.Close())
	require.Equal(t, "cpu", c.Info().Backend)
}
