package vortex

import (
	"fmt"

	"github.com/consensys/gnark-crypto/field/koalabear"
	fext "github.com/consensys/gnark-crypto/field/koalabear/extensions"
	gvortex "github.com/consensys/gnark-crypto/field/koalabear/vortex"

	"github.com/wgcompute/wgcompute/wgpu"
)

// OpenLinComb computes UAlpha, the linear combination sum_i alpha^i ·
// codeword_i of the encoded rows (gnark-crypto's
// ProverState.OpenLinComb), keeps it for OpenColumns' proof and returns
// it: on the device, from the codewords kept there (vortex_lincomb.wgsl),
// UAlpha alone read back; for a nil Context gnark-crypto's own.
func (s *ProverState) OpenLinComb(alpha fext.E4) ([]fext.E4, error) {
	if s.cpu != nil {
		s.cpu.OpenLinComb(alpha)
		return s.cpu.Ualpha, nil
	}
	if s.dev == nil {
		return nil, errReleased
	}
	defer wgpu.Span("vortex: OpenLinComb")(0)
	u, err := s.dev.linComb(alpha, s.p.SizeCodeWord())
	if err != nil {
		return nil, err
	}
	s.ualpha = u
	return u, nil
}

// linComb is OpenLinComb on the device: the powers of alpha uploaded, each
// tile's columns combined into their places of one buffer (at offsets
// that planLayout keeps aligned), read back.
func (r *resident) linComb(alpha fext.E4, m int) ([]fext.E4, error) {
	pows := make([]fext.E4, r.rows)
	pows[0].SetOne()
	for i := 1; i < len(pows); i++ {
		pows[i].Mul(&pows[i-1], &alpha)
	}
	k, err := kernel(r.ctx, "vortex_lincomb.wgsl", "vortex_lincomb", 3)
	if err != nil {
		return nil, err
	}
	pb, err := r.ctx.NewBuffer("vortex powers of alpha", uint64(16*len(pows)))
	if err != nil {
		return nil, fmt.Errorf("vortex: %w", err)
	}
	defer pb.Release()
	out, err := r.ctx.NewBuffer("vortex ualpha", uint64(16*m))
	if err != nil {
		return nil, fmt.Errorf("vortex: %w", err)
	}
	defer out.Release()
	if err := r.ctx.Upload(pb, 0, wgpu.Bytes(pows)); err != nil {
		return nil, fmt.Errorf("vortex: upload the powers of alpha: %w", err)
	}
	var ds []wgpu.Dispatch
	for t, tile := range r.tiles {
		o := wgpu.Binding{Buffer: out, Offset: uint64(t) * uint64(r.w) * 16, Size: uint64(r.w) * 16}
		ds = append(ds, wgpu.Dispatch{Kernel: k, Bindings: []wgpu.Binding{wgpu.Bind(tile), o, wgpu.Bind(pb)},
			Params: []uint32{uint32(r.rows), uint32(r.w)},
			Groups: r.ctx.Grid(uint64(r.w), 256)})
	}
	if _, err := r.ctx.Run(ds...); err != nil {
		return nil, fmt.Errorf("vortex: linear combination: %w", err)
	}
	u := make([]fext.E4, m)
	if err := r.ctx.Download(wgpu.Bytes(u), out, 0); err != nil {
		return nil, fmt.Errorf("vortex: read UAlpha back: %w", err)
	}
	return u, nil
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
	if len(selected) == 0 {
		return &gvortex.Proof{UAlpha: s.ualpha, OpenedColumns: [][]koalabear.Element{}, MerkleProofOpenedColumns: []gvortex.MerkleProof{}}, nil
	}
	// The selection goes up once, for the columns and their paths.
	sel := make([]uint32, len(selected))
	for i, c := range selected {
		sel[i] = uint32(c)
	}
	sb, err := s.dev.ctx.NewBuffer("vortex selected columns", uint64(4*len(sel)))
	if err != nil {
		return nil, fmt.Errorf("vortex: %w", err)
	}
	defer sb.Release()
	if err := s.dev.ctx.Upload(sb, 0, wgpu.Bytes(sel)); err != nil {
		return nil, fmt.Errorf("vortex: upload the selected columns: %w", err)
	}
	endCols := wgpu.Span("vortex: OpenColumns: columns")
	cols, err := s.dev.columns(sb, len(selected))
	endCols(0)
	if err != nil {
		return nil, err
	}
	defer wgpu.Span("vortex: OpenColumns: paths")(0)
	paths, err := s.dev.paths(sb, len(selected))
	if err != nil {
		return nil, err
	}
	return &gvortex.Proof{UAlpha: s.ualpha, OpenedColumns: cols, MerkleProofOpenedColumns: paths}, nil
}

// columns gathers the selected columns of the codewords into one buffer
// on the device (vortex_columns.wgsl, a dispatch a tile) and reads them
// back: sb holds the count selected columns' indices (u32s).
func (r *resident) columns(sb *wgpu.Buffer, count int) ([][]koalabear.Element, error) {
	k, err := kernel(r.ctx, "vortex_columns.wgsl", "vortex_columns", 3)
	if err != nil {
		return nil, err
	}
	all := make([]koalabear.Element, count*r.rows)
	// A piece of columns at a time within a binding.
	per := max(1, min(count, int(bindLimit(r.ctx)/(4*uint64(r.rows)))))
	buf, err := r.ctx.NewBuffer("vortex opened columns", uint64(per)*uint64(r.rows)*4)
	if err != nil {
		return nil, fmt.Errorf("vortex: %w", err)
	}
	defer buf.Release()
	for lo := 0; lo < count; lo += per {
		hi := min(lo+per, count)
		var ds []wgpu.Dispatch
		for t, tile := range r.tiles {
			ds = append(ds, wgpu.Dispatch{Kernel: k, Bindings: []wgpu.Binding{wgpu.Bind(tile), wgpu.Bind(buf), wgpu.Bind(sb)},
				Params: []uint32{uint32(hi - lo), uint32(r.rows), uint32(r.w), uint32(t * r.w), uint32(lo)},
				Groups: r.ctx.Grid(uint64(hi-lo)*uint64(r.rows), 256)})
		}
		if _, err := r.ctx.Run(ds...); err != nil {
			return nil, fmt.Errorf("vortex: gather columns: %w", err)
		}
		if err := r.ctx.Download(wgpu.Bytes(words(all[lo*r.rows:hi*r.rows])), buf, 0); err != nil {
			return nil, fmt.Errorf("vortex: read columns back: %w", err)
		}
	}
	cols := make([][]koalabear.Element, count)
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
