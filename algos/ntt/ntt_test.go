package ntt

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"testing"
	"unsafe"

	"github.com/consensys/gnark-crypto/field/babybear"
	bbfft "github.com/consensys/gnark-crypto/field/babybear/fft"
	"github.com/consensys/gnark-crypto/field/koalabear"
	kbfft "github.com/consensys/gnark-crypto/field/koalabear/fft"
	"github.com/consensys/gnark-crypto/utils"
	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

func TestMain(m *testing.M) { os.Exit(gputest.Main(m)) }

// randRows returns rows·2^logN random canonical elements of f, the
// field's edges mixed in.
func randRows(f field.Monty31, rng *rand.Rand, rows, logN int) []uint32 {
	out := make([]uint32, rows<<logN)
	for i := range out {
		switch rng.IntN(8) {
		case 0:
			out[i] = f.P() - 1 - rng.Uint32N(3)
		case 1:
			out[i] = rng.Uint32N(3)
		default:
			out[i] = rng.Uint32N(f.P())
		}
	}
	return out
}

// cases are every combination of direction, coset and orders.
func cases() []Options {
	var out []Options
	for _, inv := range []bool{false, true} {
		for _, coset := range []bool{false, true} {
			for _, in := range []Order{Natural, BitReversed} {
				for _, o := range []Order{Natural, BitReversed} {
					out = append(out, Options{Inverse: inv, Coset: coset, In: in, Out: o})
				}
			}
		}
	}
	return out
}

func name(o Options) string {
	return fmt.Sprintf("inv=%v,coset=%v,%v->%v", o.Inverse, o.Coset, o.In, o.Out)
}

// gnarkRows is the oracle: each row through gnark-crypto's Domain as
// written, DIT where the input is bit-reversed, DIF where it is natural,
// utils.BitReverse for the other output order.
func gnarkRows(t testing.TB, f field.Monty31, data []uint32, logN int, o Options) []uint32 {
	t.Helper()
	n := 1 << logN
	out := make([]uint32, len(data))
	for i, x := range data {
		out[i] = f.ToMonty(x)
	}
	for lo := 0; lo < len(out); lo += n {
		row := out[lo : lo+n]
		switch f {
		case field.KoalaBear:
			a := unsafe.Slice((*koalabear.Element)(unsafe.Pointer(&row[0])), n)
			var d *kbfft.Domain
			if !o.Root.IsZero() || !o.Shift.IsZero() {
				var g koalabear.Element
				g.SetUint64(scalarValue(t, f, o.Shift))
				d = kbfft.NewDomain(uint64(n), kbfft.WithShift(g), kbfft.WithoutPrecompute())
				d.Generator.SetUint64(scalarValue(t, f, o.Root))
				d.GeneratorInv.Inverse(&d.Generator)
			} else {
				d = kbfft.NewDomain(uint64(n))
			}
			dec := kbfft.DIF
			if o.In == BitReversed {
				dec = kbfft.DIT
			}
			var opts []kbfft.Option
			if o.Coset {
				opts = append(opts, kbfft.OnCoset())
			}
			if o.Inverse {
				d.FFTInverse(a, dec, opts...)
			} else {
				d.FFT(a, dec, opts...)
			}
			if o.In == o.Out {
				utils.BitReverse(a)
			}
		case field.BabyBear:
			a := unsafe.Slice((*babybear.Element)(unsafe.Pointer(&row[0])), n)
			var d *bbfft.Domain
			if !o.Root.IsZero() || !o.Shift.IsZero() {
				var g babybear.Element
				g.SetUint64(scalarValue(t, f, o.Shift))
				d = bbfft.NewDomain(uint64(n), bbfft.WithShift(g), bbfft.WithoutPrecompute())
				d.Generator.SetUint64(scalarValue(t, f, o.Root))
				d.GeneratorInv.Inverse(&d.Generator)
			} else {
				d = bbfft.NewDomain(uint64(n))
			}
			dec := bbfft.DIF
			if o.In == BitReversed {
				dec = bbfft.DIT
			}
			var opts []bbfft.Option
			if o.Coset {
				opts = append(opts, bbfft.OnCoset())
			}
			if o.Inverse {
				d.FFTInverse(a, dec, opts...)
			} else {
				d.FFT(a, dec, opts...)
			}
			if o.In == o.Out {
				utils.BitReverse(a)
			}
		}
	}
	for i, x := range out {
		out[i] = f.FromMonty(x)
	}
	return out
}

// rowsFor returns the row counts tested at 2^logN: odd ones, and many
// where rows are short.
func rowsFor(logN int) []int {
	switch {
	case logN <= 6:
		return []int{1, 3, 67}
	case logN <= 12:
		return []int{1, 5}
	default:
		return []int{1, 2}
	}
}

// check runs transform on fresh inputs of every size 2^1..2^maxLog, row
// count and case, against gnark-crypto.
func check(t *testing.T, maxLog int, transform func(f field.Monty31, data []uint32, logN int, o Options) error) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, f := range field.Fields {
		for k := 1; k <= maxLog; k++ {
			for _, rows := range rowsFor(k) {
				for _, o := range cases() {
					in := randRows(f, rng, rows, k)
					want := gnarkRows(t, f, in, k, o)
					got := append([]uint32(nil), in...)
					require.NoError(t, transform(f, got, k, o))
					if !equal(want, got) {
						t.Fatalf("%s 2^%d x %d rows %s: first difference at %d", f.Name(), k, rows, name(o), firstDiff(want, got))
					}
				}
			}
		}
	}
}

func equal(a, b []uint32) bool { return firstDiff(a, b) < 0 }

func firstDiff(a, b []uint32) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

func TestReference(t *testing.T) {
	check(t, 12, func(f field.Monty31, data []uint32, logN int, o Options) error { return Reference(f, data, logN, o) })
}

func TestCPU(t *testing.T) {
	check(t, 16, func(f field.Monty31, data []uint32, logN int, o Options) error {
		return Transform(nil, f, data, logN, o)
	})
}

func TestGPU(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		check(t, 16, func(f field.Monty31, data []uint32, logN int, o Options) error {
			return Transform(ctx, f, data, logN, o)
		})
	})
}

// TestGPUSmallLimits splits rows over bindings and buffers, and refuses a
// row larger than a binding.
func TestGPUSmallLimits(t *testing.T) {
	gputest.ForEachSmall(t, func(t *testing.T, ctx *wgpu.Context) {
		rng := rand.New(rand.NewPCG(3, 4))
		for _, f := range field.Fields {
			for _, shape := range [][2]int{{10, 37}, {10, 100}, {13, 3}, {4, 1001}} {
				k, rows := shape[0], shape[1]
				for _, o := range []Options{{}, {Inverse: true, Coset: true, In: BitReversed}} {
					in := randRows(f, rng, rows, k)
					got := append([]uint32(nil), in...)
					require.NoError(t, Transform(ctx, f, got, k, o))
					require.True(t, equal(gnarkRows(t, f, in, k, o), got), "%s 2^%d x %d %s", f.Name(), k, rows, name(o))
				}
			}
			if ctx.Limits().MaxStorageBindingSize < 4<<15 {
				err := Transform(ctx, f, make([]uint32, 1<<15), 15, Options{})
				require.ErrorContains(t, err, "exceeds the device's storage binding size")
			}
		}
	})
}

// TestGPULarge runs the sizes past a workgroup's tile by two passes (2^18,
// 2^20) and three (2^21).
func TestGPULarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large transforms")
	}
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		rng := rand.New(rand.NewPCG(5, 6))
		for _, f := range field.Fields {
			for _, k := range []int{18, 20, 21} {
				for _, o := range []Options{{}, {Inverse: true, Coset: true, In: BitReversed, Out: BitReversed}, {Coset: true, In: BitReversed}} {
					if k == 21 && o.Inverse {
						continue // three passes: two cases suffice
					}
					in := randRows(f, rng, 1, k)
					got := append([]uint32(nil), in...)
					require.NoError(t, Transform(ctx, f, got, k, o))
					require.True(t, equal(gnarkRows(t, f, in, k, o), got), "%s 2^%d %s", f.Name(), k, name(o))
				}
			}
		}
	})
}

// TestMonty passes gnark-crypto elements as they are, on CPU and GPU.
func TestMonty(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	f := field.KoalaBear
	k := 11
	in := randRows(f, rng, 3, k)
	o := Options{Coset: true}
	want := gnarkRows(t, f, in, k, o)
	run := func(t *testing.T, ctx *wgpu.Context) {
		el := make([]koalabear.Element, len(in))
		for i, x := range in {
			el[i].SetUint64(uint64(x))
		}
		require.NoError(t, TransformMonty(ctx, f, el, k, o))
		for i := range el {
			require.Equal(t, want[i], uint32(el[i].Uint64()), "element %d", i)
		}
	}
	t.Run("cpu", func(t *testing.T) { run(t, nil) })
	gputest.ForEach(t, run)
}

// TestRoots runs other roots than gnark-crypto's defaults (Plonky3's
// KoalaBear and BabyBear two-adic generators' powers, and shift 7).
func TestRoots(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	run := func(t *testing.T, ctx *wgpu.Context) {
		for _, f := range field.Fields {
			for _, k := range []int{3, 9, 14} {
				// Another root of order 2^k: the default's cube (3 is odd).
				w := uint64(f.Exp(defaultRoot(f, k), 3))
				for _, o := range []Options{{Root: Value(w)}, {Root: Value(w), Coset: true, Shift: Value(7), Inverse: true}, {Root: Value(w), Coset: true, Shift: Value(7), In: BitReversed}} {
					in := randRows(f, rng, 2, k)
					oo := o
					if oo.Shift.IsZero() {
						oo.Shift = Value(uint64(defaultShift(f)))
					}
					want := gnarkRows(t, f, in, k, oo)
					got := append([]uint32(nil), in...)
					require.NoError(t, Transform(ctx, f, got, k, o))
					require.True(t, equal(want, got), "%s 2^%d %s", f.Name(), k, name(o))
					ref := append([]uint32(nil), in...)
					require.NoError(t, Reference(f, ref, k, o))
					require.True(t, equal(want, ref), "reference %s 2^%d %s", f.Name(), k, name(o))
				}
			}
		}
	}
	t.Run("cpu", func(t *testing.T) { run(t, nil) })
	gputest.ForEach(t, run)
}

// TestGuard transforms rows bound between sentinel words and checks the
// sentinels are untouched.
func TestGuard(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		rng := rand.New(rand.NewPCG(11, 12))
		for _, f := range field.Fields {
			for _, shape := range [][2]int{{1, 3}, {5, 7}, {12, 1}, {15, 1}} {
				k, rows := shape[0], shape[1]
				for _, o := range cases() {
					p, err := NewPlan(ctx, f, k, PlanOptions{})
					require.NoError(t, err)
					const guard = 64 // words: 256 bytes either side
					n := rows << k
					all := make([]uint32, guard+n+guard)
					for i := range all {
						all[i] = 0xdeadbeef ^ uint32(i)
					}
					in := randRows(f, rng, rows, k)
					copy(all[guard:], in)
					buf, err := ctx.NewBuffer("guarded rows", uint64(4*len(all)))
					require.NoError(t, err)
					require.NoError(t, ctx.Upload(buf, 0, wgpu.Bytes(all)))
					_, err = p.Transform(wgpu.Binding{Buffer: buf, Offset: 4 * guard, Size: uint64(4 * n)}, rows, o, Canonical)
					require.NoError(t, err)
					back := make([]uint32, len(all))
					require.NoError(t, ctx.Download(wgpu.Bytes(back), buf, 0))
					buf.Release()
					p.Release()
					for i := range guard {
						require.Equal(t, 0xdeadbeef^uint32(i), back[i], "sentinel %d before", i)
						j := guard + n + i
						require.Equal(t, 0xdeadbeef^uint32(j), back[j], "sentinel %d after", i)
					}
					require.True(t, equal(gnarkRows(t, f, in, k, o), back[guard:guard+n]), "%s 2^%d x %d %s", f.Name(), k, rows, name(o))
				}
			}
		}
	})
}

func TestBadInput(t *testing.T) {
	f := field.KoalaBear
	for _, ctx := range []*wgpu.Context{nil, gputest.Context(t, gputest.Backends()[0])} {
		require.ErrorContains(t, Transform(ctx, f, make([]uint32, 1<<25), 25, Options{}), "rows of 2^25 elements: koalabear takes 2^1 up to 2^24")
		require.ErrorContains(t, Transform(ctx, f, make([]uint32, 0), 0, Options{}), "rows of 2^0 elements")
		require.ErrorContains(t, Transform(ctx, f, make([]uint32, 12), 3, Options{}), "12 elements are not whole rows of 2^3 = 8 elements")
		bad := make([]uint32, 16)
		bad[9] = f.P()
		require.ErrorContains(t, Transform(ctx, f, bad, 3, Options{}), "element 9: 2130706433 is not a koalabear element")
		require.ErrorContains(t, Transform(ctx, f, make([]uint32, 8), 3, Options{Root: Value(5)}), "root 5 (a canonical value) is not of order 2^3 in koalabear")
	}
	// Past the first of the scan's blocks, two bad elements in different
	// blocks of checkGrain elements, above the scan's: the lower one is
	// named.
	const checkGrain = 1 << 16
	fi, _ := implOf(f)
	big := make([]uint32, 5*checkGrain+3)
	big[4*checkGrain+7] = f.P() + 1
	big[2*checkGrain+1] = ^uint32(0)
	require.ErrorContains(t, checkElements(fi, big), fmt.Sprintf("element %d: 4294967295 is not", 2*checkGrain+1))
	big[2*checkGrain+1] = f.P() - 1
	require.ErrorContains(t, checkElements(fi, big), fmt.Sprintf("element %d: 2130706434 is not", 4*checkGrain+7))
	i, err := CheckElements(f, big)
	require.Equal(t, 4*checkGrain+7, i)
	require.ErrorContains(t, err, "2130706434 is not a koalabear element")
	big[4*checkGrain+7] = 0
	big[len(big)-1] = f.P()
	require.ErrorContains(t, checkElements(fi, big), fmt.Sprintf("element %d: 2130706433 is not", len(big)-1))
	big[len(big)-1] = 0
	require.NoError(t, checkElements(fi, big))
	i, err = CheckElements(f, big)
	require.Equal(t, -1, i)
	require.NoError(t, err)
	_, err = LogOf(f, 12)
	require.ErrorContains(t, err, "a row of 12 elements: the length must be a power of two")
	_, err = LogOf(field.BabyBear, 1<<28)
	require.ErrorContains(t, err, "babybear takes 2^1 up to 2^27")
}

func TestPlanPasses(t *testing.T) {
	c := config{wg: 256, tileLog: 12, colLog: 4}
	for k := 1; k <= 27; k++ {
		ps := planPasses(k, c)
		bit := k
		for _, p := range ps {
			require.Equal(t, bit, p.lo+p.m, "k=%d passes %v cover the bits in order", k, ps)
			require.LessOrEqual(t, p.m+p.c, c.tileLog, "k=%d pass %v fits a tile", k, p)
			require.GreaterOrEqual(t, p.lo, p.c, "k=%d pass %v", k, p)
			bit = p.lo
		}
		require.Equal(t, 0, bit)
		want := 1
		if k > 12 {
			want += (k - 12 + 7) / 8
		}
		require.Len(t, ps, want, "k=%d: %v", k, ps)
	}
	require.Len(t, planPasses(24, c), 3)
	// The split of the strided bits covers them in as few passes as
	// before, under every tile and run.
	for tileLog := 9; tileLog <= 13; tileLog++ {
		for colLog := 3; colLog < tileLog-2; colLog++ {
			d := config{wg: 256, tileLog: tileLog, colLog: colLog}
			per := tileLog - colLog
			for k := 1; k <= 30; k++ {
				ps := planPasses(k, d)
				bit := k
				for _, p := range ps {
					require.Equal(t, bit, p.lo+p.m, "%v k=%d passes %v cover the bits in order", d, k, ps)
					require.LessOrEqual(t, p.m+p.c, tileLog, "%v k=%d pass %v fits a tile", d, k, p)
					require.Positive(t, p.m)
					bit = p.lo
				}
				require.Len(t, ps, 1+(max(k-tileLog, 0)+per-1)/per, "%v k=%d: %v", d, k, ps)
			}
		}
	}
	// A strided DIF pass's trips through workgroup memory: its load and
	// store go straight to device memory where it has a round and even m.
	for m, want := range []int{1: 2, 2: 1, 3: 3, 4: 0, 5: 2, 6: 1, 7: 3, 8: 1} {
		if m > 0 {
			require.Equal(t, want, stridedTrips(m), "m=%d", m)
		}
	}
	// The encoding's rows of 2^19 on a GPU: the strided pass's rounds read
	// and write device memory themselves in both directions (NT_DIF_OUT,
	// NT_DIT_IN), the path BENCHMARKS.md measured; the low bits' pass
	// neither.
	enc := planPasses(19, config{wg: 256, tileLog: 12, colLog: 4, tl: 5}.forSize(19, false))
	require.Len(t, enc, 2, "%v", enc)
	require.True(t, enc[0].storesItself() && enc[0].loadsItself(), "%v", enc)
	require.False(t, enc[1].storesItself() || enc[1].loadsItself(), "%v", enc)
	// Its low bits' pass (m odd) and the low bits' pass of 2^24's three
	// (m = 12) run a row's lowest stages without the products of twiddle
	// 1 (NT_UNIT); no strided pass does, nor a low pass whose lowest
	// stages are a pair.
	require.True(t, enc[1].unitTwiddles() && !enc[0].unitTwiddles(), "%v", enc)
	big := planPasses(24, config{wg: 256, tileLog: 12, colLog: 4, tl: 5}.forSize(24, false))
	require.True(t, big[len(big)-1].unitTwiddles(), "%v", big)
	for _, p := range big[:len(big)-1] {
		require.False(t, p.unitTwiddles(), "%v", big)
	}
	require.False(t, (pass{lo: 0, m: 6}).unitTwiddles())
	require.Equal(t, config{wg: 256, tileLog: 12, colLog: 4, tl: 5}, configFor(wgpu.Limits{MaxInvocationsPerWorkgroup: 256, MaxWorkgroupSizeX: 256, MaxWorkgroupStorage: 16384}, 4))
	require.Equal(t, config{wg: 128, tileLog: 11, colLog: 4, tl: 5}, configFor(wgpu.Limits{MaxInvocationsPerWorkgroup: 128, MaxWorkgroupSizeX: 1024, MaxWorkgroupStorage: 8192}, 4))
	require.Equal(t, config{wg: 256, tileLog: 11, colLog: 4, tl: 4}, configFor(wgpu.Limits{MaxInvocationsPerWorkgroup: 256, MaxWorkgroupSizeX: 256, MaxWorkgroupStorage: 16384}, 8))
}

func TestForSize(t *testing.T) {
	for _, c := range []config{{wg: 256, tileLog: 12, colLog: 4, tl: 5}, {wg: 64, tileLog: 11, colLog: 4, tl: 4}, {wg: 256, tileLog: 9, colLog: 4, tl: 5}} {
		for k := 1; k <= 27; k++ {
			d := c.forSize(k, false)
			require.LessOrEqual(t, d.tileLog, c.tileLog)
			require.GreaterOrEqual(t, d.tileLog, min(c.tileLog, bits.Len32(c.wg)+1), "k=%d: four elements an invocation", k)
			require.LessOrEqual(t, len(planPasses(k, d)), len(planPasses(k, c)), "k=%d: no pass more", k)
			for _, p := range planPasses(k, d) {
				require.LessOrEqual(t, p.m+p.c, d.tileLog, "k=%d pass %v fits a tile", k, p)
				require.GreaterOrEqual(t, p.lo, p.c, "k=%d pass %v", k, p)
			}
			require.GreaterOrEqual(t, d.colLog, min(minColLog, c.colLog), "k=%d", k)
			require.LessOrEqual(t, d.colLog, max(c.colLog, c.tl), "k=%d", k)
			if n := uint32(1) << max(d.tileLog-4, 0); d.tileLog < c.tileLog && n >= minWG {
				require.Equal(t, min(c.wg, n), d.wg, "k=%d: a sixteenth of the tile's elements", k)
			} else {
				require.Equal(t, c.wg, d.wg, "k=%d", k)
			}
			if k >= c.tileLog+8 {
				require.Equal(t, c.tileLog, d.tileLog, "k=%d", k)
			}
			sw := c.forSize(k, true)
			require.Equal(t, c.tileLog, sw.tileLog, "k=%d: a software adapter's tile is the device's", k)
			require.Contains(t, []int{c.colLog, c.tl}, sw.colLog)
			require.Len(t, planPasses(k, sw), len(planPasses(k, c)), "k=%d", k)
		}
	}
	c := config{wg: 256, tileLog: 12, colLog: 4, tl: 5}
	require.Equal(t, config{wg: 256, tileLog: 10, colLog: 4, tl: 5}, c.forSize(16, false))
	require.Equal(t, config{wg: 128, tileLog: 11, colLog: 5, tl: 5}, c.forSize(17, false))
	require.Equal(t, config{wg: 128, tileLog: 11, colLog: 4, tl: 5}, c.forSize(18, false))
	require.Equal(t, config{wg: 128, tileLog: 11, colLog: 3, tl: 5}, c.forSize(19, false))
	require.Equal(t, config{wg: 256, tileLog: 12, colLog: 4, tl: 5}, c.forSize(20, false))
	require.Equal(t, config{wg: 256, tileLog: 12, colLog: 4, tl: 5}, c.forSize(24, false))
	require.Equal(t, []pass{{16, 8, 4}, {12, 4, 4}, {0, 12, 0}}, planPasses(24, c.forSize(24, false)))
	require.Equal(t, []pass{{18, 6, 5}, {12, 6, 5}, {0, 12, 0}}, planPasses(24, config{wg: 256, tileLog: 12, colLog: 5}))
	require.Equal(t, []pass{{16, 5, 4}, {12, 4, 4}, {0, 12, 0}}, planPasses(21, c), "8 + 1 takes a trip more than 5 + 4")
	require.Equal(t, config{wg: 256, tileLog: 12, colLog: 5, tl: 5}, c.forSize(16, true))
	require.Equal(t, 12, c.forSize(5, true).tileLog)
	require.Equal(t, c.forSize(20, false), c.forSize(20, true))
}

// TestSoftwareOneTile holds a software adapter's Plans of every size below
// 2^20 of a field to one tile, the device's, so that they share their
// kernels' modules (each NTT_TILE is a module, and Chromium's SwiftShader
// takes seconds over each; BENCHMARKS.md).
func TestSoftwareOneTile(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		if ctx.Info().Type != "cpu" {
			t.Skip("not a software adapter")
		}
		for _, fi := range []fieldImpl{over[uint32]{field.BabyBear}, over[uint64]{field.Goldilocks{}}} {
			want := configFor(ctx.Limits(), fi.elemBytes()).tileLog
			for _, k := range []int{1, 5, 11, 12, 14, 16} {
				p, err := newPlan(ctx, fi, k, PlanOptions{})
				require.NoError(t, err)
				require.Equal(t, want, p.cfg.tileLog, "%s 2^%d", fi.Name(), k)
				p.Release()
			}
		}
	})
}

// planOf is a Plan of rows of 2^k of fi with its flags compiled in (as
// a GPU's are) under the tuning policy cfg, with the default roots.
func planOf(ctx *wgpu.Context, fi fieldImpl, k int, cfg config) (*Plan, error) {
	r, err := rootsOf(fi, k, Options{Coset: true})
	if err != nil {
		return nil, err
	}
	return newPlanWith(ctx, fi, k, r, cfg, true)
}

// TestGPUTiles runs the tiles a GPU's Plans take for rows below 2^20
// (config.forSize's smaller tiles), with their flags compiled in as a
// GPU's are, on every adapter, software ones included, whose own Plans
// keep the device's tile and read the flags. On llvmpipe's GL, whose
// compiler takes the longest over each module (most of this test's time
// on a CI machine), one field and two of the cases run, a DIF transform
// and a DIT one: every case's module is the same WGSL as lavapipe's,
// which runs them all, and the GL backend's translation of each pass's
// code is exercised by those two.
func TestGPUTiles(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		rng := rand.New(rand.NewPCG(11, 12))
		fields := field.Fields
		opts := []Options{{}, {Inverse: true, Coset: true, In: BitReversed, Out: BitReversed}, {Coset: true, In: BitReversed}, {Inverse: true, Out: BitReversed}}
		if softwareGL(ctx.Info()) {
			fields, opts = fields[:1], []Options{opts[0], opts[2]}
		}
		for _, f := range fields {
			fi := over[uint32]{f}
			c := configFor(ctx.Limits(), fi.elemBytes())
			for _, k := range []int{1, 5, 11, 14, 16, 17, 19} {
				cfg := c.forSize(k, false)
				for _, o := range opts {
					p, err := planOf(ctx, fi, k, cfg)
					require.NoError(t, err)
					rows := 3
					if k > 16 {
						rows = 1 // the tiles of 2^17 and 2^19 on a software adapter take seconds a row
					}
					in := randRows(f, rng, rows, k)
					got := append([]uint32(nil), in...)
					require.NoError(t, transformHost(p, got, o, Canonical))
					p.Release()
					require.True(t, equal(gnarkRows(t, f, in, k, o), got), "%s 2^%d tile 2^%d %s", f.Name(), k, cfg.tileLog, name(o))
				}
			}
		}
	})
}

// TestFixedPasses runs the transforms, encodings and extensions with each
// pass's flags compiled into its kernel (Plan.fixed, as on a GPU) on
// every adapter, software ones included, whose own Plans read them. On
// llvmpipe's GL, whose compiler takes the longest over each module (most
// of this test's time on a CI machine's cold shader cache), only the
// encodings run so: their fused passes carry the most flags, and a
// fixed kernel differs from the one that reads its flags by constants
// alone, which lavapipe's runs of every case check. The other cases skip
// GL's adapter (each runs on every adapter through gputest.ForEach),
// where their own tests run them.
func TestFixedPasses(t *testing.T) {
	defer func(f func(wgpu.AdapterInfo) bool) { fixedPasses = f }(fixedPasses)
	fixedPasses = func(wgpu.AdapterInfo) bool { return true }
	for _, c := range []struct {
		name string
		test func(*testing.T)
		gl   bool // also on a software GL adapter
	}{{"GPU", TestGPU, false}, {"GPULarge", TestGPULarge, false}, {"EncodeGPU", TestEncodeGPU, true}, {"ExtendFused", TestExtendFused, true},
		{"ExtendGPU", TestExtendGPU, false}, {"GoldilocksGPU", TestGoldilocksGPU, false}, {"EncodeMonty", TestEncodeMonty, false}, {"ExtendMonty", TestExtendMonty, false}} {
		t.Run(c.name, func(t *testing.T) {
			if !c.gl {
				gputest.SkipAdapters(t, softwareGL, "its own test runs it here")
			}
			c.test(t)
		})
	}
}

// softwareGL reports whether an adapter is llvmpipe's GL (a software
// one), whose compiler takes the longest over each module and whose runs
// are the slowest: the tests that would repeat there what lavapipe runs
// leave it out or run less.
func softwareGL(a wgpu.AdapterInfo) bool { return a.Software() && a.Backend == "gl" }

// scalarValue returns s's canonical value in f.
func scalarValue(t testing.TB, f field.Monty31, s Scalar) uint64 {
	t.Helper()
	v, err := s.resolve(over[uint32]{f}, "scalar")
	require.NoError(t, err)
	return v
}

// defaultRoot returns gnark-crypto's fft.Generator(2^logN) for f,
// canonical: the transform's default root, from gnark-crypto rather than
// the field layer, so that tests hold the two equal.
func defaultRoot(f field.Monty31, logN int) uint32 {
	if f == field.KoalaBear {
		w, _ := kbfft.Generator(1 << logN)
		return uint32(w.Uint64())
	}
	w, _ := bbfft.Generator(1 << logN)
	return uint32(w.Uint64())
}

// defaultShift returns gnark-crypto's GeneratorFullMultiplicativeGroup()
// for f, canonical.
func defaultShift(f field.Monty31) uint32 {
	if f == field.KoalaBear {
		g := kbfft.GeneratorFullMultiplicativeGroup()
		return uint32(g.Uint64())
	}
	g := bbfft.GeneratorFullMultiplicativeGroup()
	return uint32(g.Uint64())
}
