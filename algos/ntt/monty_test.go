package ntt

import (
	"math/big"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/consensys/gnark-crypto/field/babybear"
	bbfft "github.com/consensys/gnark-crypto/field/babybear/fft"
	"github.com/consensys/gnark-crypto/field/koalabear"
	kbfft "github.com/consensys/gnark-crypto/field/koalabear/fft"
	"github.com/consensys/gnark-crypto/field/koalabear/vortex"
	"github.com/consensys/gnark-crypto/utils"
	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// randKB returns n random gnark-crypto KoalaBear elements.
func randKB(rng *rand.Rand, n int) []koalabear.Element {
	out := make([]koalabear.Element, n)
	for i := range out {
		out[i].SetUint64(uint64(rng.Uint32N(field.KoalaBear.P())))
	}
	return out
}

// randBB returns n random gnark-crypto BabyBear elements.
func randBB(rng *rand.Rand, n int) []babybear.Element {
	out := make([]babybear.Element, n)
	for i := range out {
		out[i].SetUint64(uint64(rng.Uint32N(field.BabyBear.P())))
	}
	return out
}

// TestScalarTyped: a root or shift cannot be given as a bare integer nor
// as a gnark-crypto element, so that neither a Montgomery word nor a
// value is read in the other's form without saying so: the fields are
// Scalars, which no integer or element converts to.
func TestScalarTyped(t *testing.T) {
	scalar := reflect.TypeFor[Scalar]()
	for _, typ := range []reflect.Type{reflect.TypeFor[Options](), reflect.TypeFor[ExtendOptions](), reflect.TypeFor[PlanOptions]()} {
		for _, name := range []string{"Root", "Shift"} {
			f, ok := typ.FieldByName(name)
			require.True(t, ok, "%s.%s", typ.Name(), name)
			require.Equal(t, scalar, f.Type, "%s.%s", typ.Name(), name)
		}
	}
	for _, from := range []reflect.Type{reflect.TypeFor[uint64](), reflect.TypeFor[uint32](), reflect.TypeFor[int](),
		reflect.TypeFor[koalabear.Element](), reflect.TypeFor[babybear.Element]()} {
		require.False(t, from.AssignableTo(scalar), "%s is assignable to a Scalar", from)
		require.False(t, from.ConvertibleTo(scalar), "%s converts to a Scalar", from)
	}
	for i := range scalar.NumField() {
		require.False(t, scalar.Field(i).IsExported(), "a Scalar has no exported fields")
	}
}

// kbTransform is the oracle of a transform of one row of gnark-crypto
// elements on d, written as gnarkRows is: DIT where the input is
// bit-reversed, DIF where it is natural, utils.BitReverse for the other
// output order.
func kbTransform(a []koalabear.Element, d *kbfft.Domain, o Options) {
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
}

// bbTransform is kbTransform for BabyBear.
func bbTransform(a []babybear.Element, d *bbfft.Domain, o Options) {
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

// kbDomainWith returns gnark-crypto's KoalaBear Domain of n with root w
// and shift g (gnark-crypto's defaults where nil), as a gnark-crypto
// user makes it.
func kbDomainWith(n int, w, g *koalabear.Element) *kbfft.Domain {
	shift := kbfft.GeneratorFullMultiplicativeGroup()
	if g != nil {
		shift = *g
	}
	if w == nil {
		return kbfft.NewDomain(uint64(n), kbfft.WithShift(shift))
	}
	d := kbfft.NewDomain(uint64(n), kbfft.WithShift(shift), kbfft.WithoutPrecompute())
	d.Generator = *w
	d.GeneratorInv.Inverse(w)
	return d
}

// bbDomainWith is kbDomainWith for BabyBear.
func bbDomainWith(n int, w, g *babybear.Element) *bbfft.Domain {
	shift := bbfft.GeneratorFullMultiplicativeGroup()
	if g != nil {
		shift = *g
	}
	if w == nil {
		return bbfft.NewDomain(uint64(n), bbfft.WithShift(shift))
	}
	d := bbfft.NewDomain(uint64(n), bbfft.WithShift(shift), bbfft.WithoutPrecompute())
	d.Generator = *w
	d.GeneratorInv.Inverse(w)
	return d
}

// TestMontyRoots is the regression test of a gnark-crypto element given
// as the root or shift of a transform of gnark-crypto elements: it was
// given as its raw Montgomery word (a uint64), which was read as a
// canonical value: the shift silently gave another coset, the root was
// refused as not of its order. Given as KoalaBear(e) (or BabyBear(e)),
// the transform is gnark-crypto's Domain with that generator and shift,
// on the CPU and the GPU; Value of e's canonical value and MontyWord of
// its word are the same element; and the canonical Transform takes the
// same Scalars.
func TestMontyRoots(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	run := func(t *testing.T, ctx *wgpu.Context) {
		for _, k := range []int{1, 5, 11} {
			rows := 3
			// KoalaBear: a root other than the default (its cube) and a
			// random shift.
			w, _ := kbfft.Generator(1 << k)
			w.Exp(w, big.NewInt(3))
			var g koalabear.Element
			g.SetUint64(2 + uint64(rng.Uint32N(1000)))
			for _, o := range []Options{
				{Coset: true, Out: BitReversed},
				{Coset: true, Inverse: true, In: BitReversed},
				{Coset: true, Inverse: true, In: BitReversed, Out: BitReversed},
				{Coset: true},
			} {
				in := randKB(rng, rows<<k)
				want := append([]koalabear.Element(nil), in...)
				d := kbDomainWith(1<<k, &w, &g)
				for r := range rows {
					kbTransform(want[r<<k:(r+1)<<k], d, o)
				}
				for _, s := range [][2]Scalar{
					{KoalaBear(w), KoalaBear(g)},
					{Value(w.Uint64()), Value(g.Uint64())},
					{MontyWord(w[0]), MontyWord(g[0])},
				} {
					o := o
					o.Root, o.Shift = s[0], s[1]
					got := append([]koalabear.Element(nil), in...)
					require.NoError(t, TransformMonty(ctx, field.KoalaBear, got, k, o))
					require.Equal(t, want, got, "koalabear 2^%d %s root %v shift %v", k, name(o), o.Root, o.Shift)
					// The canonical entry point, the same Scalars.
					canon := make([]uint32, len(in))
					for i := range in {
						canon[i] = uint32(in[i].Uint64())
					}
					require.NoError(t, Transform(ctx, field.KoalaBear, canon, k, o))
					for i := range canon {
						require.Equal(t, uint32(want[i].Uint64()), canon[i], "koalabear 2^%d canonical %s element %d", k, name(o), i)
					}
				}
			}
			// BabyBear, the default root and a gnark-crypto shift.
			var gb babybear.Element
			gb.SetUint64(2 + uint64(rng.Uint32N(1000)))
			in := randBB(rng, rows<<k)
			want := append([]babybear.Element(nil), in...)
			o := Options{Coset: true, Out: BitReversed, Shift: BabyBear(gb)}
			d := bbDomainWith(1<<k, nil, &gb)
			for r := range rows {
				bbTransform(want[r<<k:(r+1)<<k], d, o)
			}
			got := append([]babybear.Element(nil), in...)
			require.NoError(t, TransformMonty(ctx, field.BabyBear, got, k, o))
			require.Equal(t, want, got, "babybear 2^%d %s", k, name(o))
		}
	}
	t.Run("cpu", func(t *testing.T) { run(t, nil) })
	gputest.ForEach(t, run)
}

// TestScalarRefused: a root or shift that cannot be right is refused,
// saying which forms are taken: a Montgomery word given as a value (the
// old mistake, for a root: it is of the wrong order, and read as a
// Montgomery word it would be right), a value given as a Montgomery
// word, words not below p, an element of the other field, a Montgomery
// word for Goldilocks, a zero shift, and another root than a Plan's.
func TestScalarRefused(t *testing.T) {
	kb, gl := field.KoalaBear, field.Goldilocks{}
	w, _ := kbfft.Generator(1 << 5)
	var g babybear.Element
	g.SetUint64(5)
	p := uint64(kb.P())
	for _, c := range []struct {
		o    Options
		want []string
	}{
		{Options{Root: Value(uint64(w[0]))}, []string{"root " + itoa(uint64(w[0])) + " (a canonical value) is not of order 2^5 in koalabear, though read as a Montgomery word it is", "ntt.KoalaBear(e)", "ntt.MontyWord(w)"}},
		{Options{Root: MontyWord(uint32(w.Uint64()))}, []string{"(the value ", "is not of order 2^5 in koalabear, though read as a canonical value it is", "ntt.Value(v)"}},
		{Options{Root: Value(5)}, []string{"root 5 (a canonical value) is not of order 2^5 in koalabear: a koalabear root or shift is given as"}},
		{Options{Root: Value(p)}, []string{"root 2130706433 is not a canonical koalabear value (below p = 2130706433)", "ntt.Value(v)"}},
		{Options{Root: KoalaBear(koalabear.Element{uint32(p) + 2})}, []string{"root koalabear.Element{0x7f000003} is not reduced: a Montgomery word is below p"}},
		{Options{Coset: true, Shift: MontyWord(^uint32(0))}, []string{"shift Montgomery word 0xffffffff is not reduced"}},
		{Options{Coset: true, Shift: Value(p + 7)}, []string{"shift 2130706440 is not a canonical koalabear value"}},
		{Options{Coset: true, Shift: BabyBear(g)}, []string{"shift babybear.Element{", "is an element of babybear, not of koalabear, the transform's field", "ntt.KoalaBear(e)"}},
		{Options{Coset: true, Shift: Value(0)}, []string{"shift 0 is zero: a coset's shift is a nonzero element"}},
	} {
		for _, ctx := range []*wgpu.Context{nil, gputest.Context(t, gputest.Backends()[0])} {
			data := make([]uint32, 3<<5)
			err := Transform(ctx, kb, data, 5, c.o)
			for _, s := range c.want {
				require.ErrorContains(t, err, s, "%+v", c.o)
			}
			mdata := make([]koalabear.Element, 3<<5)
			err = TransformMonty(ctx, kb, mdata, 5, c.o)
			for _, s := range c.want {
				require.ErrorContains(t, err, s, "monty %+v", c.o)
			}
			require.Error(t, Reference(kb, data, 5, c.o))
			// The same root and shift for codewords of 2^5.
			eo := ExtendOptions{Rate: 2, Root: c.o.Root, Shift: c.o.Shift, Coset: c.o.Coset}
			dst := make([]uint32, 2*3<<4)
			err = Extend(ctx, kb, dst, data[:3<<4], 4, eo)
			require.ErrorContains(t, err, c.want[0], "extend %+v", eo)
			require.Equal(t, make([]uint32, len(dst)), dst, "nothing is written")
			mdst := make([]koalabear.Element, 2*3<<4)
			require.ErrorContains(t, ExtendMonty(ctx, kb, mdst, mdata[:3<<4], 4, eo), c.want[0], "extend monty %+v", eo)
		}
	}
	for _, ctx := range []*wgpu.Context{nil, gputest.Context(t, gputest.Backends()[0])} {
		err := Transform(ctx, gl, make([]uint64, 8), 3, Options{Coset: true, Shift: MontyWord(7)})
		require.ErrorContains(t, err, "shift Montgomery word 0x7: goldilocks elements have no Montgomery form here: a goldilocks root or shift is given as ntt.Value(v)")
		err = Transform(ctx, gl, make([]uint64, 8), 3, Options{Root: KoalaBear(w)})
		require.ErrorContains(t, err, "is an element of koalabear, not of goldilocks")
	}
	ctx := gputest.Context(t, gputest.Backends()[0])
	plan, err := NewPlan(ctx, kb, 5, PlanOptions{Root: KoalaBear(w)})
	require.NoError(t, err)
	defer plan.Release()
	buf, err := ctx.NewBuffer("rows", 4<<5)
	require.NoError(t, err)
	defer buf.Release()
	_, err = plan.Dispatches(wgpu.Bind(buf), 1, Options{Root: Value(w.Uint64())}, Canonical)
	require.NoError(t, err, "the Plan's root given in another form")
	var w3 koalabear.Element
	w3.Exp(w, big.NewInt(3))
	_, err = plan.Dispatches(wgpu.Bind(buf), 1, Options{Root: KoalaBear(w3)}, Canonical)
	require.ErrorContains(t, err, "is not the Plan's")
	_, err = plan.Dispatches(wgpu.Bind(buf), 1, Options{Coset: true, Shift: Value(5)}, Canonical)
	require.ErrorContains(t, err, "the options' shift 5 is not the Plan's (3)")
	_, err = NewPlan(ctx, kb, 5, PlanOptions{Root: Value(uint64(w[0]))})
	require.ErrorContains(t, err, "though read as a Montgomery word it is")
}

func itoa(v uint64) string { return big.NewInt(0).SetUint64(v).String() }

// vortexEncodeMonty is gnark-crypto's vortex Params.EncodeReedSolomon on
// each row of src, its elements as they are.
func vortexEncodeMonty(t testing.TB, src []koalabear.Element, logN, rate int) []koalabear.Element {
	t.Helper()
	n := 1 << logN
	p, err := vortex.NewParams(n, 1, nil, rate, 1)
	require.NoError(t, err)
	out := make([]koalabear.Element, 0, len(src)*rate)
	for lo := 0; lo < len(src); lo += n {
		res := make([]koalabear.Element, n*rate) // its slow path takes res zeroed past n
		p.EncodeReedSolomon(src[lo:lo+n], res)
		out = append(out, res...)
	}
	return out
}

// TestEncodeMonty: EncodeReedSolomonMonty on gnark-crypto's elements as
// they are is its vortex EncodeReedSolomon, bit for bit, on fresh random
// rows of odd counts, on the CPU and the GPU.
func TestEncodeMonty(t *testing.T) {
	run := func(t *testing.T, ctx *wgpu.Context, maxLog int) {
		rng := rand.New(rand.NewPCG(43, 44))
		for k := 1; k <= maxLog; k++ {
			for _, rate := range []int{2, 4, 8} {
				rows := 1 + 2*rng.IntN(3)
				src := randKB(rng, rows<<k)
				keep := append([]koalabear.Element(nil), src...)
				dst := make([]koalabear.Element, len(src)*rate)
				require.NoError(t, EncodeReedSolomonMonty(ctx, field.KoalaBear, dst, src, k, rate))
				require.Equal(t, keep, src, "the input is unchanged")
				want := vortexEncodeMonty(t, src, k, rate)
				if i := firstDiffKB(want, dst); i >= 0 {
					t.Fatalf("2^%d x %d rows rate %d: first difference at %d", k, rows, rate, i)
				}
			}
		}
	}
	t.Run("cpu", func(t *testing.T) { run(t, nil, 12) })
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) { run(t, ctx, 13) })
}

func firstDiffKB(a, b []koalabear.Element) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// extendKB is the oracle of ExtendMonty over KoalaBear: each row through
// gnark-crypto's FFTInverse on the domain of n (root W^Rate), zeros up to
// n·Rate, and FFT on the domain of n·Rate (root W, shift g, on the coset
// where coset), bit-reversed back to natural order where out is.
func extendKB(src []koalabear.Element, logN, rate int, w, g *koalabear.Element, coset bool, out Order) []koalabear.Element {
	n, m := 1<<logN, rate<<logN
	bigD := kbDomainWith(m, w, g)
	var ws *koalabear.Element
	if w != nil {
		ws = new(koalabear.Element)
		ws.Exp(*w, big.NewInt(int64(rate)))
	}
	small := kbDomainWith(n, ws, nil)
	res := make([]koalabear.Element, 0, len(src)*rate)
	for lo := 0; lo < len(src); lo += n {
		row := make([]koalabear.Element, m)
		copy(row, src[lo:lo+n])
		small.FFTInverse(row[:n], kbfft.DIF)
		utils.BitReverse(row[:n])
		if coset {
			bigD.FFT(row, kbfft.DIF, kbfft.OnCoset())
		} else {
			bigD.FFT(row, kbfft.DIF)
		}
		if out == Natural {
			utils.BitReverse(row)
		}
		res = append(res, row...)
	}
	return res
}

// extendBB is extendKB over BabyBear.
func extendBB(src []babybear.Element, logN, rate int, w, g *babybear.Element, coset bool, out Order) []babybear.Element {
	n, m := 1<<logN, rate<<logN
	bigD := bbDomainWith(m, w, g)
	var ws *babybear.Element
	if w != nil {
		ws = new(babybear.Element)
		ws.Exp(*w, big.NewInt(int64(rate)))
	}
	small := bbDomainWith(n, ws, nil)
	res := make([]babybear.Element, 0, len(src)*rate)
	for lo := 0; lo < len(src); lo += n {
		row := make([]babybear.Element, m)
		copy(row, src[lo:lo+n])
		small.FFTInverse(row[:n], bbfft.DIF)
		utils.BitReverse(row[:n])
		if coset {
			bigD.FFT(row, bbfft.DIF, bbfft.OnCoset())
		} else {
			bigD.FFT(row, bbfft.DIF)
		}
		if out == Natural {
			utils.BitReverse(row)
		}
		res = append(res, row...)
	}
	return res
}

// TestExtendMonty: ExtendMonty on gnark-crypto's elements as they are is
// gnark-crypto's fft Domain's extension, bit for bit, over both fields,
// with the default roots and with gnark-crypto elements as root and
// shift, in both output orders, on odd row counts, on the CPU and the
// GPU.
func TestExtendMonty(t *testing.T) {
	run := func(t *testing.T, ctx *wgpu.Context) {
		rng := rand.New(rand.NewPCG(45, 46))
		for _, k := range []int{1, 4, 9, 12} {
			for _, rate := range []int{2, 4, 16} {
				for _, custom := range []bool{false, true} {
					for _, out := range []Order{Natural, BitReversed} {
						coset := custom || out == BitReversed
						rows := 1 + 2*rng.IntN(3)
						o := ExtendOptions{Rate: rate, Coset: coset, Out: out}
						// KoalaBear.
						var w, g *koalabear.Element
						if custom {
							w, g = new(koalabear.Element), new(koalabear.Element)
							*w, _ = kbfft.Generator(uint64(rate) << k)
							w.Exp(*w, big.NewInt(5))
							g.SetUint64(2 + uint64(rng.Uint32N(1000)))
							o.Root, o.Shift = KoalaBear(*w), KoalaBear(*g)
						}
						src := randKB(rng, rows<<k)
						dst := make([]koalabear.Element, len(src)*rate)
						require.NoError(t, ExtendMonty(ctx, field.KoalaBear, dst, src, k, o))
						if i := firstDiffKB(extendKB(src, k, rate, w, g, coset, out), dst); i >= 0 {
							t.Fatalf("koalabear 2^%d x %d rows %+v: first difference at %d", k, rows, o, i)
						}
						// BabyBear.
						var wb, gb *babybear.Element
						if custom {
							wb, gb = new(babybear.Element), new(babybear.Element)
							*wb, _ = bbfft.Generator(uint64(rate) << k)
							wb.Exp(*wb, big.NewInt(7))
							gb.SetUint64(2 + uint64(rng.Uint32N(1000)))
							o.Root, o.Shift = BabyBear(*wb), BabyBear(*gb)
						}
						bsrc := randBB(rng, rows<<k)
						bdst := make([]babybear.Element, len(bsrc)*rate)
						require.NoError(t, ExtendMonty(ctx, field.BabyBear, bdst, bsrc, k, o))
						require.Equal(t, extendBB(bsrc, k, rate, wb, gb, coset, out), bdst, "babybear 2^%d x %d rows %+v", k, rows, o)
					}
				}
			}
		}
	}
	t.Run("cpu", func(t *testing.T) { run(t, nil) })
	gputest.ForEach(t, run)
}

// TestMontyBadInput: a word not below p among Montgomery-form rows is
// refused, naming it, and nothing is written.
func TestMontyBadInput(t *testing.T) {
	f := field.KoalaBear
	for _, ctx := range []*wgpu.Context{nil, gputest.Context(t, gputest.Backends()[0])} {
		src := randKB(rand.New(rand.NewPCG(47, 48)), 3<<4)
		src[37] = koalabear.Element{f.P() + 9}
		dst := make([]koalabear.Element, 2*len(src))
		require.ErrorContains(t, EncodeReedSolomonMonty(ctx, f, dst, src, 4, 2), "element 37: Montgomery word 0x7f00000a is not reduced: a koalabear element in Montgomery form is a word below p = 2130706433")
		require.Equal(t, make([]koalabear.Element, len(dst)), dst, "nothing is written")
		keep := append([]koalabear.Element(nil), src...)
		require.ErrorContains(t, TransformMonty(ctx, f, src, 4, Options{}), "element 37: Montgomery word 0x7f00000a is not reduced")
		require.Equal(t, keep, src, "nothing is written")
		require.ErrorContains(t, ExtendMonty(ctx, f, dst[:10], src, 4, ExtendOptions{Rate: 2}), "extending 48 elements at rate 2 into 10: want 96")
	}
}
