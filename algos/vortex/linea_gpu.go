package vortex

// The device path of Linea's Vortex: the Committer's pipeline (rows up
// once, encoded, hashed and built into a tree on the devices) over Params
// that select Linea's hashes, the state resident for the round's opening.

import (
	"fmt"

	"github.com/consensys/gnark-crypto/field/koalabear"
	fext "github.com/consensys/gnark-crypto/field/koalabear/extensions"

	"github.com/wgcompute/wgcompute/algos/sis"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// deviceParams returns the Params of a Committer that commits with p's
// code and SIS key and Linea's hashes.
func (p *LineaParams) deviceParams() (*Params, error) {
	key, err := sis.FromRSis(p.key)
	if err != nil {
		return nil, fmt.Errorf("vortex: linea: %w", err)
	}
	return &Params{key: key, logN: p.logN, logRate: p.logRate, maxRows: p.maxRows, linea: true}, nil
}

// onDevice reports whether p's commitments can run on a device: codewords
// of two columns or more, whose encoding the device's Extender runs.
func (p *LineaParams) onDevice() bool { return p.logN >= 1 }

// newLineaDevice returns the Committer of p's commitments on ctx.
func newLineaDevice(ctx *wgpu.Context, p *LineaParams) (*Committer, error) {
	dp, err := p.deviceParams()
	if err != nil {
		return nil, err
	}
	g, err := sched.NewGroup(ctx)
	if err != nil {
		return nil, fmt.Errorf("vortex: linea: %w", err)
	}
	return newCommitter(g, dp, true)
}

// commitDevice commits rows on c's device: the rows' shapes checked here,
// their values on the device as they arrive. A constant row goes to the
// pipeline as its one value, and the device writes the whole row (its
// codeword is that value): it is not uploaded in full.
func (c *LineaCommitter) commitDevice(rows []LineaRow, opts LineaOptions) (*LineaState, error) {
	p := c.p
	if err := p.checkCount(rows); err != nil {
		return nil, err
	}
	m := make([][]koalabear.Element, len(rows))
	var isConst []bool
	for i, r := range rows {
		if err := p.checkShape(i, r); err != nil {
			return nil, err
		}
		if !r.IsConstant() {
			m[i] = r.Values
			continue
		}
		if isConst == nil {
			isConst = make([]bool, len(rows))
		}
		m[i] = []koalabear.Element{r.Constant}
		isConst[i] = true
	}
	st, err := c.dev.commit(m, commitJob{Options: Options{Stages: opts.Stages, Context: opts.Context}, noSIS: opts.NoSIS, constant: isConst})
	if err != nil {
		return nil, lineaError(err)
	}
	s := &LineaState{p: p, sis: !opts.NoSIS, rows: len(rows), root: st.root, dev: st}
	if isConst != nil {
		s.consts = make([]koalabear.Element, len(rows))
		s.isConst = isConst
		for i, r := range rows {
			s.consts[i] = r.Constant
		}
	}
	return s, nil
}

// lineaError names Linea's scheme in an error of the shared pipeline.
func lineaError(err error) error { return fmt.Errorf("linea: %w", err) }

// deviceState returns s's device state, or an error where it was
// released.
func (s *LineaState) deviceState() (*ProverState, error) {
	if s.dev == nil {
		return nil, errLineaReleased
	}
	s.dev.mu.Lock()
	released := s.dev.dev == nil
	s.dev.mu.Unlock()
	if released {
		return nil, errLineaReleased
	}
	return s.dev, nil
}

// devTree reads the tree back, leaf level first.
func (s *LineaState) devTree() ([][]Hash, error) {
	st, err := s.deviceState()
	if err != nil {
		return nil, err
	}
	t, err := st.Tree()
	if err != nil {
		return nil, lineaError(err)
	}
	out := make([][]Hash, len(t.Levels))
	for l := range t.Levels {
		out[l] = append([]Hash(nil), t.Levels[len(t.Levels)-1-l]...)
	}
	return out, nil
}

// devColumnHashes reads the leaves back, the tree's last level alone.
func (s *LineaState) devColumnHashes() ([]Hash, error) {
	st, err := s.deviceState()
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.tree != nil {
		return append([]Hash(nil), st.tree.Levels[len(st.tree.Levels)-1]...), nil
	}
	if st.dev == nil {
		return nil, errLineaReleased
	}
	lv, err := st.dev.readLevel(st.dev.depth())
	if err != nil {
		return nil, lineaError(err)
	}
	return lv, nil
}

// devSISDigests reads the SIS digests back.
func (s *LineaState) devSISDigests() ([]koalabear.Element, error) {
	st, err := s.deviceState()
	if err != nil {
		return nil, err
	}
	d, err := st.HashedColumns()
	if err != nil {
		return nil, lineaError(err)
	}
	return d, nil
}

// devEncodedMatrix reads the codewords back, constant rows as constants.
func (s *LineaState) devEncodedMatrix() ([]LineaRow, error) {
	st, err := s.deviceState()
	if err != nil {
		return nil, err
	}
	flat, err := st.EncodedMatrix()
	if err != nil {
		return nil, lineaError(err)
	}
	m := s.p.CodewordSize()
	out := make([]LineaRow, s.rows)
	for i := range out {
		if s.isConst != nil && s.isConst[i] {
			out[i] = LineaConstant(s.consts[i])
			continue
		}
		out[i] = LineaValues(flat[i*m : (i+1)*m : (i+1)*m])
	}
	return out, nil
}

// devLinComb is LinComb on the device: sum_i alpha^i · codeword_i, its
// result alone read back.
func (s *LineaState) devLinComb(alpha fext.E4) ([]fext.E4, error) {
	st, err := s.deviceState()
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.dev == nil {
		return nil, errLineaReleased
	}
	defer wgpu.Span("vortex: linea: LinComb")(0)
	u, err := st.dev.linComb(alpha, s.p.CodewordSize())
	if err != nil {
		return nil, lineaError(err)
	}
	return u, nil
}

// devOpen gathers the columns cols and their Merkle proofs on the device
// and reads them back: columns [entry][row], proofs leaf level first.
func (s *LineaState) devOpen(cols []int, wantColumns, wantProofs bool) ([][]koalabear.Element, []LineaMerkleProof, error) {
	st, err := s.deviceState()
	if err != nil {
		return nil, nil, err
	}
	if err := s.p.checkEntries(cols); err != nil {
		return nil, nil, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.dev == nil {
		return nil, nil, errLineaReleased
	}
	o, err := st.dev.newOpening(cols)
	defer o.release()
	if err != nil {
		return nil, nil, lineaError(err)
	}
	var columns [][]koalabear.Element
	if wantColumns {
		end := wgpu.Span("vortex: linea: columns")
		columns, err = st.dev.columns(o)
		end(0)
		if err != nil {
			return nil, nil, lineaError(err)
		}
	}
	var proofs []LineaMerkleProof
	if wantProofs {
		end := wgpu.Span("vortex: linea: Merkle proofs")
		paths, err := st.dev.paths(o)
		end(0)
		if err != nil {
			return nil, nil, lineaError(err)
		}
		proofs = make([]LineaMerkleProof, len(cols))
		for k, j := range cols {
			proofs[k] = LineaMerkleProof{Path: j, Siblings: []Hash(paths[k])}
		}
	}
	return columns, proofs, nil
}
