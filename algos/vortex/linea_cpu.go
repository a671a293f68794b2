package vortex

// The CPU path of Linea's Vortex, with gnark-crypto: the reference every
// device path is tested against (and tested itself against the vectors
// Linea's code wrote, testdata/linea).

import (
	"github.com/consensys/gnark-crypto/field/koalabear"
	"github.com/consensys/gnark-crypto/field/koalabear/fft"
	gvortex "github.com/consensys/gnark-crypto/field/koalabear/vortex"

	"github.com/wgcompute/wgcompute/internal/base/par"
)

// lineaMD is Linea's Merkle-Damgard hash (poseidon2_koalabear.MDHasher)
// of elems from state: blocks of 8 through the Poseidon2 compression, the
// last partial block zero-padded at its front. An empty input leaves the
// state as it is.
func lineaMD(state Hash, elems []koalabear.Element) Hash {
	for len(elems) >= 8 {
		state = gvortex.CompressPoseidon2(state, Hash(elems[:8]))
		elems = elems[8:]
	}
	if len(elems) > 0 {
		var b Hash
		copy(b[8-len(elems):], elems)
		state = gvortex.CompressPoseidon2(state, b)
	}
	return state
}

// lineaNode is a node of Linea's smt_koalabear tree: the MD hash of
// left||right.
func lineaNode(left, right Hash) Hash {
	return gvortex.CompressPoseidon2(gvortex.CompressPoseidon2(Hash{}, left), right)
}

// encode writes the codeword of row (NumColumns elements) into out
// (CodewordSize elements, zero beyond the first NumColumns): Linea's
// RsParams.RsEncodeBase.
func (p *LineaParams) encode(row, out []koalabear.Element) {
	n := p.n
	if n == 1 {
		for j := range out {
			out[j] = row[0]
		}
		return
	}
	if p.rate == 2 {
		// The odd entries are the row's polynomial on the coset shift·H of
		// the rows' domain H (shift generating the codewords' domain), the
		// even ones the row itself.
		c := koalabear.Vector(out[:n])
		copy(c, row)
		p.small.FFTInverse(c, fft.DIF, fft.WithNbTasks(1))
		c.Mul(c, p.cosetBR)
		p.small.FFT(c, fft.DIT, fft.WithNbTasks(1))
		for j := n - 1; j >= 0; j-- {
			out[2*j+1] = out[j]
			out[2*j] = row[j]
		}
		return
	}
	copy(out[:n], row)
	p.small.FFTInverse(out[:n], fft.DIF, fft.WithNbTasks(1))
	// The coefficients, bit-reversed over n, land bit-reversed over n·rate
	// at the multiples of rate.
	for j := n - 1; j > 0; j-- {
		out[p.rate*j] = out[j]
		out[j] = koalabear.Element{}
	}
	p.large.FFT(out, fft.DIT, fft.WithNbTasks(1))
}

// commitCPU commits rows (checked) on the CPU.
func (p *LineaParams) commitCPU(rows []LineaRow, withSIS bool) *LineaState {
	m := p.CodewordSize()
	h := &lineaHost{
		enc:    make([][]koalabear.Element, len(rows)),
		consts: make([]koalabear.Element, len(rows)),
	}
	par.For(len(rows), 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if rows[i].IsConstant() {
				h.consts[i] = rows[i].Constant
				continue
			}
			h.enc[i] = make([]koalabear.Element, m)
			p.encode(rows[i].Values, h.enc[i])
		}
	})
	leaves := make([]Hash, m)
	if withSIS {
		p.sisLeaves(h, len(rows), leaves)
	} else {
		columnLeaves(h, len(rows), leaves)
	}
	h.levels = lineaTree(leaves)
	s := &LineaState{p: p, sis: withSIS, rows: len(rows), root: h.levels[len(h.levels)-1][0]}
	s.cpu.Store(h)
	return s
}

// columnLeaves hashes each column itself (CommitMerkleWithoutSIS).
func columnLeaves(h *lineaHost, rows int, leaves []Hash) {
	m := len(leaves)
	par.For((m+15)/16, 1, func(lo, hi int) {
		// gnark-crypto's 16-lane compression runs the same MD chains, 16
		// columns at once, where no padding is needed.
		batch := make([]koalabear.Element, 16*rows)
		for b := lo; b < hi; b++ {
			j0 := 16 * b
			w := min(16, m-j0)
			for k := range w {
				h.column(j0+k, batch[k*rows:(k+1)*rows])
			}
			if w == 16 && rows%8 == 0 {
				gvortex.CompressPoseidon2x16(batch, rows, leaves[j0:j0+16])
				continue
			}
			for k := range w {
				leaves[j0+k] = lineaMD(Hash{}, batch[k*rows:(k+1)*rows])
			}
		}
	})
}

// sisLeaves hashes each column's SIS digest (CommitMerkleWithSIS).
func (p *LineaParams) sisLeaves(h *lineaHost, rows int, leaves []Hash) {
	m, d := len(leaves), p.key.Degree
	par.For((m+15)/16, 1, func(lo, hi int) {
		col := make([]koalabear.Element, rows)
		digests := make([]koalabear.Element, 16*d)
		for b := lo; b < hi; b++ {
			j0 := 16 * b
			w := min(16, m-j0)
			for k := range w {
				h.column(j0+k, col)
				_ = p.key.Hash(col, digests[k*d:(k+1)*d]) // rows <= MaxRows, checked
			}
			if w == 16 && d%8 == 0 {
				gvortex.CompressPoseidon2x16(digests, d, leaves[j0:j0+16])
				continue
			}
			for k := range w {
				leaves[j0+k] = lineaMD(Hash{}, digests[k*d:(k+1)*d])
			}
		}
	})
}

// lineaTree returns the levels of smt_koalabear.NewTree(leaves), leaves
// (a power of two, at least 2) first, the root last.
func lineaTree(leaves []Hash) [][]Hash {
	levels := [][]Hash{leaves}
	for cur := leaves; len(cur) > 1; {
		next := make([]Hash, len(cur)/2)
		par.For(len(next), 256, func(lo, hi int) {
			for k := lo; k < hi; k++ {
				next[k] = lineaNode(cur[2*k], cur[2*k+1])
			}
		})
		levels = append(levels, next)
		cur = next
	}
	return levels
}
