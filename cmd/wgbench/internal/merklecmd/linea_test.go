package merklecmd

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/field/koalabear"
	fext "github.com/consensys/gnark-crypto/field/koalabear/extensions"
	gvortex "github.com/consensys/gnark-crypto/field/koalabear/vortex"
	"github.com/stretchr/testify/require"

	"github.com/wgcompute/wgcompute/algos/vortex"
	"github.com/wgcompute/wgcompute/internal/lineavec"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// lineaVectors are the vectors Linea's own code wrote (tools/lineagen).
const lineaVectors = "../../../../testdata/linea"

// lineaVectorRow and lineaVector are a vector's row and file
// (internal/lineavec).
type (
	lineaVectorRow = lineavec.Row
	lineaVector    = lineavec.Vector
)

func readLineaVector(t *testing.T, name string) *lineaVector {
	t.Helper()
	v, err := lineavec.Parse(mustRead(t, filepath.Join(lineaVectors, name)))
	require.NoError(t, err, name)
	return v
}

// lineaVectorNames are the vectors of kind, by file name.
func lineaVectorNames(t *testing.T, kind string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(lineaVectors, kind+"_*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, names, "no %s vectors in %s", kind, lineaVectors)
	for i := range names {
		names[i] = filepath.Base(names[i])
	}
	return names
}

// rowValues returns the row's cols values, a constant's repeated.
func rowValues(r lineaVectorRow, cols int) []uint32 {
	if r.Constant == nil {
		return r.Values
	}
	v := make([]uint32, cols)
	for j := range v {
		v[j] = *r.Constant
	}
	return v
}

// writeLineaMatrix writes rows as commit reads them (canonical
// little-endian uint32, row after row) and returns the file and its
// --matrix shape.
func writeLineaMatrix(t *testing.T, rows []lineaVectorRow, cols int) (path, shape string) {
	t.Helper()
	raw := make([]byte, 0, 4*len(rows)*cols)
	for _, r := range rows {
		v := rowValues(r, cols)
		require.Len(t, v, cols)
		for _, x := range v {
			raw = binary.LittleEndian.AppendUint32(raw, x)
		}
	}
	f, err := os.CreateTemp(t.TempDir(), "m*.bin")
	require.NoError(t, err)
	_, err = f.Write(raw)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	return f.Name(), fmt.Sprintf("%dx%d", len(rows), cols)
}

var (
	koalaOf = lineavec.Elt
	hashOf  = lineavec.Hash
	e4Of    = lineavec.E4
)

// libraryRows returns the vector's rows as the library takes them.
func libraryRows(rs []lineaVectorRow) []vortex.LineaRow {
	out := make([]vortex.LineaRow, len(rs))
	for i, r := range rs {
		if r.Constant != nil {
			out[i] = vortex.LineaConstant(koalaOf(*r.Constant))
			continue
		}
		v := make([]koalabear.Element, len(r.Values))
		for j := range v {
			v[j] = koalaOf(r.Values[j])
		}
		out[i] = vortex.LineaValues(v)
	}
	return out
}

// libraryLineaRoot commits rows with the library on the CPU.
func libraryLineaRoot(t *testing.T, rate, cols, maxRows, deg, bound int, rows []lineaVectorRow, noSIS bool) string {
	t.Helper()
	p, err := vortex.NewLineaParams(rate, cols, maxRows, deg, bound)
	require.NoError(t, err)
	c, err := vortex.NewLineaCommitter(nil, p)
	require.NoError(t, err)
	defer c.Release()
	st, err := c.Commit(libraryRows(rows), vortex.LineaOptions{NoSIS: noSIS})
	require.NoError(t, err)
	defer st.Release()
	return rootHex(st.Root())
}

// hexOf is a root of a vector as commit prints it.
func hexOf(root [8]uint32) string { return rootHex(hashOf(root)) }

// lineaBackends are the backends the CLI tests run on: the CPU and every
// GPU backend tested here.
func lineaBackends() []string { return append([]string{"cpu"}, gputest.Backends()...) }

// TestCommitLineaCLI holds commit --scheme linea's root to Linea's
// vectors (the rows written to a file, constants spread over their row)
// and to the library's CPU path: every commit vector on the CPU, some on
// each GPU backend.
func TestCommitLineaCLI(t *testing.T) {
	onGPU := []string{"commit_sis_9_16_rate4_constants_6x32.json", "commit_nosis_rate16_5x16.json", "commit_sis_9_8_rate2_33x16.json", "commit_nosis_rate4_constants_9x16.json"}
	for _, name := range lineaVectorNames(t, "commit") {
		v := readLineaVector(t, name)
		want := hexOf(v.Root)
		require.Equal(t, want, libraryLineaRoot(t, v.Rate, v.NumColumns, v.MaxRows, v.SISLogDegree, v.SISLogBound, v.Rows, !v.SIS), name)
		in, shape := writeLineaMatrix(t, v.Rows, v.NumColumns)
		args := []string{"commit", "--scheme", "linea", "--rate", strconv.Itoa(v.Rate), "--sis", fmt.Sprintf("%d,%d", v.SISLogDegree, v.SISLogBound),
			"--matrix", shape, "--in", in, "--max-rows", strconv.Itoa(v.MaxRows)}
		if !v.SIS {
			args = append(args, "--no-sis")
		}
		backends := []string{"cpu"}
		if slices.Contains(onGPU, name) {
			backends = lineaBackends()
		}
		for _, b := range backends {
			stdout, _, err := wgbench(t, append(args, "--backend", b)...)
			require.NoError(t, err, "%s on %s", name, b)
			require.Equal(t, want+"\n", stdout, "%s on %s", name, b)
		}
	}
}

// TestCommitLineaCLIRandom commits a random matrix (a constant row among
// its rows) with SIS and without, --max-rows left to its default, and
// holds the root to the library's on the CPU.
func TestCommitLineaCLIRandom(t *testing.T) {
	const rows, cols = 11, 64
	r := rand.New(rand.NewPCG(3, 40))
	vrows := make([]lineaVectorRow, rows)
	for i := range vrows {
		if i == 4 {
			c := r.Uint32N(2130706433)
			vrows[i].Constant = &c
			continue
		}
		vrows[i].Values = make([]uint32, cols)
		for j := range vrows[i].Values {
			vrows[i].Values[j] = r.Uint32N(2130706433)
		}
	}
	in, shape := writeLineaMatrix(t, vrows, cols)
	for _, noSIS := range []bool{false, true} {
		want := libraryLineaRoot(t, 4, cols, rows, 8, 16, vrows, noSIS)
		args := []string{"commit", "--scheme", "linea", "--rate", "4", "--sis", "8,16", "--matrix", shape, "--in", in}
		if noSIS {
			args = append(args, "--no-sis")
		}
		for _, b := range lineaBackends() {
			stdout, _, err := wgbench(t, append(args, "--backend", b)...)
			require.NoError(t, err, b)
			require.Equal(t, want+"\n", stdout, "no SIS %v on %s", noSIS, b)
		}
	}
	// --max-rows fixes the key: a larger one is another commitment's
	// parameters, which the library gives alike.
	stdout, _, err := wgbench(t, "commit", "--backend", "cpu", "--scheme", "linea", "--rate", "4", "--sis", "8,16", "--matrix", shape, "--in", in, "--max-rows", "40")
	require.NoError(t, err)
	require.Equal(t, libraryLineaRoot(t, 4, cols, 40, 8, 16, vrows, false)+"\n", stdout)
}

// TestCommitLineaCLIErrors checks commit --scheme linea's refusals.
func TestCommitLineaCLIErrors(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "m.bin")
	require.NoError(t, os.WriteFile(in, make([]byte, 4*3*16), 0o644))
	bad := filepath.Join(dir, "bad.bin")
	raw := make([]byte, 4*3*16)
	binary.LittleEndian.PutUint32(raw[4*17:], 2130706433)
	require.NoError(t, os.WriteFile(bad, raw, 0o644))
	base := []string{"commit", "--backend", "cpu", "--scheme", "linea", "--in", in}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--matrix", "3x16", "--rate", "3"}, "rate 3"},
		{[]string{"--matrix", "3x16", "--rate", "0"}, "rate 0"},
		{[]string{"--matrix", "1x48"}, "48 columns"},
		{[]string{"--matrix", "4x16"}, "has 192 bytes: a 4x16 matrix"},
		{[]string{"--matrix", "3x16", "--sis", "9"}, `--sis "9"`},
		{[]string{"--matrix", "3x16", "--sis", "9,12"}, "SIS log2 bound 12"},
		{[]string{"--matrix", "3x16", "--max-rows", "2"}, "exceeds --max-rows 2"},
		{[]string{"--matrix", "3x16", "--max-rows", "0"}, "--max-rows 0"},
		{[]string{"--matrix", "3x16", "--records", "4"}, "not --records"},
		{[]string{"--matrix", "3x16", "--out", filepath.Join(dir, "o")}, "not --out"},
		{[]string{"--matrix", "3x16", "--matrix", "3x16", "--in", in}, "one --matrix"},
	} {
		requireInputError(t, append(slices.Clone(base), c.args...), c.want)
	}
	requireInputError(t, []string{"commit", "--backend", "cpu", "--scheme", "linea", "--in", bad, "--matrix", "3x16"}, "element (1, 1) is 2130706433")
	requireInputError(t, []string{"commit", "--backend", "cpu", "--scheme", "lina", "--in", in, "--matrix", "3x16"}, `--scheme "lina"`, "linea")
	requireInputError(t, []string{"commit", "--backend", "cpu", "--scheme", "vortex", "--in", in, "--matrix", "3x16", "--no-sis"}, "--no-sis is a flag of --scheme linea")
	requireInputError(t, []string{"commit", "--backend", "cpu", "--in", in, "--matrix", "3x16", "--max-rows", "4"}, "--max-rows is a flag of --scheme linea")
}

// openArgsOf returns open's arguments for the round vector v, its
// matrices written to files.
func openArgsOf(t *testing.T, v *lineaVector, out string) []string {
	t.Helper()
	args := []string{"open", "--scheme", "linea", "--rate", strconv.Itoa(v.Rate), "--sis", fmt.Sprintf("%d,%d", v.SISLogDegree, v.SISLogBound),
		"--max-rows", strconv.Itoa(v.MaxRows), "--out", out}
	var noSIS, entries []string
	for i, m := range v.Matrices {
		in, shape := writeLineaMatrix(t, m.Rows, v.NumColumns)
		args = append(args, "--matrix", shape, "--in", in)
		if !m.SIS {
			noSIS = append(noSIS, strconv.Itoa(i))
		}
	}
	if len(noSIS) > 0 {
		args = append(args, "--no-sis-for", strings.Join(noSIS, ","))
	}
	for _, e := range v.Entries {
		entries = append(entries, strconv.Itoa(e))
	}
	alpha := make([]string, 4)
	for i, a := range v.Alpha {
		alpha[i] = strconv.FormatUint(uint64(a), 10)
	}
	return append(args, "--entries", strings.Join(entries, ","), "--alpha", strings.Join(alpha, ","))
}

// proofOf is the library's proof and statement of open's JSON, the ys
// computed from the matrices at x.
func proofOf(t *testing.T, j *lineaProofJSON) (*vortex.LineaProof, []vortex.Hash, fext.E4) {
	t.Helper()
	pr := &vortex.LineaProof{}
	for _, e := range j.LinComb {
		pr.LinComb = append(pr.LinComb, e4Of(e))
	}
	for i := range j.Columns {
		var cols [][]koalabear.Element
		for _, col := range j.Columns[i] {
			c := make([]koalabear.Element, len(col))
			for k := range col {
				c[k] = koalaOf(col[k])
			}
			cols = append(cols, c)
		}
		pr.Columns = append(pr.Columns, cols)
	}
	for i := range j.Siblings {
		var mps []vortex.LineaMerkleProof
		for k, sibs := range j.Siblings[i] {
			mp := vortex.LineaMerkleProof{Path: -1}
			if k < len(j.Entries) {
				mp.Path = j.Entries[k]
			}
			for _, s := range sibs {
				mp.Siblings = append(mp.Siblings, hashOf(s))
			}
			mps = append(mps, mp)
		}
		pr.MerkleProofs = append(pr.MerkleProofs, mps)
	}
	var roots []vortex.Hash
	for _, r := range j.Roots {
		roots = append(roots, hashOf(r))
	}
	return pr, roots, e4Of(j.Alpha)
}

// verifyOpenJSON checks open's JSON with vortex.VerifyLinea, the
// statement (ys at x) computed from the vector's matrices.
func verifyOpenJSON(t *testing.T, v *lineaVector, j *lineaProofJSON) error {
	t.Helper()
	p, err := vortex.NewLineaParams(v.Rate, v.NumColumns, v.MaxRows, v.SISLogDegree, v.SISLogBound)
	require.NoError(t, err)
	x := e4Of(v.X)
	ys := make([][]fext.E4, len(v.Matrices))
	for i, m := range v.Matrices {
		for _, r := range m.Rows {
			vals := rowValues(r, v.NumColumns)
			row := make([]koalabear.Element, len(vals))
			for k := range vals {
				row[k] = koalaOf(vals[k])
			}
			y, err := gvortex.EvalBasePolyLagrange(row, x)
			require.NoError(t, err)
			ys[i] = append(ys[i], y)
		}
	}
	pr, roots, alpha := proofOf(t, j)
	return vortex.VerifyLinea(p, pr, x, ys, alpha, j.Entries, roots, j.SIS)
}

// TestOpenLineaCLI opens every round vector's matrices with open on each
// backend: its JSON is Linea's proof value for value (and encoding/json's
// bytes), passes vortex.VerifyLinea, and fails it with any value
// tampered.
func TestOpenLineaCLI(t *testing.T) {
	for _, name := range lineaVectorNames(t, "round") {
		v := readLineaVector(t, name)
		for _, b := range lineaBackends() {
			out := filepath.Join(t.TempDir(), "proof.json")
			args := openArgsOf(t, v, out)
			_, _, err := wgbench(t, append(args, "--backend", b)...)
			require.NoError(t, err, "%s on %s", name, b)
			raw := mustRead(t, out)
			var j lineaProofJSON
			require.NoError(t, json.Unmarshal(raw, &j), "%s on %s", name, b)
			again, err := json.Marshal(&j)
			require.NoError(t, err)
			require.Equal(t, string(again)+"\n", string(raw), "%s on %s: not encoding/json's bytes", name, b)

			for i, m := range v.Matrices {
				require.Equal(t, m.Root, j.Roots[i], "%s on %s: root %d", name, b, i)
				require.Equal(t, m.SIS, j.SIS[i], "%s on %s: SIS flag %d", name, b, i)
			}
			require.Len(t, j.Roots, len(v.Matrices))
			require.Equal(t, v.Alpha, j.Alpha)
			require.Equal(t, v.Entries, j.Entries)
			require.Equal(t, v.LinComb, j.LinComb, "%s on %s: lincomb", name, b)
			require.Equal(t, v.Columns, j.Columns, "%s on %s: columns", name, b)
			require.Len(t, j.Siblings, len(v.MerkleProofs))
			for i := range v.MerkleProofs {
				require.Len(t, j.Siblings[i], len(v.MerkleProofs[i]))
				for k, mp := range v.MerkleProofs[i] {
					require.Equal(t, v.Entries[k], mp.Path)
					require.Equal(t, mp.Siblings, j.Siblings[i][k], "%s on %s: siblings of matrix %d, entry %d", name, b, i, k)
				}
			}
			require.NoError(t, verifyOpenJSON(t, v, &j), "%s on %s", name, b)
			if b != "cpu" {
				continue
			}
			// Standard output gets the same bytes.
			stdout, _, err := wgbench(t, append(openArgsOf(t, v, "-"), "--backend", b)...)
			require.NoError(t, err)
			require.Equal(t, string(raw), stdout, name)
			for what, tamper := range lineaJSONTampers {
				var j2 lineaProofJSON
				require.NoError(t, json.Unmarshal(raw, &j2))
				tamper(&j2)
				require.Error(t, verifyOpenJSON(t, v, &j2), "%s: VerifyLinea accepts the proof with its %s tampered", name, what)
			}
		}
	}
}

// bumpU32 adds 1 to a canonical value, mod p.
func bumpU32(x *uint32) { *x = (*x + 1) % 2130706433 }

// lineaJSONTampers change one value of open's JSON each.
var lineaJSONTampers = map[string]func(*lineaProofJSON){
	"root":             func(j *lineaProofJSON) { bumpU32(&j.Roots[len(j.Roots)-1][3]) },
	"sis flag":         func(j *lineaProofJSON) { j.SIS[0] = !j.SIS[0] },
	"alpha":            func(j *lineaProofJSON) { bumpU32(&j.Alpha[2]) },
	"entry":            func(j *lineaProofJSON) { j.Entries[0] ^= 1 },
	"lincomb":          func(j *lineaProofJSON) { bumpU32(&j.LinComb[len(j.LinComb)/2][1]) },
	"lincomb at entry": func(j *lineaProofJSON) { bumpU32(&j.LinComb[j.Entries[0]][0]) },
	"column":           func(j *lineaProofJSON) { bumpU32(&j.Columns[0][0][len(j.Columns[0][0])-1]) },
	"sibling":          func(j *lineaProofJSON) { bumpU32(&j.Siblings[0][len(j.Siblings[0])-1][0][7]) },
	"top sibling": func(j *lineaProofJSON) {
		s := j.Siblings[len(j.Siblings)-1][0]
		bumpU32(&s[len(s)-1][0])
	},
}

// TestOpenLineaCLIErrors checks open's refusals, each before anything is
// written.
func TestOpenLineaCLIErrors(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.bin")
	require.NoError(t, os.WriteFile(a, make([]byte, 4*3*16), 0o644))
	b := filepath.Join(dir, "b.bin")
	require.NoError(t, os.WriteFile(b, make([]byte, 4*2*32), 0o644))
	bad := filepath.Join(dir, "bad.bin")
	raw := make([]byte, 4*3*16)
	binary.LittleEndian.PutUint32(raw[4*40:], 0xffffffff)
	require.NoError(t, os.WriteFile(bad, raw, 0o644))
	out := filepath.Join(dir, "proof.json")
	base := func(extra ...string) []string {
		return append([]string{"open", "--backend", "cpu", "--rate", "2", "--out", out}, extra...)
	}
	ok := []string{"--scheme", "linea", "--matrix", "3x16", "--in", a}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--matrix", "3x16", "--in", a, "--entries", "1", "--alpha", "1,2,3,4"}, []string{"--scheme linea is required"}},
		{[]string{"--scheme", "vortex", "--matrix", "3x16", "--in", a, "--entries", "1", "--alpha", "1,2,3,4"}, []string{`--scheme "vortex"`, "accepted is linea"}},
		{append(slices.Clone(ok), "--entries", "32", "--alpha", "1,2,3,4"), []string{`"32" is not a codeword column`, "0 to 31"}},
		{append(slices.Clone(ok), "--entries", "-1", "--alpha", "1,2,3,4"), []string{`"-1" is not a codeword column`}},
		{append(slices.Clone(ok), "--alpha", "1,2,3,4"), []string{"--entries E1,E2,... is required"}},
		{append(slices.Clone(ok), "--entries", "1", "--alpha", "1,2,3,2130706433"), []string{"value 3", "not a canonical KoalaBear element"}},
		{append(slices.Clone(ok), "--entries", "1", "--alpha", "1,2,3"), []string{"four canonical KoalaBear values"}},
		{append(slices.Clone(ok), "--entries", "1"), []string{"--alpha"}},
		{append(slices.Clone(ok), "--matrix", "2x32", "--in", b, "--entries", "1", "--alpha", "1,2,3,4"), []string{"--matrix 2x32 has 32 columns, --matrix 3x16 16", "one column count"}},
		{append(slices.Clone(ok), "--matrix", "2x16", "--entries", "1", "--alpha", "1,2,3,4"), []string{"2 --matrix shapes and 1 --in files"}},
		{append(slices.Clone(ok), "--no-sis-for", "1", "--entries", "1", "--alpha", "1,2,3,4"), []string{`"1" is not a matrix`, "0 to 0"}},
		{append(slices.Clone(ok), "--no-sis-for", "0,0", "--entries", "1", "--alpha", "1,2,3,4"), []string{"names matrix 0 twice"}},
		{append(slices.Clone(ok), "--max-rows", "2", "--entries", "1", "--alpha", "1,2,3,4"), []string{"exceeds --max-rows 2"}},
		{append(slices.Clone(ok), "--sis", "9", "--entries", "1", "--alpha", "1,2,3,4"), []string{`open: --sis "9"`}},
		{[]string{"--scheme", "linea", "--matrix", "4x16", "--in", a, "--entries", "1", "--alpha", "1,2,3,4"}, []string{"has 192 bytes: a 4x16 matrix"}},
		{[]string{"--scheme", "linea", "--matrix", "3x16", "--in", bad, "--entries", "1", "--alpha", "1,2,3,4"}, []string{"element (2, 8) is 4294967295"}},
		{[]string{"--scheme", "linea", "--matrix", "3x12", "--in", a, "--entries", "1", "--alpha", "1,2,3,4"}, []string{"12 columns"}},
		{[]string{"--scheme", "linea", "--matrix", "3x16", "--in", a, "--rate", "6", "--entries", "1", "--alpha", "1,2,3,4"}, []string{"rate 6"}},
	} {
		requireInputError(t, base(c.args...), c.want...)
		_, err := os.Stat(out)
		require.True(t, os.IsNotExist(err), "%q left %s", c.args, out)
		requireNoTemp(t, dir)
	}
	requireInputError(t, []string{"open", "--backend", "cpu", "--scheme", "linea", "--matrix", "3x16", "--in", a, "--entries", "1", "--alpha", "1,2,3,4"}, "--out PROOF.json is required")
	requireInputError(t, []string{"open", "--backend", "cpu", "--scheme", "linea", "--matrix", "3x16", "--in", a, "--entries", "1", "--alpha", "1,2,3,4", "--out", filepath.Join(dir, "no", "p.json")}, "no/p.json")
	// The good call writes.
	_, _, err := wgbench(t, base(append(slices.Clone(ok), "--entries", "1,31", "--alpha", "1,2,3,4")...)...)
	require.NoError(t, err)
	var j lineaProofJSON
	require.NoError(t, json.Unmarshal(mustRead(t, out), &j))
	require.Len(t, j.LinComb, 32)
	require.Equal(t, []int{1, 31}, j.Entries)
}

// TestLineaStreamFollowsShape: a stream given as a matrix's file is read
// up to the shape's bytes and one more: an endless stream behind a small
// shape is refused at once (not after the host's input limit), and a
// short one behind a large shape is refused with the size it sent.
func TestLineaStreamFollowsShape(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, c := range []struct {
		stdin string
		args  []string
		want  []string
	}{
		{"", []string{"commit", "--backend", "cpu", "--scheme", "linea", "--matrix", "3x16", "--in", "/dev/zero"}, []string{"/dev/zero has more than 192 bytes: a 3x16 matrix"}},
		{"", []string{"open", "--backend", "cpu", "--scheme", "linea", "--rate", "2", "--matrix", "3x16", "--in", "/dev/zero", "--entries", "1", "--alpha", "1,2,3,4", "--out", "-"}, []string{"/dev/zero has more than 192 bytes: a 3x16 matrix"}},
	} {
		code, stdout, stderr := runCLI(c.stdin, c.args...)
		require.Equal(t, 2, code, "%q: %s", c.args, stderr)
		require.Empty(t, stdout)
		for _, w := range c.want {
			require.Contains(t, stderr, w, "%q", c.args)
		}
	}
	runtime.ReadMemStats(&after)
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(256<<20), "reading endless streams behind small shapes allocated more than the shapes")
	// A short stream behind a large shape is refused with its size.
	if runtime.GOOS == "linux" {
		r, w, err := os.Pipe()
		require.NoError(t, err)
		defer r.Close()
		go func() {
			w.Write(bytes.Repeat([]byte{1, 0, 0, 0}, 20))
			w.Close()
		}()
		in := fmt.Sprintf("/dev/fd/%d", r.Fd())
		code, _, stderr := runCLI("", "commit", "--backend", "cpu", "--scheme", "linea", "--matrix", "4000000x64", "--in", in)
		require.Equal(t, 2, code, stderr)
		require.Contains(t, stderr, "has 80 bytes: a 4000000x64 matrix")
	}
}

// TestLineaShapeMessage: a malformed --matrix of Linea's scheme is told
// what the scheme takes (any row count from 1), not the power-of-two rows
// of the Merkle commitment.
func TestLineaShapeMessage(t *testing.T) {
	for _, m := range []string{"0x32", "x32", "16x0"} {
		for _, args := range [][]string{
			{"commit", "--backend", "cpu", "--scheme", "linea", "--matrix", m, "--in", "-"},
			{"open", "--backend", "cpu", "--scheme", "linea", "--rate", "2", "--matrix", m, "--in", "-", "--entries", "1", "--alpha", "1,2,3,4", "--out", "-"},
		} {
			code, _, stderr := runCLI("", args...)
			require.Equal(t, 2, code, stderr)
			require.Contains(t, stderr, "1 row or more; columns a power of two", "%q", args)
			require.NotContains(t, stderr, "power of two, at least 2", "%q", args)
		}
	}
}
