package selftest

import (
	"embed"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/consensys/gnark-crypto/field/koalabear"
	fext "github.com/consensys/gnark-crypto/field/koalabear/extensions"

	"github.com/wgcompute/wgcompute/algos/vortex"
	"github.com/wgcompute/wgcompute/internal/lineavec"
	"github.com/wgcompute/wgcompute/wgpu"
)

// lineaFS holds a few of the golden vectors Linea's own code wrote
// (testdata/linea at the repository's root, written by tools/lineagen),
// copied byte for byte: the self-test runs where the repository is not
// on disk (in a browser), so its inputs and Linea's results travel in the
// binary.
//
//go:embed testdata/linea/*.json
var lineaFS embed.FS

// lineaFiles are the embedded vectors: commitments with SIS and without
// at rates 2 and 16, rows of a length that is no multiple of 8 (the MD
// hasher's padding) and constant rows, then two rounds opened at once
// (matrices with SIS and without, constant rows among them).
var lineaFiles = []string{
	"commit_nosis_rate2_16x64.json",
	"commit_nosis_rate16_5x16.json",
	"commit_sis_8_16_rate2_3x16.json",
	"commit_sis_9_16_rate16_9x32.json",
	"round_rate2_sis_9_16_mixed.json",
	"round_rate16_sis_9_16_mixed.json",
}

// lineaRow and lineaVector are a vector's row and file
// (internal/lineavec).
type (
	lineaRow    = lineavec.Row
	lineaVector = lineavec.Vector
)

// readLinea returns the embedded vector named name.
func readLinea(name string) (*lineaVector, error) {
	b, err := lineaFS.ReadFile(path.Join("testdata/linea", name))
	if err != nil {
		return nil, err
	}
	v, err := lineavec.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("linea vector %s: %w", name, err)
	}
	return v, nil
}

// lineaCase names a vector's case what: the file's name without .json.
func lineaCase(name, what string) string {
	return strings.TrimSuffix(name, ".json") + " " + what
}

// The verdicts of a round's "verify" case: VerifyLinea accepts the proof
// and rejects it with one opened column changed.
const lineaVerdict = "accepted; a changed column rejected"

// lineaParams returns v's parameters.
func lineaParams(v *lineaVector) (*vortex.LineaParams, error) {
	return vortex.NewLineaParams(v.Rate, v.NumColumns, v.MaxRows, v.SISLogDegree, v.SISLogBound)
}

var (
	lineaElt = lineavec.Elt
	lineaE4  = lineavec.E4
)

func lineaRows(rs []lineaRow) []vortex.LineaRow {
	out := make([]vortex.LineaRow, len(rs))
	for i, r := range rs {
		if r.Constant != nil {
			out[i] = vortex.LineaConstant(lineaElt(*r.Constant))
			continue
		}
		vals := make([]koalabear.Element, len(r.Values))
		for j, x := range r.Values {
			vals[j] = lineaElt(x)
		}
		out[i] = vortex.LineaValues(vals)
	}
	return out
}

// canon appends the canonical values of es, as uint32s, to dst.
func canon(dst []uint32, es ...koalabear.Element) []uint32 {
	for _, e := range es {
		dst = append(dst, uint32(e.Uint64()))
	}
	return dst
}

func canonHashes(dst []uint32, hs []vortex.Hash) []uint32 {
	for _, h := range hs {
		dst = canon(dst, h[:]...)
	}
	return dst
}

func canonE4s(dst []uint32, es []fext.E4) []uint32 {
	for _, e := range es {
		dst = canon(dst, e.B0.A0, e.B0.A1, e.B1.A0, e.B1.A1)
	}
	return dst
}

// digest32 is the Digest of canonical values, little-endian uint32s.
func digest32(v []uint32) string { return Digest(wgpu.Bytes(v)) }

// runLinea commits the embedded vectors' matrices with Linea's scheme on
// ctx (nil: wgcompute's CPU path) and opens their rounds: the roots,
// column hashes, trees (and SIS digests where a vector has them), then
// each round's linear combination, columns and Merkle proofs, and
// VerifyLinea's verdicts on the proof. The golden results are Linea's
// own (lineaReference).
func runLinea(ctx *wgpu.Context) ([]Output, error) {
	name := variantName(ctx, "wgsl")
	var outs []Output
	add := func(c string, v []uint32, err error) {
		o := Output{Variant: name, Case: c, Err: err}
		if err == nil {
			o.Digest = digest32(v)
		}
		outs = append(outs, o)
	}
	for _, f := range lineaFiles {
		v, err := readLinea(f)
		if err != nil {
			return nil, err
		}
		p, err := lineaParams(v)
		if err != nil {
			return nil, err
		}
		c, err := vortex.NewLineaCommitter(ctx, p)
		if err != nil {
			add(lineaCase(f, "committer"), nil, err)
			continue
		}
		if v.Kind == "commit" {
			for _, o := range lineaCommitOutputs(c, v) {
				add(lineaCase(f, o.what), o.v, o.err)
			}
		} else {
			for _, o := range lineaRoundOutputs(c, v) {
				add(lineaCase(f, o.what), o.v, o.err)
			}
		}
		c.Release()
	}
	return outs, nil
}

// lineaOut is one case's canonical values, before its digest.
type lineaOut struct {
	what string
	v    []uint32
	err  error
}

// lineaCommitOutputs commits v's rows with c: the root, the column
// hashes, the tree's levels above the leaves and, where v has them, the
// SIS digests.
func lineaCommitOutputs(c *vortex.LineaCommitter, v *lineaVector) []lineaOut {
	whats := []string{"root", "column hashes", "tree"}
	if v.SISDigests != nil {
		whats = append(whats, "sis digests")
	}
	fail := func(err error) []lineaOut {
		outs := make([]lineaOut, len(whats))
		for i, w := range whats {
			outs[i] = lineaOut{what: w, err: err}
		}
		return outs
	}
	s, err := c.Commit(lineaRows(v.Rows), vortex.LineaOptions{NoSIS: !v.SIS})
	if err != nil {
		return fail(err)
	}
	defer s.Release()
	root := s.Root()
	outs := []lineaOut{{what: "root", v: canon(nil, root[:]...)}}
	ch, err := s.ColumnHashes()
	outs = append(outs, lineaOut{what: "column hashes", v: canonHashes(nil, ch), err: err})
	tree, err := s.Tree()
	var nodes []uint32
	if err == nil && len(tree) > 0 {
		for _, l := range tree[1:] {
			nodes = canonHashes(nodes, l)
		}
	}
	outs = append(outs, lineaOut{what: "tree", v: nodes, err: err})
	if v.SISDigests != nil {
		d, err := s.SISDigests()
		outs = append(outs, lineaOut{what: "sis digests", v: canon(nil, d...), err: err})
	}
	return outs
}

// lineaRoundWhats are a round's cases after its matrices' roots.
var lineaRoundWhats = []string{"lincomb", "columns", "merkle proofs", "verify"}

// lineaRoundOutputs commits v's matrices with c and opens them at v's
// entries with v's coin: each matrix's root, then the proof's linear
// combination, columns and Merkle proofs (paths and siblings), and
// VerifyLinea's verdicts on it (lineaVerdict).
func lineaRoundOutputs(c *vortex.LineaCommitter, v *lineaVector) []lineaOut {
	var outs []lineaOut
	states := make([]*vortex.LineaState, len(v.Matrices))
	defer func() {
		for _, s := range states {
			s.Release()
		}
	}()
	roots := make([]vortex.Hash, len(v.Matrices))
	withSIS := make([]bool, len(v.Matrices))
	var err error
	for i, m := range v.Matrices {
		what := fmt.Sprintf("matrix %d root", i)
		withSIS[i] = m.SIS
		states[i], err = c.Commit(lineaRows(m.Rows), vortex.LineaOptions{NoSIS: !m.SIS})
		if err != nil {
			outs = append(outs, lineaOut{what: what, err: err})
			continue
		}
		roots[i] = states[i].Root()
		outs = append(outs, lineaOut{what: what, v: canon(nil, roots[i][:]...)})
	}
	var proof *vortex.LineaProof
	if err == nil {
		proof, err = vortex.ProveLinea(states, lineaE4(v.Alpha), v.Entries)
	}
	if err != nil {
		for _, w := range lineaRoundWhats {
			outs = append(outs, lineaOut{what: w, err: err})
		}
		return outs
	}
	var cols, paths []uint32
	for _, m := range proof.Columns {
		for _, col := range m {
			cols = canon(cols, col...)
		}
	}
	for _, m := range proof.MerkleProofs {
		for _, pr := range m {
			paths = append(paths, uint32(pr.Path))
			paths = canonHashes(paths, pr.Siblings)
		}
	}
	ys := make([][]fext.E4, len(v.Ys))
	for i, m := range v.Ys {
		ys[i] = make([]fext.E4, len(m))
		for k, y := range m {
			ys[i][k] = lineaE4(y)
		}
	}
	verify := func() error {
		return vortex.VerifyLinea(c.Params(), proof, lineaE4(v.X), ys, lineaE4(v.Alpha), v.Entries, roots, withSIS)
	}
	verdict := []uint32(nil)
	err = verify()
	if err == nil {
		// The same proof with one opened value changed must fail.
		col := proof.Columns[0][0]
		was := col[0]
		one := koalabear.One()
		col[0].Add(&col[0], &one)
		if verify() == nil {
			err = errors.New("VerifyLinea accepts the proof with a changed column")
		}
		col[0] = was
	}
	if err == nil {
		verdict = lineaVerdictValues()
	} else {
		err = fmt.Errorf("VerifyLinea: %w", err)
	}
	return append(outs,
		lineaOut{what: "lincomb", v: canonE4s(nil, proof.LinComb)},
		lineaOut{what: "columns", v: cols},
		lineaOut{what: "merkle proofs", v: paths},
		lineaOut{what: "verify", v: verdict, err: err})
}

// lineaVerdictValues are the "verify" case's values: lineaVerdict's
// bytes, one a value.
func lineaVerdictValues() []uint32 {
	v := make([]uint32, len(lineaVerdict))
	for i := range lineaVerdict {
		v[i] = uint32(lineaVerdict[i])
	}
	return v
}

// lineaReference returns the linea family's golden outputs: the digests
// of what Linea's own code computed, read from the vectors (the verify
// cases: that Linea's Verify accepted the proofs, which the generator
// checked before writing them).
func lineaReference() ([]Output, error) {
	var outs []Output
	add := func(f, what string, v []uint32) {
		outs = append(outs, Output{Variant: "linea", Case: lineaCase(f, what), Digest: digest32(v)})
	}
	for _, f := range lineaFiles {
		v, err := readLinea(f)
		if err != nil {
			return nil, err
		}
		if v.Kind == "commit" {
			add(f, "root", v.Root[:])
			var ch, nodes []uint32
			for _, h := range v.ColumnHashes {
				ch = append(ch, h[:]...)
			}
			for _, l := range v.Tree {
				for _, h := range l {
					nodes = append(nodes, h[:]...)
				}
			}
			add(f, "column hashes", ch)
			add(f, "tree", nodes)
			if v.SISDigests != nil {
				var d []uint32
				for _, dj := range v.SISDigests {
					d = append(d, dj...)
				}
				add(f, "sis digests", d)
			}
			continue
		}
		for i, m := range v.Matrices {
			add(f, fmt.Sprintf("matrix %d root", i), m.Root[:])
		}
		var lc, cols, paths []uint32
		for _, e := range v.LinComb {
			lc = append(lc, e[:]...)
		}
		for _, m := range v.Columns {
			for _, col := range m {
				cols = append(cols, col...)
			}
		}
		for _, m := range v.MerkleProofs {
			for _, pr := range m {
				paths = append(paths, uint32(pr.Path))
				for _, h := range pr.Siblings {
					paths = append(paths, h[:]...)
				}
			}
		}
		add(f, "lincomb", lc)
		add(f, "columns", cols)
		add(f, "merkle proofs", paths)
		add(f, "verify", lineaVerdictValues())
	}
	return outs, nil
}
