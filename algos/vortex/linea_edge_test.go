package vortex

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/field/koalabear"
	fext "github.com/consensys/gnark-crypto/field/koalabear/extensions"
	gvortex "github.com/consensys/gnark-crypto/field/koalabear/vortex"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// compareLineaRound commits each matrix of mats on ctx and on the CPU,
// compares every part of the states and the round's proof, and verifies
// the device's proof.
func compareLineaRound(t *testing.T, ctx *wgpu.Context, p *LineaParams, mats [][]LineaRow, noSIS []bool, r *rand.Rand) error {
	t.Helper()
	dev, err := NewLineaCommitter(ctx, p)
	if err != nil {
		return err
	}
	defer dev.Release()
	cpu, _ := NewLineaCommitter(nil, p)
	var ds, cs []*LineaState
	for k, rows := range mats {
		opts := LineaOptions{NoSIS: noSIS[k]}
		d, err := dev.Commit(rows, opts)
		if err != nil {
			return err
		}
		defer d.Release()
		h, err := cpu.Commit(rows, opts)
		if err != nil {
			return err
		}
		if d.Root() != h.Root() {
			t.Fatalf("matrix %d: the device's root differs from the CPU's", k)
		}
		dt, err := d.Tree()
		if err != nil {
			return err
		}
		ht, _ := h.Tree()
		if len(dt) != len(ht) {
			t.Fatalf("matrix %d: %d tree levels, want %d", k, len(dt), len(ht))
		}
		for l := range ht {
			if !slices.Equal(dt[l], ht[l]) {
				t.Fatalf("matrix %d: tree level %d differs", k, l)
			}
		}
		de, err := d.EncodedMatrix()
		if err != nil {
			return err
		}
		he, _ := h.EncodedMatrix()
		for i := range he {
			if de[i].IsConstant() != he[i].IsConstant() || de[i].Constant != he[i].Constant || !slices.Equal(de[i].Values, he[i].Values) {
				t.Fatalf("matrix %d: codeword %d differs", k, i)
			}
		}
		if !noSIS[k] {
			dd, err := d.SISDigests()
			if err != nil {
				return err
			}
			hd, _ := h.SISDigests()
			if !slices.Equal(dd, hd) {
				t.Fatalf("matrix %d: SIS digests differ", k)
			}
		}
		ds, cs = append(ds, d), append(cs, h)
	}
	var alpha fext.E4
	alpha.B0.A0, alpha.B0.A1, alpha.B1.A0, alpha.B1.A1 = elt(r.Uint32N(koalaBearModulus)), elt(r.Uint32N(koalaBearModulus)), elt(r.Uint32N(koalaBearModulus)), elt(r.Uint32N(koalaBearModulus))
	m := p.CodewordSize()
	entries := []int{m - 1, 0, r.IntN(m), r.IntN(m)}
	dp, err := ProveLinea(ds, alpha, entries)
	if err != nil {
		return err
	}
	hp, err := ProveLinea(cs, alpha, entries)
	if err != nil {
		return err
	}
	if !slices.Equal(dp.LinComb, hp.LinComb) {
		t.Fatal("the round's linear combination differs")
	}
	for i := range hp.Columns {
		for j := range hp.Columns[i] {
			if !slices.Equal(dp.Columns[i][j], hp.Columns[i][j]) {
				t.Fatalf("matrix %d, entry %d: column differs", i, j)
			}
			a, b := dp.MerkleProofs[i][j], hp.MerkleProofs[i][j]
			if a.Path != b.Path || !slices.Equal(a.Siblings, b.Siblings) {
				t.Fatalf("matrix %d, entry %d: Merkle proof differs", i, j)
			}
		}
	}
	return nil
}

func constRows(n int, vals ...uint32) []LineaRow {
	out := make([]LineaRow, n)
	for i := range out {
		out[i] = LineaConstant(elt(vals[i%len(vals)]))
	}
	return out
}

// TestLineaDeviceEdgeShapes compares the device with the CPU at the
// shapes' edges: one row, the parameters' maximum, two columns, rate 16
// on short rows, SIS degrees far from 512, row counts not a multiple of
// 8 without SIS, matrices all of constants (many of one value).
func TestLineaDeviceEdgeShapes(t *testing.T) {
	type shape struct {
		name                               string
		rate, n, maxRows, logDeg, logBound int
		mats                               func(r *rand.Rand) [][]LineaRow
		noSIS                              []bool
	}
	shapes := []shape{
		{"one row", 2, 64, 1, 9, 16, func(r *rand.Rand) [][]LineaRow {
			return [][]LineaRow{randLineaRows(r, 1, 64, 0), randLineaRows(r, 1, 64, 0)}
		}, []bool{false, true}},
		{"max rows", 4, 32, 21, 9, 16, func(r *rand.Rand) [][]LineaRow {
			return [][]LineaRow{randLineaRows(r, 21, 32, 5), randLineaRows(r, 21, 32, 0)}
		}, []bool{false, true}},
		{"two columns", 2, 2, 9, 9, 16, func(r *rand.Rand) [][]LineaRow {
			return [][]LineaRow{randLineaRows(r, 9, 2, 4), randLineaRows(r, 3, 2, 0)}
		}, []bool{false, true}},
		{"rate 16 short rows", 16, 4, 11, 9, 16, func(r *rand.Rand) [][]LineaRow {
			return [][]LineaRow{randLineaRows(r, 11, 4, 3), randLineaRows(r, 7, 4, 0)}
		}, []bool{false, true}},
		{"sis 8,16", 2, 64, 30, 8, 16, func(r *rand.Rand) [][]LineaRow { return [][]LineaRow{randLineaRows(r, 30, 64, 7)} }, []bool{false}},
		{"sis 9,8", 4, 32, 70, 9, 8, func(r *rand.Rand) [][]LineaRow { return [][]LineaRow{randLineaRows(r, 70, 32, 7)} }, []bool{false}},
		{"sis 4,16", 2, 32, 13, 4, 16, func(r *rand.Rand) [][]LineaRow { return [][]LineaRow{randLineaRows(r, 13, 32, 5)} }, []bool{false}},
		{"sis 2,8", 2, 16, 13, 2, 8, func(r *rand.Rand) [][]LineaRow { return [][]LineaRow{randLineaRows(r, 13, 16, 5)} }, []bool{false}},
		{"sis 1,16", 2, 16, 5, 1, 16, func(r *rand.Rand) [][]LineaRow { return [][]LineaRow{randLineaRows(r, 5, 16, 0)} }, []bool{false}},
		{"sis 11,16 big", 2, 16, 300, 11, 16, func(r *rand.Rand) [][]LineaRow { return [][]LineaRow{randLineaRows(r, 300, 16, 0)} }, []bool{false}},
		{"no SIS 13 rows", 8, 16, 13, 9, 16, func(r *rand.Rand) [][]LineaRow {
			return [][]LineaRow{randLineaRows(r, 13, 16, 4), randLineaRows(r, 1, 16, 0), randLineaRows(r, 9, 16, 0)}
		}, []bool{true, true, true}},
		{"tiles and pieces", 16, 256, 41, 9, 16, func(r *rand.Rand) [][]LineaRow {
			return [][]LineaRow{randLineaRows(r, 41, 256, 6), randLineaRows(r, 13, 256, 5)}
		}, []bool{false, true}},
		{"all constant", 2, 64, 17, 9, 16, func(r *rand.Rand) [][]LineaRow {
			return [][]LineaRow{constRows(17, 7), constRows(17, 0, 1, 2130706432), constRows(1, 5)}
		}, []bool{false, true, true}},
	}
	check := func(t *testing.T, ctx *wgpu.Context) {
		for _, c := range shapes {
			t.Run(c.name, func(t *testing.T) {
				if c.logDeg == 11 && ctx.Limits().Binding() < 1<<17 {
					t.Skip("16 columns' digests of 2048 elements exceed the binding (TestPlanLayoutNamesDigests)")
				}
				r := rand.New(rand.NewPCG(uint64(len(c.name)), 77))
				p, err := NewLineaParams(c.rate, c.n, c.maxRows, c.logDeg, c.logBound)
				if err != nil {
					t.Fatal(err)
				}
				mats := c.mats(r)
				gputest.NoLeaks(t, ctx, func() error {
					if err := compareLineaRound(t, ctx, p, mats, c.noSIS, r); err != nil {
						t.Error(err)
					}
					return nil
				})
			})
		}
	}
	gputest.ForEach(t, check)
	gputest.ForEachSmall(t, check)
}

// TestLineaLifetimes: a state outlives its committer's Release and
// Evict, opens after both, and gives an error (not a panic) once
// released; a released committer refuses; a cancelled Context stops a
// commitment with its error and leaks nothing.
func TestLineaLifetimes(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		p, err := NewLineaParams(2, 64, 20, 9, 16)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(5, 6))
		rows := randLineaRows(r, 20, 64, 3)
		cpu, _ := NewLineaCommitter(nil, p)
		gputest.NoLeaks(t, ctx, func() error {
			want, _ := cpu.Commit(rows, LineaOptions{})
			c, err := NewLineaCommitter(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			s, err := c.Commit(rows, LineaOptions{})
			if err != nil {
				t.Fatal(err)
			}
			c.Evict(0)
			c.Release()
			c.Release()
			if _, err := c.Commit(rows, LineaOptions{}); err == nil {
				t.Fatal("a released committer committed")
			}
			c.Evict(0)
			lc, err := s.LinComb(fext.E4{})
			if err != nil {
				t.Fatalf("a state after its committer's Release: %v", err)
			}
			wlc, _ := want.LinComb(fext.E4{})
			if !slices.Equal(lc, wlc) {
				for j := range lc {
					if lc[j] != wlc[j] {
						t.Logf("%d: %v want %v", j, lc[j], wlc[j])
					}
				}
				t.Fatal("LinComb after the committer's Release differs")
			}
			pr, err := ProveLinea([]*LineaState{s, want}, fext.E4{}, []int{0, 127})
			if err != nil {
				t.Fatalf("ProveLinea after the committer's Release: %v", err)
			}
			_ = pr
			s.Release()
			s.Release()
			if _, err := ProveLinea([]*LineaState{want, s}, fext.E4{}, []int{0}); err == nil {
				t.Fatal("ProveLinea of a released state")
			}
			if _, err := s.Tree(); err == nil {
				t.Fatal("Tree of a released state")
			}
			if _, err := s.ColumnHashes(); err == nil {
				t.Fatal("ColumnHashes of a released state")
			}
			if _, err := s.SISDigests(); err == nil {
				t.Fatal("SISDigests of a released state")
			}
			if _, err := s.EncodedMatrix(); err == nil {
				t.Fatal("EncodedMatrix of a released state")
			}
			if _, err := s.ExtractColumns([]int{1}); err == nil {
				t.Fatal("ExtractColumns of a released state")
			}
			if _, err := s.MerkleProofs([]int{1}); err == nil {
				t.Fatal("MerkleProofs of a released state")
			}
			want.Release()
			if _, err := ProveLinea([]*LineaState{want}, fext.E4{}, []int{0}); err == nil {
				t.Fatal("ProveLinea of a released CPU state")
			}
			return nil
		})
	})
}

// TestPlanLayoutNamesDigests: where the SIS digests of a 16-column tile
// exceed the binding, the refusal names them, not the columns.
func TestPlanLayoutNamesDigests(t *testing.T) {
	_, err := planLayout(300, 32, 32, 32, 2048, 65536, 8)
	if err == nil || !strings.Contains(err.Error(), "SIS digests of 2048 elements") || !strings.Contains(err.Error(), "131072 bytes") {
		t.Fatalf("got %v, want the digests' 131072 bytes named", err)
	}
}

// TestLineaCancelMidCommit cancels a device commitment at each of its
// checks in turn: it fails with context.Canceled, leaks nothing, and the
// committer's next commitment is right.
func TestLineaCancelMidCommit(t *testing.T) {
	check := func(t *testing.T, ctx *wgpu.Context) {
		p, err := NewLineaParams(2, 256, 40, 9, 16)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(11, 12))
		rows := randLineaRows(r, 40, 256, 6)
		cpu, _ := NewLineaCommitter(nil, p)
		want, _ := cpu.Commit(rows, LineaOptions{})
		c, err := NewLineaCommitter(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Release()
		warm, err := c.Commit(rows, LineaOptions{})
		if err != nil {
			t.Fatal(err)
		}
		warm.Release()
		before := ctx.LiveBuffers()
		for n := 0; n < 64; n++ {
			s, err := c.Commit(rows, LineaOptions{Context: newCountdown(n), NoSIS: n%2 == 1})
			if err == nil {
				s.Release()
				break
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("countdown %d: %v, want context.Canceled", n, err)
			}
			s, err = c.Commit(rows, LineaOptions{})
			if err != nil {
				t.Fatalf("countdown %d: the next commitment: %v", n, err)
			}
			if s.Root() != want.Root() {
				t.Fatalf("countdown %d: the next commitment's root is wrong", n)
			}
			s.Release()
		}
		c.Evict(0)
		if after := ctx.LiveBuffers(); after > before {
			t.Fatalf("%d live buffers before, %d after the cancelled commitments and Evict", before, after)
		}
	}
	gputest.ForEach(t, check)
	gputest.ForEachSmall(t, check)
}

// TestLineaStateConcurrent reads one state from several goroutines (the
// CPU's and a device's) and proves rounds of it at once: every answer is
// the one a lone call gives.
func TestLineaStateConcurrent(t *testing.T) {
	p, err := NewLineaParams(4, 64, 24, 9, 16)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(21, 22))
	rows := randLineaRows(r, 24, 64, 5)
	cpu, _ := NewLineaCommitter(nil, p)
	want, _ := cpu.Commit(rows, LineaOptions{})
	var alpha fext.E4
	alpha.B0.A1 = elt(12345)
	entries := []int{3, 255, 17}
	wantProof, err := ProveLinea([]*LineaState{want, want}, alpha, entries)
	if err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, s *LineaState) {
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 3 {
					switch g % 4 {
					case 0:
						pr, err := ProveLinea([]*LineaState{s, s}, alpha, entries)
						if err != nil {
							errs <- err
						} else if !slices.Equal(pr.LinComb, wantProof.LinComb) || !slices.Equal(pr.Columns[1][2], wantProof.Columns[1][2]) {
							errs <- errors.New("a concurrent proof differs")
						}
					case 1:
						if _, err := s.Tree(); err != nil {
							errs <- err
						}
					case 2:
						if c, err := s.ExtractColumns(entries); err != nil {
							errs <- err
						} else if !slices.Equal(c[0], wantProof.Columns[0][0]) {
							errs <- errors.New("concurrent columns differ")
						}
					case 3:
						if _, err := s.SISDigests(); err != nil {
							errs <- err
						}
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	}
	t.Run("cpu", func(t *testing.T) { run(t, want) })
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		c, err := NewLineaCommitter(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Release()
		s, err := c.Commit(rows, LineaOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Release()
		run(t, s)
	})
}

// TestVerifyLineaMalformed feeds VerifyLinea proofs and statements that
// are malformed (nil parts, sizes that disagree, values out of the
// field, x on the domain): each is an error, never a panic.
func TestVerifyLineaMalformed(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	p, err := NewLineaParams(4, 16, 9, 9, 16)
	if err != nil {
		t.Fatal(err)
	}
	com, _ := NewLineaCommitter(nil, p)
	var st lineaStatement
	st.x.B0.A0, st.x.B1.A1 = elt(12345), elt(7)
	st.alpha.B0.A1 = elt(99)
	var states []*LineaState
	for k := range 2 {
		rows := randLineaRows(r, 4+k*5, 16, 3)
		s, err := com.Commit(rows, LineaOptions{NoSIS: k == 1})
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, s)
		st.roots, st.withSIS = append(st.roots, s.Root()), append(st.withSIS, k != 1)
		var ys []fext.E4
		for _, row := range rows {
			full := make([]koalabear.Element, 16)
			for j := range full {
				full[j] = row.At(j)
			}
			y, _ := gvortex.EvalBasePolyLagrange(full, st.x)
			ys = append(ys, y)
		}
		st.ys = append(st.ys, ys)
	}
	st.entries = []int{0, 63, 17}
	proof, err := ProveLinea(states, st.alpha, st.entries)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.verify(p, proof); err != nil {
		t.Fatal(err)
	}
	bad := map[string]func(pr *LineaProof, s *lineaStatement){
		"nil LinComb":          func(pr *LineaProof, s *lineaStatement) { pr.LinComb = nil },
		"nil Columns":          func(pr *LineaProof, s *lineaStatement) { pr.Columns = nil },
		"nil column":           func(pr *LineaProof, s *lineaStatement) { pr.Columns[1][2] = nil },
		"nil matrix columns":   func(pr *LineaProof, s *lineaStatement) { pr.Columns[0] = nil },
		"nil MerkleProofs":     func(pr *LineaProof, s *lineaStatement) { pr.MerkleProofs = nil },
		"nil siblings":         func(pr *LineaProof, s *lineaStatement) { pr.MerkleProofs[1][0].Siblings = nil },
		"negative path":        func(pr *LineaProof, s *lineaStatement) { pr.MerkleProofs[0][0].Path = -1 },
		"nil ys":               func(pr *LineaProof, s *lineaStatement) { s.ys = nil },
		"empty ys":             func(pr *LineaProof, s *lineaStatement) { s.ys[0] = nil },
		"nil roots":            func(pr *LineaProof, s *lineaStatement) { s.roots = nil },
		"short withSIS":        func(pr *LineaProof, s *lineaStatement) { s.withSIS = s.withSIS[:1] },
		"nil entries":          func(pr *LineaProof, s *lineaStatement) { s.entries = nil },
		"entry out of range":   func(pr *LineaProof, s *lineaStatement) { s.entries[1] = 64 },
		"x on the domain":      func(pr *LineaProof, s *lineaStatement) { s.x = fext.E4{}; s.x.B0.A0.SetOne() },
		"column not reduced":   func(pr *LineaProof, s *lineaStatement) { pr.Columns[0][1][2][0] = 0xffffffff },
		"lincomb not reduced":  func(pr *LineaProof, s *lineaStatement) { pr.LinComb[5].B1.A0[0] = 0xffffffff },
		"sibling not reduced":  func(pr *LineaProof, s *lineaStatement) { pr.MerkleProofs[1][1].Siblings[3][7][0] = 0xffffffff },
		"too many ys":          func(pr *LineaProof, s *lineaStatement) { s.ys[1] = append(s.ys[1], make([]fext.E4, 20)...) },
		"proof of other entry": func(pr *LineaProof, s *lineaStatement) { pr.MerkleProofs[0][2].Path = 5 },
		"column plus modulus": func(pr *LineaProof, s *lineaStatement) {
			for j := range pr.Columns[1] {
				for k := range pr.Columns[1][j] {
					if pr.Columns[1][j][k][0] < 1<<32-koalaBearModulus {
						pr.Columns[1][j][k][0] += koalaBearModulus
						return
					}
				}
			}
			panic("no small value to lift")
		},
	}
	for name, f := range bad {
		pr2, st2 := cloneLineaProof(proof), st.clone()
		f(pr2, &st2)
		var err error
		func() {
			defer func() {
				if v := recover(); v != nil {
					t.Errorf("%s: VerifyLinea panics: %v", name, v)
				}
			}()
			err = st2.verify(p, pr2)
		}()
		if err == nil {
			t.Errorf("%s: VerifyLinea accepts it", name)
		}
	}
	if err := VerifyLinea(nil, proof, st.x, st.ys, st.alpha, st.entries, st.roots, st.withSIS); err == nil {
		t.Error("nil parameters accepted")
	}
	if err := VerifyLinea(p, nil, st.x, st.ys, st.alpha, st.entries, st.roots, st.withSIS); err == nil {
		t.Error("nil proof accepted")
	}
}

// TestLineaForgottenRelease: Linea states and committers never released
// hold nothing once unreachable.
func TestLineaForgottenRelease(t *testing.T) {
	p, err := NewLineaParams(2, 64, 12, 9, 16)
	if err != nil {
		t.Fatal(err)
	}
	rows := randLineaRows(rand.New(rand.NewPCG(41, 42)), 12, 64, 4)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		before := ctx.LiveBuffers()
		for n := -1; n != before; {
			n = before
			runtime.GC()
			time.Sleep(20 * time.Millisecond)
			before = ctx.LiveBuffers()
		}
		func() {
			c, err := NewLineaCommitter(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 20 {
				s, err := c.Commit(rows, LineaOptions{NoSIS: i%2 == 1})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := ProveLinea([]*LineaState{s}, fext.E4{}, []int{1}); err != nil {
					t.Fatal(err)
				}
				runtime.GC()
			}
		}()
		if n := settle(ctx, before); n > before {
			t.Fatalf("%d buffers alive before, %d once the committer and its states are unreachable", before, n)
		}
	})
}

// TestLineaReleaseWhileRead releases a state (the CPU's and a device's)
// while other goroutines read it: each read gives its answer or an error,
// and the race detector finds nothing.
func TestLineaReleaseWhileRead(t *testing.T) {
	p, err := NewLineaParams(2, 32, 6, 9, 16)
	if err != nil {
		t.Fatal(err)
	}
	rows := randLineaRows(rand.New(rand.NewPCG(51, 52)), 6, 32, 4)
	run := func(t *testing.T, s *LineaState) {
		var wg sync.WaitGroup
		for g := range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 4 {
					switch g % 3 {
					case 0:
						ProveLinea([]*LineaState{s}, fext.E4{}, []int{2})
					case 1:
						s.Tree()
						s.EncodedMatrix()
					case 2:
						s.LinComb(fext.E4{})
						s.SISDigests()
					}
				}
			}()
		}
		s.Release()
		wg.Wait()
		if _, err := s.Tree(); err == nil {
			t.Error("Tree of a released state")
		}
	}
	t.Run("cpu", func(t *testing.T) {
		c, _ := NewLineaCommitter(nil, p)
		s, err := c.Commit(rows, LineaOptions{})
		if err != nil {
			t.Fatal(err)
		}
		run(t, s)
	})
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		c, err := NewLineaCommitter(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Release()
		s, err := c.Commit(rows, LineaOptions{})
		if err != nil {
			t.Fatal(err)
		}
		run(t, s)
	})
}

// TestLineaCommitterConcurrent commits from several goroutines on one
// committer (the CPU's and a device's) while another releases it: each
// commitment is right or refused, and the race detector finds nothing.
func TestLineaCommitterConcurrent(t *testing.T) {
	p, err := NewLineaParams(2, 32, 6, 9, 16)
	if err != nil {
		t.Fatal(err)
	}
	rows := randLineaRows(rand.New(rand.NewPCG(61, 62)), 6, 32, 4)
	cpu, _ := NewLineaCommitter(nil, p)
	want, _ := cpu.Commit(rows, LineaOptions{})
	run := func(t *testing.T, c *LineaCommitter) {
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 3 {
					s, err := c.Commit(rows, LineaOptions{})
					if err != nil {
						continue
					}
					if s.Root() != want.Root() {
						t.Error("a concurrent commitment's root is wrong")
					}
					s.Release()
				}
			}()
		}
		c.Release()
		wg.Wait()
		if _, err := c.Commit(rows, LineaOptions{}); err == nil {
			t.Error("a released committer committed")
		}
	}
	t.Run("cpu", func(t *testing.T) {
		c, _ := NewLineaCommitter(nil, p)
		run(t, c)
	})
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		c, err := NewLineaCommitter(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		run(t, c)
	})
}
