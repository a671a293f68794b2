package cli

import (
	"encoding/binary"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestAsElements: the input's bytes read as little-endian uint64 or
// uint32 values, without a copy where they are aligned, and equal when
// they are not.
func TestAsElements(t *testing.T) {
	raw := make([]byte, 8*1000+8)
	for i := range raw {
		raw[i] = byte(i*7 + i>>8)
	}
	little := binary.NativeEndian.Uint16([]byte{1, 0}) == 1
	for _, off := range []int{0, 1, 3, 4, 8} {
		b := raw[off : off+8*1000]
		got := AsElements[uint64](b)
		require.Len(t, got, 1000)
		for i, v := range got {
			require.Equal(t, binary.LittleEndian.Uint64(b[8*i:]), v, "offset %d element %d", off, i)
		}
		view := uintptr(unsafe.Pointer(&b[0]))%8 == 0 && little
		require.Equal(t, view, unsafe.Pointer(&got[0]) == unsafe.Pointer(&b[0]), "offset %d: a view exactly when aligned on a little-endian host", off)
		got32 := AsElements[uint32](b)
		require.Len(t, got32, 2000)
		for i, v := range got32 {
			require.Equal(t, binary.LittleEndian.Uint32(b[4*i:]), v, "offset %d 32-bit element %d", off, i)
		}
		view = uintptr(unsafe.Pointer(&b[0]))%4 == 0 && little
		require.Equal(t, view, unsafe.Pointer(&got32[0]) == unsafe.Pointer(&b[0]), "offset %d: a 32-bit view exactly when aligned", off)
	}
	require.Empty(t, AsElements[uint64](nil))
	require.Empty(t, AsElements[uint32](nil))
}

// TestDigestsAsBytes: digests are written as their elements' little-endian
// bytes, in order.
func TestDigestsAsBytes(t *testing.T) {
	d := [][4]uint64{{1, 2, 3, 4}, {0x0102030405060708, 0, ^uint64(0), 7}}
	got := DigestsAsBytes[uint64](d)
	require.Len(t, got, 64)
	for i, dg := range d {
		for j, e := range dg {
			require.Equal(t, e, binary.LittleEndian.Uint64(got[32*i+8*j:]), "digest %d element %d", i, j)
		}
	}
	require.Empty(t, DigestsAsBytes[uint64, [4]uint64](nil))
}
