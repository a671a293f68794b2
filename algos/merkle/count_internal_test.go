package merkle

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// TestBigLevels: with bigLevel at 2 nodes, every level of more than 2
// nodes comes back in a download of its own, straight into its place
// (but for those narrower than the host width, which only the host
// makes); the trees, whole or capped, and roots still equal the
// reference's.
func TestBigLevels(t *testing.T) {
	defer func(b int) { bigLevel = b }(bigLevel)
	bigLevel = 2
	hash := blake3.MerkleMerge{}
	leaves := make([][32]byte, 3000)
	for i := range leaves {
		binary.LittleEndian.PutUint64(leaves[i][:], uint64(i)*0x9e3779b97f4a7c15)
	}
	check := func(t *testing.T, ctx *wgpu.Context) {
		for _, n := range []int{3, 100, 1024, 3000} {
			want, err := Build(nil, leaves[:n], hash, Options{})
			require.NoError(t, err)
			for _, h := range []int{0, 2, 5} {
				for _, w := range []int{-1, 8} {
					o := Options{CapHeight: h, HostWidth: w}
					if w == -1 {
						o = Options{CapHeight: h, deviceTop: true}
					}
					got, err := Build(ctx, leaves[:n], hash, o)
					require.NoError(t, err)
					require.Equal(t, want.nodes[:len(got.nodes)], got.nodes, fmt.Sprintf("n=%d cap height %d host width %d", n, h, w))
				}
			}
		}
	}
	gputest.ForEach(t, check)
	gputest.ForEachSmall(t, check)
}
