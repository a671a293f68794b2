package vortex

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/field/koalabear"
	fext "github.com/consensys/gnark-crypto/field/koalabear/extensions"
	gvortex "github.com/consensys/gnark-crypto/field/koalabear/vortex"

	"github.com/wgcompute/wgcompute/internal/lineavec"
	"github.com/wgcompute/wgcompute/wgpu"
)

// The vectors Linea's own code wrote (tools/lineagen).
const lineaVectors = "../../testdata/linea"

// The vectors' reader and conversions (internal/lineavec).
type (
	lineaVector    = lineavec.Vector
	lineaVectorRow = lineavec.Row
)

var (
	elt    = lineavec.Elt
	elts   = lineavec.Elts
	hashOf = lineavec.Hash
	e4Of   = lineavec.E4
)

func vectorRows(rs []lineaVectorRow) []LineaRow {
	out := make([]LineaRow, len(rs))
	for i, r := range rs {
		if r.Constant != nil {
			out[i] = LineaConstant(elt(*r.Constant))
		} else {
			out[i] = LineaValues(elts(r.Values))
		}
	}
	return out
}

func readLineaVectors(t *testing.T) map[string]*lineaVector {
	t.Helper()
	out, _, err := lineavec.ReadDir(lineaVectors)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLineaCommitVectors(t *testing.T) { checkLineaCommitVectors(t, nil) }

// checkLineaCommitVectors commits every commit vector on ctx (nil: the
// CPU) and compares everything the state gives with Linea's.
func checkLineaCommitVectors(t *testing.T, ctx *wgpu.Context) {
	commits := 0
	for name, v := range readLineaVectors(t) {
		if v.Kind != "commit" {
			continue
		}
		commits++
		t.Run(strings.TrimSuffix(name, ".json"), func(t *testing.T) {
			p, err := NewLineaParams(v.Rate, v.NumColumns, v.MaxRows, v.SISLogDegree, v.SISLogBound)
			if err != nil {
				t.Fatal(err)
			}
			c, err := NewLineaCommitter(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Release()
			s, err := c.Commit(vectorRows(v.Rows), LineaOptions{NoSIS: !v.SIS})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Release()
			if s.Root() != hashOf(v.Root) {
				t.Fatalf("root %v, Linea's %v", s.Root(), hashOf(v.Root))
			}
			ch, err := s.ColumnHashes()
			if err != nil {
				t.Fatal(err)
			}
			if len(ch) != len(v.ColumnHashes) {
				t.Fatalf("%d column hashes, Linea's %d", len(ch), len(v.ColumnHashes))
			}
			for j := range ch {
				if ch[j] != hashOf(v.ColumnHashes[j]) {
					t.Fatalf("column hash %d differs", j)
				}
			}
			tree, err := s.Tree()
			if err != nil {
				t.Fatal(err)
			}
			if len(tree) != len(v.Tree)+1 {
				t.Fatalf("%d levels, Linea's %d above the leaves", len(tree), len(v.Tree))
			}
			for l := range v.Tree {
				if len(tree[l+1]) != len(v.Tree[l]) {
					t.Fatalf("level %d: %d nodes, Linea's %d", l+1, len(tree[l+1]), len(v.Tree[l]))
				}
				for k := range v.Tree[l] {
					if tree[l+1][k] != hashOf(v.Tree[l][k]) {
						t.Fatalf("level %d node %d differs", l+1, k)
					}
				}
			}
			if v.SISDigests != nil {
				d, err := s.SISDigests()
				if err != nil {
					t.Fatal(err)
				}
				var want []koalabear.Element
				for _, dj := range v.SISDigests {
					want = append(want, elts(dj)...)
				}
				if !slices.Equal(d, want) {
					t.Fatal("SIS digests differ")
				}
			}
			if v.Encoded != nil {
				enc, err := s.EncodedMatrix()
				if err != nil {
					t.Fatal(err)
				}
				if len(enc) != len(v.Encoded) {
					t.Fatalf("%d encoded rows, Linea's %d", len(enc), len(v.Encoded))
				}
				for i := range enc {
					if (v.Rows[i].Constant != nil) != enc[i].IsConstant() {
						t.Fatalf("encoded row %d: constant %v, input constant %v", i, enc[i].IsConstant(), v.Rows[i].Constant != nil)
					}
					for j, w := range v.Encoded[i] {
						if enc[i].At(j) != elt(w) {
							t.Fatalf("encoded row %d differs at %d", i, j)
						}
					}
				}
			}
		})
	}
	if commits == 0 {
		t.Fatal("no commit vectors")
	}
}

// lineaTampers are the changes of the generator's tampers (by name) that
// VerifyLinea must reject, as Linea's Verify did.
var lineaTampers = map[string]func(pr *LineaProof, st *lineaStatement){
	"column": func(pr *LineaProof, _ *lineaStatement) { bump(&pr.Columns[0][0][0]) },
	"column_last": func(pr *LineaProof, _ *lineaStatement) {
		m := pr.Columns[len(pr.Columns)-1]
		c := m[len(m)-1]
		bump(&c[len(c)-1])
	},
	"sibling": func(pr *LineaProof, _ *lineaStatement) { bump(&pr.MerkleProofs[0][0].Siblings[0][0]) },
	"sibling_top": func(pr *LineaProof, _ *lineaStatement) {
		q := pr.MerkleProofs[len(pr.MerkleProofs)-1][0]
		bump(&q.Siblings[len(q.Siblings)-1][7])
	},
	"path":  func(pr *LineaProof, _ *lineaStatement) { pr.MerkleProofs[0][0].Path ^= 1 },
	"alpha": func(_ *LineaProof, st *lineaStatement) { bump(&st.alpha.B1.A1) },
	"root":  func(_ *LineaProof, st *lineaStatement) { bump(&st.roots[len(st.roots)-1][3]) },
	"lincomb": func(pr *LineaProof, st *lineaStatement) {
		bump(&pr.LinComb[st.entries[0]].B0.A0)
	},
	"lincomb_shift": func(pr *LineaProof, _ *lineaStatement) {
		for i := range pr.LinComb {
			bump(&pr.LinComb[i].B0.A0)
		}
	},
	"y":        func(_ *LineaProof, st *lineaStatement) { bump(&st.ys[0][0].B0.A1) },
	"x":        func(_ *LineaProof, st *lineaStatement) { bump(&st.x.B0.A0) },
	"sis_flag": func(_ *LineaProof, st *lineaStatement) { st.withSIS[0] = !st.withSIS[0] },
}

func bump(e *koalabear.Element) {
	one := koalabear.One()
	e.Add(e, &one)
}

type lineaStatement struct {
	x, alpha fext.E4
	ys       [][]fext.E4
	entries  []int
	roots    []Hash
	withSIS  []bool
}

func (st lineaStatement) clone() lineaStatement {
	ys := make([][]fext.E4, len(st.ys))
	for i := range ys {
		ys[i] = slices.Clone(st.ys[i])
	}
	return lineaStatement{x: st.x, alpha: st.alpha, ys: ys, entries: slices.Clone(st.entries), roots: slices.Clone(st.roots), withSIS: slices.Clone(st.withSIS)}
}

func cloneLineaProof(pr *LineaProof) *LineaProof {
	out := &LineaProof{LinComb: slices.Clone(pr.LinComb)}
	for i := range pr.Columns {
		var cols [][]koalabear.Element
		for j := range pr.Columns[i] {
			cols = append(cols, slices.Clone(pr.Columns[i][j]))
		}
		out.Columns = append(out.Columns, cols)
	}
	for i := range pr.MerkleProofs {
		var mps []LineaMerkleProof
		for _, q := range pr.MerkleProofs[i] {
			mps = append(mps, LineaMerkleProof{Path: q.Path, Siblings: slices.Clone(q.Siblings)})
		}
		out.MerkleProofs = append(out.MerkleProofs, mps)
	}
	return out
}

func (st lineaStatement) verify(p *LineaParams, pr *LineaProof) error {
	return VerifyLinea(p, pr, st.x, st.ys, st.alpha, st.entries, st.roots, st.withSIS)
}

func TestLineaRoundVectors(t *testing.T) { checkLineaRoundVectors(t, nil) }

// checkLineaRoundVectors commits every round vector's matrices on ctx
// (nil: the CPU), proves the round and compares the proof with Linea's;
// VerifyLinea accepts it and rejects every tampering the generator's
// Verify rejected.
func checkLineaRoundVectors(t *testing.T, ctx *wgpu.Context) {
	rounds := 0
	for name, v := range readLineaVectors(t) {
		if v.Kind != "round" {
			continue
		}
		rounds++
		t.Run(strings.TrimSuffix(name, ".json"), func(t *testing.T) {
			p, err := NewLineaParams(v.Rate, v.NumColumns, v.MaxRows, v.SISLogDegree, v.SISLogBound)
			if err != nil {
				t.Fatal(err)
			}
			c, err := NewLineaCommitter(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Release()
			st := lineaStatement{x: e4Of(v.X), alpha: e4Of(v.Alpha), entries: v.Entries}
			var states []*LineaState
			for i, mv := range v.Matrices {
				rows := vectorRows(mv.Rows)
				s, err := c.Commit(rows, LineaOptions{NoSIS: !mv.SIS})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Release()
				if s.Root() != hashOf(mv.Root) {
					t.Fatalf("matrix %d: root differs from Linea's", i)
				}
				states = append(states, s)
				st.roots = append(st.roots, s.Root())
				st.withSIS = append(st.withSIS, mv.SIS)
				// The statement, from the rows, as a verifier's caller has it.
				var ys []fext.E4
				for k, r := range rows {
					row := r.Values
					if r.IsConstant() {
						row = make([]koalabear.Element, p.NumColumns())
						for j := range row {
							row[j] = r.Constant
						}
					}
					y, err := gvortex.EvalBasePolyLagrange(row, st.x)
					if err != nil {
						t.Fatal(err)
					}
					if y != e4Of(v.Ys[i][k]) {
						t.Fatalf("matrix %d row %d: y differs from the generator's", i, k)
					}
					ys = append(ys, y)
				}
				st.ys = append(st.ys, ys)
			}
			proof, err := ProveLinea(states, st.alpha, st.entries)
			if err != nil {
				t.Fatal(err)
			}
			if len(proof.LinComb) != len(v.LinComb) {
				t.Fatalf("lincomb of %d, Linea's %d", len(proof.LinComb), len(v.LinComb))
			}
			for j := range proof.LinComb {
				if proof.LinComb[j] != e4Of(v.LinComb[j]) {
					t.Fatalf("lincomb differs at %d", j)
				}
			}
			for i := range v.Columns {
				for j := range v.Columns[i] {
					if !slices.Equal(proof.Columns[i][j], elts(v.Columns[i][j])) {
						t.Fatalf("matrix %d, entry %d: column differs", i, j)
					}
					q, want := proof.MerkleProofs[i][j], v.MerkleProofs[i][j]
					if q.Path != want.Path || len(q.Siblings) != len(want.Siblings) {
						t.Fatalf("matrix %d, entry %d: Merkle proof of %d (%d siblings), Linea's of %d (%d)", i, j, q.Path, len(q.Siblings), want.Path, len(want.Siblings))
					}
					for l := range q.Siblings {
						if q.Siblings[l] != hashOf(want.Siblings[l]) {
							t.Fatalf("matrix %d, entry %d: sibling %d differs", i, j, l)
						}
					}
				}
			}
			if err := st.verify(p, proof); err != nil {
				t.Fatalf("VerifyLinea rejects the proof Linea's Verify accepts: %v", err)
			}
			if len(v.Rejected) == 0 {
				t.Fatal("the vector lists no tampering")
			}
			for _, name := range v.Rejected {
				tamper, ok := lineaTampers[name]
				if !ok {
					t.Fatalf("tampering %q of the generator is not tested here", name)
				}
				pr2, st2 := cloneLineaProof(proof), st.clone()
				tamper(pr2, &st2)
				if err := st2.verify(p, pr2); err == nil {
					t.Errorf("VerifyLinea accepts the proof tampered by %q", name)
				}
			}
			if err := st.verify(p, proof); err != nil {
				t.Fatalf("tampering changed the original: %v", err)
			}
		})
	}
	if rounds == 0 {
		t.Fatal("no round vectors")
	}
}

func randLineaRows(r *rand.Rand, rows, n int, constEvery int) []LineaRow {
	out := make([]LineaRow, rows)
	for i := range out {
		if constEvery > 0 && i%constEvery == constEvery-1 {
			out[i] = LineaConstant(elt(r.Uint32N(koalaBearModulus)))
			continue
		}
		v := make([]uint32, n)
		for j := range v {
			v[j] = r.Uint32N(koalaBearModulus)
		}
		out[i] = LineaValues(elts(v))
	}
	return out
}

// TestLineaRoundTrip proves and verifies rounds at shapes beyond the
// vectors (rate 32, a single column, rows of one) and checks that the
// proof's parts agree with the states'.
func TestLineaRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct{ rate, n, maxRows, logDeg, logBound int }{
		{32, 8, 5, 9, 16}, {2, 1, 3, 9, 16}, {4, 2, 1, 2, 8}, {2, 128, 17, 6, 16},
	} {
		p, err := NewLineaParams(c.rate, c.n, c.maxRows, c.logDeg, c.logBound)
		if err != nil {
			t.Fatal(err)
		}
		com, err := NewLineaCommitter(nil, p)
		if err != nil {
			t.Fatal(err)
		}
		var states []*LineaState
		var st lineaStatement
		st.x, st.alpha = fext.E4{}, fext.E4{}
		st.x.B0.A0, st.x.B1.A1 = elt(r.Uint32N(koalaBearModulus)), elt(7)
		st.alpha.B0.A1, st.alpha.B1.A0 = elt(r.Uint32N(koalaBearModulus)), elt(3)
		for k := range 3 {
			rows := randLineaRows(r, 1+r.IntN(c.maxRows), c.n, 2)
			s, err := com.Commit(rows, LineaOptions{NoSIS: k == 1})
			if err != nil {
				t.Fatal(err)
			}
			states = append(states, s)
			st.roots, st.withSIS = append(st.roots, s.Root()), append(st.withSIS, k != 1)
			var ys []fext.E4
			for _, row := range rows {
				full := make([]koalabear.Element, c.n)
				for j := range full {
					full[j] = row.At(j)
				}
				y, err := gvortex.EvalBasePolyLagrange(full, st.x)
				if err != nil {
					t.Fatal(err)
				}
				ys = append(ys, y)
			}
			st.ys = append(st.ys, ys)
		}
		st.entries = []int{0, p.CodewordSize() - 1, r.IntN(p.CodewordSize())}
		proof, err := ProveLinea(states, st.alpha, st.entries)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.verify(p, proof); err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		for name, tamper := range lineaTampers {
			if name == "x" && c.n == 1 {
				continue // constant polynomials: every x holds
			}
			pr2, st2 := cloneLineaProof(proof), st.clone()
			tamper(pr2, &st2)
			if err := st2.verify(p, pr2); err == nil {
				t.Errorf("%+v: VerifyLinea accepts the proof tampered by %q", c, name)
			}
		}
		com.Release()
	}
}

func TestLineaBadInput(t *testing.T) {
	for _, c := range []struct{ rate, n, maxRows, logDeg, logBound int }{
		{3, 16, 4, 9, 16}, {1, 16, 4, 9, 16}, {0, 16, 4, 9, 16}, {2, 12, 4, 9, 16}, {2, 0, 4, 9, 16},
		{2, 16, 0, 9, 16}, {2, 16, 1<<24 + 1, 9, 16}, {2, 16, 4, 0, 16}, {2, 16, 4, 12, 16},
		{2, 16, 4, 9, 12}, {2, 16, 4, 9, 24}, {2, 16, 4, 9, 0}, {1 << 10, 1 << 20, 4, 9, 16},
	} {
		if _, err := NewLineaParams(c.rate, c.n, c.maxRows, c.logDeg, c.logBound); err == nil {
			t.Errorf("NewLineaParams%+v: no error", c)
		}
	}
	if _, err := NewLineaCommitter(nil, nil); err == nil {
		t.Error("NewLineaCommitter(nil params): no error")
	}
	p, err := NewLineaParams(2, 8, 4, 9, 16)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewLineaCommitter(nil, p)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	good := randLineaRows(r, 3, 8, 0)
	bad := koalabear.Element{koalaBearModulus}
	for name, rows := range map[string][]LineaRow{
		"no rows":             nil,
		"too many rows":       randLineaRows(r, 5, 8, 0),
		"short row":           {good[0], LineaValues(make([]koalabear.Element, 7))},
		"values and constant": {{Values: good[0].Values, Constant: koalabear.One()}},
		"unreduced value":     {LineaValues(append(slices.Clone(good[0].Values[:7]), bad))},
		"unreduced constant":  {LineaConstant(bad)},
	} {
		if _, err := c.Commit(rows, LineaOptions{}); err == nil {
			t.Errorf("Commit with %s: no error", name)
		}
	}
	s, err := c.Commit(good, LineaOptions{NoSIS: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SISDigests(); err == nil {
		t.Error("SISDigests without SIS: no error")
	}
	for _, cols := range [][]int{nil, {16}, {-1}, {0, 99}} {
		if _, err := s.ExtractColumns(cols); err == nil {
			t.Errorf("ExtractColumns(%v): no error", cols)
		}
		if _, err := s.MerkleProofs(cols); err == nil {
			t.Errorf("MerkleProofs(%v): no error", cols)
		}
		if _, err := ProveLinea([]*LineaState{s}, fext.E4{}, cols); err == nil {
			t.Errorf("ProveLinea(%v): no error", cols)
		}
	}
	if _, err := ProveLinea(nil, fext.E4{}, []int{0}); err == nil {
		t.Error("ProveLinea of no states: no error")
	}
	if _, err := ProveLinea([]*LineaState{s, nil}, fext.E4{}, []int{0}); err == nil {
		t.Error("ProveLinea with a nil state: no error")
	}
	p2, _ := NewLineaParams(4, 8, 4, 9, 16)
	c2, _ := NewLineaCommitter(nil, p2)
	s2, err := c2.Commit(good, LineaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ProveLinea([]*LineaState{s, s2}, fext.E4{}, []int{0}); err == nil {
		t.Error("ProveLinea of two shapes: no error")
	}

	// A valid proof, then each size wrong.
	proof, err := ProveLinea([]*LineaState{s}, fext.E4{}, []int{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	// The sizes are checked first: the statement holds, so the errors
	// below come from the sizes alone.
	ys := [][]fext.E4{make([]fext.E4, 3)}
	for i := range good {
		if ys[0][i], err = gvortex.EvalBasePolyLagrange(good[i].Values, fext.E4{}); err != nil {
			t.Fatal(err)
		}
	}
	roots, noSIS := []Hash{s.Root()}, []bool{false}
	if err := VerifyLinea(p, proof, fext.E4{}, ys, fext.E4{}, []int{1, 2}, roots, noSIS); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(pr *LineaProof) error{
		"nil proof": func(*LineaProof) error {
			return VerifyLinea(p, nil, fext.E4{}, ys, fext.E4{}, []int{1, 2}, roots, noSIS)
		},
		"nil params": func(pr *LineaProof) error {
			return VerifyLinea(nil, pr, fext.E4{}, ys, fext.E4{}, []int{1, 2}, roots, noSIS)
		},
		"no roots": func(pr *LineaProof) error {
			return VerifyLinea(p, pr, fext.E4{}, ys, fext.E4{}, []int{1, 2}, nil, noSIS)
		},
		"two flags": func(pr *LineaProof) error {
			return VerifyLinea(p, pr, fext.E4{}, ys, fext.E4{}, []int{1, 2}, roots, []bool{false, true})
		},
		"no ys": func(pr *LineaProof) error {
			return VerifyLinea(p, pr, fext.E4{}, nil, fext.E4{}, []int{1, 2}, roots, noSIS)
		},
		"short ys": func(pr *LineaProof) error {
			return VerifyLinea(p, pr, fext.E4{}, [][]fext.E4{make([]fext.E4, 2)}, fext.E4{}, []int{1, 2}, roots, noSIS)
		},
		"entry out": func(pr *LineaProof) error {
			return VerifyLinea(p, pr, fext.E4{}, ys, fext.E4{}, []int{1, 16}, roots, noSIS)
		},
		"one entry": func(pr *LineaProof) error {
			return VerifyLinea(p, pr, fext.E4{}, ys, fext.E4{}, []int{1}, roots, noSIS)
		},
		"short lincomb": func(pr *LineaProof) error {
			pr.LinComb = pr.LinComb[:8]
			return VerifyLinea(p, pr, fext.E4{}, ys, fext.E4{}, []int{1, 2}, roots, noSIS)
		},
		"short column": func(pr *LineaProof) error {
			pr.Columns[0][1] = pr.Columns[0][1][:2]
			return VerifyLinea(p, pr, fext.E4{}, ys, fext.E4{}, []int{1, 2}, roots, noSIS)
		},
		"short path": func(pr *LineaProof) error {
			pr.MerkleProofs[0][0].Siblings = pr.MerkleProofs[0][0].Siblings[:3]
			return VerifyLinea(p, pr, fext.E4{}, ys, fext.E4{}, []int{1, 2}, roots, noSIS)
		},
		"no proofs": func(pr *LineaProof) error {
			pr.MerkleProofs = nil
			return VerifyLinea(p, pr, fext.E4{}, ys, fext.E4{}, []int{1, 2}, roots, noSIS)
		},
	} {
		if err := f(cloneLineaProof(proof)); err == nil {
			t.Errorf("VerifyLinea with %s: no error", name)
		}
	}
	s.Release()
	if _, err := s.ColumnHashes(); err == nil {
		t.Error("ColumnHashes after Release: no error")
	}
	if _, err := s.LinComb(fext.E4{}); err == nil {
		t.Error("LinComb after Release: no error")
	}
	if _, err := ProveLinea([]*LineaState{s}, fext.E4{}, []int{0}); err == nil {
		t.Error("ProveLinea of a released state: no error")
	}
	c.Release()
	if _, err := c.Commit(good, LineaOptions{}); err == nil {
		t.Error("Commit after Release: no error")
	}
}
