package vortex

import (
	"fmt"
	"sync"

	"github.com/consensys/gnark-crypto/field/koalabear"
	fext "github.com/consensys/gnark-crypto/field/koalabear/extensions"
	gvortex "github.com/consensys/gnark-crypto/field/koalabear/vortex"

	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
)

// OpenLinComb computes UAlpha, the linear combination sum_i alpha^i ·
// codeword_i of the encoded rows (gnark-crypto's
// ProverState.OpenLinComb), keeps it for OpenColumns' proof and returns
// it.
//
// On the CPU, from the caller's rows rather than the codewords: encoding
// is linear, so UAlpha is the encoding of sum_i alpha^i · row_i (each of
// the extension's four coordinates a row of the base field), half the
// products (a quarter at rate 4) and no read-back of the codewords, with
// the same bits as gnark-crypto's. For a nil Context gnark-crypto's own
// runs.
func (s *ProverState) OpenLinComb(alpha fext.E4) ([]fext.E4, error) {
	if s.cpu != nil {
		s.cpu.OpenLinComb(alpha)
		return s.cpu.Ualpha, nil
	}
	if s.dev == nil {
		return nil, errReleased
	}
	n, m := s.p.NumColumns(), s.p.SizeCodeWord()
	// comb = sum_i alpha^i row_i, as gnark-crypto sums it (MulAccByElement
	// over ranges of rows, the ranges' sums added).
	comb := make(fext.Vector, n)
	var mu sync.Mutex
	par.For(len(s.rows), 16, func(lo, hi int) {
		acc := make(fext.Vector, n)
		var pw fext.E4
		pw.SetOne()
		for range lo {
			pw.Mul(&pw, &alpha)
		}
		for i := lo; i < hi; i++ {
			acc.MulAccByElement(s.rows[i], &pw)
			pw.Mul(&pw, &alpha)
		}
		mu.Lock()
		for j := range comb {
			comb[j].Add(&comb[j], &acc[j])
		}
		mu.Unlock()
	})
	var coords [4][]koalabear.Element
	for k := range coords {
		coords[k] = make([]koalabear.Element, m)
		row := make([]koalabear.Element, n)
		for j := range row {
			row[j] = coord(&comb[j], k)
		}
		s.p.g.EncodeReedSolomon(row, coords[k])
	}
	u := make([]fext.E4, m)
	for j := range u {
		u[j].B0.A0, u[j].B0.A1, u[j].B1.A0, u[j].B1.A1 = coords[0][j], coords[1][j], coords[2][j], coords[3][j]
	}
	s.ualpha = u
	return u, nil
}

// coord returns coordinate k of e: B0.A0, B0.A1, B1.A0, B1.A1.
func coord(e *fext.E4, k int) koalabear.Element {
	switch k {
	case 0:
		return e.B0.A0
	case 1:
		return e.B0.A1
	case 2:
		return e.B1.A0
	}
	return e.B1.A1
}

// OpenColumns returns the proof of an opening at the selected columns of
// the codewords: UAlpha (OpenLinComb must have run), the columns, read
// from the device, and their Merkle proofs, as gnark-crypto's
// ProverState.OpenColumns makes it. A column not below SizeCodeWord is
// refused, naming it.
func (s *ProverState) OpenColumns(selected []int) (*gvortex.Proof, error) {
	m := s.p.SizeCodeWord()
	for i, c := range selected {
		if c < 0 || c >= m {
			return nil, fmt.Errorf("vortex: selected column %d is %d: the codewords have columns 0 to %d", i, c, m-1)
		}
	}
	if s.cpu != nil {
		pr, err := s.cpu.OpenColumns(selected)
		if err != nil {
			return nil, fmt.Errorf("vortex: %w", err)
		}
		return pr, nil
	}
	if s.dev == nil {
		return nil, errReleased
	}
	cols, err := s.dev.columns(selected)
	if err != nil {
		return nil, err
	}
	pr := &gvortex.Proof{UAlpha: s.ualpha, OpenedColumns: cols, MerkleProofOpenedColumns: make([]gvortex.MerkleProof, len(selected))}
	for i, c := range selected {
		if pr.MerkleProofOpenedColumns[i], err = s.tree.Open(c); err != nil {
			return nil, fmt.Errorf("vortex: Merkle proof of column %d: %w", c, err)
		}
	}
	return pr, nil
}

// columns gathers the selected columns of the codewords into one buffer
// on the device and reads them back.
func (r *resident) columns(selected []int) ([][]koalabear.Element, error) {
	if len(selected) == 0 {
		return [][]koalabear.Element{}, nil
	}
	all := make([]koalabear.Element, len(selected)*r.rows)
	// A piece of columns at a time within a binding.
	per := max(1, min(len(selected), int(bindLimit(r.ctx)/(4*uint64(r.rows)))))
	buf, err := r.ctx.NewBuffer("vortex opened columns", uint64(per)*uint64(r.rows)*4)
	if err != nil {
		return nil, fmt.Errorf("vortex: %w", err)
	}
	defer buf.Release()
	for lo := 0; lo < len(selected); lo += per {
		hi := min(lo+per, len(selected))
		var ds []wgpu.Dispatch
		for i, c := range selected[lo:hi] {
			t, j := c/r.w, c%r.w
			ds = append(ds, copyDispatch(r.ctx, r.copyKern, wgpu.Bind(r.tiles[t]), wgpu.Bind(buf), r.rows, 1, j, r.w, i*r.rows, 1, false))
		}
		if _, err := r.ctx.Run(ds...); err != nil {
			return nil, fmt.Errorf("vortex: gather columns: %w", err)
		}
		if err := r.ctx.Download(wgpu.Bytes(words(all[lo*r.rows:hi*r.rows])), buf, 0); err != nil {
			return nil, fmt.Errorf("vortex: read columns back: %w", err)
		}
	}
	cols := make([][]koalabear.Element, len(selected))
	for i := range cols {
		cols[i] = all[i*r.rows : (i+1)*r.rows : (i+1)*r.rows]
	}
	return cols, nil
}

// HashedColumns returns the SIS digests of the codewords' columns, Degree
// elements a column one after another (gnark-crypto's
// ProverState.HashedColumns), read back from the device.
func (s *ProverState) HashedColumns() ([]koalabear.Element, error) {
	if s.cpu != nil {
		return s.cpu.HashedColumns, nil
	}
	if s.dev == nil {
		return nil, errReleased
	}
	d := s.p.Degree()
	out := make([]koalabear.Element, s.p.SizeCodeWord()*d)
	for t, b := range s.dev.digests {
		if err := s.dev.ctx.Download(wgpu.Bytes(words(out[t*s.dev.w*d:(t+1)*s.dev.w*d])), b, 0); err != nil {
			return nil, fmt.Errorf("vortex: read digests back: %w", err)
		}
	}
	return out, nil
}

// EncodedMatrix returns the codewords, row after row (gnark-crypto's
// ProverState.EncodedMatrix), read back from the device.
func (s *ProverState) EncodedMatrix() ([]koalabear.Element, error) {
	if s.cpu != nil {
		return s.cpu.EncodedMatrix, nil
	}
	if s.dev == nil {
		return nil, errReleased
	}
	r := s.dev
	m := s.p.SizeCodeWord()
	out := make([]koalabear.Element, r.rows*m)
	tile := make([]koalabear.Element, r.rows*r.w)
	for t, b := range r.tiles {
		if err := r.ctx.Download(wgpu.Bytes(words(tile)), b, 0); err != nil {
			return nil, fmt.Errorf("vortex: read codewords back: %w", err)
		}
		for i := range r.rows {
			copy(out[i*m+t*r.w:i*m+(t+1)*r.w], tile[i*r.w:(i+1)*r.w])
		}
	}
	return out, nil
}
