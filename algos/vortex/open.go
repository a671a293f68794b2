package vortex

import (
	"fmt"
	"slices"

	"github.com/consensys/gnark-crypto/field/koalabear"
	fext "github.com/consensys/gnark-crypto/field/koalabear/extensions"
	gvortex "github.com/consensys/gnark-crypto/field/koalabear/vortex"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/wgpu"
)

// OpenLinComb computes UAlpha, the linear combination sum_i alpha^i ·
// codeword_i of the encoded rows (gnark-crypto's
// ProverState.OpenLinComb), keeps it for OpenColumns' proof and returns
// it: on the device, from the codewords kept there (vortex_lincomb.wgsl),
// UAlpha alone read back; for a nil Context gnark-crypto's own.
func (s *ProverState) OpenLinComb(alpha fext.E4) ([]fext.E4, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
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

// linComb is OpenLinComb on the devices: the powers of alpha uploaded to
// each, each tile's columns combined into their places of one buffer (at
// offsets that planLayout keeps aligned), read back into the share's
// place. Both buffers come from the member's pool.
func (r *resident) linComb(alpha fext.E4, m int) ([]fext.E4, error) {
	pows := make([]fext.E4, r.rows)
	pows[0].SetOne()
	for i := 1; i < len(pows); i++ {
		pows[i].Mul(&pows[i-1], &alpha)
	}
	u := make([]fext.E4, m)
	err := r.each(func(_ int, pt *part) error {
		ctx := pt.d.ctx
		k, err := kernel(ctx, "vortex_lincomb.wgsl", "vortex_lincomb", 3)
		if err != nil {
			return err
		}
		// From the member's pool, so that a prover opening round after
		// round allocates nothing: both are written whole below.
		pb, err := pt.d.get("vortex powers of alpha", uint64(16*len(pows)))
		if err != nil {
			return err
		}
		defer pt.d.put(pb)
		span := pt.span()
		out, err := pt.d.get("vortex ualpha", uint64(16*span))
		if err != nil {
			return err
		}
		defer pt.d.put(out)
		if err := ctx.Upload(pb, 0, wgpu.Bytes(pows)); err != nil {
			return fmt.Errorf("vortex: upload the powers of alpha: %w", err)
		}
		var ds []wgpu.Dispatch
		for t, tile := range pt.tiles {
			o := wgpu.Binding{Buffer: out, Offset: uint64(t) * uint64(pt.w) * 16, Size: uint64(pt.w) * 16}
			ds = append(ds, wgpu.Dispatch{Kernel: k, Bindings: []wgpu.Binding{wgpu.Bind(tile), o, wgpu.Bind(pb)},
				Params: []uint32{uint32(r.rows), uint32(pt.w)},
				Groups: ctx.Grid(uint64(pt.w), 256)})
		}
		if _, err := ctx.Run(ds...); err != nil {
			return fmt.Errorf("vortex: linear combination: %w", err)
		}
		if err := ctx.Download(wgpu.Bytes(u[pt.lo:pt.lo+span]), out, 0); err != nil {
			return fmt.Errorf("vortex: read UAlpha back: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// each runs fn for every part (its index and itself), each on its own
// goroutine (Group.Split over the parts' devices), and returns their
// errors joined, each naming its device.
func (r *resident) each(fn func(i int, pt *part) error) error {
	return r.g.Split(len(r.parts), 1, func(i int, _ *wgpu.Context, _, _ int) error { return fn(i, r.parts[i]) })
}

// OpenColumns returns the proof of an opening at the selected columns of
// the codewords: UAlpha, the columns, read from the device, and their
// Merkle proofs, as gnark-crypto's ProverState.OpenColumns makes it.
// UAlpha is the last OpenLinComb's: before any, OpenColumns returns
// ErrNoLinComb (where gnark-crypto's returns a proof without UAlpha,
// which its Verify refuses). A column not below SizeCodeWord is refused,
// naming it.
func (s *ProverState) OpenColumns(selected []int) (*gvortex.Proof, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.p.SizeCodeWord()
	for i, c := range selected {
		if c < 0 || c >= m {
			return nil, fmt.Errorf("vortex: selected column %d is %d: the codewords have columns 0 to %d", i, c, m-1)
		}
	}
	if s.cpu != nil {
		if s.cpu.Ualpha == nil {
			return nil, ErrNoLinComb
		}
		pr, err := s.cpu.OpenColumns(selected)
		if err != nil {
			return nil, fmt.Errorf("vortex: %w", err)
		}
		return pr, nil
	}
	if s.dev == nil {
		return nil, errReleased
	}
	if s.ualpha == nil {
		return nil, ErrNoLinComb
	}
	if len(selected) == 0 {
		return &gvortex.Proof{UAlpha: s.ualpha, OpenedColumns: [][]koalabear.Element{}, MerkleProofOpenedColumns: []gvortex.MerkleProof{}}, nil
	}
	o, err := s.dev.newOpening(selected)
	defer o.release()
	if err != nil {
		return nil, err
	}
	endCols := wgpu.Span("vortex: OpenColumns: columns")
	cols, err := s.dev.columns(o)
	endCols(0)
	if err != nil {
		return nil, err
	}
	defer wgpu.Span("vortex: OpenColumns: paths")(0)
	paths, err := s.dev.paths(o)
	if err != nil {
		return nil, err
	}
	return &gvortex.Proof{UAlpha: s.ualpha, OpenedColumns: cols, MerkleProofOpenedColumns: paths}, nil
}

// opening is an OpenColumns call's selection: the selected columns, the
// part that holds each, and the selection's buffer on the device of each
// part that holds one and of the first (the top of the tree's).
type opening struct {
	sel    []uint32
	owner  []int
	mine   [][]int // by part: the indices into sel of the columns it holds
	shared []*wgpu.Buffer
	// from is the member of each part, whose pool the buffers go back to.
	from []*member
}

// newOpening uploads the selection to the devices that need it.
func (r *resident) newOpening(selected []int) (*opening, error) {
	o := &opening{sel: make([]uint32, len(selected)), owner: make([]int, len(selected)), mine: make([][]int, len(r.parts)), shared: make([]*wgpu.Buffer, len(r.parts)), from: make([]*member, len(r.parts))}
	for j, c := range selected {
		o.sel[j] = uint32(c)
		i := len(r.parts) - 1
		for r.parts[i].lo > c {
			i--
		}
		o.owner[j] = i
		o.mine[i] = append(o.mine[i], j)
	}
	err := r.each(func(i int, pt *part) error {
		if len(o.mine[i]) == 0 && i > 0 {
			return nil
		}
		sb, err := pt.d.get("vortex selected columns", uint64(4*len(o.sel)))
		if err != nil {
			return err
		}
		o.shared[i], o.from[i] = sb, pt.d
		if err := pt.d.ctx.Upload(sb, 0, wgpu.Bytes(o.sel)); err != nil {
			return fmt.Errorf("vortex: upload the selected columns: %w", err)
		}
		return nil
	})
	return o, err
}

// release gives the selection's buffers back to their members.
func (o *opening) release() {
	for i, b := range o.shared {
		if b != nil {
			o.from[i].put(b)
		}
	}
}

// columns gathers the selected columns of the codewords on the devices
// of the parts that hold them, into one buffer a device
// (vortex_columns.wgsl, a dispatch a tile), and reads them back.
func (r *resident) columns(o *opening) ([][]koalabear.Element, error) {
	count := len(o.sel)
	all := make([]koalabear.Element, count*r.rows)
	err := r.each(func(i int, pt *part) error {
		mine := o.mine[i]
		if len(mine) == 0 {
			return nil
		}
		ctx := pt.d.ctx
		k, err := kernel(ctx, "vortex_columns.wgsl", "vortex_columns", 3)
		if err != nil {
			return err
		}
		// A piece of columns at a time within a binding; a piece of the
		// selection that this part holds nothing of is skipped.
		per := max(1, min(count, int(ctx.Limits().Binding()/(4*uint64(r.rows)))))
		buf, err := pt.d.get("vortex opened columns", uint64(per)*uint64(r.rows)*4)
		if err != nil {
			return err
		}
		defer pt.d.put(buf)
		piece := make([]koalabear.Element, per*r.rows)
		for lo := 0; lo < count; lo += per {
			hi := min(lo+per, count)
			a, _ := slices.BinarySearch(mine, lo)
			b, _ := slices.BinarySearch(mine, hi)
			if a == b {
				continue
			}
			var ds []wgpu.Dispatch
			for t, tile := range pt.tiles {
				ds = append(ds, wgpu.Dispatch{Kernel: k, Bindings: []wgpu.Binding{wgpu.Bind(tile), wgpu.Bind(buf), wgpu.Bind(o.shared[i])},
					Params: []uint32{uint32(hi - lo), uint32(r.rows), uint32(pt.w), uint32(pt.lo + t*pt.w), uint32(lo)},
					Groups: ctx.Grid(uint64(hi-lo)*uint64(r.rows), 256)})
			}
			if _, err := ctx.Run(ds...); err != nil {
				return fmt.Errorf("vortex: gather columns: %w", err)
			}
			if len(r.parts) == 1 {
				// Every column is this part's: straight into place.
				if err := ctx.Download(wgpu.Bytes(field.MontyWords(all[lo*r.rows:hi*r.rows])), buf, 0); err != nil {
					return fmt.Errorf("vortex: read columns back: %w", err)
				}
				continue
			}
			if err := ctx.Download(wgpu.Bytes(field.MontyWords(piece[:(hi-lo)*r.rows])), buf, 0); err != nil {
				return fmt.Errorf("vortex: read columns back: %w", err)
			}
			for _, j := range mine[a:b] {
				copy(all[j*r.rows:(j+1)*r.rows], piece[(j-lo)*r.rows:(j-lo+1)*r.rows])
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
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
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hashedColumns()
}

// hashedColumns is HashedColumns, s.mu held.
func (s *ProverState) hashedColumns() ([]koalabear.Element, error) {
	if s.cpu != nil {
		return s.cpu.HashedColumns, nil
	}
	if s.dev == nil {
		return nil, errReleased
	}
	d := s.p.Degree()
	out := make([]koalabear.Element, s.p.SizeCodeWord()*d)
	for _, pt := range s.dev.parts {
		for t, b := range pt.digests {
			c := pt.lo + t*pt.w
			if err := pt.d.ctx.Download(wgpu.Bytes(field.MontyWords(out[c*d:(c+pt.w)*d])), b, 0); err != nil {
				return nil, fmt.Errorf("vortex: read digests back: %w", err)
			}
		}
	}
	return out, nil
}

// EncodedMatrix returns the codewords, row after row (gnark-crypto's
// ProverState.EncodedMatrix), read back from the device.
func (s *ProverState) EncodedMatrix() ([]koalabear.Element, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.encodedMatrix()
}

// encodedMatrix is EncodedMatrix, s.mu held.
func (s *ProverState) encodedMatrix() ([]koalabear.Element, error) {
	if s.cpu != nil {
		return s.cpu.EncodedMatrix, nil
	}
	if s.dev == nil {
		return nil, errReleased
	}
	r := s.dev
	m := s.p.SizeCodeWord()
	out := make([]koalabear.Element, r.rows*m)
	for _, pt := range r.parts {
		tile := make([]koalabear.Element, r.rows*pt.w)
		for t, b := range pt.tiles {
			if err := pt.d.ctx.Download(wgpu.Bytes(field.MontyWords(tile)), b, 0); err != nil {
				return nil, fmt.Errorf("vortex: read codewords back: %w", err)
			}
			c := pt.lo + t*pt.w
			for i := range r.rows {
				copy(out[i*m+c:i*m+c+pt.w], tile[i*pt.w:(i+1)*pt.w])
			}
		}
	}
	return out, nil
}
