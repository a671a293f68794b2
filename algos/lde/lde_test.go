package lde_test

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/lde"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/ntt"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

func TestMain(m *testing.M) { os.Exit(gputest.Main(m)) }

// randomMatrix returns a seeded rows × cols matrix of elements below p,
// p-1 among them.
func randomMatrix[E field.Element](rows, cols int, p E, seed uint64) merkle.Matrix[E] {
	r := rand.New(rand.NewPCG(seed, uint64(rows*cols)))
	m := merkle.Matrix[E]{Rows: rows, Cols: cols, Data: make([]E, rows*cols)}
	for i := range m.Data {
		m.Data[i] = E(r.Uint64N(uint64(p)))
	}
	m.Data[len(m.Data)-1] = p - 1
	return m
}

// composed is the oracle of Commit: each column extended by ntt.Extend on
// the CPU (gnark-crypto's fft), as a row of the transpose, the result
// transposed back, and merkle.CommitMatrix on the CPU.
func composed[E field.Element](t *testing.T, f field.Field[E], m merkle.Matrix[E], hash merkle.RowHash[E], o ntt.ExtendOptions) *merkle.Tree {
	t.Helper()
	cols := make([]E, len(m.Data))
	for r := range m.Rows {
		for c := range m.Cols {
			cols[c*m.Rows+r] = m.Data[r*m.Cols+c]
		}
	}
	ext := make([]E, len(cols)*o.Rate)
	require.NoError(t, ntt.Extend(nil, f, ext, cols, bits.TrailingZeros(uint(m.Rows)), o))
	h := m.Rows * o.Rate
	x := merkle.Matrix[E]{Rows: h, Cols: m.Cols, Data: make([]E, len(ext))}
	for c := range m.Cols {
		for r := range h {
			x.Data[r*m.Cols+c] = ext[c*h+r]
		}
	}
	tree, err := merkle.CommitMatrix(nil, x, hash, merkle.Options{})
	require.NoError(t, err)
	return tree
}

// TestPlonky3Extension checks the committed matrix's meaning from its
// definition, over BabyBear, where gnark-crypto's roots are Plonky3's:
// row t of Plonky3's commitment is each column's polynomial (the one
// that takes the column's values on <w>, w = two_adic_generator(log2
// rows), in natural order) at GENERATOR·W^rev(t), W =
// two_adic_generator(log2(rows·rate)), evaluated here term by term.
func TestPlonky3Extension(t *testing.T) {
	f := field.BabyBear
	hash := poseidon2.BabyBearMerkle
	const rows, cols, rate = 8, 3, 4
	m := randomMatrix(rows, cols, hash.Modulus(), rand.Uint64())
	lg := bits.TrailingZeros(rows * rate)
	W, err := f.TwoAdicGenerator(lg)
	require.NoError(t, err)
	w := f.Exp(W, rate)
	nInv, _ := f.Inverse(rows)
	want := merkle.Matrix[uint32]{Rows: rows * rate, Cols: cols, Data: make([]uint32, rows*rate*cols)}
	for c := range cols {
		coef := make([]uint32, rows)
		for k := range coef {
			var s uint32
			for j := range rows {
				s = f.Add(s, f.Mul(m.Data[j*cols+c], f.Exp(w, uint64((rows-j*k%rows)%rows))))
			}
			coef[k] = f.Mul(s, nInv)
		}
		for t := range rows * rate {
			x := f.Mul(f.Generator(), f.Exp(W, uint64(bits.Reverse32(uint32(t))>>(32-lg))))
			var v uint32
			for k := rows - 1; k >= 0; k-- {
				v = f.Add(f.Mul(v, x), coef[k])
			}
			want.Data[t*cols+c] = v
		}
	}
	wantTree, err := merkle.CommitMatrix(nil, want, merkle.RowHash[uint32](hash), merkle.Options{})
	require.NoError(t, err)
	got, err := lde.Commit(nil, m, merkle.RowHash[uint32](hash), lde.Options{Extend: lde.Plonky3(rate)})
	require.NoError(t, err)
	require.Equal(t, wantTree.Root(), got.Root())
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		got, err := lde.Commit(ctx, m, merkle.RowHash[uint32](hash), lde.Options{Extend: lde.Plonky3(rate)})
		require.NoError(t, err)
		require.Equal(t, wantTree.Root(), got.Root())
	})
}

// commitCase compares Commit on every backend (and the CPU) with the
// composed oracle, every node.
func commitCase[E field.Element](t *testing.T, ctx *wgpu.Context, f field.Field[E], m merkle.Matrix[E], hash merkle.RowHash[E], o ntt.ExtendOptions, want *merkle.Tree, what string) {
	t.Helper()
	var tm wgpu.Timing
	got, err := lde.Commit(ctx, m, hash, lde.Options{Extend: o, Timing: &tm})
	require.NoError(t, err, what)
	require.Equal(t, want.Root(), got.Root(), what)
	require.Equal(t, want.Nodes(), got.Nodes(), what)
	require.Equal(t, want.Leaves(), got.Leaves(), what)
	require.NotZero(t, tm.Elapsed(), what)
	root, err := lde.Root(ctx, m, hash, lde.Options{Extend: o})
	require.NoError(t, err, what)
	require.Equal(t, want.Root(), root, what+": root alone")
}

// TestCommit: the three fields, odd widths, heights from 2 rows, rates
// 2 to 8, both orders, on and off the coset, on the CPU, every backend
// and under small limits, where the tallest extension is two subtrees.
func TestCommit(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	type shape struct{ rows, cols, rate int }
	shapes := []shape{{2, 1, 2}, {4, 7, 2}, {16, 33, 4}, {64, 5, 8}, {256, 7, 2}, {2048, 3, 2}}
	opts := func(s shape, i int) ntt.ExtendOptions {
		switch i % 3 {
		case 0:
			return lde.Plonky3(s.rate)
		case 1:
			return ntt.ExtendOptions{Rate: s.rate}
		}
		return ntt.ExtendOptions{Rate: s.rate, Coset: true, Shift: ntt.Value(5)}
	}
	run := func(t *testing.T, ctx *wgpu.Context) {
		for i, s := range shapes {
			o := opts(s, i)
			{
				hash := merkle.RowHash[uint32](poseidon2.BabyBearMerkle)
				m := randomMatrix(s.rows, s.cols, hash.Modulus(), seed+uint64(i))
				commitCase(t, ctx, field.BabyBear, m, hash, o, composed(t, field.BabyBear, m, hash, o), fmt.Sprintf("babybear %v %+v", s, o))
			}
			{
				hash := merkle.RowHash[uint32](poseidon2.KoalaBearMerkle)
				m := randomMatrix(s.rows, s.cols, hash.Modulus(), seed+uint64(i))
				o := opts(s, i+1)
				commitCase(t, ctx, field.KoalaBear, m, hash, o, composed(t, field.KoalaBear, m, hash, o), fmt.Sprintf("koalabear %v %+v", s, o))
			}
			if s.rows*s.cols <= 1024 {
				hash := merkle.RowHash[uint64](poseidon2.MerkleMerge{})
				m := randomMatrix(s.rows, s.cols, hash.Modulus(), seed+uint64(i))
				o := opts(s, i+2)
				commitCase(t, ctx, field.Goldilocks{}, m, hash, o, composed(t, field.Goldilocks{}, m, hash, o), fmt.Sprintf("goldilocks %v %+v", s, o))
			}
		}
	}
	t.Run("cpu", func(t *testing.T) { run(t, nil) })
	gputest.ForEach(t, run)
	gputest.ForEachSmall(t, run)
}

// TestCommitBadInput: shapes and elements Commit refuses, saying what it
// accepts, on the CPU and the device.
func TestCommitBadInput(t *testing.T) {
	hash := merkle.RowHash[uint32](poseidon2.BabyBearMerkle)
	p := hash.Modulus()
	good := randomMatrix(8, 3, p, 1)
	bad := randomMatrix(8, 3, p, 1)
	bad.Data[13] = p
	for _, tc := range []struct {
		m    merkle.Matrix[uint32]
		rate int
		want string
	}{
		{good, 3, "rate 3"},
		{good, 32, "rate 32"},
		{merkle.Matrix[uint32]{Rows: 6, Cols: 2, Data: make([]uint32, 12)}, 2, "power of two"},
		{merkle.Matrix[uint32]{Rows: 8, Cols: 0}, 2, "1 column or more"},
		{merkle.Matrix[uint32]{Rows: 8, Cols: 3, Data: make([]uint32, 23)}, 2, "has 23"},
		{bad, 2, "element 13 (row 4, column 1)"},
		{merkle.Matrix[uint32]{Rows: 1 << 27, Cols: 1}, 2, "2^28"},
	} {
		run := func(t *testing.T, ctx *wgpu.Context) {
			_, err := lde.Commit(ctx, tc.m, hash, lde.Options{Extend: ntt.ExtendOptions{Rate: tc.rate}})
			require.ErrorContains(t, err, tc.want)
		}
		if tc.m.Rows == 1<<27 { // refused before its data is looked at
			run(t, nil)
			continue
		}
		run(t, nil)
		gputest.ForEach(t, run)
	}
}

// TestCommitter: one Committer commits matrices of several heights and
// widths in turn, growing and reusing its buffers and Extender, each
// root the composed oracle's; and releases what it holds.
func TestCommitter(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	hash := merkle.RowHash[uint32](poseidon2.KoalaBearMerkle)
	o := lde.Plonky3(4)
	type shape struct{ rows, cols int }
	shapes := []shape{{64, 9}, {8, 33}, {64, 9}, {256, 2}, {2, 1}}
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		gputest.NoLeaks(t, ctx, func() error {
			c, err := lde.NewCommitter(ctx, hash, lde.Options{Extend: o})
			require.NoError(t, err)
			defer c.Release()
			for i, s := range shapes {
				m := randomMatrix(s.rows, s.cols, hash.Modulus(), seed+uint64(i))
				want := composed(t, field.KoalaBear, m, hash, o)
				got, err := c.Commit(m)
				require.NoError(t, err, "%v", s)
				require.Equal(t, want.Nodes(), got.Nodes(), "%v", s)
				root, err := c.Root(m)
				require.NoError(t, err, "%v", s)
				require.Equal(t, want.Root(), root, "%v", s)
			}
			return nil
		})
	})
}

// TestCommitTall: a taller BabyBear trace (2^14 rows, 9 columns, rate
// 2), whose tree's top levels the host merges, tree and root alone.
func TestCommitTall(t *testing.T) {
	hash := merkle.RowHash[uint32](poseidon2.BabyBearMerkle)
	m := randomMatrix(1<<14, 9, hash.Modulus(), rand.Uint64())
	o := lde.Plonky3(2)
	want := composed(t, field.BabyBear, m, hash, o)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		commitCase(t, ctx, field.BabyBear, m, hash, o, want, "babybear 2^14×9")
	})
}
