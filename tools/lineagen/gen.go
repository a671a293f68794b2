package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"sort"

	"github.com/consensys/gnark-crypto/field/koalabear/extensions"
	"github.com/consensys/linea-monorepo/prover/crypto/state-management/smt_koalabear"
	"github.com/consensys/linea-monorepo/prover/crypto/vortex"
	"github.com/consensys/linea-monorepo/prover/crypto/vortex/vortex_koalabear"
	"github.com/consensys/linea-monorepo/prover/maths/common/smartvectors"
	"github.com/consensys/linea-monorepo/prover/maths/field"
	"github.com/consensys/linea-monorepo/prover/maths/field/fext"
)

// The sources the vectors come from (setup.sh lays them out).
const (
	lineaCommit = "cb180134d7b7904ca588e6d99264b7b10fe06929"
	gnarkCommit = "c62f696e965ff432bd21910dd4faac4a0ceead5b"
)

// modulus is KoalaBear's prime: inputs are drawn canonical below it.
const modulus = 0x7f000001

// commitCase is one CommitMerkleWithSIS or CommitMerkleWithoutSIS call.
type commitCase struct {
	name                string
	rate, n, maxRows    int
	logDegree, logBound int
	sis                 bool
	rows                int
	constants           []int // indices of rows given as smartvectors.NewConstant
	encoded, sisDigests bool  // whether the file holds the encoded matrix, the SIS digests
}

// matrixCase is one matrix of a round.
type matrixCase struct {
	sis       bool
	rows      int
	constants []int
}

// roundCase is one call of Prove over several matrices committed with the
// same parameters.
type roundCase struct {
	name                string
	rate, n, maxRows    int
	logDegree, logBound int
	matrices            []matrixCase
	entries             int
}

var commitCases = []commitCase{
	{name: "sis_9_16_rate2_16x16", rate: 2, n: 16, maxRows: 16, logDegree: 9, logBound: 16, sis: true, rows: 16, constants: []int{3}, encoded: true, sisDigests: true},
	{name: "sis_9_16_rate4_13x64", rate: 4, n: 64, maxRows: 32, logDegree: 9, logBound: 16, sis: true, rows: 13, constants: []int{0, 7, 12}},
	{name: "sis_9_16_rate8_7x32", rate: 8, n: 32, maxRows: 16, logDegree: 9, logBound: 16, sis: true, rows: 7, constants: []int{2}},
	{name: "sis_9_16_rate16_9x32", rate: 16, n: 32, maxRows: 9, logDegree: 9, logBound: 16, sis: true, rows: 9, constants: []int{4, 5}, encoded: true},
	{name: "sis_9_16_rate2_1x4", rate: 2, n: 4, maxRows: 1, logDegree: 9, logBound: 16, sis: true, rows: 1, encoded: true},
	{name: "sis_9_16_rate2_24x512", rate: 2, n: 512, maxRows: 32, logDegree: 9, logBound: 16, sis: true, rows: 24, constants: []int{1, 2, 23}},
	{name: "sis_8_16_rate2_20x128", rate: 2, n: 128, maxRows: 24, logDegree: 8, logBound: 16, sis: true, rows: 20, constants: []int{19}},
	{name: "sis_8_16_rate2_3x16", rate: 2, n: 16, maxRows: 4, logDegree: 8, logBound: 16, sis: true, rows: 3, constants: []int{1}, encoded: true, sisDigests: true},
	{name: "sis_8_16_rate16_5x16", rate: 16, n: 16, maxRows: 8, logDegree: 8, logBound: 16, sis: true, rows: 5},
	{name: "sis_9_8_rate4_11x64", rate: 4, n: 64, maxRows: 11, logDegree: 9, logBound: 8, sis: true, rows: 11, constants: []int{6}},
	{name: "sis_9_8_rate2_33x16", rate: 2, n: 16, maxRows: 40, logDegree: 9, logBound: 8, sis: true, rows: 33, sisDigests: true},
	{name: "sis_9_16_rate4_constants_6x32", rate: 4, n: 32, maxRows: 8, logDegree: 9, logBound: 16, sis: true, rows: 6, constants: []int{0, 1, 2, 3, 4, 5}, encoded: true},
	{name: "nosis_rate2_16x64", rate: 2, n: 64, maxRows: 16, logDegree: 9, logBound: 16, rows: 16, constants: []int{5}, encoded: true},
	{name: "nosis_rate4_13x32", rate: 4, n: 32, maxRows: 16, logDegree: 9, logBound: 16, rows: 13, constants: []int{0, 12}},
	{name: "nosis_rate8_3x64", rate: 8, n: 64, maxRows: 4, logDegree: 9, logBound: 16, rows: 3},
	{name: "nosis_rate16_5x16", rate: 16, n: 16, maxRows: 5, logDegree: 9, logBound: 16, rows: 5, constants: []int{1, 3}, encoded: true},
	{name: "nosis_rate16_24x32", rate: 16, n: 32, maxRows: 24, logDegree: 9, logBound: 16, rows: 24, constants: []int{8}},
	{name: "nosis_rate2_1x2", rate: 2, n: 2, maxRows: 1, logDegree: 9, logBound: 16, rows: 1, encoded: true},
	{name: "nosis_rate2_8x4", rate: 2, n: 4, maxRows: 8, logDegree: 9, logBound: 16, rows: 8, encoded: true},
	{name: "nosis_rate2_21x256", rate: 2, n: 256, maxRows: 21, logDegree: 9, logBound: 16, rows: 21, constants: []int{20}},
	{name: "nosis_rate4_constants_9x16", rate: 4, n: 16, maxRows: 9, logDegree: 9, logBound: 16, rows: 9, constants: []int{0, 1, 2, 3, 4, 5, 6, 7, 8}, encoded: true},
}

var roundCases = []roundCase{
	{name: "round_rate2_sis_9_16_mixed", rate: 2, n: 64, maxRows: 32, logDegree: 9, logBound: 16, entries: 8, matrices: []matrixCase{
		{sis: true, rows: 16, constants: []int{2, 9}}, {sis: false, rows: 13, constants: []int{0}}, {sis: true, rows: 5}, {sis: false, rows: 8},
	}},
	{name: "round_rate16_sis_9_16_mixed", rate: 16, n: 16, maxRows: 12, logDegree: 9, logBound: 16, entries: 6, matrices: []matrixCase{
		{sis: false, rows: 7, constants: []int{6}}, {sis: true, rows: 9, constants: []int{1}},
	}},
	{name: "round_rate4_sis_8_16", rate: 4, n: 32, maxRows: 16, logDegree: 8, logBound: 16, entries: 5, matrices: []matrixCase{
		{sis: true, rows: 11}, {sis: true, rows: 16, constants: []int{15}}, {sis: false, rows: 3},
	}},
	{name: "round_rate8_sis_9_8_nosis", rate: 8, n: 16, maxRows: 9, logDegree: 9, logBound: 8, entries: 4, matrices: []matrixCase{
		{sis: false, rows: 9, constants: []int{4}},
	}},
	{name: "round_rate2_sis_9_8_one", rate: 2, n: 32, maxRows: 6, logDegree: 9, logBound: 8, entries: 3, matrices: []matrixCase{
		{sis: true, rows: 6, constants: []int{0}},
	}},
}

// file is one vector file: its name and its fields in order.
type file struct {
	name   string
	fields []field_
}

type field_ struct {
	key   string
	value any
}

type header struct {
	LineaMonorepo string `json:"linea_monorepo"`
	Gnark         string `json:"gnark"`
	GnarkCrypto   string `json:"gnark_crypto"`
	Generator     string `json:"generator"`
}

type row struct {
	Values   []uint32 `json:"values,omitempty"`
	Constant *uint32  `json:"constant,omitempty"`
}

type merkleProof struct {
	Path     int         `json:"path"`
	Siblings [][8]uint32 `json:"siblings"`
}

type matrixOut struct {
	SIS  bool      `json:"sis"`
	Rows []row     `json:"rows"`
	Root [8]uint32 `json:"root"`
}

func gnarkCryptoVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/consensys/gnark-crypto" {
				if d.Replace != nil {
					return d.Replace.Version
				}
				return d.Version
			}
		}
	}
	return "unknown"
}

func newHeader() header {
	return header{
		LineaMonorepo: lineaCommit,
		Gnark:         gnarkCommit,
		GnarkCrypto:   gnarkCryptoVersion(),
		Generator:     "tools/lineagen",
	}
}

func rngFor(name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(h.Sum64(), 0x6c696e6561))
}

func randElement(r *rand.Rand) field.Element {
	var e field.Element
	e.SetUint64(uint64(r.Uint32N(modulus)))
	return e
}

func randE4(r *rand.Rand) fext.Element {
	return fext.Element{
		B0: extensions.E2{A0: randElement(r), A1: randElement(r)},
		B1: extensions.E2{A0: randElement(r), A1: randElement(r)},
	}
}

func u32(e field.Element) uint32 { return uint32(e.Uint64()) }

func u32s(v []field.Element) []uint32 {
	out := make([]uint32, len(v))
	for i := range v {
		out[i] = u32(v[i])
	}
	return out
}

func oct(o field.Octuplet) [8]uint32 {
	var out [8]uint32
	for i := range o {
		out[i] = u32(o[i])
	}
	return out
}

func octs(v []field.Octuplet) [][8]uint32 {
	out := make([][8]uint32, len(v))
	for i := range v {
		out[i] = oct(v[i])
	}
	return out
}

func e4(e fext.Element) [4]uint32 {
	return [4]uint32{u32(e.B0.A0), u32(e.B0.A1), u32(e.B1.A0), u32(e.B1.A1)}
}

func e4s(v []fext.Element) [][4]uint32 {
	out := make([][4]uint32, len(v))
	for i := range v {
		out[i] = e4(v[i])
	}
	return out
}

// makeRows draws a matrix's rows: random, or constants at the given indices.
func makeRows(r *rand.Rand, rows, n int, constants []int) ([]smartvectors.SmartVector, []row) {
	svs := make([]smartvectors.SmartVector, rows)
	out := make([]row, rows)
	for i := range rows {
		if slices.Contains(constants, i) {
			c := randElement(r)
			svs[i] = smartvectors.NewConstant(c, n)
			v := u32(c)
			out[i] = row{Constant: &v}
			continue
		}
		v := make([]field.Element, n)
		for j := range v {
			v[j] = randElement(r)
		}
		svs[i] = smartvectors.NewRegular(v)
		out[i] = row{Values: u32s(v)}
	}
	return svs, out
}

// treeLevels returns the tree's levels above the leaves, leaf side first,
// the root's level last.
func treeLevels(t *smt_koalabear.Tree) [][][8]uint32 {
	var out [][][8]uint32
	for _, l := range t.OccupiedNodes {
		out = append(out, octs(l))
	}
	return append(out, [][8]uint32{oct(t.Root)})
}

func params(rate, n, maxRows, logDegree, logBound int) vortex_koalabear.Params {
	return vortex_koalabear.NewParams(rate, n, maxRows, logDegree, logBound)
}

func commitFile(c commitCase) (file, error) {
	r := rngFor(c.name)
	p := params(c.rate, c.n, c.maxRows, c.logDegree, c.logBound)
	svs, rows := makeRows(r, c.rows, c.n, c.constants)
	var (
		enc       vortex_koalabear.EncodedMatrix
		root      vortex_koalabear.Commitment
		tree      *smt_koalabear.Tree
		colHashes []field.Element
	)
	if c.sis {
		enc, root, tree, colHashes = p.CommitMerkleWithSIS(svs)
	} else {
		enc, root, tree, colHashes = p.CommitMerkleWithoutSIS(svs)
	}
	m := c.n * c.rate
	if len(tree.OccupiedLeaves) != m {
		return file{}, fmt.Errorf("%s: %d leaves, want %d", c.name, len(tree.OccupiedLeaves), m)
	}
	if !c.sis && !slices.Equal(colHashes, flatten(tree.OccupiedLeaves)) {
		return file{}, fmt.Errorf("%s: the column hashes are not the leaves", c.name)
	}
	f := file{name: "commit_" + c.name + ".json"}
	f.add("header", newHeader())
	f.add("kind", "commit")
	f.add("rate", c.rate)
	f.add("num_columns", c.n)
	f.add("max_rows", c.maxRows)
	f.add("sis_log_degree", c.logDegree)
	f.add("sis_log_bound", c.logBound)
	f.add("sis", c.sis)
	f.add("rows", rows)
	f.add("root", oct(root))
	f.add("column_hashes", octs(tree.OccupiedLeaves))
	f.add("tree", treeLevels(tree))
	if c.sis && c.sisDigests {
		d := p.Key.OutputSize()
		if len(colHashes) != m*d {
			return file{}, fmt.Errorf("%s: %d SIS digest elements, want %d", c.name, len(colHashes), m*d)
		}
		digests := make([][]uint32, m)
		for j := range digests {
			digests[j] = u32s(colHashes[j*d : (j+1)*d])
		}
		f.add("sis_digests", digests)
	}
	if c.encoded {
		e := make([][]uint32, len(enc))
		for i := range enc {
			v := make([]field.Element, enc[i].Len())
			enc[i].WriteInSlice(v)
			e[i] = u32s(v)
		}
		f.add("encoded", e)
	}
	return f, nil
}

func flatten(v []field.Octuplet) []field.Element {
	out := make([]field.Element, 0, 8*len(v))
	for i := range v {
		out = append(out, v[i][:]...)
	}
	return out
}

// statement is what Verify checks a proof against.
type statement struct {
	x, alpha fext.Element
	ys       [][]fext.Element
	entries  []int
	roots    []vortex_koalabear.Commitment
	withSIS  []bool
}

func verify(p *vortex_koalabear.Params, proof *vortex.OpeningProof, mp [][]smt_koalabear.Proof, s statement) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	vi := &vortex.VerifierInput{Alpha: s.alpha, X: s.x, Ys: s.ys, EntryList: s.entries}
	return vortex_koalabear.Verify(p, proof, vi, s.roots, mp, s.withSIS)
}

// clone deep-copies a proof, its Merkle proofs and its statement so that a
// tampered copy leaves the original intact.
func clone(proof *vortex.OpeningProof, mp [][]smt_koalabear.Proof, s statement) (*vortex.OpeningProof, [][]smt_koalabear.Proof, statement) {
	lc := make([]fext.Element, proof.LinearCombination.Len())
	proof.LinearCombination.WriteInSliceExt(lc)
	cols := make([][][]field.Element, len(proof.Columns))
	for i := range cols {
		cols[i] = make([][]field.Element, len(proof.Columns[i]))
		for j := range cols[i] {
			cols[i][j] = slices.Clone(proof.Columns[i][j])
		}
	}
	p2 := &vortex.OpeningProof{Columns: cols, LinearCombination: smartvectors.NewRegularExt(lc)}
	mp2 := make([][]smt_koalabear.Proof, len(mp))
	for i := range mp {
		mp2[i] = make([]smt_koalabear.Proof, len(mp[i]))
		for j := range mp[i] {
			mp2[i][j] = smt_koalabear.Proof{Path: mp[i][j].Path, Siblings: slices.Clone(mp[i][j].Siblings)}
		}
	}
	ys := make([][]fext.Element, len(s.ys))
	for i := range ys {
		ys[i] = slices.Clone(s.ys[i])
	}
	s2 := statement{x: s.x, alpha: s.alpha, ys: ys, entries: slices.Clone(s.entries), roots: slices.Clone(s.roots), withSIS: slices.Clone(s.withSIS)}
	return p2, mp2, s2
}

var one = func() field.Element { var e field.Element; e.SetOne(); return e }()

// tampers are the changes to a valid proof or statement that Verify must
// reject; the tests of the wgcompute module apply the same ones by name.
var tampers = []struct {
	name  string
	apply func(p *vortex.OpeningProof, mp [][]smt_koalabear.Proof, s *statement)
}{
	{"column", func(p *vortex.OpeningProof, _ [][]smt_koalabear.Proof, _ *statement) {
		p.Columns[0][0][0].Add(&p.Columns[0][0][0], &one)
	}},
	{"column_last", func(p *vortex.OpeningProof, _ [][]smt_koalabear.Proof, _ *statement) {
		m := p.Columns[len(p.Columns)-1]
		c := m[len(m)-1]
		c[len(c)-1].Add(&c[len(c)-1], &one)
	}},
	{"sibling", func(_ *vortex.OpeningProof, mp [][]smt_koalabear.Proof, _ *statement) {
		mp[0][0].Siblings[0][0].Add(&mp[0][0].Siblings[0][0], &one)
	}},
	{"sibling_top", func(_ *vortex.OpeningProof, mp [][]smt_koalabear.Proof, _ *statement) {
		q := &mp[len(mp)-1][0]
		s := &q.Siblings[len(q.Siblings)-1]
		s[7].Add(&s[7], &one)
	}},
	{"path", func(_ *vortex.OpeningProof, mp [][]smt_koalabear.Proof, _ *statement) {
		mp[0][0].Path ^= 1
	}},
	{"alpha", func(_ *vortex.OpeningProof, _ [][]smt_koalabear.Proof, s *statement) {
		s.alpha.B1.A1.Add(&s.alpha.B1.A1, &one)
	}},
	{"root", func(_ *vortex.OpeningProof, _ [][]smt_koalabear.Proof, s *statement) {
		s.roots[len(s.roots)-1][3].Add(&s.roots[len(s.roots)-1][3], &one)
	}},
	{"lincomb", func(p *vortex.OpeningProof, _ [][]smt_koalabear.Proof, s *statement) {
		lc := p.LinearCombination.(*smartvectors.RegularExt)
		(*lc)[s.entries[0]].B0.A0.Add(&(*lc)[s.entries[0]].B0.A0, &one)
	}},
	// A constant is a codeword: this passes the low-degree check and must
	// fail the statement's and the columns' checks.
	{"lincomb_shift", func(p *vortex.OpeningProof, _ [][]smt_koalabear.Proof, _ *statement) {
		lc := p.LinearCombination.(*smartvectors.RegularExt)
		for i := range *lc {
			(*lc)[i].B0.A0.Add(&(*lc)[i].B0.A0, &one)
		}
	}},
	{"y", func(_ *vortex.OpeningProof, _ [][]smt_koalabear.Proof, s *statement) {
		s.ys[0][0].B0.A1.Add(&s.ys[0][0].B0.A1, &one)
	}},
	{"x", func(_ *vortex.OpeningProof, _ [][]smt_koalabear.Proof, s *statement) {
		s.x.B0.A0.Add(&s.x.B0.A0, &one)
	}},
	{"sis_flag", func(_ *vortex.OpeningProof, _ [][]smt_koalabear.Proof, s *statement) {
		s.withSIS[0] = !s.withSIS[0]
	}},
}

func roundFile(c roundCase) (file, error) {
	r := rngFor(c.name)
	p := params(c.rate, c.n, c.maxRows, c.logDegree, c.logBound)
	x, alpha := randE4(r), randE4(r)
	m := c.n * c.rate
	entries := make([]int, c.entries)
	for i := range entries {
		entries[i] = r.IntN(m)
	}
	var (
		encs  []vortex_koalabear.EncodedMatrix
		trees []*smt_koalabear.Tree
		mats  []matrixOut
		s     = statement{x: x, alpha: alpha, entries: entries}
		ysOut [][][4]uint32
	)
	for _, mc := range c.matrices {
		svs, rows := makeRows(r, mc.rows, c.n, mc.constants)
		var (
			enc  vortex_koalabear.EncodedMatrix
			root vortex_koalabear.Commitment
			tree *smt_koalabear.Tree
		)
		if mc.sis {
			enc, root, tree, _ = p.CommitMerkleWithSIS(svs)
		} else {
			enc, root, tree, _ = p.CommitMerkleWithoutSIS(svs)
		}
		encs, trees = append(encs, enc), append(trees, tree)
		s.roots, s.withSIS = append(s.roots, root), append(s.withSIS, mc.sis)
		ys := make([]fext.Element, len(svs))
		for i := range svs {
			ys[i] = smartvectors.EvaluateBasePolyLagrange(svs[i], x)
		}
		s.ys = append(s.ys, ys)
		ysOut = append(ysOut, e4s(ys))
		mats = append(mats, matrixOut{SIS: mc.sis, Rows: rows, Root: oct(root)})
	}
	proof, mp := vortex_koalabear.Prove(entries, encs, trees, alpha)
	if err := verify(&p, proof, mp, s); err != nil {
		return file{}, fmt.Errorf("%s: Linea's Verify rejects Linea's proof: %w", c.name, err)
	}
	var rejected []string
	for _, t := range tampers {
		p2, mp2, s2 := clone(proof, mp, s)
		t.apply(p2, mp2, &s2)
		if err := verify(&p, p2, mp2, s2); err == nil {
			return file{}, fmt.Errorf("%s: Linea's Verify accepts the proof tampered by %q", c.name, t.name)
		}
		rejected = append(rejected, t.name)
		// The tampered copy must not have touched the original.
		if err := verify(&p, proof, mp, s); err != nil {
			return file{}, fmt.Errorf("%s: tampering %q changed the original proof", c.name, t.name)
		}
	}
	lc := make([]fext.Element, proof.LinearCombination.Len())
	proof.LinearCombination.WriteInSliceExt(lc)
	cols := make([][][]uint32, len(proof.Columns))
	for i := range cols {
		cols[i] = make([][]uint32, len(proof.Columns[i]))
		for j := range cols[i] {
			cols[i][j] = u32s(proof.Columns[i][j])
		}
	}
	mpOut := make([][]merkleProof, len(mp))
	for i := range mp {
		mpOut[i] = make([]merkleProof, len(mp[i]))
		for j := range mp[i] {
			sib := make([][8]uint32, len(mp[i][j].Siblings))
			for k, sb := range mp[i][j].Siblings {
				sib[k] = oct(field.Octuplet(sb))
			}
			mpOut[i][j] = merkleProof{Path: mp[i][j].Path, Siblings: sib}
		}
	}
	f := file{name: c.name + ".json"}
	f.add("header", newHeader())
	f.add("kind", "round")
	f.add("rate", c.rate)
	f.add("num_columns", c.n)
	f.add("max_rows", c.maxRows)
	f.add("sis_log_degree", c.logDegree)
	f.add("sis_log_bound", c.logBound)
	f.add("matrices", mats)
	f.add("alpha", e4(alpha))
	f.add("x", e4(x))
	f.add("ys", ysOut)
	f.add("entries", entries)
	f.add("lincomb", e4s(lc))
	f.add("columns", cols)
	f.add("merkle_proofs", mpOut)
	f.add("rejected", rejected)
	return f, nil
}

func (f *file) add(key string, value any) { f.fields = append(f.fields, field_{key, value}) }

// encode writes the file's fields in order, one a line.
func (f file) encode() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, fl := range f.fields {
		v, err := json.Marshal(fl.value)
		if err != nil {
			return nil, err
		}
		k, _ := json.Marshal(fl.key)
		fmt.Fprintf(&b, "  %s: %s", k, v)
		if i < len(f.fields)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return b.Bytes(), nil
}

func generate() ([]file, error) {
	var files []file
	for _, c := range commitCases {
		f, err := commitFile(c)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	for _, c := range roundCases {
		f, err := roundFile(c)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

func write(dir string, files []file) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		b, err := f.encode()
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// compare recomputes every file and compares it with the one in dir, all
// but the header's gnark_crypto (the version the file was written with):
// that is how the vectors are checked against another gnark-crypto.
func compare(dir string, files []file) error {
	var errs []error
	want := map[string]bool{}
	for _, f := range files {
		want[f.name] = true
		b, err := f.encode()
		if err != nil {
			return err
		}
		old, err := os.ReadFile(filepath.Join(dir, f.name))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var a, o map[string]any
		if err := json.Unmarshal(b, &a); err != nil {
			return err
		}
		if err := json.Unmarshal(old, &o); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f.name, err))
			continue
		}
		for _, m := range []map[string]any{a, o} {
			if h, ok := m["header"].(map[string]any); ok {
				delete(h, "gnark_crypto")
			}
		}
		if !reflect.DeepEqual(a, o) {
			var diff []string
			for k := range a {
				if !reflect.DeepEqual(a[k], o[k]) {
					diff = append(diff, k)
				}
			}
			sort.Strings(diff)
			errs = append(errs, fmt.Errorf("%s differs in %v", f.name, diff))
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if filepath.Ext(e.Name()) == ".json" && !want[e.Name()] {
			errs = append(errs, fmt.Errorf("%s: not written by this generator", e.Name()))
		}
	}
	return errors.Join(errs...)
}
