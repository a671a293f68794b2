// Package lineavec reads the golden vectors that Linea's own code wrote
// (testdata/linea, written by tools/lineagen, whose README describes each
// field): the inputs and results of Linea's Vortex commitments and rounds,
// every value a canonical KoalaBear element. The library's tests, the
// self-test and the command's tests read them through it.
package lineavec

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/consensys/gnark-crypto/field/koalabear"
	fext "github.com/consensys/gnark-crypto/field/koalabear/extensions"
)

// Row is a row of a committed matrix: its values, or (where Constant is
// not nil) a constant standing for the whole row.
type Row struct {
	Values   []uint32 `json:"values"`
	Constant *uint32  `json:"constant"`
}

// Matrix is one of a round's commitments: its rows, whether it was
// committed with SIS, and its root.
type Matrix struct {
	SIS  bool      `json:"sis"`
	Rows []Row     `json:"rows"`
	Root [8]uint32 `json:"root"`
}

// MerkleProof is an opened leaf's proof (smt_koalabear.Proof): its
// position and its siblings, leaf level first.
type MerkleProof struct {
	Path     int         `json:"path"`
	Siblings [][8]uint32 `json:"siblings"`
}

// Vector is one file: a commitment (Kind "commit": the parameters, the
// rows, and the root, column hashes, tree levels above the leaves, and
// where written the SIS digests and the codewords) or a round (Kind
// "round": the matrices, the coins, the statement, and the proof: the
// linear combination, the opened columns [matrix][entry][row] and their
// Merkle proofs [matrix][entry], and the tamperings Linea's Verify
// rejected).
type Vector struct {
	Kind         string        `json:"kind"`
	Rate         int           `json:"rate"`
	NumColumns   int           `json:"num_columns"`
	MaxRows      int           `json:"max_rows"`
	SISLogDegree int           `json:"sis_log_degree"`
	SISLogBound  int           `json:"sis_log_bound"`
	SIS          bool          `json:"sis"`
	Rows         []Row         `json:"rows"`
	Root         [8]uint32     `json:"root"`
	ColumnHashes [][8]uint32   `json:"column_hashes"`
	Tree         [][][8]uint32 `json:"tree"`
	SISDigests   [][]uint32    `json:"sis_digests"`
	Encoded      [][]uint32    `json:"encoded"`

	Matrices     []Matrix        `json:"matrices"`
	Alpha        [4]uint32       `json:"alpha"`
	X            [4]uint32       `json:"x"`
	Ys           [][][4]uint32   `json:"ys"`
	Entries      []int           `json:"entries"`
	LinComb      [][4]uint32     `json:"lincomb"`
	Columns      [][][]uint32    `json:"columns"`
	MerkleProofs [][]MerkleProof `json:"merkle_proofs"`
	Rejected     []string        `json:"rejected"`
}

// Parse reads one vector file's bytes.
func Parse(b []byte) (*Vector, error) {
	var v Vector
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	if v.Kind != "commit" && v.Kind != "round" {
		return nil, fmt.Errorf("kind %q: want commit or round", v.Kind)
	}
	return &v, nil
}

// ReadDir reads every vector file (*.json) of dir, by file name, and
// their names in order.
func ReadDir(dir string) (map[string]*Vector, []string, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, nil, fmt.Errorf("the vectors' folder: %w", err)
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, nil, err
	}
	if len(paths) == 0 {
		return nil, nil, fmt.Errorf("no vectors (*.json) in %s", dir)
	}
	sort.Strings(paths)
	out := map[string]*Vector{}
	names := make([]string, len(paths))
	for i, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, nil, err
		}
		v, err := Parse(b)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", p, err)
		}
		names[i] = filepath.Base(p)
		out[names[i]] = v
	}
	return out, names, nil
}

// Case is the name of a vector's case: its file's name without .json.
func Case(name string) string { return strings.TrimSuffix(name, ".json") }

// Elt is the element of canonical value v.
func Elt(v uint32) koalabear.Element {
	var e koalabear.Element
	e.SetUint64(uint64(v))
	return e
}

// Elts is the elements of canonical values v.
func Elts(v []uint32) []koalabear.Element {
	out := make([]koalabear.Element, len(v))
	for i := range v {
		out[i] = Elt(v[i])
	}
	return out
}

// Hash is the digest of canonical values v.
func Hash(v [8]uint32) [8]koalabear.Element {
	var h [8]koalabear.Element
	for i := range v {
		h[i] = Elt(v[i])
	}
	return h
}

// E4 is the extension element of coordinates v (B0.A0, B0.A1, B1.A0,
// B1.A1).
func E4(v [4]uint32) fext.E4 {
	var e fext.E4
	e.B0.A0, e.B0.A1, e.B1.A0, e.B1.A1 = Elt(v[0]), Elt(v[1]), Elt(v[2]), Elt(v[3])
	return e
}

// Full returns the row's cols values as elements, a constant's repeated.
func (r Row) Full(cols int) []koalabear.Element {
	if r.Constant == nil {
		return Elts(r.Values)
	}
	out := make([]koalabear.Element, cols)
	c := Elt(*r.Constant)
	for j := range out {
		out[j] = c
	}
	return out
}
