//go:build !js

package wgpu

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The browser's upload path (uploadByWrites: no mapped staging) is plain
// Go over writeBuffer, so it is tested here on wgpu-native: odd lengths
// and offsets across several slots, padding kept inside the range, and a
// failing fill reported.
func TestUploadByWrites(t *testing.T) {
	o := TestOptions(t, "vulkan")
	o.Transfer = TransferOptions{SlotBytes: 64 << 10}
	ctx, err := Open(o)
	require.NoError(t, err)
	defer ctx.Close()
	rng := rand.New(rand.NewPCG(7, 11))
	for _, tc := range []struct{ n, off int }{{1, 0}, {5, 4}, {64<<10 - 1, 8}, {64<<10 + 3, 0}, {200<<10 + 7, 12}} {
		b, err := ctx.NewBuffer("writes", uint64(tc.off+tc.n+64))
		require.NoError(t, err)
		want := make([]byte, b.Size())
		for i := range want {
			want[i] = 0xa5
		}
		require.NoError(t, ctx.Upload(b, 0, want))
		data := make([]byte, tc.n)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		copy(want[tc.off:], data)
		clear(want[tc.off+tc.n : (tc.off+tc.n+3)&^3]) // the padding to 4
		fill := func(m []byte, pos int64) error { copy(m, data[pos:]); return nil }
		ctx.mu.Lock()
		err = ctx.uploadByWrites(b, uint64(tc.off), int64(tc.n), fill)
		ctx.mu.Unlock()
		require.NoError(t, err)
		got := make([]byte, b.Size())
		require.NoError(t, ctx.Download(got, b, 0))
		require.True(t, bytes.Equal(got, want), "n=%d offset=%d", tc.n, tc.off)
		b.Release()
	}
	b, err := ctx.NewBuffer("writes", 1<<20)
	require.NoError(t, err)
	defer b.Release()
	bad := errors.New("short read")
	ctx.mu.Lock()
	err = ctx.uploadByWrites(b, 0, 1<<20, func([]byte, int64) error { return bad })
	ctx.mu.Unlock()
	require.ErrorIs(t, err, bad)
}

// UploadParts equals Upload of the parts' concatenation: parts of odd
// lengths (empty ones too) across several staging slots, filled on
// several workers, and one part alone.
func TestUploadParts(t *testing.T) {
	o := TestOptions(t, "vulkan")
	o.Transfer = TransferOptions{SlotBytes: 64 << 10}
	ctx, err := Open(o)
	require.NoError(t, err)
	defer ctx.Close()
	rng := rand.New(rand.NewPCG(13, 17))
	for _, lens := range [][]int{{5}, {0, 3, 0, 8}, {64<<10 - 1, 1, 64<<10 + 5, 0, 100<<10 + 2}, {4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096}} {
		var parts [][]byte
		var want []byte
		for _, n := range lens {
			p := make([]byte, n)
			for i := range p {
				p[i] = byte(rng.Uint32())
			}
			parts, want = append(parts, p), append(want, p...)
		}
		b, err := ctx.NewBuffer("parts", uint64(len(want)+16))
		require.NoError(t, err)
		require.NoError(t, ctx.UploadParts(b, 8, parts))
		got := make([]byte, (len(want)+3)&^3)
		require.NoError(t, ctx.Download(got, b, 8))
		require.True(t, bytes.Equal(got[:len(want)], want), "lengths %v", lens)
		b.Release()
	}
}
