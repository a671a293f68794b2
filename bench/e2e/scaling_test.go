package main

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/blake3"
)

// TestResidentShares: the shares cover the input in order, each device's
// contiguous, cut at blocks of a power of two of chunks, in buffers of at
// most mostResident bytes, and the devices' shares differ by a block at
// most.
func TestResidentShares(t *testing.T) {
	for _, total := range []uint64{1, 1000, 1 << 20, 8<<20 + 5, 3<<30 + 7, 8 << 30} {
		for _, k := range []int{1, 2, 3, 4, 5, 7, 8} {
			shares := residentShares(total, k)
			require.Len(t, shares, k)
			var at uint64
			var sizes []uint64
			var block uint64
			for i, sh := range shares {
				var size uint64
				for _, b := range sh {
					require.Equal(t, at, b[0], "total %d, k %d, device %d: contiguous", total, k, i)
					require.NotZero(t, b[1])
					require.LessOrEqual(t, b[1], uint64(mostResident))
					require.Zero(t, b[0]%blake3.ChunkSize)
					// The largest power of two dividing every start is the
					// block, at least.
					if b[0] > 0 && (block == 0 || b[0]&-b[0] < block) {
						block = b[0] & -b[0]
					}
					at += b[1]
					size += b[1]
				}
				sizes = append(sizes, size)
			}
			require.Equal(t, total, at, "total %d, k %d: covered", total, k)
			if block != 0 {
				for i := range sizes[:len(sizes)-1] {
					require.LessOrEqual(t, max(sizes[i], sizes[i+1])-min(sizes[i], sizes[i+1]), block, "total %d, k %d: even shares", total, k)
				}
				if total >= 8<<20 {
					require.GreaterOrEqual(t, block, uint64(residentBlock*blake3.ChunkSize), "total %d, k %d: blocks", total, k)
				}
			}
		}
	}
}
