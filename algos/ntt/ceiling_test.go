package ntt

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgsl"
)

// The ceiling kernel: the passes' radix-16 arithmetic (nt_radix16) alone,
// so that a benchmark can say what a transform's butterflies cost without
// its memory traffic and barriers (BENCHMARKS.md, "The prover's
// pipeline").

// ceilingTab is the ceiling kernel's table: O (the sixteenth roots ω^a, a
// < 8, of the 2^24 transform), 256 twiddles and the twiddles' step,
// canonical.
func ceilingTab(f field.Monty31, rng *rand.Rand) []uint32 {
	fi := over[uint32]{f}
	omega := fi.exp(fi.defaultRoot(24), 1<<20)
	tab := make([]uint32, 8+256+1)
	for a := range 8 {
		tab[a] = uint32(fi.exp(omega, uint64(a)))
	}
	for j := 8; j < len(tab); j++ {
		tab[j] = rng.Uint32N(f.P())
	}
	return tab
}

// radix16Ref is nt_radix16's DIF: stage q = 3 down to 0 pairs x with x +
// 2^q at (w·o[x mod 2^q])^(2^(3-q)).
func radix16Ref(fi fieldImpl, v *[16]uint64, w uint64, o []uint32) {
	p := fi.modulus()
	for q := 3; q >= 0; q-- {
		h := 1 << q
		for x := range 16 {
			if x&h != 0 {
				continue
			}
			t := fi.exp(fi.mul(w, uint64(o[x%h])), 1<<(3-q))
			a, b := v[x], v[x+h]
			v[x], v[x+h] = (a+b)%p, fi.mul((a+p-b)%p, t)
		}
	}
}

// ceilingRef is the ceiling kernel's output for n invocations, canonical.
func ceilingRef(f field.Monty31, src, tab []uint32, n, rounds int) []uint32 {
	fi := over[uint32]{f}
	p := fi.modulus()
	out := make([]uint32, n)
	for i := range out {
		var v [16]uint64
		for m := range v {
			v[m] = (uint64(src[m]) + uint64(src[16+i%256])) % p
		}
		w := uint64(tab[8+i%256])
		for range rounds {
			radix16Ref(fi, &v, w, tab[:8])
			w = fi.mul(w, uint64(tab[8+256]))
		}
		var sum uint64
		for _, x := range v {
			sum = (sum + x) % p
		}
		out[i] = uint32(sum)
	}
	return out
}

// ceiling is the ceiling kernel on one device, with its buffers.
type ceiling struct {
	ctx           *wgpu.Context
	k             *wgpu.Kernel
	wg            uint32
	src, tab, out *wgpu.Buffer
}

// newCeiling compiles the kernel of rounds rounds over f, with the
// workgroup of the device's Plans, and uploads src and tab (canonical) in
// the kernels' form, for up to n invocations.
func newCeiling(ctx *wgpu.Context, f field.Monty31, src, tab []uint32, n, rounds int) (*ceiling, error) {
	fi := over[uint32]{f}
	cfg := configFor(ctx.Limits(), fi.elemBytes())
	mod := ntModule(fi, cfg, false, 0, passIO{})
	mod.Library, mod.Files = measured, append(mod.Files, "ntt_ceiling.wgsl")
	mod.Consts = append(mod.Consts, wgsl.Const{Name: "NT_CEIL_ROUNDS", Value: uint32(rounds)})
	k, err := ntKernel(ctx, fi, mod, "ntt_ceiling", passIO{})
	if err != nil {
		return nil, err
	}
	c := &ceiling{ctx: ctx, k: k, wg: cfg.wg}
	monty := func(xs []uint32) []byte {
		m := make([]uint32, len(xs))
		for i, x := range xs {
			m[i] = f.ToMonty(x)
		}
		return wgpu.Bytes(m)
	}
	for _, b := range []struct {
		buf  **wgpu.Buffer
		data []byte
	}{{&c.src, monty(src)}, {&c.tab, monty(tab)}, {&c.out, make([]byte, 4*n)}} {
		if *b.buf, err = ctx.NewBuffer("ntt ceiling", uint64(len(b.data))); err != nil {
			c.release()
			return nil, err
		}
		if err := ctx.Upload(*b.buf, 0, b.data); err != nil {
			c.release()
			return nil, err
		}
	}
	return c, ctx.Wait()
}

func (c *ceiling) release() {
	for _, b := range []*wgpu.Buffer{c.src, c.tab, c.out} {
		if b != nil {
			b.Release()
		}
	}
}

// dispatch is the kernel over n invocations (a multiple of the workgroup
// size).
func (c *ceiling) dispatch(n int) wgpu.Dispatch {
	return wgpu.Dispatch{Kernel: c.k, Bindings: []wgpu.Binding{wgpu.Bind(c.src), wgpu.Bind(c.out), wgpu.Bind(c.tab), wgpu.Bind(c.src)},
		Params: make([]uint32, paramWords), Groups: [3]uint32{uint32(n) / c.wg, 1, 1}}
}

// TestCeilingKernel: the ceiling kernel computes what ceilingRef says, so
// that the benchmark times the passes' arithmetic and not something the
// compiler could drop.
func TestCeilingKernel(t *testing.T) {
	f := field.KoalaBear
	rng := rand.New(rand.NewPCG(7, 24))
	src := randRows(f, rng, 1, 9)[:16+256]
	tab := ceilingTab(f, rng)
	const rounds = 3
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		n := 3 * int(configFor(ctx.Limits(), 4).wg)
		want := ceilingRef(f, src, tab, n, rounds)
		c, err := newCeiling(ctx, f, src, tab, n, rounds)
		require.NoError(t, err)
		defer c.release()
		_, err = ctx.Run(c.dispatch(n))
		require.NoError(t, err)
		got := make([]uint32, n)
		require.NoError(t, ctx.Download(wgpu.Bytes(got), c.out, 0))
		field.FromMontyAll(f, got, got)
		for i := range n {
			require.Equal(t, want[i], got[i], "invocation %d", i)
		}
	})
}

// BenchmarkNTTCeiling times the radix-16 rounds' arithmetic of a KoalaBear
// transform of 2^k, with no memory traffic or barriers: 2^k/16
// invocations, each running the rounds in registers. A transform of 2^k
// runs k/4 rounds' worth of butterflies (a radix-4 pair counting half a
// round). It runs rounds=k/4 and rounds=k/2: their difference is the
// k/4 rounds alone, without the kernel's fixed cost (its start, loads,
// sum and store).
func BenchmarkNTTCeiling(b *testing.B) {
	f := field.KoalaBear
	rng := rand.New(rand.NewPCG(7, 24))
	src := randRows(f, rng, 1, 9)[:16+256]
	tab := ceilingTab(f, rng)
	for _, k := range []int{20, 24} {
		for _, rounds := range []int{k / 4, k / 2} {
			b.Run(fmt.Sprintf("2^%d/rounds=%d", k, rounds), func(b *testing.B) {
				ctx := gputest.Context(b, gputest.Backends()[0])
				n := 1 << (k - 4)
				c, err := newCeiling(ctx, f, src, tab, n, rounds)
				require.NoError(b, err)
				defer c.release()
				reportKernel(b, timeKernels(b, ctx, []wgpu.Dispatch{c.dispatch(n)}))
			})
		}
	}
}

// bareSteps is what a bare Plan adds to each word of an element in a DIF
// transform of 2^k under cfg: one for each radix-16 round, radix-4 pair and
// stage alone of each pass.
func bareSteps(k int, cfg config) uint32 {
	var n uint32
	for _, ps := range planPasses(k, cfg) {
		n += uint32(passSteps(ps.m))
	}
	return n
}

// TestBareSchedule: a bare Plan moves every element back to where it was
// (a DIF pass's groups are read and written at the same places), each
// word plus the steps it went through, so that BenchmarkNTTSchedule times
// every load and store the passes make, at the places they make them.
func TestBareSchedule(t *testing.T) {
	f := field.KoalaBear
	fi := over[uint32]{f}
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		// 2^12 and 2^20: a low bits' pass of 12 stages, whose lowest round
		// takes twiddles of one (NT_UNIT) on every adapter's tiles.
		for _, s := range []struct{ rows, k int }{{3, 5}, {2, 11}, {2, 12}, {1, 15}, {1, 17}, {1, 20}} {
			data := randRows(f, rand.New(rand.NewPCG(5, uint64(s.k))), s.rows, s.k)
			cfg := policy(ctx, fi, s.k)
			cfg.bare = true
			p, err := planOf(ctx, fi, s.k, cfg)
			require.NoError(t, err)
			// Montgomery: the words go in and out as they are, no
			// conversion on the way.
			got := append([]uint32(nil), data...)
			err = transformHost(p, got, Options{Out: BitReversed}, Montgomery)
			p.Release()
			require.NoError(t, err)
			steps := bareSteps(s.k, cfg)
			require.NotZero(t, steps)
			for i, x := range data {
				require.Equal(t, x+steps, got[i], "%d × 2^%d, element %d (%d steps)", s.rows, s.k, i, steps)
			}
		}
	})
}

// BenchmarkNTTSchedule times KoalaBear transforms (one row of 2^24, one of
// 2^20, 256 rows of 2^19), resident, bit-reversed out, beside the same
// passes bare (config.bare): their memory schedule alone, the loads,
// stores, trips through workgroup memory and barriers without the
// butterflies. With BenchmarkNTTCeiling's arithmetic alone it says how
// much of a transform's time each takes, and how much they overlap. Each
// pass is timed alone too (pass=i, lo, m and its run of columns c): the
// passes work in place, so one runs alone on what the one before left.
func BenchmarkNTTSchedule(b *testing.B) {
	f := field.KoalaBear
	fi := over[uint32]{f}
	ctx := gputest.Context(b, gputest.Backends()[0])
	for _, s := range []struct{ rows, k int }{{1, 24}, {1, 20}, {256, 19}} {
		data := randRows(f, rand.New(rand.NewPCG(3, uint64(s.k))), s.rows, s.k)
		for _, bare := range []bool{false, true} {
			cfg := policy(ctx, fi, s.k)
			cfg.bare = bare
			p, err := planOf(ctx, fi, s.k, cfg)
			if err != nil {
				b.Fatal(err)
			}
			name := fmt.Sprintf("%dx2^%d/bare=%v", s.rows, s.k, bare)
			b.Run(name, func(b *testing.B) {
				ds, _ := residentRows(b, ctx, p, data, s.rows, Options{Out: BitReversed})
				reportKernel(b, timeKernels(b, ctx, ds))
			})
			for i, ps := range planPasses(s.k, cfg) {
				b.Run(fmt.Sprintf("%s/pass=%d/lo=%d/m=%d/c=%d", name, i, ps.lo, ps.m, ps.c), func(b *testing.B) {
					ds, _ := residentRows(b, ctx, p, data, s.rows, Options{Out: BitReversed})
					reportKernel(b, timeKernels(b, ctx, ds[i:i+1]))
				})
			}
			p.Release()
		}
	}
}
