package blake3

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
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

// parentsSource reports which parents kernel ctx compiles: the module of
// the default variant, built for ctx's shader features.
func parentsSource(t *testing.T, ctx *wgpu.Context) string {
	spec, err := Default.spec()
	require.NoError(t, err)
	_, src, err := wgpu.ModuleFor(spec.module, ctx.ShaderFeatures())
	require.NoError(t, err)
	return src
}

// subgroupLevels returns the width W up to which the subgroups parents
// kernel merges levels inside a subgroup on ctx (1: all in workgroup
// memory), and the device's subgroup size, from its parents_w entry point;
// ctx must have the subgroups feature.
func subgroupLevels(tb testing.TB, ctx *wgpu.Context) (w, size uint32) {
	spec, err := Default.spec()
	require.NoError(tb, err)
	k, err := ctx.Kernel(wgpu.KernelSpec{Label: "blake3.wgsl:parents_w", Module: spec.module, Entry: "parents_w",
		Storage: 3, Uniform: true, ReadOnly: []bool{true}})
	require.NoError(tb, err)
	var bufs []wgpu.Binding
	for range 3 {
		buf, err := ctx.NewBuffer("parents_w", recBytes)
		require.NoError(tb, err)
		defer buf.Release()
		bufs = append(bufs, wgpu.Bind(buf))
	}
	_, err = ctx.Run(wgpu.Dispatch{Kernel: k, Bindings: bufs, Params: make([]uint32, 13), Groups: [3]uint32{1, 1, 1}})
	require.NoError(tb, err)
	var out [2]uint32
	require.NoError(tb, ctx.Download(wgpu.Bytes(out[:]), bufs[2].Buffer, 0))
	return out[0], out[1]
}

// TestSubgroupsSameBits: on a device with subgroup operations (lavapipe's
// Vulkan) the parent levels merge inside subgroups
// (blake3_parents.subgroups.wgsl), and they give the reference's nodes and
// digests, as the workgroup-memory kernel (WGCOMPUTE_SUBGROUPS=off) does on
// the same adapter: the parent levels alone on many counts of chaining
// values, in two modes, and whole hashes of inputs with full and partial
// last chunks. The subgroups kernel must merge levels inside lavapipe's
// subgroups (W above 1), not fall back to workgroup memory alone.
func TestSubgroupsSameBits(t *testing.T) {
	counts := parentCounts()
	all := randomCVs(51, counts[len(counts)-1])
	modes := []Options{{}, {Key: []byte("whats the Elvish word for friend")}}
	var lengths []int
	for _, c := range []int{1, 2, 3, 4, 5, 511, 512, 513, 1023, 1025, 4097, 65537} {
		lengths = append(lengths, c*ChunkSize, c*ChunkSize-511)
	}
	data := randomBytes(53, slices.Max(lengths))
	want := make([][]byte, len(lengths))
	for i, n := range lengths {
		want[i] = refSum(t, data[:n], testModes[i%len(testModes)])
	}
	for _, c := range []struct {
		env       string
		subgroups bool
	}{{"", true}, {"off", false}} {
		t.Run("WGCOMPUTE_SUBGROUPS="+c.env, func(t *testing.T) {
			t.Setenv("WGCOMPUTE_SUBGROUPS", c.env)
			ctx, err := wgpu.Open(wgpu.Options{Backend: "vulkan"})
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, ctx.Close()) }) // after the Engines' Release
			require.Equal(t, c.subgroups, slices.Contains(ctx.ShaderFeatures(), "subgroups"),
				"lavapipe's Vulkan offers subgroups: this test must run them, and WGCOMPUTE_SUBGROUPS=off must not")
			require.Equal(t, c.subgroups, strings.Contains(parentsSource(t, ctx), "---- blake3_parents.subgroups.wgsl ----"),
				"the parents kernel compiled is not the one the features ask for")
			if c.subgroups {
				w, size := subgroupLevels(t, ctx)
				t.Logf("subgroup size %d: levels of up to %d nodes merged in a subgroup", size, w)
				require.Greater(t, w, uint32(1), "lavapipe's subgroups (size %d) must merge levels, not leave them all to workgroup memory", size)
			}
			for _, opts := range modes {
				e := newEngine(t, ctx, opts)
				for _, n := range counts {
					got := parentLevels(t, e, all[:n])
					require.Equal(t, refTop(all[:n], e.key, e.flags), got, "%d chaining values, key %v", n, opts.Key != nil)
				}
			}
			for i, n := range lengths {
				opts := testModes[i%len(testModes)]
				got, err := SumReader(ctx, bytes.NewReader(data[:n]), opts)
				require.NoError(t, err)
				require.Equal(t, fmt.Sprintf("%x", want[i]), fmt.Sprintf("%x", got), "length %d (%d chunks), mode %d", n, (n+ChunkSize-1)/ChunkSize, i%len(testModes))
			}
		})
	}
}
