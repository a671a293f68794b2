package vortex

import (
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/field/koalabear"
	fext "github.com/consensys/gnark-crypto/field/koalabear/extensions"
	gsis "github.com/consensys/gnark-crypto/field/koalabear/sis"
	gvortex "github.com/consensys/gnark-crypto/field/koalabear/vortex"
	"github.com/stretchr/testify/require"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

func TestMain(m *testing.M) { os.Exit(gputest.Main(m)) }

type shape struct {
	rows, logN, rate int
	sis              SIS
}

func (s shape) String() string {
	return fmt.Sprintf("%dx2^%d/rate%d/sis%d,%d", s.rows, s.logN, s.rate, s.sis.LogTwoDegree, s.sis.LogTwoBound)
}

var (
	vortexSIS = SIS{LogTwoDegree: 9, LogTwoBound: 16}
	smallSIS  = SIS{Seed: 5, LogTwoDegree: 4, LogTwoBound: 8}
	midSIS    = SIS{Seed: 3, LogTwoDegree: 6, LogTwoBound: 16}
)

// shapes are the commitments the tests hold to gnark-crypto's.
var shapes = []shape{
	{1, 4, 2, vortexSIS},
	{3, 5, 4, vortexSIS},
	{16, 6, 8, vortexSIS},
	{100, 7, 2, vortexSIS},
	{3, 12, 2, vortexSIS},
	{16, 10, 4, smallSIS},
	{100, 8, 8, midSIS},
	{1, 12, 8, smallSIS},
	{300, 4, 2, smallSIS}, // two SIS polynomials a column and more
	{7, 11, 4, midSIS},
	{2, 9, 8, smallSIS},
}

// smallShapes fit gputest.SmallLimits' bindings, cut into several tiles
// and pieces of rows there: four and eight tiles (100 × 2^7, 100 × 2^8),
// which the encoding writes itself where the device allows it twelve
// storage buffers a stage, and 64 (3 × 2^10), which it writes through a
// scratch buffer.
var smallShapes = []shape{
	{16, 9, 2, smallSIS},
	{100, 7, 4, midSIS},
	{100, 8, 4, midSIS},
	{3, 10, 2, vortexSIS},
	{2, 11, 2, smallSIS}, // leaves past a binding: tree levels and paths in pieces
}

// finePieces makes the rows of the test's matrices, however small, go up
// in pieces of an eighth, as a large matrix's do, until the test ends.
func finePieces(t *testing.T) {
	from, least := overlapFrom, minPiece
	t.Cleanup(func() { overlapFrom, minPiece = from, least })
	overlapFrom, minPiece = 0, 0
}

// randMatrix returns rows × cols random elements, edge values among
// them, row-major.
func randMatrix(rng *rand.Rand, rows, cols int) []koalabear.Element {
	v := make([]koalabear.Element, rows*cols)
	for i := range v {
		switch rng.IntN(8) {
		case 0:
			v[i].SetUint64(koalabear.Modulus().Uint64() - 1 - uint64(rng.IntN(3)))
		case 1:
			v[i].SetUint64(uint64(rng.IntN(3)))
		default:
			v[i].SetUint64(uint64(rng.Uint32N(0x7f000001)))
		}
	}
	return v
}

func randE4(rng *rand.Rand) fext.E4 {
	var e fext.E4
	e.B0.A0.SetUint64(uint64(rng.Uint32N(0x7f000001)))
	e.B0.A1.SetUint64(uint64(rng.Uint32N(0x7f000001)))
	e.B1.A0.SetUint64(uint64(rng.Uint32N(0x7f000001)))
	e.B1.A1.SetUint64(uint64(rng.Uint32N(0x7f000001)))
	return e
}

func split(m []koalabear.Element, rows int) [][]koalabear.Element {
	n := len(m) / rows
	out := make([][]koalabear.Element, rows)
	for i := range out {
		out[i] = append([]koalabear.Element(nil), m[i*n:(i+1)*n]...)
	}
	return out
}

// checkShape commits to a random matrix of s on ctx and holds the root,
// the codewords, the SIS digests, the leaves and the tree to
// gnark-crypto's vortex.Commit, then opens it and checks the proof with
// gnark-crypto's Verify, and a tampered one fails it.
func checkShape(t *testing.T, ctx *wgpu.Context, s shape, rng *rand.Rand) {
	checkCommit(t, s, rng, func(p *Params, flat []koalabear.Element, rows [][]koalabear.Element, st *Stages) (*ProverState, error) {
		if rng.IntN(2) == 0 {
			return Commit(ctx, p, flat, Options{Stages: st})
		}
		return Commit(ctx, p, rows, Options{Stages: st})
	})
}

// checkCommit is checkShape with the commitment made by commit.
func checkCommit(t *testing.T, s shape, rng *rand.Rand, commit func(p *Params, flat []koalabear.Element, rows [][]koalabear.Element, st *Stages) (*ProverState, error)) {
	n := 1 << s.logN
	p, err := NewParams(n, s.rows, s.rate, s.sis, 7)
	require.NoError(t, err)
	flat := randMatrix(rng, s.rows, n)
	rows := split(flat, s.rows)
	want, err := gvortex.Commit(p.Gnark(), rows)
	require.NoError(t, err)

	var st Stages
	got, err := commit(p, flat, rows, &st)
	require.NoError(t, err)
	defer got.Release()
	require.Equal(t, want.GetCommitment(), got.Root(), "root")
	enc, err := got.EncodedMatrix()
	require.NoError(t, err)
	require.Equal(t, want.EncodedMatrix, enc, "codewords")
	dig, err := got.HashedColumns()
	require.NoError(t, err)
	require.Equal(t, want.HashedColumns, dig, "SIS digests")
	tree, err := got.Tree()
	require.NoError(t, err)
	require.Equal(t, want.MerkleTree.Levels, tree.Levels, "tree")

	alpha, x := randE4(rng), randE4(rng)
	ys := make([]fext.E4, s.rows)
	for i, r := range rows {
		ys[i], err = gvortex.EvalBasePolyLagrange(r, x)
		require.NoError(t, err)
	}
	sel := make([]int, 7)
	for i := range sel {
		sel[i] = rng.IntN(p.SizeCodeWord())
	}
	sel[0] = p.SizeCodeWord() - 1
	u, err := got.OpenLinComb(alpha)
	require.NoError(t, err)
	want.OpenLinComb(alpha)
	require.Equal(t, want.Ualpha, u, "UAlpha")
	proof, err := got.OpenColumns(sel)
	require.NoError(t, err)
	wantProof, err := want.OpenColumns(sel)
	require.NoError(t, err)
	require.Equal(t, wantProof, proof, "proof")
	in := gvortex.VerifierInput{MerkleRoot: got.Root(), ClaimedValues: ys, EvaluationPoint: x, Alpha: alpha, SelectedColumns: sel, Proof: proof}
	require.NoError(t, p.Gnark().Verify(in))

	// One element changed, in an opened column, in UAlpha and in a
	// Merkle proof, each fails gnark-crypto's Verify.
	for k, tamper := range []func(pr *gvortex.Proof){
		func(pr *gvortex.Proof) {
			// One added to the element itself: setting it from another
			// element of the column (the column holds the matrix's small
			// values often) could leave it as it was.
			e := &pr.OpenedColumns[3][rng.IntN(s.rows)]
			e.Add(e, new(koalabear.Element).SetOne())
		},
		func(pr *gvortex.Proof) { pr.UAlpha[sel[2]].B1.A1.SetUint64(pr.UAlpha[sel[2]].B1.A1.Uint64() ^ 1) },
		func(pr *gvortex.Proof) {
			h := &pr.MerkleProofOpenedColumns[1][0][5]
			h.Add(h, new(koalabear.Element).SetOne())
		},
	} {
		pr, err := got.OpenColumns(sel)
		require.NoError(t, err)
		pr.UAlpha = append([]fext.E4(nil), pr.UAlpha...)
		tamper(pr)
		in.Proof = pr
		require.Error(t, p.Gnark().Verify(in), "tamper %d, selected %v", k, sel)
	}
	var root Hash
	root[0].SetOne()
	in.Proof, in.MerkleRoot = proof, root
	require.Error(t, p.Gnark().Verify(in), "another root")
}

// TestCommitCPU holds the CPU path (gnark-crypto's own) to the checks.
func TestCommitCPU(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range shapes[:4] {
		t.Run(s.String(), func(t *testing.T) { checkShape(t, nil, s, rng) })
	}
}

// TestCommitGPU holds the kernels to gnark-crypto on every backend.
func TestCommitGPU(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		s1, s2 := rand.Uint64(), rand.Uint64()
		t.Logf("seed %d, %d", s1, s2)
		rng := rand.New(rand.NewPCG(s1, s2))
		for _, s := range shapes {
			t.Run(s.String(), func(t *testing.T) { checkShape(t, ctx, s, rng) })
		}
	})
}

// TestCommitGPUSmall commits under small limits: several tiles of
// columns and pieces of rows.
func TestCommitGPUSmall(t *testing.T) {
	finePieces(t) // pieces of an eighth of the rows, within the tiles' pieces
	gputest.ForEachSmall(t, func(t *testing.T, ctx *wgpu.Context) {
		rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
		for _, s := range smallShapes {
			m := s.rate << s.logN
			l, err := planLayout(s.rows, m, m, m, 1<<s.sis.LogTwoDegree, ctx.Limits().Binding(), 8)
			require.NoError(t, err)
			t.Run(fmt.Sprintf("%v/%d_tiles/%d_rows_a_piece", s, l.tiles, l.piece), func(t *testing.T) { checkShape(t, ctx, s, rng) })
		}
	})
}

// TestCommitterReuses commits several matrices with one Committer, in
// pieces of rows whatever their size (uploads overlapping the encoding),
// states kept alive across commitments and released in any order, the
// Committer released before the last state: each equals gnark-crypto's,
// and nothing is left on the device.
func TestCommitterReuses(t *testing.T) {
	finePieces(t)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
		p, err := NewParams(1<<7, 100, 2, vortexSIS, 3)
		require.NoError(t, err)
		gputest.NoLeaks(t, ctx, func() error {
			c, err := NewCommitter(ctx, p)
			if err != nil {
				return err
			}
			defer c.Release()
			var states []*ProverState
			defer func() {
				for _, s := range states {
					s.Release()
				}
			}()
			for k, rows := range []int{100, 100, 37, 100, 1} {
				m := split(randMatrix(rng, rows, 1<<7), rows)
				want, err := gvortex.Commit(p.Gnark(), m)
				require.NoError(t, err)
				st, err := c.Commit(m, Options{})
				require.NoError(t, err)
				require.Equal(t, want.GetCommitment(), st.Root(), "commitment %d, %d rows", k, rows)
				enc, err := st.EncodedMatrix()
				require.NoError(t, err)
				require.Equal(t, want.EncodedMatrix, enc, "commitment %d, %d rows", k, rows)
				if k%2 == 1 {
					st.Release()
				} else {
					states = append(states, st)
				}
			}
			c.Release()
			_, err = c.Commit([][]koalabear.Element{make([]koalabear.Element, 1<<7)}, Options{})
			require.ErrorContains(t, err, "released")
			return nil
		})
	})
}

// TestCommitterKeepsTwoShapes: a Committer that commits matrices of many
// row counts one after another keeps the buffers of the last two
// commitments, not of every shape it met.
func TestCommitterKeepsTwoShapes(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
		p, err := NewParams(1<<6, 40, 2, vortexSIS, 3)
		require.NoError(t, err)
		before := ctx.LiveBuffers()
		c, err := NewCommitter(ctx, p)
		require.NoError(t, err)
		defer c.Release()
		commit := func(rows int) {
			st, err := c.Commit(split(randMatrix(rng, rows, 1<<6), rows), Options{})
			require.NoError(t, err)
			st.Release()
		}
		commit(40)
		one := ctx.LiveBuffers() - before // the tables, and one commitment's buffers
		most := one
		for rows := 1; rows <= 12; rows++ {
			commit(rows)
			most = max(most, ctx.LiveBuffers()-before)
		}
		require.LessOrEqual(t, most, 3*one, "live buffers after commitments of 1 to 12 rows")
		// Alternating between two shapes allocates nothing new, once the
		// other shapes' buffers are gone.
		for range 2 {
			commit(7)
			commit(9)
		}
		n := ctx.LiveBuffers()
		for range 3 {
			commit(7)
			commit(9)
		}
		require.Equal(t, n, ctx.LiveBuffers())
	})
}

// TestCommitReleases checks that a commitment and its openings leave no
// buffer behind once released, and that a failing one leaves none.
func TestCommitReleases(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		p, err := NewParams(64, 4, 2, vortexSIS, 3)
		require.NoError(t, err)
		m := randMatrix(rand.New(rand.NewPCG(3, 4)), 4, 64)
		gputest.NoLeaks(t, ctx, func() error {
			st, err := Commit(ctx, p, m, Options{})
			if err != nil {
				return err
			}
			defer st.Release()
			if _, err := st.OpenLinComb(fext.E4{}); err != nil {
				return err
			}
			_, err = st.OpenColumns([]int{0, 5, 127})
			return err
		})
	})
}

// TestPlanLayout checks the cut of large shapes: BenchmarkVortexReal's
// under a 4 GiB binding, wgpu's Vulkan one and WebGPU's default 128 MiB.
func TestPlanLayout(t *testing.T) {
	l, err := planLayout(1<<11, 1<<20, 1<<20, 1<<20, 512, 1<<32-4, 8)
	require.NoError(t, err)
	require.Equal(t, layout{w: 1 << 18, tiles: 4, piece: 1 << 9, tiled: true}, l)
	// wgpu's Vulkan binding (2 GiB less a byte, as on the H200): eight
	// tiles of 2^17 columns, and pieces of 256 rows; the encoding writes
	// them where the device allows, else through a scratch buffer.
	l, err = planLayout(1<<11, 1<<20, 1<<20, 1<<20, 512, 1<<31-1, 8)
	require.NoError(t, err)
	require.Equal(t, layout{w: 1 << 17, tiles: 8, piece: 1 << 8, tiled: true}, l)
	l, err = planLayout(1<<11, 1<<20, 1<<20, 1<<20, 512, 1<<31-1, 0)
	require.NoError(t, err)
	require.Equal(t, layout{w: 1 << 17, tiles: 8, piece: 1 << 8}, l)
	// Half of the columns on each of two devices: through the scratch
	// buffer (the encoding writes tiles of whole rows only).
	l, err = planLayout(1<<11, 1<<20, 1<<19, 1<<19, 512, 1<<31-1, 8)
	require.NoError(t, err)
	require.Equal(t, layout{w: 1 << 17, tiles: 4, piece: 1 << 8}, l)
	l, err = planLayout(1<<11, 1<<20, 1<<20, 1<<20, 512, 128<<20, 8)
	require.NoError(t, err)
	require.Equal(t, layout{w: 1 << 14, tiles: 64, piece: 1 << 5}, l)
	l, err = planLayout(100, 1<<10, 1<<10, 1<<10, 512, 1<<30, 8)
	require.NoError(t, err)
	require.Equal(t, layout{w: 1 << 10, tiles: 1, piece: 100, direct: true}, l)
	// A share of three devices' (units of a 64th): tiles within the unit,
	// whole codewords a piece through the scratch buffer.
	l, err = planLayout(100, 1<<10, 1<<4, 22<<4, 512, 1<<30, 8)
	require.NoError(t, err)
	require.Equal(t, layout{w: 1 << 4, tiles: 22, piece: 64}, l)
	_, err = planLayout(1<<24, 1<<4, 1<<4, 1<<4, 16, 1<<20, 8)
	require.ErrorContains(t, err, "a column of 16777216 rows")
}

// TestBadInput checks that every refused input names what was wrong.
func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		cols, rows, rate int
		s                SIS
		want             string
	}{
		{48, 4, 2, vortexSIS, "48 columns"},
		{64, 4, 3, vortexSIS, "rate 3"},
		{64, 4, 16, vortexSIS, "rate 16"},
		{64, 4, 2, SIS{LogTwoDegree: 3, LogTwoBound: 16}, "degree 3"},
		{64, 4, 2, SIS{LogTwoDegree: 9, LogTwoBound: 12}, "bound 12"},
		{64, 0, 2, vortexSIS, "0 rows"},
		{1 << 23, 4, 8, vortexSIS, "2^26"},
	} {
		_, err := NewParams(c.cols, c.rows, c.rate, c.s, 1)
		require.ErrorContains(t, err, c.want)
	}
	p, err := NewParams(16, 4, 2, vortexSIS, 2)
	require.NoError(t, err)
	_, err = Commit(nil, p, make([]koalabear.Element, 5*16), Options{})
	require.ErrorContains(t, err, "5 rows")
	_, err = Commit(nil, p, make([]koalabear.Element, 17), Options{})
	require.ErrorContains(t, err, "17 elements")
	_, err = Commit(nil, p, [][]koalabear.Element{make([]koalabear.Element, 15)}, Options{})
	require.ErrorContains(t, err, "row 0 has 15 elements")
	bad := make([]koalabear.Element, 32)
	bad[19][0] = 0x7f000001
	_, err = Commit(nil, p, bad, Options{})
	require.ErrorContains(t, err, "element (1, 3) is 2130706433")
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		before := ctx.LiveBuffers()
		_, err := Commit(ctx, p, split(bad, 2), Options{})
		require.ErrorContains(t, err, "element (1, 3) is 2130706433")
		require.Equal(t, before, ctx.LiveBuffers())
	})
	// On the device, the first of several in a later piece of rows, and
	// the Committer commits the next matrix.
	finePieces(t)
	p100, err := NewParams(1<<7, 100, 2, vortexSIS, 2)
	require.NoError(t, err)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		c, err := NewCommitter(ctx, p100)
		require.NoError(t, err)
		defer c.Release()
		m := randMatrix(rand.New(rand.NewPCG(7, 8)), 100, 1<<7)
		m[90<<7+1][0] = 0x7f000001
		m[50<<7+7][0] = 0xffffffff
		m[50<<7+9][0] = 0x7f000002
		_, err = c.Commit(split(m, 100), Options{})
		require.ErrorContains(t, err, "element (50, 7) is 4294967295")
		m[90<<7+1][0], m[50<<7+7][0], m[50<<7+9][0] = 0, 1, 2
		want, err := gvortex.Commit(p100.Gnark(), split(m, 100))
		require.NoError(t, err)
		st, err := c.Commit(split(m, 100), Options{})
		require.NoError(t, err)
		defer st.Release()
		require.Equal(t, want.GetCommitment(), st.Root())
	})
	_, err = FromCanonical([]uint32{1, 2, 0x7f000001, 4}, 2, 2)
	require.ErrorContains(t, err, "element (1, 0) is 2130706433")
	_, err = FromCanonical([]uint32{1, 2, 3}, 2, 2)
	require.ErrorContains(t, err, "given 3")
	st, err := Commit(nil, p, make([]koalabear.Element, 16), Options{})
	require.NoError(t, err)
	_, err = st.OpenColumns([]int{3, 32})
	require.ErrorContains(t, err, "selected column 1 is 32")
}

// TestPieceStarts checks the pieces of rows: a short start, then whole
// pieces, each a multiple of the unit, covering the rows once.
func TestPieceStarts(t *testing.T) {
	require.Equal(t, []int{0, 64, 128, 256, 512, 768, 1024, 1280, 1536, 1792, 2048}, pieceStarts(2048, 256, 1))
	require.Equal(t, []int{0, 8, 16, 32, 64, 96, 100}, pieceStarts(100, 32, 4))
	require.Equal(t, []int{0, 1}, pieceStarts(1, 1, 1))
	require.Equal(t, []int{0, 3}, pieceStarts(3, 4, 4))
	require.Equal(t, []int{0, 2, 4, 8, 9}, pieceStarts(9, 8, 2))
	for rows := 1; rows < 70; rows++ {
		for _, piece := range []int{1, 2, 4, 8, 16} {
			for _, unit := range []int{1, 2, 4} {
				if unit > piece {
					continue
				}
				s := pieceStarts(rows, piece, unit)
				require.Equal(t, 0, s[0])
				require.Equal(t, rows, s[len(s)-1])
				for i := 1; i < len(s); i++ {
					d := s[i] - s[i-1]
					require.True(t, d > 0 && d <= piece, "%v", s)
					require.True(t, d%unit == 0 || s[i] == rows, "%v", s)
				}
			}
		}
	}
}

// TestFromGnark commits with parameters made by gnark-crypto's own
// NewParams, on the CPU and the GPU, and holds the roots to its Commit;
// parameters the kernels would not commit with are refused, naming what
// is wrong.
func TestFromGnark(t *testing.T) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	const rows, n = 13, 1 << 7
	rs, err := gsis.NewRSis(0, 9, 16, rows)
	require.NoError(t, err)
	gp, err := gvortex.NewParams(n, rows, rs, 4, 5)
	require.NoError(t, err)
	p, err := FromGnark(gp)
	require.NoError(t, err)
	require.Same(t, gp, p.Gnark())
	require.Equal(t, []int{n, rows, 4, 4 * n, 512}, []int{p.NumColumns(), p.MaxRows(), p.Rate(), p.SizeCodeWord(), p.Degree()})
	m := split(randMatrix(rng, rows, n), rows)
	want, err := gvortex.Commit(gp, m)
	require.NoError(t, err)
	st, err := Commit(nil, p, m, Options{})
	require.NoError(t, err)
	require.Equal(t, want.GetCommitment(), st.Root())
	require.Same(t, p, st.Params())
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		st, err := Commit(ctx, p, m, Options{})
		require.NoError(t, err)
		defer st.Release()
		require.Equal(t, want.GetCommitment(), st.Root())
	})

	bad := func(edit func(q *gvortex.Params)) error {
		q := *gp
		edit(&q)
		_, err := FromGnark(&q)
		return err
	}
	_, err = FromGnark(nil)
	require.ErrorContains(t, err, "no gnark-crypto parameters")
	require.ErrorContains(t, bad(func(q *gvortex.Params) { q.Key = nil }), "without a SIS key")
	require.ErrorContains(t, bad(func(q *gvortex.Params) { q.NbColumns = 96 }), "96 columns")
	require.ErrorContains(t, bad(func(q *gvortex.Params) { q.ReedSolomonInvRate = 16 }), "rate 16")
	require.ErrorContains(t, bad(func(q *gvortex.Params) { q.MaxNbRows = 0 }), "0 rows")
	require.ErrorContains(t, bad(func(q *gvortex.Params) { q.MaxNbRows = 1000 }), "the parameters take 1000 rows")
	require.ErrorContains(t, bad(func(q *gvortex.Params) { q.NumSelectedColumns = 0 }), "0 selected columns")
	require.ErrorContains(t, bad(func(q *gvortex.Params) { q.NbColumns = 64 }), "domains are not those of 64 columns at rate 4")
	require.ErrorContains(t, bad(func(q *gvortex.Params) { q.Domains[0] = nil }), "domains are not those")
	other, err := gvortex.NewParams(n, rows, rs, 2, 5)
	require.NoError(t, err)
	require.ErrorContains(t, bad(func(q *gvortex.Params) { q.Domains = other.Domains }), "domains are not those")
	require.ErrorContains(t, bad(func(q *gvortex.Params) {
		require.NoError(t, gvortex.WithMerkleHash(sha256.New())(&q.Conf))
	}), "WithColumnHash, WithMerkleHash")
	small, err := gsis.NewRSis(0, 3, 16, rows)
	require.NoError(t, err)
	require.ErrorContains(t, bad(func(q *gvortex.Params) { q.Key = small }), "SIS degree 8")
}

// TestGnarkOptions: gnark-crypto's options are taken, and refused where
// they change its default Config, the hashes the kernels compute.
func TestGnarkOptions(t *testing.T) {
	_, err := NewParams(64, 4, 2, vortexSIS, 3, gvortex.WithColumnHash(sha256.New()))
	require.ErrorContains(t, err, "option 0 changes the column or Merkle hash")
	_, err = NewParams(64, 4, 2, vortexSIS, 3, func(*gvortex.Config) error { return nil }, gvortex.WithMerkleHash(sha256.New()))
	require.ErrorContains(t, err, "option 1 changes the column or Merkle hash")
	_, err = NewParams(64, 4, 2, vortexSIS, 3, gvortex.WithMerkleHash(sha512.New()))
	require.ErrorContains(t, err, "option 0: the hash size should be 32 bytes")
	_, err = NewParams(64, 4, 2, vortexSIS, 3, nil)
	require.ErrorContains(t, err, "option 0 is nil")
	p, err := NewParams(64, 4, 2, vortexSIS, 3, func(*gvortex.Config) error { return nil })
	require.NoError(t, err)
	require.Equal(t, 64, p.NumColumns())
}

// TestStateToGnark converts a GPU state to gnark-crypto's and holds it
// to gnark-crypto's own state of the same matrix: its fields, and the
// proofs its methods make.
func TestStateToGnark(t *testing.T) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	const rows, n = 5, 1 << 6
	p, err := NewParams(n, rows, 4, midSIS, 4)
	require.NoError(t, err)
	m := split(randMatrix(rng, rows, n), rows)
	want, err := gvortex.Commit(p.Gnark(), m)
	require.NoError(t, err)
	alpha := randE4(rng)
	sel := []int{0, 7, 100, 4*n - 1}
	cpu, err := Commit(nil, p, m, Options{})
	require.NoError(t, err)
	gs, err := cpu.Gnark()
	require.NoError(t, err)
	require.Same(t, cpu.cpu, gs)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		st, err := Commit(ctx, p, m, Options{})
		require.NoError(t, err)
		defer st.Release()
		gs, err := st.Gnark()
		require.NoError(t, err)
		require.Same(t, p.Gnark(), gs.Params)
		require.Equal(t, want.EncodedMatrix, gs.EncodedMatrix)
		require.Equal(t, want.HashedColumns, gs.HashedColumns)
		require.Equal(t, want.MerkleTree.Levels, gs.MerkleTree.Levels)
		require.Nil(t, gs.Ualpha)
		u, err := st.OpenLinComb(alpha)
		require.NoError(t, err)
		gs, err = st.Gnark()
		require.NoError(t, err)
		require.Equal(t, u, gs.Ualpha)
		proof, err := st.OpenColumns(sel)
		require.NoError(t, err)
		gproof, err := gs.OpenColumns(sel)
		require.NoError(t, err)
		require.Equal(t, gproof, proof)
		st.Release()
		_, err = st.Gnark()
		require.ErrorContains(t, err, "released")
	})
}

// TestCommitterCPU: a Committer of a nil Context commits with
// gnark-crypto, rows or one flat slice, and refuses after Release.
func TestCommitterCPU(t *testing.T) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	p, err := NewParams(1<<5, 9, 2, vortexSIS, 3)
	require.NoError(t, err)
	flat := randMatrix(rng, 9, 1<<5)
	want, err := gvortex.Commit(p.Gnark(), split(flat, 9))
	require.NoError(t, err)
	_, err = NewCommitter(nil, nil)
	require.ErrorContains(t, err, "no parameters")
	check := func(t *testing.T, c *Committer) {
		st, err := c.Commit(split(flat, 9), Options{})
		require.NoError(t, err)
		require.Equal(t, want.GetCommitment(), st.Root())
		st.Release()
		st, err = c.CommitFlat(flat, Options{})
		require.NoError(t, err)
		require.Equal(t, want.GetCommitment(), st.Root())
		enc, err := st.EncodedMatrix()
		require.NoError(t, err)
		require.Equal(t, want.EncodedMatrix, enc)
		st.Release()
		_, err = c.CommitFlat(flat[:40], Options{})
		require.ErrorContains(t, err, "40 elements")
		c.Release()
		_, err = c.CommitFlat(flat, Options{})
		require.ErrorContains(t, err, "released")
	}
	c, err := NewCommitter(nil, p)
	require.NoError(t, err)
	require.Same(t, p, c.Params())
	check(t, c)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		c, err := NewCommitter(ctx, p)
		require.NoError(t, err)
		check(t, c)
	})
}

// TestOpenColumnsFirst: OpenColumns before OpenLinComb is refused (a
// proof without UAlpha), on the CPU and the GPU.
func TestOpenColumnsFirst(t *testing.T) {
	p, err := NewParams(1<<4, 3, 2, smallSIS, 2)
	require.NoError(t, err)
	m := randMatrix(rand.New(rand.NewPCG(5, 6)), 3, 1<<4)
	check := func(t *testing.T, ctx *wgpu.Context) {
		st, err := Commit(ctx, p, m, Options{})
		require.NoError(t, err)
		defer st.Release()
		_, err = st.OpenColumns([]int{1, 2})
		require.ErrorIs(t, err, ErrNoLinComb)
		_, err = st.OpenColumns(nil)
		require.ErrorIs(t, err, ErrNoLinComb)
		_, err = st.OpenLinComb(randE4(rand.New(rand.NewPCG(1, 1))))
		require.NoError(t, err)
		pr, err := st.OpenColumns([]int{1, 2})
		require.NoError(t, err)
		require.Len(t, pr.UAlpha, p.SizeCodeWord())
	}
	check(t, nil)
	gputest.ForEach(t, check)
}

// countdown is a Context whose Err is context.Canceled from its n-th call
// on (n counted from 0).
type countdown struct {
	context.Context
	left atomic.Int64
}

func newCountdown(n int) *countdown {
	c := &countdown{Context: context.Background()}
	c.left.Store(int64(n))
	return c
}

func (c *countdown) Err() error {
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestCancel cancels a commitment at each of the points it checks its
// Context, one after another, until one runs to the end: each cancelled
// one returns an error wrapping context.Canceled and leaves no buffer
// behind, and the Committer's next commitment is right.
func TestCancel(t *testing.T) {
	finePieces(t) // more pieces of rows, more points to cancel at
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	const rows, n = 40, 1 << 6
	p, err := NewParams(n, rows, 2, vortexSIS, 3)
	require.NoError(t, err)
	m := split(randMatrix(rng, rows, n), rows)
	want, err := gvortex.Commit(p.Gnark(), m)
	require.NoError(t, err)
	// The CPU checks before and after gnark-crypto's Commit.
	for k := range 2 {
		_, err := Commit(nil, p, m, Options{Context: newCountdown(k)})
		require.ErrorIs(t, err, context.Canceled, "cancelled at check %d", k)
		require.ErrorContains(t, err, "vortex: commitment cancelled")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Commit(nil, p, m, Options{Context: ctx})
	require.ErrorIs(t, err, context.Canceled)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		before := ctx.LiveBuffers()
		c, err := NewCommitter(ctx, p)
		require.NoError(t, err)
		points := 0
		for k := 0; ; k++ {
			require.Less(t, k, 100, "a commitment that never ends")
			st, err := c.Commit(m, Options{Context: newCountdown(k)})
			if err == nil {
				require.Equal(t, want.GetCommitment(), st.Root())
				st.Release()
				break
			}
			require.ErrorIs(t, err, context.Canceled, "cancelled at check %d", k)
			points++
			st, err = c.Commit(m, Options{})
			require.NoError(t, err)
			require.Equal(t, want.GetCommitment(), st.Root(), "after a cancel at check %d", k)
			st.Release()
		}
		// The Committer's, the pieces', SIS's, the leaves', the tree's,
		// the top's (none here: one device).
		require.Greater(t, points, 5)
		c.Release()
		require.Equal(t, before, ctx.LiveBuffers())
		// The one-shot Commit too.
		_, err = Commit(ctx, p, m, Options{Context: newCountdown(3)})
		require.ErrorIs(t, err, context.Canceled)
		require.Equal(t, before, ctx.LiveBuffers())
	})
}

// settle runs the garbage collector until ctx holds at most want live
// buffers (the cleanups of unreachable states run after a collection,
// on their own goroutine), or a few seconds have passed, and returns the
// count.
func settle(ctx *wgpu.Context, want int) int {
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		n := ctx.LiveBuffers()
		if n <= want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestForgottenRelease: commitments whose states are never released,
// nor the Committer, hold no more device buffers than two commitments,
// and nothing once all is unreachable.
func TestForgottenRelease(t *testing.T) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	const rows, n, count = 8, 1 << 6, 100
	p, err := NewParams(n, rows, 2, vortexSIS, 3)
	require.NoError(t, err)
	m := randMatrix(rng, rows, n)
	want, err := gvortex.Commit(p.Gnark(), split(m, rows))
	require.NoError(t, err)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		// States that earlier tests left to the collector go first.
		before := ctx.LiveBuffers()
		for n := -1; n != before; {
			n = before
			runtime.GC()
			time.Sleep(20 * time.Millisecond)
			before = ctx.LiveBuffers()
		}
		// Two states alive: the bound.
		a, err := Commit(ctx, p, m, Options{})
		require.NoError(t, err)
		b, err := Commit(ctx, p, m, Options{})
		require.NoError(t, err)
		two := ctx.LiveBuffers() - before
		require.Greater(t, two, 0)
		a.Release()
		b.Release()

		for i := range count {
			st, err := Commit(ctx, p, m, Options{})
			require.NoError(t, err)
			require.Equal(t, want.GetCommitment(), st.Root(), "commitment %d", i)
			runtime.GC()
		}
		require.LessOrEqual(t, settle(ctx, before+two)-before, two, "buffers held after %d one-shot commitments without Release", count)
		require.LessOrEqual(t, settle(ctx, before), before, "buffers held once every state is unreachable")

		// A Committer's states, then the Committer, forgotten too.
		func() {
			c, err := NewCommitter(ctx, p)
			require.NoError(t, err)
			st, err := c.CommitFlat(m, Options{})
			require.NoError(t, err)
			require.Equal(t, want.GetCommitment(), st.Root())
			st.Release()
			withPool := ctx.LiveBuffers() - before // the tables, and one commitment's buffers in the pool
			for i := range count {
				st, err := c.CommitFlat(m, Options{})
				require.NoError(t, err)
				require.Equal(t, want.GetCommitment(), st.Root(), "commitment %d", i)
				runtime.GC()
			}
			require.LessOrEqual(t, settle(ctx, before+withPool+two)-before, withPool+two, "buffers held after %d commitments of a Committer without Release", count)
		}()
		require.LessOrEqual(t, settle(ctx, before), before, "buffers held once the Committer is unreachable")
	})
}

// TestConcurrentOpenings opens one state from several goroutines at
// once: each proof is gnark-crypto's.
func TestConcurrentOpenings(t *testing.T) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	const rows, n = 6, 1 << 5
	p, err := NewParams(n, rows, 2, smallSIS, 3)
	require.NoError(t, err)
	m := split(randMatrix(rng, rows, n), rows)
	want, err := gvortex.Commit(p.Gnark(), m)
	require.NoError(t, err)
	alpha := randE4(rng)
	want.OpenLinComb(alpha)
	sel := []int{1, 30, 63}
	wantProof, err := want.OpenColumns(sel)
	require.NoError(t, err)
	check := func(t *testing.T, ctx *wgpu.Context) {
		st, err := Commit(ctx, p, m, Options{})
		require.NoError(t, err)
		defer st.Release()
		errs := make(chan error, 8)
		for range 8 {
			go func() {
				errs <- func() error {
					if _, err := st.OpenLinComb(alpha); err != nil {
						return err
					}
					pr, err := st.OpenColumns(sel)
					if err != nil {
						return err
					}
					if !reflect.DeepEqual(wantProof, pr) {
						return fmt.Errorf("a proof differs from gnark-crypto's")
					}
					if _, err := st.Tree(); err != nil {
						return err
					}
					_, err = st.Gnark()
					return err
				}()
			}()
		}
		for range 8 {
			require.NoError(t, <-errs)
		}
	}
	check(t, nil)
	gputest.ForEach(t, check)
}

// TestCopyKernel runs vortex_copy on rows wider and narrower than a
// workgroup's run (copyRun), between strided places of two buffers, on a
// grid that spills into y as the largest commitments' do, taking the
// words out of Montgomery form or not, against the plain-Go copy: the
// words outside the destination's places keep their values.
func TestCopyKernel(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		k, err := copyKernel(ctx)
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(5, uint64(time.Now().UnixNano())))
		for _, c := range []struct{ rows, width int }{{3, 2*copyRun + 37}, {7, 45}, {1, copyRun}} {
			for _, leave := range []bool{false, true} {
				srcOff, srcStride := 11, c.width+5
				dstOff, dstStride := 3, c.width+2
				src := make([]uint32, srcOff+c.rows*srcStride)
				dst := make([]uint32, dstOff+c.rows*dstStride)
				for i := range src {
					src[i] = rng.Uint32N(field.KoalaBear.P())
				}
				for i := range dst {
					dst[i] = rng.Uint32()
				}
				want := append([]uint32(nil), dst...)
				for r := range c.rows {
					for j := range c.width {
						v := src[srcOff+r*srcStride+j]
						if leave {
							v = field.KoalaBear.FromMonty(v)
						}
						want[dstOff+r*dstStride+j] = v
					}
				}
				sb, err := ctx.NewBuffer("copy src", uint64(len(src))*4)
				require.NoError(t, err)
				db, err := ctx.NewBuffer("copy dst", uint64(len(dst))*4)
				require.NoError(t, err)
				require.NoError(t, ctx.Upload(sb, 0, wgpu.Bytes(src)))
				require.NoError(t, ctx.Upload(db, 0, wgpu.Bytes(dst)))
				d := copyDispatch(ctx, k, wgpu.Bind(sb), wgpu.Bind(db), c.rows, c.width, srcOff, srcStride, dstOff, dstStride, leave)
				// The same workgroups as two rows of the grid (and one
				// more than they need), as Grid lays out more than an
				// adapter's workgroups in one dimension.
				groups := d.Groups[0] * d.Groups[1]
				d.Groups = [3]uint32{(groups + 2) / 2, 2, 1}
				_, err = ctx.Run(d)
				require.NoError(t, err)
				got := make([]uint32, len(dst))
				require.NoError(t, ctx.Download(wgpu.Bytes(got), db, 0))
				sb.Release()
				db.Release()
				require.Equal(t, want, got, "%d rows of %d, leave %v", c.rows, c.width, leave)
			}
		}
	})
}
