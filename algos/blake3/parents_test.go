package blake3

import (
	"encoding/binary"
	"math/bits"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// refTop is the top node of the BLAKE3 subtree over cvs (two or more
// chaining values): its left subtree holds the largest power of two of
// them below len(cvs).
func refTop(cvs [][8]uint32, key [8]uint32, flags uint32) output {
	left := 1 << (bits.Len(uint(len(cvs)-1)) - 1)
	return parentOutput(refCV(cvs[:left], key, flags), refCV(cvs[left:], key, flags), key, flags)
}

// refCV is the chaining value of the subtree over cvs (one or more).
func refCV(cvs [][8]uint32, key [8]uint32, flags uint32) [8]uint32 {
	if len(cvs) == 1 {
		return cvs[0]
	}
	return refTop(cvs, key, flags).chainingValue()
}

// randomCVs returns n seeded random chaining values.
func randomCVs(seed uint64, n int) [][8]uint32 {
	raw := randomBytes(seed, 32*n)
	cvs := make([][8]uint32, n)
	for i := range cvs {
		for k := range cvs[i] {
			cvs[i][k] = binary.LittleEndian.Uint32(raw[32*i+4*k:])
		}
	}
	return cvs
}

// parentLevels runs the parent levels alone (Engine.planParents) on cvs,
// two or more chaining values already hashed, in e's mode, and returns the
// top node they write.
func parentLevels(t testing.TB, e *Engine, cvs [][8]uint32) output {
	ctx := e.ctx
	n := uint64(len(cvs))
	bufs := make([]*wgpu.Buffer, 3)
	for i, size := range []uint64{cvBytesFor(n), levelBytes(n), recBytes} {
		var err error
		bufs[i], err = ctx.NewBuffer("parent levels test", size)
		require.NoError(t, err)
		defer bufs[i].Release()
	}
	require.NoError(t, ctx.Upload(bufs[0], 0, wgpu.Bytes(cvs)))
	_, err := ctx.Run(e.planParents(wgpu.Bind(bufs[0]), wgpu.Bind(bufs[1]), wgpu.Bind(bufs[2]), n)...)
	require.NoError(t, err)
	var w [28]uint32
	require.NoError(t, ctx.Download(wgpu.Bytes(w[:]), bufs[2], 0))
	return recordOutput(w)
}

// parentCounts are the numbers of chaining values the parent levels are
// tested on: every count up to 70, and odd and even counts around the
// powers of two and the workgroup's 512, at one, two and three levels.
func parentCounts() []int {
	var counts []int
	for n := 2; n <= 70; n++ {
		counts = append(counts, n)
	}
	for _, p := range []int{128, 256, 512, 1024, 2048, 4096, 1 << 16, 1 << 18} {
		counts = append(counts, p-1, p, p+1)
	}
	return append(counts, 513+512, 3*512+7, 1<<18+511, 1<<18+513, 1<<20+3)
}

// TestParentLevels runs the parent levels alone on many counts of
// chaining values, unkeyed and keyed, and compares the top node with the
// reference's: the tree shape (left subtrees the largest power of two,
// odd last nodes carried up) across one, two and three levels of the
// parents kernel.
func TestParentLevels(t *testing.T) {
	counts := parentCounts()
	all := randomCVs(51, counts[len(counts)-1])
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, opts := range []Options{{}, {Key: []byte("whats the Elvish word for friend")}} {
			e := newEngine(t, ctx, opts)
			for _, n := range counts {
				got := parentLevels(t, e, all[:n])
				require.Equal(t, refTop(all[:n], e.key, e.flags), got, "%d chaining values, key %v", n, opts.Key != nil)
			}
		}
	})
}
