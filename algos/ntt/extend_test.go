package ntt

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/field/koalabear"
	"github.com/consensys/gnark-crypto/field/koalabear/vortex"
	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// vortexEncode is the oracle of Reed-Solomon encoding: gnark-crypto's
// vortex Params.EncodeReedSolomon on each row.
func vortexEncode(t testing.TB, src []uint32, logN, rate int) []uint32 {
	t.Helper()
	n := 1 << logN
	p, err := vortex.NewParams(n, 1, nil, rate, 1)
	require.NoError(t, err)
	out := make([]uint32, 0, len(src)*rate)
	in := make([]koalabear.Element, n)
	for lo := 0; lo < len(src); lo += n {
		// EncodeReedSolomon's slow path takes res zeroed past n.
		res := make([]koalabear.Element, n*rate)
		for i := range in {
			in[i].SetUint64(uint64(src[lo+i]))
		}
		p.EncodeReedSolomon(in, res)
		for _, x := range res {
			out = append(out, uint32(x.Uint64()))
		}
	}
	return out
}

// extendRef is the oracle of Extend: Reference's inverse transform, zeros
// up to n·Rate, and Reference's forward transform of the whole row.
func extendRef(t testing.TB, f field.Monty31, src []uint32, logN int, o ExtendOptions) []uint32 {
	t.Helper()
	rateLog, small, big, shift, err := extendRoots(over[uint32]{f}, logN, o)
	require.NoError(t, err)
	n := 1 << logN
	coef := append([]uint32(nil), src...)
	require.NoError(t, Reference(f, coef, logN, Options{Inverse: true, Root: Value(small)}))
	out := make([]uint32, len(src)*o.Rate)
	for r := 0; r < len(src)/n; r++ {
		copy(out[r*n*o.Rate:], coef[r*n:(r+1)*n])
	}
	require.NoError(t, Reference(f, out, logN+rateLog, Options{Root: Value(big), Coset: o.Coset, Shift: Value(shift), Out: o.Out}))
	return out
}

func checkEncode(t *testing.T, ctx *wgpu.Context, maxLog int) {
	rng := rand.New(rand.NewPCG(21, 22))
	f := field.KoalaBear
	for k := 1; k <= maxLog; k++ {
		for _, rate := range []int{2, 4, 8} {
			for _, rows := range []int{1, 3} {
				src := randRows(f, rng, rows, k)
				dst := make([]uint32, len(src)*rate)
				require.NoError(t, EncodeReedSolomon(ctx, f, dst, src, k, rate))
				want := vortexEncode(t, src, k, rate)
				if !equal(want, dst) {
					t.Fatalf("2^%d x %d rows rate %d: first difference at %d", k, rows, rate, firstDiff(want, dst))
				}
			}
		}
	}
}

func TestEncodeCPU(t *testing.T) { checkEncode(t, nil, 12) }

func TestEncodeGPU(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) { checkEncode(t, ctx, 14) })
	gputest.ForEachSmall(t, func(t *testing.T, ctx *wgpu.Context) { checkEncode(t, ctx, 10) })
}

// TestExtendFused checks that a rate-2 encoding runs the inverse's last
// pass and the coset's first as one dispatch (Plan.fuse), one pass
// fewer, and that other extensions do not.
func TestExtendFused(t *testing.T) {
	ctx := gputest.Context(t, gputest.Backends()[0])
	for _, c := range []struct {
		k     int
		o     ExtendOptions
		fused bool
	}{{14, ExtendOptions{Rate: 2}, true}, {9, ExtendOptions{Rate: 2}, true}, {14, ExtendOptions{Rate: 4}, false},
		{14, ExtendOptions{Rate: 2, Coset: true}, false}, {14, ExtendOptions{Rate: 2, Out: BitReversed}, false}} {
		e, err := NewExtender(ctx, field.KoalaBear, c.k, c.o)
		require.NoError(t, err)
		in, err := ctx.NewBuffer("in", 4<<c.k)
		require.NoError(t, err)
		out, err := ctx.NewBuffer("out", uint64(4*c.o.Rate)<<c.k)
		require.NoError(t, err)
		ds, err := e.Dispatches(wgpu.Bind(in), wgpu.Bind(out), 1, Canonical)
		require.NoError(t, err)
		n := 0
		for _, d := range ds {
			if len(d.Params) == paramWords && d.Params[paramFlags]&flagFuse != 0 {
				n++
				// The inverse's 1/n and the coset's g^i: one table of
				// g^i/n, no scale of its own.
				require.Zero(t, d.Params[paramFlags]&flagScaleIn, "2^%d %+v: the fused pass's own scale", c.k, c.o)
				require.Equal(t, e.cosets[1].tab.scA[3], d.Params[paramFuseTwA+2], "2^%d %+v: the fused pass's scales", c.k, c.o)
			}
		}
		require.Equal(t, map[bool]int{true: 1, false: 0}[c.fused], n, "2^%d %+v: fused dispatches", c.k, c.o)
		in.Release()
		out.Release()
		e.Release()
	}
}

func checkExtend(t *testing.T, ctx *wgpu.Context) {
	rng := rand.New(rand.NewPCG(23, 24))
	for _, f := range field.Fields {
		for _, k := range []int{1, 2, 5, 9, 13} {
			for _, rate := range []int{2, 4, 8, 16} {
				for _, o := range []ExtendOptions{{}, {Coset: true}, {Out: BitReversed}, {Coset: true, Out: BitReversed}, {Coset: true, Shift: Value(7), Root: Value(uint64(f.Exp(defaultRoot(f, k+4), 16/uint64(rate)*3)))}} {
					o.Rate = rate
					rows := 1 + rng.IntN(3)
					src := randRows(f, rng, rows, k)
					dst := make([]uint32, len(src)*rate)
					require.NoError(t, Extend(ctx, f, dst, src, k, o))
					want := extendRef(t, f, src, k, o)
					if !equal(want, dst) {
						t.Fatalf("%s 2^%d x %d rows %+v: first difference at %d", f.Name(), k, rows, o, firstDiff(want, dst))
					}
				}
			}
		}
	}
}

func TestExtendCPU(t *testing.T) { checkExtend(t, nil) }

func TestExtendGPU(t *testing.T) {
	gputest.ForEach(t, checkExtend)
}

func TestExtendBadInput(t *testing.T) {
	f := field.KoalaBear
	for _, ctx := range []*wgpu.Context{nil, gputest.Context(t, gputest.Backends()[0])} {
		src := make([]uint32, 16)
		require.ErrorContains(t, Extend(ctx, f, make([]uint32, 48), src, 4, ExtendOptions{Rate: 3}), "rate 3: the blowup is a power of two from 2 to 16")
		require.ErrorContains(t, Extend(ctx, f, make([]uint32, 16), src, 4, ExtendOptions{Rate: 2}), "extending 16 elements at rate 2 into 16: want 32")
		require.ErrorContains(t, Extend(ctx, f, make([]uint32, 32<<20), make([]uint32, 1<<21), 21, ExtendOptions{Rate: 16}), "codewords of 2^25 elements exceed koalabear's 2^24")
		src[3] = f.P() + 1
		require.ErrorContains(t, Extend(ctx, f, make([]uint32, 32), src, 4, ExtendOptions{Rate: 2}), "element 3: 2130706434 is not a koalabear element")
	}
}

// TestExtendGuard extends rows into an output bound between sentinel
// words, from an input bound the same way, and checks both sentinels.
func TestExtendGuard(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		rng := rand.New(rand.NewPCG(25, 26))
		f := field.BabyBear
		const guard = 64
		for _, k := range []int{3, 11} {
			for _, o := range []ExtendOptions{{Rate: 2}, {Rate: 4, Coset: true, Out: BitReversed}} {
				rows := 3
				src := randRows(f, rng, rows, k)
				e, err := NewExtender(ctx, f, k, o)
				require.NoError(t, err)
				fill := func(n int) []uint32 {
					all := make([]uint32, guard+n+guard)
					for i := range all {
						all[i] = 0xfeedface ^ uint32(i)
					}
					return all
				}
				inAll, outAll := fill(len(src)), fill(len(src)*o.Rate)
				copy(inAll[guard:], src)
				in, err := ctx.NewBuffer("guarded input", uint64(4*len(inAll)))
				require.NoError(t, err)
				out, err := ctx.NewBuffer("guarded output", uint64(4*len(outAll)))
				require.NoError(t, err)
				require.NoError(t, ctx.Upload(in, 0, wgpu.Bytes(inAll)))
				require.NoError(t, ctx.Upload(out, 0, wgpu.Bytes(outAll)))
				ds, err := e.Dispatches(wgpu.Binding{Buffer: in, Offset: 4 * guard, Size: uint64(4 * len(src))},
					wgpu.Binding{Buffer: out, Offset: 4 * guard, Size: uint64(4 * len(src) * o.Rate)}, rows, Canonical)
				require.NoError(t, err)
				_, err = ctx.Run(ds...)
				require.NoError(t, err)
				backIn, backOut := make([]uint32, len(inAll)), make([]uint32, len(outAll))
				require.NoError(t, ctx.Download(wgpu.Bytes(backIn), in, 0))
				require.NoError(t, ctx.Download(wgpu.Bytes(backOut), out, 0))
				in.Release()
				out.Release()
				e.Release()
				require.Equal(t, inAll, backIn, "the input and its sentinels are unchanged")
				for i := range guard {
					require.Equal(t, outAll[i], backOut[i], "sentinel %d before", i)
					j := len(outAll) - guard + i
					require.Equal(t, outAll[j], backOut[j], "sentinel %d after", i)
				}
				want := extendRef(t, f, src, k, o)
				require.Equal(t, -1, firstDiff(want, backOut[guard:guard+len(want)]), "2^%d %+v", k, o)
			}
		}
	})
}

// TestNoLeaks: the one-shot calls release every buffer, failing ones too.
func TestNoLeaks(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		f := field.KoalaBear
		data := randRows(f, rand.New(rand.NewPCG(27, 28)), 3, 9)
		gputest.NoLeaks(t, ctx, func() error { return Transform(ctx, f, append([]uint32(nil), data...), 9, Options{Coset: true}) })
		gputest.NoLeaks(t, ctx, func() error {
			return Extend(ctx, f, make([]uint32, 4*len(data)), data, 9, ExtendOptions{Rate: 4, Out: BitReversed})
		})
		gputest.NoLeaks(t, ctx, func() error { return Transform(ctx, f, make([]uint32, 1<<25), 25, Options{}) })
		gputest.NoLeaks(t, ctx, func() error {
			return Transform(ctx, field.Goldilocks{}, make([]uint64, 1<<12), 12, Options{Root: Value(5)})
		})
	})
}

// TestExtendMontgomery runs an Extender on rows in Montgomery form.
func TestExtendMontgomery(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		f := field.KoalaBear
		rng := rand.New(rand.NewPCG(29, 30))
		for _, o := range []ExtendOptions{{Rate: 2}, {Rate: 8, Coset: true}, {Rate: 4, Out: BitReversed}} {
			const k, rows = 12, 3
			src := randRows(f, rng, rows, k)
			mont := make([]uint32, len(src))
			for i, x := range src {
				mont[i] = f.ToMonty(x)
			}
			e, err := NewExtender(ctx, f, k, o)
			require.NoError(t, err)
			in, err := ctx.NewBuffer("input", uint64(4*len(src)))
			require.NoError(t, err)
			out, err := ctx.NewBuffer("output", uint64(4*len(src)*o.Rate))
			require.NoError(t, err)
			require.NoError(t, ctx.Upload(in, 0, wgpu.Bytes(mont)))
			ds, err := e.Dispatches(wgpu.Bind(in), wgpu.Bind(out), rows, Montgomery)
			require.NoError(t, err)
			_, err = ctx.Run(ds...)
			require.NoError(t, err)
			got := make([]uint32, len(src)*o.Rate)
			require.NoError(t, ctx.Download(wgpu.Bytes(got), out, 0))
			in.Release()
			out.Release()
			e.Release()
			for i := range got {
				got[i] = f.FromMonty(got[i])
			}
			require.Equal(t, -1, firstDiff(extendRef(t, f, src, k, o), got), "%+v", o)
		}
	})
}

// TestCheckExtend: the shapes Extend takes, and an error naming each
// that it refuses.
func TestCheckExtend(t *testing.T) {
	k, err := CheckExtend(field.KoalaBear, 1<<19, 2)
	require.NoError(t, err)
	require.Equal(t, 19, k)
	for _, c := range []struct {
		n, rate int
		want    string
	}{
		{12, 2, "a row of 12 elements"},
		{1, 2, "a row of 1 elements"},
		{8, 3, "rate 3"},
		{8, 32, "rate 32"},
		{1 << 21, 16, "the codewords of 2^25 elements exceed koalabear's 2^24"},
	} {
		_, err := CheckExtend(field.KoalaBear, c.n, c.rate)
		require.ErrorContains(t, err, c.want)
	}
}

// checkedCase is a case of checkChecked: bad words that are not reduced
// planted in rows from row on.
type checkedCase struct {
	gold     bool
	k, rows  int
	o        ExtendOptions
	form     Form
	bad, row int
}

// checkChecked runs CheckedDispatches on rows with words that are not
// reduced planted at random places (none in some cases): the slot gets
// the smallest one's index, the other slots stay as filled, and the
// codewords are Dispatches' to the bit. Goldilocks's cases run on GPUs:
// its checked module would be compiled for this test alone.
// randExtender returns the Extender of rows of 2^k elements for o over
// Goldilocks (gold) or KoalaBear, and rows of random canonical words of
// it (a Goldilocks element two words, low first).
func randExtender(t *testing.T, ctx *wgpu.Context, rng *rand.Rand, gold bool, rows, k int, o ExtendOptions) (*Extender, []uint32) {
	var e *Extender
	var err error
	var src []uint32
	if gold {
		for _, x := range randGoldilocks(rng, rows, k) {
			src = append(src, uint32(x), uint32(x>>32))
		}
		e, err = NewExtender(ctx, field.Goldilocks{}, k, o)
	} else {
		src = randRows(field.KoalaBear, rng, rows, k)
		e, err = NewExtender(ctx, field.KoalaBear, k, o)
	}
	require.NoError(t, err)
	return e, src
}

func checkChecked(t *testing.T, ctx *wgpu.Context, cases []checkedCase) {
	rng := rand.New(rand.NewPCG(33, 34))
	for _, c := range cases {
		if c.gold && ctx.Info().Software() {
			continue
		}
		e, src := randExtender(t, ctx, rng, c.gold, c.rows, c.k, c.o)
		name := fmt.Sprintf("gold %v 2^%d × %d %+v form %v, %d bad", c.gold, c.k, c.rows, c.o, c.form, c.bad)
		want := uint32(0xffffffff)
		for range c.bad {
			i := c.row<<c.k + rng.IntN((c.rows-c.row)<<c.k)
			if c.gold {
				// p itself and above.
				src[2*i], src[2*i+1] = 1+rng.Uint32N(2), 0xffffffff
			} else {
				src[i] = field.KoalaBear.P() + rng.Uint32N(-field.KoalaBear.P())
			}
			want = min(want, uint32(i))
		}
		in, err := ctx.NewBuffer("input", uint64(4*len(src)))
		require.NoError(t, err)
		require.NoError(t, ctx.Upload(in, 0, wgpu.Bytes(src)))
		var outs [2]*wgpu.Buffer
		for i := range outs {
			outs[i], err = ctx.NewBuffer("codewords", uint64(4*len(src)*c.o.Rate))
			require.NoError(t, err)
		}
		slots := []uint32{0xffffffff, 7, 0xffffffff, 0xffffffff}
		check, err := ctx.NewBuffer("check", 16)
		require.NoError(t, err)
		require.NoError(t, ctx.Upload(check, 0, wgpu.Bytes(slots)))
		ds, err := e.Dispatches(wgpu.Bind(in), wgpu.Bind(outs[0]), c.rows, c.form)
		require.NoError(t, err)
		more, err := e.CheckedDispatches(wgpu.Bind(in), wgpu.Bind(outs[1]), c.rows, c.form, wgpu.Bind(check), 2)
		require.NoError(t, err)
		_, err = ctx.Run(append(ds, more...)...)
		require.NoError(t, err)
		var got [2][]uint32
		for i, b := range outs {
			got[i] = make([]uint32, len(src)*c.o.Rate)
			require.NoError(t, ctx.Download(wgpu.Bytes(got[i]), b, 0))
			b.Release()
		}
		back := make([]uint32, len(slots))
		require.NoError(t, ctx.Download(wgpu.Bytes(back), check, 0))
		check.Release()
		in.Release()
		e.Release()
		require.Equal(t, -1, firstDiff(got[0], got[1]), "%s: the codewords", name)
		slots[2] = want
		require.Equal(t, slots, back, "%s: the slots", name)
	}
}

func TestExtendChecked(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		checkChecked(t, ctx, []checkedCase{
			{false, 11, 5, ExtendOptions{Rate: 2}, Montgomery, 3, 0},
			{false, 11, 3, ExtendOptions{Rate: 2}, Montgomery, 0, 0},
			{false, 13, 3, ExtendOptions{Rate: 4, Coset: true}, Canonical, 2, 0},
			{false, 6, 7, ExtendOptions{Rate: 2, Out: BitReversed}, Canonical, 1, 0},
			{true, 10, 3, ExtendOptions{Rate: 2}, Canonical, 2, 0},
		})
	})
	// Pieces of rows: a binding of 64 KiB holds 16 codewords of 2^10, and
	// the bad words lie past the first piece.
	gputest.ForEachSmall(t, func(t *testing.T, ctx *wgpu.Context) {
		checkChecked(t, ctx, []checkedCase{{false, 9, 40, ExtendOptions{Rate: 2}, Montgomery, 2, 20}})
	})
}

func TestExtendCheckedBadInput(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		e, err := NewExtender(ctx, field.KoalaBear, 5, ExtendOptions{Rate: 2})
		require.NoError(t, err)
		defer e.Release()
		var bufs []*wgpu.Buffer
		for _, size := range []uint64{4 << 5, 8 << 5, 512} {
			b, err := ctx.NewBuffer("buffer", size)
			require.NoError(t, err)
			defer b.Release()
			bufs = append(bufs, b)
		}
		in, out, check := wgpu.Bind(bufs[0]), wgpu.Bind(bufs[1]), bufs[2]
		for _, c := range []struct {
			check wgpu.Binding
			slot  int
		}{
			{wgpu.Binding{}, 0},
			{wgpu.Bind(check), -1},
			{wgpu.Bind(check), 128},
			{wgpu.Binding{Buffer: check, Offset: 256, Size: 8}, 2},
			{wgpu.Binding{Buffer: check, Offset: 4}, 0},
		} {
			_, err := e.CheckedDispatches(in, out, 1, Montgomery, c.check, c.slot)
			require.ErrorContains(t, err, fmt.Sprintf("the check's slot %d does not lie within its binding", c.slot))
		}
		_, err = e.CheckedDispatches(in, out, 1, Montgomery, wgpu.Binding{Buffer: check, Offset: 256, Size: 8}, 1)
		require.NoError(t, err)
	})
}

// TestExtendTiles: TileDispatches writes each tile what Dispatches writes
// in its columns and nothing outside its rows (sentinel words before and
// after each), for 2, 4 and 8 tiles, one pass and several, rates 2 to 8,
// checked or not, over a 31-bit field and Goldilocks's two-word
// elements; a bad word of a checked input lands in its slot; where the
// device allows fewer storage buffers, a clear error.
func TestExtendTiles(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
		ran := 0
		defer func() {
			// Where the device allows the tiles' bindings (not under
			// WebGPU's default limits), most cases must write them (rows
			// of 2^13 end on a pair of stages where the tile is 2^11).
			if ctx.Limits().MaxStorageBuffersPerStage >= tiledStorage {
				require.GreaterOrEqual(t, ran, 4)
			}
		}()
		for _, c := range []struct {
			gold     bool
			k, rows  int
			o        ExtendOptions
			tiles    int
			checked  bool
			badAt    int // a word past p planted there (checked; -1: none)
			wantSlot uint32
		}{
			{false, 11, 3, ExtendOptions{Rate: 2}, 8, false, -1, 0},
			{false, 13, 3, ExtendOptions{Rate: 2}, 8, true, -1, 0},
			{false, 13, 2, ExtendOptions{Rate: 2}, 4, true, 3<<11 + 5, 0},
			{false, 11, 5, ExtendOptions{Rate: 4, Coset: true}, 4, false, -1, 0},
			{false, 9, 1, ExtendOptions{Rate: 8}, 2, true, -1, 0},
			{false, 4, 3, ExtendOptions{Rate: 2}, 8, false, -1, 0},
			{true, 10, 3, ExtendOptions{Rate: 2}, 4, false, -1, 0},
		} {
			if c.gold && ctx.Info().Software() {
				// Goldilocks's tiled module takes the software adapters'
				// compilers most of a minute: it runs on GPUs.
				continue
			}
			e, src := randExtender(t, ctx, rng, c.gold, c.rows, c.k, c.o)
			words := 1
			if c.gold {
				words = 2
			}
			name := fmt.Sprintf("gold %v 2^%d × %d %+v, %d tiles, checked %v", c.gold, c.k, c.rows, c.o, c.tiles, c.checked)
			if c.badAt >= 0 {
				src[c.badAt] = field.KoalaBear.P() + uint32(rng.IntN(1000))
			}
			in, err := ctx.NewBuffer("input", uint64(4*len(src)))
			require.NoError(t, err)
			require.NoError(t, ctx.Upload(in, 0, wgpu.Bytes(src)))
			out, err := ctx.NewBuffer("rows", uint64(4*len(src)*c.o.Rate))
			require.NoError(t, err)
			ds, err := e.Dispatches(wgpu.Bind(in), wgpu.Bind(out), c.rows, Montgomery)
			require.NoError(t, err)
			_, err = ctx.Run(ds...)
			require.NoError(t, err)
			want := make([]uint32, len(src)*c.o.Rate)
			require.NoError(t, ctx.Download(wgpu.Bytes(want), out, 0))
			out.Release()

			const guard = 64 // words: the tiles start 256 bytes in
			rowWords := len(want) / c.rows
			tw := rowWords / c.tiles
			var tiles []wgpu.Binding
			var filled [][]uint32
			for i := range c.tiles {
				all := make([]uint32, guard+c.rows*tw+guard)
				for j := range all {
					all[j] = 0xfeedface ^ uint32(j) ^ uint32(i)<<24
				}
				b, err := ctx.NewBuffer("tile", uint64(4*len(all)))
				require.NoError(t, err)
				require.NoError(t, ctx.Upload(b, 0, wgpu.Bytes(all)))
				tiles = append(tiles, wgpu.Binding{Buffer: b, Offset: 4 * guard, Size: uint64(4 * c.rows * tw)})
				filled = append(filled, all)
			}
			var check wgpu.Binding
			if c.checked {
				cb, err := ctx.NewBuffer("check", 512)
				require.NoError(t, err)
				defer cb.Release()
				none := make([]uint32, 128)
				for i := range none {
					none[i] = ^uint32(0)
				}
				require.NoError(t, ctx.Upload(cb, 0, wgpu.Bytes(none)))
				check = wgpu.Bind(cb)
			}
			ds, err = e.TileDispatches(wgpu.Bind(in), tiles, c.rows, Montgomery, check, 3)
			if e.MaxTiles() == 0 {
				require.ErrorContains(t, err, "column tiles need ", name)
			} else {
				ran++
				require.NoError(t, err, name)
				_, err = ctx.Run(ds...)
				require.NoError(t, err)
				for i, tb := range tiles {
					got := make([]uint32, len(filled[i]))
					require.NoError(t, ctx.Download(wgpu.Bytes(got), tb.Buffer, 0))
					exp := append([]uint32(nil), filled[i]...)
					for r := range c.rows {
						copy(exp[guard+r*tw:guard+(r+1)*tw], want[r*rowWords+i*tw:])
					}
					if c.badAt < 0 {
						require.Equal(t, -1, firstDiff(exp, got), "%s: tile %d", name, i)
					}
				}
				if c.checked {
					slots := make([]uint32, 128)
					require.NoError(t, ctx.Download(wgpu.Bytes(slots), check.Buffer, 0))
					wantSlot := ^uint32(0)
					if c.badAt >= 0 {
						wantSlot = uint32(c.badAt / words)
					}
					require.Equal(t, wantSlot, slots[3], name)
				}
			}
			for _, tb := range tiles {
				tb.Buffer.Release()
			}
			in.Release()
			e.Release()
		}
	})
}

// TestExtendTilesBadInput: tiles that TileDispatches does not take get
// an error that says what it accepts.
func TestExtendTilesBadInput(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		e, err := NewExtender(ctx, field.KoalaBear, 5, ExtendOptions{Rate: 2})
		require.NoError(t, err)
		defer e.Release()
		in, err := ctx.NewBuffer("input", 4<<5)
		require.NoError(t, err)
		defer in.Release()
		tile, err := ctx.NewBuffer("tile", 1024)
		require.NoError(t, err)
		defer tile.Release()
		b := wgpu.Bind(tile)
		other, err := ctx.NewBuffer("tile", 1024)
		require.NoError(t, err)
		defer other.Release()
		if e.MaxTiles() == 0 {
			_, err := e.TileDispatches(wgpu.Bind(in), []wgpu.Binding{b, b}, 1, Montgomery, wgpu.Binding{}, 0)
			require.ErrorContains(t, err, "column tiles need a stage of 12 storage buffers")
			return
		}
		for _, c := range []struct {
			tiles []wgpu.Binding
			want  string
		}{
			{nil, "0 tiles: a power of two from 2 to 8 is accepted"},
			{[]wgpu.Binding{b}, "1 tiles: a power of two from 2 to 8"},
			{[]wgpu.Binding{b, b, b}, "3 tiles: a power of two from 2 to 8"},
			{[]wgpu.Binding{b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b}, "16 tiles"},
			{[]wgpu.Binding{{Buffer: tile, Offset: 4}, wgpu.Bind(other)}, "do not fit the tile 0's binding (256-byte aligned)"},
			{[]wgpu.Binding{b, {}}, "do not fit the tile 1's binding"},
			{[]wgpu.Binding{b, {Buffer: other, Offset: 1024}}, "do not fit the tile 1's binding"},
			{[]wgpu.Binding{b, {Buffer: tile, Offset: 512}}, "tile 1's buffer is bound again"},
			{[]wgpu.Binding{wgpu.Bind(in), wgpu.Bind(other)}, "tile 0's buffer is bound again"},
		} {
			_, err := e.TileDispatches(wgpu.Bind(in), c.tiles, 1, Montgomery, wgpu.Binding{}, 0)
			require.ErrorContains(t, err, c.want, "%d tiles", len(c.tiles))
		}
		chk, err := ctx.NewBuffer("check", 512)
		require.NoError(t, err)
		defer chk.Release()
		_, err = e.TileDispatches(wgpu.Bind(in), []wgpu.Binding{b, wgpu.Bind(other)}, 1, Montgomery, wgpu.Bind(chk), 300)
		require.ErrorContains(t, err, "the check's slot 300 does not lie within its binding")
		_, err = e.TileDispatches(wgpu.Bind(in), []wgpu.Binding{b, wgpu.Bind(other)}, 1, Montgomery, wgpu.Bind(other), 0)
		require.ErrorContains(t, err, "tile 1's buffer is bound again")
		_, err = e.TileDispatches(wgpu.Bind(in), []wgpu.Binding{b, wgpu.Bind(other)}, 1, Montgomery, wgpu.Bind(chk), 0)
		require.NoError(t, err)
		rev, err := NewExtender(ctx, field.KoalaBear, 5, ExtendOptions{Rate: 2, Out: BitReversed})
		require.NoError(t, err)
		defer rev.Release()
		_, err = rev.TileDispatches(wgpu.Bind(in), []wgpu.Binding{b, b}, 1, Montgomery, wgpu.Binding{}, 0)
		require.ErrorContains(t, err, "column tiles need natural order output")
	})
}
