package vortex

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/field/koalabear"
	fext "github.com/consensys/gnark-crypto/field/koalabear/extensions"
	"github.com/consensys/gnark-crypto/field/koalabear/fft"
	gvortex "github.com/consensys/gnark-crypto/field/koalabear/vortex"

	"github.com/wgcompute/wgcompute/internal/base/par"
)

// LineaMerkleProof is a leaf's Merkle proof in Linea's form
// (smt_koalabear.Proof): the leaf's position and its siblings, leaf level
// first.
type LineaMerkleProof struct {
	// Path is the leaf's position (smt_koalabear.Proof.Path).
	Path int
	// Siblings are the nodes beside the path, from the leaves' level up.
	Siblings []Hash
}

// LineaProof is the opening of a round's commitments: Linea's
// vortex.OpeningProof with the [][]smt_koalabear.Proof that
// vortex_koalabear.Prove returns beside it.
type LineaProof struct {
	// LinComb is the linear combination of every row of every matrix, in
	// order, with the powers of alpha: a whole codeword
	// (OpeningProof.LinearCombination).
	LinComb []fext.E4
	// Columns are the opened columns, [matrix][entry][row]
	// (OpeningProof.Columns).
	Columns [][][]koalabear.Element
	// MerkleProofs are the opened leaves' proofs, [matrix][entry].
	MerkleProofs [][]LineaMerkleProof
}

// ProveLinea opens a round's commitments (states, in their order: of
// one codeword length, each with SIS or without) at the columns entries:
// one linear
// combination of all their rows with the powers of alpha, then each
// matrix's selected columns and their Merkle proofs. It replaces Linea's
// vortex_koalabear.Prove(entries, encodedMatrices, trees, alpha), whose
// panics are errors here.
func ProveLinea(states []*LineaState, alpha fext.E4, entries []int) (*LineaProof, error) {
	if len(states) == 0 {
		return nil, errors.New("vortex: linea: no commitments to open")
	}
	for i, s := range states {
		if s == nil {
			return nil, fmt.Errorf("vortex: linea: state %d is nil", i)
		}
		if s.p.n != states[0].p.n || s.p.rate != states[0].p.rate {
			return nil, fmt.Errorf("vortex: linea: state %d has codewords of %d×%d, state 0 of %d×%d: a round's commitments share one shape",
				i, s.p.n, s.p.rate, states[0].p.n, states[0].p.rate)
		}
	}
	if err := states[0].p.checkEntries(entries); err != nil {
		return nil, err
	}
	proof := &LineaProof{
		Columns:      make([][][]koalabear.Element, len(states)),
		MerkleProofs: make([][]LineaMerkleProof, len(states)),
	}
	// The shares of the states, each from alpha^0, are shifted to the
	// power of alpha their first row has in the round.
	var shift fext.E4
	shift.SetOne()
	for i, s := range states {
		lc, err := s.LinComb(alpha)
		if err != nil {
			return nil, fmt.Errorf("vortex: linea: state %d: %w", i, err)
		}
		if i == 0 {
			proof.LinComb = lc
		} else {
			sh := shift
			par.For(len(lc), 1<<12, func(lo, hi int) {
				for j := lo; j < hi; j++ {
					lc[j].Mul(&lc[j], &sh)
					proof.LinComb[j].Add(&proof.LinComb[j], &lc[j])
				}
			})
		}
		for range s.rows {
			shift.Mul(&shift, &alpha)
		}
		if s.dev != nil {
			// One gathering on the device for the columns and their paths.
			proof.Columns[i], proof.MerkleProofs[i], err = s.devOpen(entries, true, true)
			if err != nil {
				return nil, fmt.Errorf("vortex: linea: state %d: %w", i, err)
			}
			continue
		}
		if proof.Columns[i], err = s.ExtractColumns(entries); err != nil {
			return nil, fmt.Errorf("vortex: linea: state %d: %w", i, err)
		}
		if proof.MerkleProofs[i], err = s.MerkleProofs(entries); err != nil {
			return nil, fmt.Errorf("vortex: linea: state %d: %w", i, err)
		}
	}
	return proof, nil
}

// VerifyLinea checks proof, the opening at entries of the commitments
// roots (committed with SIS where withSIS says so; nil: all with SIS), for
// the statement that row k of matrix i, a polynomial in Lagrange basis
// over the NumColumns-th roots of unity, is ys[i][k] at x: Linea's
// vortex_koalabear.Verify(p, proof, &VerifierInput{alpha, x, ys, entries},
// roots, merkleProofs, withSIS). As Linea's, it checks that the linear
// combination is a codeword, that it agrees with the opened columns at
// entries, that its value at x is the ys' combination with alpha's
// powers, and that each opened column hashes (with SIS or without) to a
// leaf whose proof leads to its root. It also checks what Linea's leaves
// to the caller: every size, and that each Merkle proof's path is its
// entry.
func VerifyLinea(p *LineaParams, proof *LineaProof, x fext.E4, ys [][]fext.E4, alpha fext.E4, entries []int, roots []Hash, withSIS []bool) error {
	if p == nil || proof == nil {
		return errors.New("vortex: linea: nil parameters or proof")
	}
	nm := len(roots)
	if withSIS == nil {
		withSIS = make([]bool, nm)
		for i := range withSIS {
			withSIS[i] = true
		}
	}
	if nm == 0 {
		return errors.New("vortex: linea: no commitments")
	}
	if len(withSIS) != nm || len(ys) != nm || len(proof.Columns) != nm || len(proof.MerkleProofs) != nm {
		return fmt.Errorf("vortex: linea: %d roots, %d SIS flags, %d ys, %d opened matrices, %d matrices of Merkle proofs: want one each per commitment",
			nm, len(withSIS), len(ys), len(proof.Columns), len(proof.MerkleProofs))
	}
	if err := p.checkEntries(entries); err != nil {
		return err
	}
	m := p.CodewordSize()
	if len(proof.LinComb) != m {
		return fmt.Errorf("vortex: linea: a linear combination of %d values: codewords have %d", len(proof.LinComb), m)
	}
	for i := range nm {
		rows := len(ys[i])
		if rows < 1 || rows > p.maxRows {
			return fmt.Errorf("vortex: linea: matrix %d has %d ys: accepted are 1 to %d (a row each)", i, rows, p.maxRows)
		}
		if len(proof.Columns[i]) != len(entries) || len(proof.MerkleProofs[i]) != len(entries) {
			return fmt.Errorf("vortex: linea: matrix %d: %d columns and %d Merkle proofs for %d entries", i, len(proof.Columns[i]), len(proof.MerkleProofs[i]), len(entries))
		}
		for j := range entries {
			if len(proof.Columns[i][j]) != rows {
				return fmt.Errorf("vortex: linea: matrix %d, entry %d: a column of %d elements for %d rows", i, j, len(proof.Columns[i][j]), rows)
			}
			mp := proof.MerkleProofs[i][j]
			if len(mp.Siblings) != p.depth() {
				return fmt.Errorf("vortex: linea: matrix %d, entry %d: %d siblings for a tree of depth %d", i, j, len(mp.Siblings), p.depth())
			}
			if mp.Path != entries[j] {
				return fmt.Errorf("vortex: linea: matrix %d, entry %d: the Merkle proof is of leaf %d, not of column %d", i, j, mp.Path, entries[j])
			}
		}
	}

	// vortex.CheckIsCodeWord
	if err := p.checkCodeword(proof.LinComb); err != nil {
		return err
	}
	// vortex.CheckLinComb
	var full []koalabear.Element
	for j, e := range entries {
		full = full[:0]
		for i := range nm {
			full = append(full, proof.Columns[i][j]...)
		}
		y := gvortex.EvalBasePolyHorner(full, alpha)
		if !y.Equal(&proof.LinComb[e]) {
			return fmt.Errorf("vortex: linea: the linear combination is inconsistent with the opened columns at column %d", e)
		}
	}
	// vortex.CheckStatement
	var joined []fext.E4
	for i := range ys {
		joined = append(joined, ys[i]...)
	}
	got, err := gvortex.EvalFextPolyLagrange(proof.LinComb, x)
	if err != nil {
		return fmt.Errorf("vortex: linea: %w", err)
	}
	want := gvortex.EvalFextPolyHorner(joined, alpha)
	if !got.Equal(&want) {
		return errors.New("vortex: linea: the linear combination and the ys are inconsistent")
	}
	// vortex_koalabear.CheckColumnInclusion
	digest := make([]koalabear.Element, p.key.Degree)
	for i := range nm {
		for j := range entries {
			var leaf Hash
			if withSIS[i] {
				if err := p.key.Hash(proof.Columns[i][j], digest); err != nil {
					return fmt.Errorf("vortex: linea: %w", err)
				}
				leaf = lineaMD(Hash{}, digest)
			} else {
				leaf = lineaMD(Hash{}, proof.Columns[i][j])
			}
			mp := proof.MerkleProofs[i][j]
			idx := mp.Path
			for _, sib := range mp.Siblings {
				if idx&1 == 1 {
					leaf = lineaNode(sib, leaf)
				} else {
					leaf = lineaNode(leaf, sib)
				}
				idx >>= 1
			}
			if leaf != roots[i] {
				return fmt.Errorf("vortex: linea: matrix %d, column %d: the Merkle proof does not lead to the root", i, entries[j])
			}
		}
	}
	return nil
}

// checkCodeword returns nil when v (CodewordSize values) is a codeword:
// its polynomial over the codewords' domain has degree below NumColumns
// (Linea's RsParams.IsCodewordExt).
func (p *LineaParams) checkCodeword(v []fext.E4) error {
	if p.n == 1 {
		for i := range v {
			if !v[i].Equal(&v[0]) {
				return errors.New("vortex: linea: the linear combination is not a Reed-Solomon codeword")
			}
		}
		return nil
	}
	c := append([]fext.E4(nil), v...)
	p.large.FFTInverseExt(c, fft.DIF)
	fft.BitReverse(c)
	for i := p.n; i < len(c); i++ {
		if !c[i].IsZero() {
			return errors.New("vortex: linea: the linear combination is not a Reed-Solomon codeword")
		}
	}
	return nil
}
