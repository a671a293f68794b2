package wgpu_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// TestHostBuffer: a HostBuffer keeps what the host writes through its
// mapping, a kernel reads and writes it in place, writes and reads past
// its end are refused, and a device that cannot map storage buffers
// refuses to make one.
func TestHostBuffer(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		h, err := ctx.NewHostBuffer("host", 1030)
		if ctx.Info().Backend != "vulkan" {
			require.ErrorContains(t, err, "does not map storage buffers")
			return
		}
		require.NoError(t, err)
		require.Equal(t, uint64(1032), h.Size(), "rounded up to a word")
		src := make([]byte, 1032)
		for i := range src {
			src[i] = byte(rand.Uint32())
		}
		require.NoError(t, h.Write(0, src))
		require.True(t, h.Mapped())
		require.ErrorContains(t, h.Write(1000, src[:40]), "40 bytes at offset 1000 do not fit in its 1032 bytes")
		require.ErrorContains(t, h.Read(make([]byte, 1036)), "1036 bytes asked of its 1032 bytes")

		// A kernel reads the words in place and writes each plus one plus its
		// index into another; the host reads the
		// results back through the mapping.
		k, err := ctx.Kernel(wgpu.KernelSpec{Label: "addone", Module: text{"addOne", addOne}, Entry: "main", Storage: 2, Uniform: true, ReadOnly: []bool{true}})
		require.NoError(t, err)
		out, err := ctx.NewHostBuffer("out", 1032)
		require.NoError(t, err)
		require.NoError(t, h.Unmap())
		require.NoError(t, out.Unmap())
		require.False(t, h.Mapped())
		_, err = ctx.Run(wgpu.Dispatch{Kernel: k, Bindings: []wgpu.Binding{wgpu.Bind(h.Buffer()), wgpu.Bind(out.Buffer())}, Params: []uint32{1032 / 4}, Groups: ctx.Grid(1032/4, 64)})
		require.NoError(t, err)
		got := make([]byte, 1032)
		require.NoError(t, out.Read(got))
		for i := 0; i < len(src); i += 4 {
			w := uint32(src[i]) | uint32(src[i+1])<<8 | uint32(src[i+2])<<16 | uint32(src[i+3])<<24
			g := uint32(got[i]) | uint32(got[i+1])<<8 | uint32(got[i+2])<<16 | uint32(got[i+3])<<24
			require.Equal(t, w+1+uint32(i/4), g, "word %d", i/4)
		}
		h.Release()
		h.Release() // a second release does nothing
		out.Release()
		require.Zero(t, ctx.LiveBuffers())
		_, err = h.Map()
		require.ErrorContains(t, err, "released")
	})
	var c *wgpu.Context
	_, err := c.NewHostBuffer("x", 4)
	require.ErrorContains(t, err, "nil Context")
	require.False(t, c.HostPieces())
}
