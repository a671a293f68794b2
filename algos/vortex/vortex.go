// Package vortex is two Vortex commitments over KoalaBear on the GPU, bit
// for bit: gnark-crypto's (field/koalabear/vortex: Params, Committer,
// ProverState) and Linea's prover's (its prover/crypto/vortex: the Linea*
// names, below), which share the pipeline and differ in their hashes.
//
// gnark-crypto's: every row Reed-Solomon encoded, every column of the
// codewords hashed with ring-SIS, each SIS digest hashed into a leaf with
// gnark-crypto's width-24 Poseidon2 sponge, and the leaves into a Merkle
// tree by its Poseidon2 compression.
//
// Rows are gnark-crypto's koalabear.Element (Montgomery form in memory),
// taken as they are: the kernels compute in Montgomery form. The rows are
// uploaded once, checked on the device as they arrive; encoding (package
// ntt), column hashes (package sis), the leaves and the tree (package
// poseidon2) run on the device, and the prover's state keeps the
// codewords and the tree there for the openings, which run there too
// (the root, UAlpha, the opened columns and their paths alone come back).
// A Committer keeps the kernels, tables and buffers of one Params on its
// devices from one commitment to the next, as a prover committing round
// after round wants; Commit makes one for the call. A Committer on a
// sched.Group (NewCommitter of a Group) splits a commitment's columns over the
// devices where that is predicted faster (split.go). A nil Context runs
// gnark-crypto's own vortex.Commit.
//
// Proofs from a ProverState are gnark-crypto's vortex.Proof and verify
// with its Params.Verify (Params.Gnark).
//
// gnark-crypto's types go in and out: FromGnark takes its vortex.Params,
// ProverState.Gnark gives its vortex.ProverState, NewParams takes its
// options (refusing those the kernels do not compute). Nothing needs a
// Release: states and Committers that become unreachable free their
// device memory as the garbage collector finds them; Release frees it at
// once.
//
// Linea's (LineaParams, LineaCommitter, LineaState, ProveLinea,
// VerifyLinea) is what Linea's prover commits with: the same encoding
// (any power-of-two rate, 16 for its recursion rounds) and ring-SIS (from
// LineaSISSeed), each leaf the Merkle-Damgard hash (blocks of 8 through
// gnark-crypto's CompressPoseidon2) of a column's SIS digest, or of the
// column itself without SIS, and each node of its smt_koalabear tree the
// same hash of its two children; rows may be constants; a round's
// commitments, with SIS or without, are opened at once with one linear
// combination of all their rows by powers of an extension-field coin.
// On a device it runs resident as gnark-crypto's does; a nil Context runs
// it on the CPU (linea_cpu.go, the reference the device path is tested
// against, itself held to vectors written by Linea's own code).
package vortex

import (
	"errors"
	"fmt"
	"math/bits"
	"reflect"
	"unsafe"

	"github.com/consensys/gnark-crypto/field/koalabear"
	gsis "github.com/consensys/gnark-crypto/field/koalabear/sis"
	gvortex "github.com/consensys/gnark-crypto/field/koalabear/vortex"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/sis"
	"github.com/wgcompute/wgcompute/internal/base/checked"
	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
)

// Hash is a digest of the tree, gnark-crypto's vortex.Hash: 8 elements.
type Hash = gvortex.Hash

// SIS names a ring-SIS instance as gnark-crypto's sis.NewRSis takes it.
type SIS struct {
	// Seed seeds the key's generation (Vortex: 0).
	Seed int64
	// LogTwoDegree is log2 of the degree, 4 to 11 (Vortex: 9).
	LogTwoDegree int
	// LogTwoBound is the limbs' size in bits, 8 or 16 (Vortex: 16).
	LogTwoBound int
}

// Params are the commitment's public parameters: gnark-crypto's
// vortex.Params, and the SIS key as the kernels read it.
type Params struct {
	g   *gvortex.Params
	key *sis.Key
	// logN is log2 of the columns, logRate of the rate.
	logN, logRate int
	// maxRows is the most rows a matrix has.
	maxRows int
	// linea selects Linea's hashes on the devices (the leaves and nodes
	// by the Merkle-Damgard hasher): the Params inside a LineaCommitter,
	// whose g is nil.
	linea bool
}

// NewParams returns the parameters of commitments to matrices of up to
// maxRows rows of numColumns elements (a power of two), encoded at
// inverse rate rate (2, 4 or 8), columns hashed by the SIS instance s
// (sis.NewRSis(s.Seed, s.LogTwoDegree, s.LogTwoBound, maxRows)), with
// numSelectedColumns columns opened: gnark-crypto's vortex.NewParams with
// that key and opts.
//
// gnark-crypto's options (WithColumnHash, WithMerkleHash) are taken so
// that its calls carry over, but the kernels compute its defaults alone,
// SIS column hashes and a Poseidon2 tree: each option is applied to a
// fresh vortex.Config, and one that changes it is refused, naming it.
// (gnark-crypto v0.22.0's NewParams ignores them after applying them.)
func NewParams(numColumns, maxRows, rate int, s SIS, numSelectedColumns int, opts ...gvortex.Option) (*Params, error) {
	if err := checkSize(numColumns, maxRows, rate); err != nil {
		return nil, err
	}
	// gnark-crypto's leaves hash a digest 16 elements at a time
	// (HashPoseidon2x16), which needs a degree of 16 at least.
	if s.LogTwoDegree < 4 || s.LogTwoDegree > 11 {
		return nil, fmt.Errorf("vortex: SIS log2 degree %d: accepted are 4 to 11 (degrees 16 to 2048)", s.LogTwoDegree)
	}
	if s.LogTwoBound != 8 && s.LogTwoBound != 16 {
		return nil, fmt.Errorf("vortex: SIS log2 bound %d: accepted are 8 and 16", s.LogTwoBound)
	}
	if numSelectedColumns < 1 || numSelectedColumns > numColumns*rate {
		return nil, fmt.Errorf("vortex: %d selected columns: accepted are 1 to %d (the codewords' columns)", numSelectedColumns, numColumns*rate)
	}
	if err := checkOptions(opts); err != nil {
		return nil, err
	}
	rs, err := gsis.NewRSis(s.Seed, s.LogTwoDegree, s.LogTwoBound, maxRows)
	if err != nil {
		return nil, fmt.Errorf("vortex: %w", err)
	}
	g, err := gvortex.NewParams(numColumns, maxRows, rs, rate, numSelectedColumns, opts...)
	if err != nil {
		return nil, fmt.Errorf("vortex: %w", err)
	}
	return FromGnark(g)
}

// FromGnark returns the parameters of gnark-crypto's gp, made by its
// vortex.NewParams: gp itself is kept (Gnark returns it), and its SIS key
// read as the kernels read it. Parameters the kernels would not commit
// with as gnark-crypto's Commit does are refused, saying what is wrong:
// a column count, rate, row count or SIS instance NewParams does not
// accept, domains not made by gnark-crypto's NewParams, or a Config not
// the default (see NewParams on options).
func FromGnark(gp *gvortex.Params) (*Params, error) {
	if gp == nil {
		return nil, errors.New("vortex: no gnark-crypto parameters: make them with its vortex.NewParams")
	}
	n, rate, m := gp.NbColumns, gp.ReedSolomonInvRate, gp.NbColumns*gp.ReedSolomonInvRate
	if err := checkSize(n, gp.MaxNbRows, rate); err != nil {
		return nil, err
	}
	if gp.Key == nil {
		return nil, errors.New("vortex: gnark-crypto parameters without a SIS key (Key): make them with its vortex.NewParams and sis.NewRSis")
	}
	if d := gp.Key.Degree; d < 16 || d > 2048 || d&(d-1) != 0 {
		return nil, fmt.Errorf("vortex: SIS degree %d: accepted are the powers of two from 16 to 2048", d)
	}
	key, err := sis.FromRSis(gp.Key)
	if err != nil {
		return nil, fmt.Errorf("vortex: %w", err)
	}
	if key.MaxElements() < gp.MaxNbRows {
		return nil, fmt.Errorf("vortex: the SIS key hashes columns of up to %d elements, the parameters take %d rows: make the key with sis.NewRSis(seed, logDegree, logBound, %d)", key.MaxElements(), gp.MaxNbRows, gp.MaxNbRows)
	}
	if gp.NumSelectedColumns < 1 || gp.NumSelectedColumns > m {
		return nil, fmt.Errorf("vortex: %d selected columns: accepted are 1 to %d (the codewords' columns)", gp.NumSelectedColumns, m)
	}
	if !reflect.ValueOf(gp.Conf).IsZero() {
		return nil, errors.New("vortex: gnark-crypto parameters with a column or Merkle hash option (WithColumnHash, WithMerkleHash): supported are its defaults, SIS column hashes and a Poseidon2 tree")
	}
	shift, err := koalabear.Generator(uint64(m))
	if err != nil {
		return nil, fmt.Errorf("vortex: %w", err)
	}
	small, big := gp.Domains[0], gp.Domains[1]
	if small == nil || big == nil || small.Cardinality != uint64(n) || big.Cardinality != uint64(m) || small.FrMultiplicativeGen != shift || len(gp.CosetTableBitReverse) != n {
		return nil, fmt.Errorf("vortex: gnark-crypto parameters whose domains are not those of %d columns at rate %d (the coset of shift Generator(%d)): make them with its vortex.NewParams", n, rate, m)
	}
	logN, logRate := bits.TrailingZeros(uint(n)), bits.TrailingZeros(uint(rate))
	return &Params{g: gp, key: key, logN: logN, logRate: logRate, maxRows: gp.MaxNbRows}, nil
}

// checkSize refuses a column count, row count or rate that the kernels
// do not commit with.
func checkSize(numColumns, maxRows, rate int) error {
	if numColumns < 2 || numColumns&(numColumns-1) != 0 {
		return fmt.Errorf("vortex: %d columns: the column count must be a power of two from 2", numColumns)
	}
	if rate != 2 && rate != 4 && rate != 8 {
		return fmt.Errorf("vortex: rate %d: accepted are 2, 4 and 8 (the inverse rate of the Reed-Solomon code)", rate)
	}
	logN, logRate := bits.TrailingZeros(uint(numColumns)), bits.TrailingZeros(uint(rate))
	if a := field.KoalaBear.TwoAdicity(); logN+logRate > a {
		return fmt.Errorf("vortex: %d columns at rate %d: codewords of 2^%d elements exceed KoalaBear's 2^%d", numColumns, rate, logN+logRate, a)
	}
	if maxRows < 1 || maxRows > 1<<24 {
		return fmt.Errorf("vortex: %d rows: accepted are 1 to 2^24", maxRows)
	}
	return nil
}

// checkOptions applies each of gnark-crypto's options to a fresh Config
// (its fields are not readable, but the zero Config is its default) and
// refuses one that fails or changes it.
func checkOptions(opts []gvortex.Option) error {
	for i, o := range opts {
		if o == nil {
			return fmt.Errorf("vortex: gnark-crypto option %d is nil", i)
		}
		var c gvortex.Config
		if err := o(&c); err != nil {
			return fmt.Errorf("vortex: gnark-crypto option %d: %w", i, err)
		}
		if !reflect.ValueOf(c).IsZero() {
			return fmt.Errorf("vortex: gnark-crypto option %d changes the column or Merkle hash (WithColumnHash, WithMerkleHash): supported are its defaults, SIS column hashes and a Poseidon2 tree, which the kernels compute", i)
		}
	}
	return nil
}

// Gnark returns gnark-crypto's parameters, whose Verify checks the
// proofs of a ProverState.
func (p *Params) Gnark() *gvortex.Params { return p.g }

// NumColumns returns the matrices' column count.
func (p *Params) NumColumns() int { return 1 << p.logN }

// MaxRows returns the most rows a matrix has.
func (p *Params) MaxRows() int { return p.maxRows }

// Rate returns the code's inverse rate.
func (p *Params) Rate() int { return 1 << p.logRate }

// SizeCodeWord returns the codewords' length, NumColumns·Rate.
func (p *Params) SizeCodeWord() int { return 1 << (p.logN + p.logRate) }

// Degree returns the SIS degree: a column's digest is Degree elements.
func (p *Params) Degree() int { return p.key.Degree() }

// Rows are a matrix as Commit takes it: rows of gnark-crypto elements, or
// all rows one after another in one slice.
type Rows interface {
	[][]koalabear.Element | []koalabear.Element
}

// rowsOf returns m's rows, checked against p: at least one, at most
// MaxRows, each NumColumns elements.
func rowsOf[R Rows](p *Params, m R) ([][]koalabear.Element, error) {
	n := p.NumColumns()
	var rows [][]koalabear.Element
	switch v := any(m).(type) {
	case [][]koalabear.Element:
		rows = v
		for i, r := range v {
			if len(r) != n {
				return nil, fmt.Errorf("vortex: row %d has %d elements: the parameters take rows of %d", i, len(r), n)
			}
		}
	case []koalabear.Element:
		if len(v)%n != 0 {
			return nil, fmt.Errorf("vortex: %d elements are not whole rows of %d", len(v), n)
		}
		// Each row keeps the capacity to the slice's end: rows one
		// after another in it go up in one transfer.
		rows = make([][]koalabear.Element, len(v)/n)
		for i := range rows {
			rows[i] = v[i*n : (i+1)*n]
		}
	}
	if len(rows) < 1 || len(rows) > p.MaxRows() {
		return nil, fmt.Errorf("vortex: %d rows: the parameters (and their SIS key) take 1 to %d", len(rows), p.MaxRows())
	}
	return rows, nil
}

// checkMontgomery returns an error naming the first element of rows that
// is not a reduced Montgomery form (every koalabear.Element made by its
// methods is one), checked on all cores.
func checkMontgomery(rows [][]koalabear.Element) error {
	q := field.KoalaBear.P()
	first := func(r []koalabear.Element) int {
		return batch.FirstNonCanonical(unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(r))), len(r)), uint64(q))
	}
	if i := par.First(len(rows), 1, func(i int) bool { return first(rows[i]) >= 0 }); i >= 0 {
		j := first(rows[i])
		return fmt.Errorf("vortex: element (%d, %d) is %d in memory: a koalabear.Element holds its Montgomery form, below p = %d", i, j, rows[i][j][0], q)
	}
	return nil
}

// FromCanonical returns the rows × cols matrix of canonical values vals
// (each below p, row-major) as gnark-crypto's elements, for Commit; the
// error names the first value that is not below p.
func FromCanonical(vals []uint32, rows, cols int) ([]koalabear.Element, error) {
	n, err := checked.Mul(rows, cols)
	if err != nil || rows < 1 || cols < 1 {
		return nil, fmt.Errorf("vortex: a %d × %d matrix: give positive sizes whose product fits an int", rows, cols)
	}
	if len(vals) != n {
		return nil, fmt.Errorf("vortex: a %d × %d matrix is %d values, given %d", rows, cols, n, len(vals))
	}
	f := field.KoalaBear
	if i := batch.FirstNonCanonical(vals, uint64(f.P())); i >= 0 {
		return nil, fmt.Errorf("vortex: element (%d, %d) is %d: KoalaBear's elements are below p = %d", i/cols, i%cols, vals[i], f.P())
	}
	defer wgpu.Span("vortex: canonical values to Montgomery forms")(int64(n) * 4)
	out := make([]koalabear.Element, n)
	in := unsafe.Slice((*koalabear.Element)(unsafe.Pointer(unsafe.SliceData(vals))), n)
	par.For(n, 1<<16, func(lo, hi int) {
		o := koalabear.Vector(out[lo:hi])
		o.ScalarMul(in[lo:hi], &montyR2)
	})
	return out, nil
}

// CanonicalRoot returns the root's elements as canonical values.
func CanonicalRoot(h Hash) [8]uint32 {
	var out [8]uint32
	for i := range h {
		out[i] = uint32(h[i].Uint64())
	}
	return out
}

var errReleased = errors.New("vortex: the prover state was released")

// ErrNoLinComb is OpenColumns' error before any OpenLinComb: a proof
// carries UAlpha, which OpenLinComb computes.
var ErrNoLinComb = errors.New("vortex: OpenColumns before OpenLinComb: a proof carries UAlpha, which OpenLinComb computes: call it first")
