package vortex

// Linea's Vortex: the commitment Linea's prover makes
// (linea-monorepo, prover/crypto/vortex/vortex_koalabear), which differs
// from gnark-crypto's (the rest of this package) at every hash. A column's
// leaf is the Merkle-Damgard hash (Linea's poseidon2_koalabear.MDHasher:
// zero initial state, blocks of 8 elements through gnark-crypto's
// vortex.CompressPoseidon2, the last partial block zero-padded at its
// front) of the column's ring-SIS digest, or of the column itself without
// SIS; the tree is Linea's smt_koalabear tree, each node the same hash of
// left||right. Rows may be constants, whose codeword is the same constant.
//
// This file holds the API and the CPU path, the reference of any device
// path; linea_proof.go the round's proof and its verifier.

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"sync/atomic"

	"github.com/consensys/gnark-crypto/field/koalabear"
	fext "github.com/consensys/gnark-crypto/field/koalabear/extensions"
	"github.com/consensys/gnark-crypto/field/koalabear/fft"
	gsis "github.com/consensys/gnark-crypto/field/koalabear/sis"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// LineaSISSeed is the seed of Linea's ring-SIS keys (its
// ringsis.RING_SIS_SEED): every LineaParams draws its key from it.
const LineaSISSeed int64 = 42069

// LineaParams are the public parameters of Linea's Vortex: the
// Reed-Solomon code and the ring-SIS key. They replace Linea's
// vortex_koalabear.Params (from vortex_koalabear.NewParams).
type LineaParams struct {
	rate, n, maxRows    int
	logRate, logN       int
	logDegree, logBound int
	key                 *gsis.RSis
	// small is the domain of the rows (shifted by a generator of the
	// codewords' domain, as Linea's RsParams.Domains[0]), large the
	// codewords'; cosetBR is small's coset table bit-reversed, for rate 2.
	small, large *fft.Domain
	cosetBR      koalabear.Vector
}

// NewLineaParams returns the parameters of commitments to matrices of up
// to maxRows rows of numColumns elements (a power of two), encoded at
// inverse rate rate (a power of two from 2), columns hashed with SIS by
// gnark-crypto's sis.NewRSis(LineaSISSeed, sisLogDegree, sisLogBound,
// maxRows): Linea's vortex_koalabear.NewParams(rate, numColumns, maxRows,
// sisLogDegree, sisLogBound), which panics where this returns an error.
// Linea's prover uses SIS (9, 16); gnark-crypto also accepts bounds of 8
// bits, and degrees from 2 to 2048 are accepted here.
func NewLineaParams(rate, numColumns, maxRows, sisLogDegree, sisLogBound int) (*LineaParams, error) {
	if numColumns < 1 || numColumns&(numColumns-1) != 0 {
		return nil, fmt.Errorf("vortex: linea: %d columns: the column count must be a power of two", numColumns)
	}
	if rate < 2 || rate&(rate-1) != 0 {
		return nil, fmt.Errorf("vortex: linea: rate %d: the inverse rate must be a power of two from 2", rate)
	}
	logN, logRate := bits.TrailingZeros(uint(numColumns)), bits.TrailingZeros(uint(rate))
	if a := field.KoalaBear.TwoAdicity(); logN+logRate > a {
		return nil, fmt.Errorf("vortex: linea: %d columns at rate %d: codewords of 2^%d elements exceed KoalaBear's 2^%d", numColumns, rate, logN+logRate, a)
	}
	if maxRows < 1 || maxRows > 1<<24 {
		return nil, fmt.Errorf("vortex: linea: %d rows: accepted are 1 to 2^24", maxRows)
	}
	if sisLogDegree < 1 || sisLogDegree > 11 {
		return nil, fmt.Errorf("vortex: linea: SIS log2 degree %d: accepted are 1 to 11 (degrees 2 to 2048)", sisLogDegree)
	}
	if sisLogBound != 8 && sisLogBound != 16 {
		return nil, fmt.Errorf("vortex: linea: SIS log2 bound %d: accepted are 8 and 16", sisLogBound)
	}
	key, err := gsis.NewRSis(LineaSISSeed, sisLogDegree, sisLogBound, maxRows)
	if err != nil {
		return nil, fmt.Errorf("vortex: linea: %w", err)
	}
	p := &LineaParams{
		rate: rate, n: numColumns, maxRows: maxRows,
		logRate: logRate, logN: logN,
		logDegree: sisLogDegree, logBound: sisLogBound,
		key: key,
	}
	if numColumns > 1 {
		shift, err := koalabear.Generator(uint64(numColumns * rate))
		if err != nil {
			return nil, fmt.Errorf("vortex: linea: %w", err)
		}
		p.small = fft.NewDomain(uint64(numColumns), fft.WithShift(shift))
		p.large = fft.NewDomain(uint64(numColumns * rate))
		if rate == 2 {
			c, err := p.small.CosetTable()
			if err != nil {
				return nil, fmt.Errorf("vortex: linea: %w", err)
			}
			p.cosetBR = append(koalabear.Vector(nil), c...)
			fft.BitReverse(p.cosetBR)
		}
	}
	return p, nil
}

// Rate returns the code's inverse rate.
func (p *LineaParams) Rate() int { return p.rate }

// NumColumns returns the rows' length (before encoding).
func (p *LineaParams) NumColumns() int { return p.n }

// CodewordSize returns the codewords' length, NumColumns·Rate: the
// columns of the committed matrix, the leaves of its tree.
func (p *LineaParams) CodewordSize() int { return p.n * p.rate }

// MaxRows returns the most rows a matrix has (fixing the SIS key).
func (p *LineaParams) MaxRows() int { return p.maxRows }

// SISLogDegree returns log2 of the ring-SIS degree: a column's SIS digest
// has 2^SISLogDegree elements.
func (p *LineaParams) SISLogDegree() int { return p.logDegree }

// SISLogBound returns the ring-SIS limbs' size in bits.
func (p *LineaParams) SISLogBound() int { return p.logBound }

// depth is log2 of the tree's leaves.
func (p *LineaParams) depth() int { return p.logN + p.logRate }

// LineaRow is a row of a committed matrix, as Linea's smartvectors give
// it: Values (NumColumns elements, smartvectors.Regular), or, when Values
// is empty, Constant standing for the whole row (smartvectors.Constant),
// whose codeword is the same constant. Build one with LineaValues or
// LineaConstant.
type LineaRow struct {
	// Values is the row; empty for a constant row.
	Values []koalabear.Element
	// Constant is the value of every entry of a constant row; zero when
	// Values is given.
	Constant koalabear.Element
}

// LineaValues returns the row v (smartvectors.NewRegular(v)).
func LineaValues(v []koalabear.Element) LineaRow { return LineaRow{Values: v} }

// LineaConstant returns the row of which every entry is c
// (smartvectors.NewConstant(c, numColumns)).
func LineaConstant(c koalabear.Element) LineaRow { return LineaRow{Constant: c} }

// LineaRows returns the rows of m, none constant.
func LineaRows(m [][]koalabear.Element) []LineaRow {
	out := make([]LineaRow, len(m))
	for i := range m {
		out[i] = LineaRow{Values: m[i]}
	}
	return out
}

// IsConstant reports whether r stands for a constant row.
func (r LineaRow) IsConstant() bool { return len(r.Values) == 0 }

// At returns the row's entry j.
func (r LineaRow) At(j int) koalabear.Element {
	if r.IsConstant() {
		return r.Constant
	}
	return r.Values[j]
}

// LineaOptions tune a Linea commitment. The zero value commits with SIS.
type LineaOptions struct {
	// NoSIS hashes the columns themselves into the leaves
	// (CommitMerkleWithoutSIS) instead of their SIS digests
	// (CommitMerkleWithSIS). Linea's prover commits without SIS the
	// rounds of fewer than 512 rows.
	NoSIS bool
	// Stages, where not nil, receives the stages' timings (device path
	// only; Stages.SIS is zero without SIS).
	Stages *Stages
	// Context, where not nil, cancels the commitment (as
	// Options.Context).
	Context context.Context
}

// LineaCommitter commits matrices of one LineaParams, round after round:
// what Linea's Params.CommitMerkleWithSIS and CommitMerkleWithoutSIS do.
// A nil Context computes on the CPU (all cores), as Linea's code does.
// Its methods may be called from several goroutines: commitments on a
// device take turns.
type LineaCommitter struct {
	p        *LineaParams
	released atomic.Bool
	// dev commits on the device, with Linea's hashes (its kernels, tables
	// and buffers); nil for the CPU.
	dev *Committer
}

// NewLineaCommitter returns a committer of matrices of p's parameters on
// t's GPU (a Context or a Group of one; nil: the CPU). Release it when
// done.
//
// On a device, the rows go up once and the encoding, the column hashes,
// the leaves and the tree stay there for the round's opening; the
// committer keeps its kernels, tables and the buffers of its last two
// commitments' shapes between commitments (Release frees them). Rows of
// one column, whose code the device does not run, are committed on the
// CPU.
func NewLineaCommitter(t wgpu.Target, p *LineaParams) (*LineaCommitter, error) {
	if p == nil {
		return nil, errors.New("vortex: linea: nil parameters")
	}
	ctx, err := sched.OneDevice(t)
	if err != nil {
		return nil, fmt.Errorf("vortex: a LineaCommitter %w", err)
	}
	c := &LineaCommitter{p: p}
	if ctx != nil && p.onDevice() {
		dev, err := newLineaDevice(ctx, p)
		if err != nil {
			return nil, err
		}
		c.dev = dev
	}
	return c, nil
}

// Params returns the committer's parameters.
func (c *LineaCommitter) Params() *LineaParams { return c.p }

// Evict frees the device memory the committer keeps for later
// commitments (Committer.Evict): the buffers of shapes it committed
// before and the SIS keys of row counts other than keep (0: all); states
// still open keep theirs. It replaces the eviction of the pipeline cache
// of Linea's GPU prover; a CPU committer keeps nothing.
func (c *LineaCommitter) Evict(keep int) {
	if c.dev != nil {
		c.dev.Evict(keep)
	}
}

// Release frees what the committer keeps; it commits no more.
func (c *LineaCommitter) Release() {
	c.released.Store(true)
	if c.dev != nil {
		c.dev.Release()
	}
}

var errLineaReleased = errors.New("vortex: linea: the state was released")

// Commit encodes rows, hashes the codewords' columns (with SIS unless
// opts.NoSIS) into the leaves of a tree and returns the state of the
// commitment: Linea's Params.CommitMerkleWithSIS(rows) (or
// CommitMerkleWithoutSIS), whose panics are errors here. rows holds 1 to
// MaxRows rows of NumColumns elements, or constants; elements must be
// canonical (below the modulus in Montgomery form, as koalabear's
// arithmetic leaves them).
func (c *LineaCommitter) Commit(rows []LineaRow, opts LineaOptions) (*LineaState, error) {
	if c.released.Load() {
		return nil, errors.New("vortex: linea: the committer was released")
	}
	if c.dev != nil {
		return c.commitDevice(rows, opts)
	}
	if err := cancelled(opts.Context); err != nil {
		return nil, err
	}
	if err := c.p.checkRows(rows); err != nil {
		return nil, err
	}
	return c.p.commitCPU(rows, !opts.NoSIS), nil
}

// checkRows checks rows as the CPU path takes them: their shapes
// (checkShape) and every value.
func (p *LineaParams) checkRows(rows []LineaRow) error {
	if err := p.checkCount(rows); err != nil {
		return err
	}
	return par.ForErr(len(rows), 1, func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			if err := p.checkShape(i, rows[i]); err != nil {
				return err
			}
			for j, v := range rows[i].Values {
				if !canonical(v) {
					return fmt.Errorf("vortex: linea: row %d, entry %d is not a canonical KoalaBear element", i, j)
				}
			}
		}
		return nil
	})
}

// checkCount checks the count of rows against the parameters.
func (p *LineaParams) checkCount(rows []LineaRow) error {
	if len(rows) < 1 || len(rows) > p.maxRows {
		return fmt.Errorf("vortex: linea: %d rows: accepted are 1 to %d (the parameters' maximum)", len(rows), p.maxRows)
	}
	return nil
}

// checkShape checks row i's shape (NumColumns values, or a canonical
// constant, not both); the device checks a row's values as they arrive.
func (p *LineaParams) checkShape(i int, r LineaRow) error {
	if r.IsConstant() {
		if !canonical(r.Constant) {
			return fmt.Errorf("vortex: linea: row %d: the constant is not a canonical KoalaBear element", i)
		}
		return nil
	}
	if len(r.Values) != p.n {
		return fmt.Errorf("vortex: linea: row %d has %d elements: rows have %d (or are constants)", i, len(r.Values), p.n)
	}
	if !r.Constant.IsZero() {
		return fmt.Errorf("vortex: linea: row %d has both values and a constant: give one", i)
	}
	return nil
}

// koalaBearModulus is KoalaBear's prime, 2^31 - 2^24 + 1.
const koalaBearModulus = 2130706433

// canonical reports whether e is reduced: its Montgomery form is below
// the modulus, as koalabear's arithmetic leaves it.
func canonical(e koalabear.Element) bool { return e[0] < koalaBearModulus }

// LineaState is a commitment's state: its root, tree and codewords,
// which the round's opening reads. It replaces what Linea's
// CommitMerkleWithSIS / CommitMerkleWithoutSIS return (the encoded
// matrix, the commitment, the smt_koalabear.Tree and the column hashes).
// Its methods may be called from several goroutines, Release included:
// once released, every method but Root, WithSIS, NumRows and Params
// returns an error.
type LineaState struct {
	p    *LineaParams
	sis  bool
	rows int
	root Hash
	// cpu is the CPU path's codewords and tree, nil once released.
	cpu atomic.Pointer[lineaHost]
	// dev is the commitment on a device (its buffers, freed by Release
	// or once unreachable); consts[i] is row i's value where isConst[i]
	// (nil where no row is constant).
	dev     *ProverState
	consts  []koalabear.Element
	isConst []bool
}

// lineaHost is a state's CPU side: the codewords and the tree.
type lineaHost struct {
	// enc[i] is row i's codeword, nil for a constant row whose value is
	// consts[i].
	enc    [][]koalabear.Element
	consts []koalabear.Element
	// levels[0] are the leaves, levels[depth] the root.
	levels [][]Hash
}

// Root returns the commitment: the tree's root (Linea's Commitment,
// tree.Root).
func (s *LineaState) Root() Hash { return s.root }

// WithSIS reports whether the columns were hashed with SIS.
func (s *LineaState) WithSIS() bool { return s.sis }

// NumRows returns the committed matrix's row count.
func (s *LineaState) NumRows() int { return s.rows }

// Params returns the state's parameters.
func (s *LineaState) Params() *LineaParams { return s.p }

func (s *LineaState) host() (*lineaHost, error) {
	if s == nil {
		return nil, errLineaReleased
	}
	if h := s.cpu.Load(); h != nil {
		return h, nil
	}
	return nil, errLineaReleased
}

// Tree returns the tree's levels, leaf level first: levels[0] are the
// leaves (ColumnHashes), levels[l] the 2^(depth-l) nodes of level l as
// Linea's smt_koalabear.Tree numbers them (its OccupiedNodes[l-1]), the
// last level the root alone.
func (s *LineaState) Tree() ([][]Hash, error) {
	if s != nil && s.dev != nil {
		return s.devTree()
	}
	h, err := s.host()
	if err != nil {
		return nil, err
	}
	out := make([][]Hash, len(h.levels))
	for l := range h.levels {
		out[l] = append([]Hash(nil), h.levels[l]...)
	}
	return out, nil
}

// ColumnHashes returns the tree's leaves, one per codeword column: the MD
// hash of the column's SIS digest, or of the column itself without SIS
// (the tree's OccupiedLeaves; without SIS, Linea's column hashes).
func (s *LineaState) ColumnHashes() ([]Hash, error) {
	if s != nil && s.dev != nil {
		return s.devColumnHashes()
	}
	h, err := s.host()
	if err != nil {
		return nil, err
	}
	return append([]Hash(nil), h.levels[0]...), nil
}

// SISDigests returns the columns' ring-SIS digests, column after column
// (2^SISLogDegree elements each): the column hashes Linea's
// CommitMerkleWithSIS returns. They are recomputed from the codewords.
func (s *LineaState) SISDigests() ([]koalabear.Element, error) {
	if s != nil && s.dev != nil {
		if !s.sis {
			return nil, errors.New("vortex: linea: committed without SIS: there are no SIS digests")
		}
		return s.devSISDigests()
	}
	h, err := s.host()
	if err != nil {
		return nil, err
	}
	if !s.sis {
		return nil, errors.New("vortex: linea: committed without SIS: there are no SIS digests")
	}
	m, d := s.p.CodewordSize(), s.p.key.Degree
	out := make([]koalabear.Element, m*d)
	par.For(m, 16, func(lo, hi int) {
		col := make([]koalabear.Element, s.rows)
		for j := lo; j < hi; j++ {
			h.column(j, col)
			_ = s.p.key.Hash(col, out[j*d:(j+1)*d]) // sizes checked at commit
		}
	})
	return out, nil
}

// EncodedMatrix returns the codewords, one row each (CodewordSize
// elements), constant rows as constants: Linea's EncodedMatrix.
func (s *LineaState) EncodedMatrix() ([]LineaRow, error) {
	if s != nil && s.dev != nil {
		return s.devEncodedMatrix()
	}
	h, err := s.host()
	if err != nil {
		return nil, err
	}
	out := make([]LineaRow, s.rows)
	for i := range out {
		if h.enc[i] == nil {
			out[i] = LineaConstant(h.consts[i])
		} else {
			out[i] = LineaValues(append([]koalabear.Element(nil), h.enc[i]...))
		}
	}
	return out, nil
}

// LinComb returns the state's share of the round's linear combination,
// sum_i alpha^i · codeword_i over its rows (CodewordSize values): Linea's
// vortex.LinearCombination over this matrix's rows alone. ProveLinea
// combines the shares of a round's states.
func (s *LineaState) LinComb(alpha fext.E4) ([]fext.E4, error) {
	if s != nil && s.dev != nil {
		return s.devLinComb(alpha)
	}
	h, err := s.host()
	if err != nil {
		return nil, err
	}
	m := s.p.CodewordSize()
	pow := make([]fext.E4, s.rows)
	pow[0].SetOne()
	for i := 1; i < s.rows; i++ {
		pow[i].Mul(&pow[i-1], &alpha)
	}
	// The constant rows add one value to every entry.
	var cst fext.E4
	for i, c := range h.consts {
		if h.enc[i] == nil {
			var t fext.E4
			t.MulByElement(&pow[i], &c)
			cst.Add(&cst, &t)
		}
	}
	out := make([]fext.E4, m)
	par.For(m, 1024, func(lo, hi int) {
		acc := out[lo:hi]
		for j := range acc {
			acc[j] = cst
		}
		var t fext.E4
		for i, row := range h.enc {
			if row == nil {
				continue
			}
			for j, v := range row[lo:hi] {
				t.MulByElement(&pow[i], &v)
				acc[j].Add(&acc[j], &t)
			}
		}
	})
	return out, nil
}

// ExtractColumns returns the codewords' columns cols, [entry][row]: what
// Linea's SelectColumnsAndMerkleProofs puts in the proof for this matrix.
func (s *LineaState) ExtractColumns(cols []int) ([][]koalabear.Element, error) {
	if s != nil && s.dev != nil {
		c, _, err := s.devOpen(cols, true, false)
		return c, err
	}
	h, err := s.host()
	if err != nil {
		return nil, err
	}
	if err := s.p.checkEntries(cols); err != nil {
		return nil, err
	}
	out := make([][]koalabear.Element, len(cols))
	for k, j := range cols {
		out[k] = make([]koalabear.Element, s.rows)
		h.column(j, out[k])
	}
	return out, nil
}

// MerkleProofs returns the Merkle proofs of the leaves cols: Linea's
// smt_koalabear.Tree.Prove for each.
func (s *LineaState) MerkleProofs(cols []int) ([]LineaMerkleProof, error) {
	if s != nil && s.dev != nil {
		_, pr, err := s.devOpen(cols, false, true)
		return pr, err
	}
	h, err := s.host()
	if err != nil {
		return nil, err
	}
	if err := s.p.checkEntries(cols); err != nil {
		return nil, err
	}
	out := make([]LineaMerkleProof, len(cols))
	for k, j := range cols {
		sib := make([]Hash, s.p.depth())
		for l := range sib {
			sib[l] = h.levels[l][(j>>l)^1]
		}
		out[k] = LineaMerkleProof{Path: j, Siblings: sib}
	}
	return out, nil
}

// Release frees the state's codewords and tree; Root stays.
func (s *LineaState) Release() {
	if s != nil {
		s.cpu.Store(nil)
		if s.dev != nil {
			s.dev.Release()
		}
	}
}

func (p *LineaParams) checkEntries(cols []int) error {
	if len(cols) == 0 {
		return errors.New("vortex: linea: no columns selected")
	}
	m := p.CodewordSize()
	for _, j := range cols {
		if j < 0 || j >= m {
			return fmt.Errorf("vortex: linea: column %d: the codewords have columns 0 to %d", j, m-1)
		}
	}
	return nil
}

// column writes codeword column j into col (one entry per row).
func (h *lineaHost) column(j int, col []koalabear.Element) {
	for i := range col {
		if h.enc[i] == nil {
			col[i] = h.consts[i]
		} else {
			col[i] = h.enc[i][j]
		}
	}
}
