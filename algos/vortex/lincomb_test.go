package vortex

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/field/koalabear"
	"github.com/stretchr/testify/require"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// linCombContexts are the devices the linear combination's kernel is
// checked on: every backend tested, and where one has 64-bit integers
// (lavapipe's Vulkan, NVIDIA's), the same adapter with
// Options.NoShaderInt64 as well, so that both monty31_acc.wgsl and its
// shader-int64 variant run.
func linCombContexts(t *testing.T) map[string]*wgpu.Context {
	out := map[string]*wgpu.Context{}
	for _, b := range gputest.Backends() {
		ctx := gputest.Context(t, b)
		if !slices.Contains(ctx.ShaderFeatures(), "shader-int64") {
			out[b+"/u32"] = ctx
			continue
		}
		out[b+"/int64"] = ctx
		o := gputest.Options(t, b)
		o.NoShaderInt64 = true
		portable, err := wgpu.Open(o)
		require.NoError(t, err)
		t.Cleanup(func() { portable.Close() })
		require.NotContains(t, portable.ShaderFeatures(), "shader-int64")
		out[b+"/u32"] = portable
	}
	return out
}

// TestLinCombKernel checks vortex_lincomb.wgsl against the sum of
// Montgomery products and modular adds that gnark-crypto's OpenLinComb
// computes, on row counts around its four-row step and on words at the
// ends of the field (0, 1, p-1 and near it), where an unreduced sum is
// largest, on both arithmetic paths.
func TestLinCombKernel(t *testing.T) {
	p := uint32(field.KoalaBear.P())
	for name, ctx := range linCombContexts(t) {
		t.Run(name, func(t *testing.T) {
			k, err := kernel(ctx, "vortex_lincomb.wgsl", "vortex_lincomb", 3)
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(7, uint64(len(name))))
			word := func(extreme bool) uint32 {
				if extreme {
					return []uint32{0, 1, p - 1, p - 2, p - 1, p - 1}[rng.IntN(6)]
				}
				return rng.Uint32N(p)
			}
			for _, shape := range [][2]int{{1, 1}, {2, 3}, {3, 257}, {4, 256}, {5, 300}, {7, 33}, {8, 513}, {13, 64}, {64, 100}, {67, 9}} {
				rows, width := shape[0], shape[1]
				for _, extreme := range []bool{false, true} {
					cw := make([]uint32, rows*width)
					for i := range cw {
						cw[i] = word(extreme)
					}
					pow := make([]uint32, 4*rows)
					for i := range pow {
						pow[i] = word(extreme)
					}
					want := make([]uint32, 4*width)
					for j := range width {
						for c := range 4 {
							var acc koalabear.Element
							for i := range rows {
								a, b := koalabear.Element{pow[4*i+c]}, koalabear.Element{cw[i*width+j]}
								a.Mul(&a, &b)
								acc.Add(&acc, &a)
							}
							want[4*j+c] = acc[0]
						}
					}
					got := runLinComb(t, ctx, k, cw, pow, rows, width)
					require.Equal(t, want, got, fmt.Sprintf("%d rows × %d columns, extreme words %v", rows, width, extreme))
				}
			}
		})
	}
}

// runLinComb runs the kernel over cw (rows × width words) with the
// powers pow and reads its output back.
func runLinComb(t *testing.T, ctx *wgpu.Context, k *wgpu.Kernel, cw, pow []uint32, rows, width int) []uint32 {
	t.Helper()
	buf := func(label string, words []uint32) *wgpu.Buffer {
		b, err := ctx.NewBuffer(label, uint64(4*len(words)))
		require.NoError(t, err)
		t.Cleanup(b.Release)
		require.NoError(t, ctx.Upload(b, 0, wgpu.Bytes(words)))
		return b
	}
	cb, pb := buf("codewords", cw), buf("powers", pow)
	ob, err := ctx.NewBuffer("out", uint64(16*width))
	require.NoError(t, err)
	t.Cleanup(ob.Release)
	_, err = ctx.Run(wgpu.Dispatch{Kernel: k, Bindings: []wgpu.Binding{wgpu.Bind(cb), wgpu.Bind(ob), wgpu.Bind(pb)},
		Params: []uint32{uint32(rows), uint32(width)}, Groups: ctx.Grid(uint64(width), 256)})
	require.NoError(t, err)
	got := make([]uint32, 4*width)
	require.NoError(t, ctx.Download(wgpu.Bytes(got), ob, 0))
	return got
}

// TestOpenLinCombPortable is the gnark-crypto-shaped opening's linear
// combination on a device with Options.NoShaderInt64 (monty31_acc.wgsl,
// the path of devices without 64-bit integers), against gnark-crypto's,
// where the adapter has 64-bit integers (elsewhere every test already
// runs that path).
func TestOpenLinCombPortable(t *testing.T) {
	for name, ctx := range linCombContexts(t) {
		if name[len(name)-4:] != "/u32" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, 12))
			p, err := NewParams(64, 7, 2, vortexSIS, 3)
			require.NoError(t, err)
			c, err := NewCommitter(ctx, p)
			require.NoError(t, err)
			defer c.Release()
			rows := make([][]koalabear.Element, 7)
			for i := range rows {
				rows[i] = make([]koalabear.Element, 64)
				for j := range rows[i] {
					rows[i][j].SetRandom()
				}
			}
			st, err := c.Commit(rows, Options{})
			require.NoError(t, err)
			defer st.Release()
			want, err := NewCommitter(nil, p)
			require.NoError(t, err)
			ws, err := want.Commit(rows, Options{})
			require.NoError(t, err)
			for range 2 { // the second from the pooled buffers
				alpha := randE4(rng)
				u, err := st.OpenLinComb(alpha)
				require.NoError(t, err)
				wu, err := ws.OpenLinComb(alpha)
				require.NoError(t, err)
				require.Equal(t, wu, u)
			}
		})
	}
}
