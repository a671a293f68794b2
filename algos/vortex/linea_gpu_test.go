package vortex

import (
	"math/rand/v2"
	"slices"
	"testing"

	fext "github.com/consensys/gnark-crypto/field/koalabear/extensions"

	"github.com/wgcompute/wgcompute/internal/base/trace"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// TestLineaDeviceVectors holds the device path to the vectors of Linea's
// code, on every adapter and under limits small enough to cut the
// codewords into several tiles and pieces.
func TestLineaDeviceVectors(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		checkLineaCommitVectors(t, ctx)
		checkLineaRoundVectors(t, ctx)
	})
	gputest.ForEachSmall(t, func(t *testing.T, ctx *wgpu.Context) {
		checkLineaCommitVectors(t, ctx)
		checkLineaRoundVectors(t, ctx)
	})
}

// TestLineaDeviceMatchesCPU commits fresh random matrices at shapes
// beyond the vectors (odd row counts, constants, every rate from 2 to 16,
// with and without SIS) on the device and the CPU and compares
// everything the states give, and the round's proofs, and frees every
// buffer.
func TestLineaDeviceMatchesCPU(t *testing.T) {
	shapes := []struct{ rate, n, rows, logDeg, logBound int }{
		{2, 256, 37, 9, 16}, {16, 64, 9, 9, 16}, {4, 128, 13, 8, 16}, {8, 32, 5, 9, 8}, {2, 2, 3, 9, 16}, {2, 1024, 70, 9, 16},
	}
	if testing.Short() {
		shapes = shapes[:4]
	}
	check := func(t *testing.T, ctx *wgpu.Context) {
		r := rand.New(rand.NewPCG(uint64(len(t.Name())), 40))
		for _, c := range shapes {
			p, err := NewLineaParams(c.rate, c.n, c.rows+3, c.logDeg, c.logBound)
			if err != nil {
				t.Fatal(err)
			}
			gputest.NoLeaks(t, ctx, func() error {
				dev, err := NewLineaCommitter(ctx, p)
				if err != nil {
					return err
				}
				defer dev.Release()
				cpu, _ := NewLineaCommitter(nil, p)
				var ds, cs []*LineaState
				for k := range 3 {
					rows := randLineaRows(r, c.rows-k, c.n, 3+k)
					opts := LineaOptions{NoSIS: k == 1}
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
						t.Fatalf("%+v, matrix %d: the device's root differs from the CPU's", c, k)
					}
					dt, err := d.Tree()
					if err != nil {
						return err
					}
					ht, _ := h.Tree()
					for l := range ht {
						if !slices.Equal(dt[l], ht[l]) {
							t.Fatalf("%+v, matrix %d: tree level %d differs", c, k, l)
						}
					}
					de, err := d.EncodedMatrix()
					if err != nil {
						return err
					}
					he, _ := h.EncodedMatrix()
					for i := range he {
						if de[i].IsConstant() != he[i].IsConstant() || de[i].Constant != he[i].Constant || !slices.Equal(de[i].Values, he[i].Values) {
							t.Fatalf("%+v, matrix %d: codeword %d differs", c, k, i)
						}
					}
					if !opts.NoSIS {
						dd, err := d.SISDigests()
						if err != nil {
							return err
						}
						hd, _ := h.SISDigests()
						if !slices.Equal(dd, hd) {
							t.Fatalf("%+v, matrix %d: SIS digests differ", c, k)
						}
					} else if _, err := d.SISDigests(); err == nil {
						t.Fatalf("%+v: SIS digests of a commitment without SIS", c)
					}
					ds, cs = append(ds, d), append(cs, h)
				}
				var alpha fext.E4
				alpha.B0.A0, alpha.B1.A1 = elt(r.Uint32N(koalaBearModulus)), elt(r.Uint32N(koalaBearModulus))
				m := p.CodewordSize()
				entries := []int{m - 1, 0, r.IntN(m), r.IntN(m), 1}
				dp, err := ProveLinea(ds, alpha, entries)
				if err != nil {
					return err
				}
				hp, err := ProveLinea(cs, alpha, entries)
				if err != nil {
					return err
				}
				if !slices.Equal(dp.LinComb, hp.LinComb) {
					t.Fatalf("%+v: the round's linear combination differs", c)
				}
				for i := range hp.Columns {
					for j := range hp.Columns[i] {
						if !slices.Equal(dp.Columns[i][j], hp.Columns[i][j]) {
							t.Fatalf("%+v: matrix %d, entry %d: column differs", c, i, j)
						}
						a, b := dp.MerkleProofs[i][j], hp.MerkleProofs[i][j]
						if a.Path != b.Path || !slices.Equal(a.Siblings, b.Siblings) {
							t.Fatalf("%+v: matrix %d, entry %d: Merkle proof differs", c, i, j)
						}
					}
				}
				return nil
			})
		}
	}
	gputest.ForEach(t, check)
	gputest.ForEachSmall(t, check)
}

// TestLineaDeviceRefuses: a value that is not reduced is named by the
// device's check, and the committer stays usable.
func TestLineaDeviceRefuses(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		p, err := NewLineaParams(2, 64, 8, 9, 16)
		if err != nil {
			t.Fatal(err)
		}
		c, err := NewLineaCommitter(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Release()
		r := rand.New(rand.NewPCG(3, 4))
		rows := randLineaRows(r, 5, 64, 0)
		rows[3].Values[17][0] = koalaBearModulus + 5
		if _, err := c.Commit(rows, LineaOptions{}); err == nil {
			t.Fatal("a word not reduced was accepted")
		}
		rows[3].Values[17] = elt(5)
		s, err := c.Commit(rows, LineaOptions{})
		if err != nil {
			t.Fatalf("after a refusal: %v", err)
		}
		s.Release()
	})
}

// TestLineaEvict: Evict frees the buffers kept for later commitments but
// not those of a state still open, which opens as before; the next
// commitment allocates again and gives the same root.
func TestLineaEvict(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		p, err := NewLineaParams(2, 64, 40, 9, 16)
		if err != nil {
			t.Fatal(err)
		}
		c, err := NewLineaCommitter(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Release()
		r := rand.New(rand.NewPCG(8, 9))
		a, b := randLineaRows(r, 40, 64, 0), randLineaRows(r, 9, 64, 0)
		sa, err := c.Commit(a, LineaOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sa.Release() // its buffers go back to the committer's pool
		sb, err := c.Commit(b, LineaOptions{NoSIS: true})
		if err != nil {
			t.Fatal(err)
		}
		defer sb.Release()
		before := ctx.LiveBuffers()
		c.Evict(0)
		if after := ctx.LiveBuffers(); after >= before {
			t.Fatalf("Evict freed nothing: %d live buffers before, %d after", before, after)
		}
		if _, err := ProveLinea([]*LineaState{sb}, fext.E4{}, []int{3}); err != nil {
			t.Fatalf("an open state after Evict: %v", err)
		}
		sa2, err := c.Commit(a, LineaOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer sa2.Release()
		cpu, _ := NewLineaCommitter(nil, p)
		want, _ := cpu.Commit(a, LineaOptions{})
		if sa2.Root() != want.Root() {
			t.Fatal("the root after Evict differs")
		}
	})
}

// uploadedBytes is the bytes the trace has seen go up so far.
func uploadedBytes() int64 {
	for _, r := range trace.Rows() {
		if r.Phase == "upload" {
			return r.Bytes
		}
	}
	return 0
}

// TestLineaConstantsNotUploaded: a matrix of constant rows (distinct
// values, and one value repeated) sends a few bytes a row up, not the
// rows, and commits to Linea's root; mixed with rows of values, only
// those go up in full.
func TestLineaConstantsNotUploaded(t *testing.T) {
	ctx := gputest.Context(t, gputest.Backends()[0])
	const n, rows = 1 << 12, 24
	p, err := NewLineaParams(2, n, rows, 9, 16)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewLineaCommitter(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	cpu, _ := NewLineaCommitter(nil, p)
	r := rand.New(rand.NewPCG(21, 22))
	m := randLineaRows(r, rows, n, 1) // every row a constant
	m[5], m[6] = LineaConstant(elt(9)), LineaConstant(elt(9))
	wasOn := trace.On()
	trace.Enable(true)
	defer trace.Enable(wasOn)
	for _, mixed := range []bool{false, true} {
		if mixed {
			v := randLineaRows(r, 2, n, 0)
			m[3], m[17] = v[0], v[1]
		}
		before := uploadedBytes()
		s, err := c.Commit(m, LineaOptions{})
		if err != nil {
			t.Fatal(err)
		}
		up := uploadedBytes() - before
		want, _ := cpu.Commit(m, LineaOptions{})
		if s.Root() != want.Root() {
			t.Fatalf("mixed %v: the root differs from the CPU's", mixed)
		}
		s.Release()
		full := int64(0)
		if mixed {
			full = 2 * n * 4
		}
		// The rows of values, the constants' pairs and the small checks'
		// slots: far below one more row.
		if up < full || up >= full+n*4 {
			t.Fatalf("mixed %v: %d bytes went up; the rows of values are %d bytes", mixed, up, full)
		}
	}
}
