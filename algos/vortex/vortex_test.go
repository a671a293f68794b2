package vortex

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/consensys/gnark-crypto/field/koalabear"
	fext "github.com/consensys/gnark-crypto/field/koalabear/extensions"
	gvortex "github.com/consensys/gnark-crypto/field/koalabear/vortex"
	"github.com/stretchr/testify/require"

	"github.com/wgcompute/wgcompute/internal/gputest"
	"github.com/wgcompute/wgcompute/wgpu"
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
// and pieces of rows there.
var smallShapes = []shape{
	{16, 9, 2, smallSIS},
	{100, 7, 4, midSIS},
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
			l, err := planLayout(s.rows, m, m, m, 1<<s.sis.LogTwoDegree, ctx.Limits().Binding())
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
// under a 4 GiB binding and WebGPU's default 128 MiB.
func TestPlanLayout(t *testing.T) {
	l, err := planLayout(1<<11, 1<<20, 1<<20, 1<<20, 512, 1<<32-4)
	require.NoError(t, err)
	require.Equal(t, layout{w: 1 << 18, tiles: 4, piece: 1 << 9}, l)
	l, err = planLayout(1<<11, 1<<20, 1<<20, 1<<20, 512, 128<<20)
	require.NoError(t, err)
	require.Equal(t, layout{w: 1 << 14, tiles: 64, piece: 1 << 5}, l)
	l, err = planLayout(100, 1<<10, 1<<10, 1<<10, 512, 1<<30)
	require.NoError(t, err)
	require.Equal(t, layout{w: 1 << 10, tiles: 1, piece: 100, direct: true}, l)
	// A share of three devices' (units of a 64th): tiles within the unit,
	// whole codewords a piece through the scratch buffer.
	l, err = planLayout(100, 1<<10, 1<<4, 22<<4, 512, 1<<30)
	require.NoError(t, err)
	require.Equal(t, layout{w: 1 << 4, tiles: 22, piece: 64}, l)
	_, err = planLayout(1<<24, 1<<4, 1<<4, 1<<4, 16, 1<<20)
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
