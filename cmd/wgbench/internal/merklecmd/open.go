package merklecmd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/consensys/gnark-crypto/field/koalabear"
	fext "github.com/consensys/gnark-crypto/field/koalabear/extensions"
	"github.com/spf13/cobra"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/vortex"
	"github.com/wgcompute/wgcompute/cmd/internal/bytesize"
	"github.com/wgcompute/wgcompute/cmd/internal/fileout"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/wgpu"
)

// lineaProofJSON is the proof open writes: the round's commitments and
// Linea's vortex_koalabear.Prove output, every value canonical, an E4 as
// [B0.A0, B0.A1, B1.A0, B1.A1]. The statement (X and the Ys) is the
// verifier's to compute from the inputs.
type lineaProofJSON struct {
	// Roots are the commitments, in the order of the --matrix flags.
	Roots [][8]uint32 `json:"roots"`
	// SIS says which matrices were committed with SIS.
	SIS []bool `json:"sis"`
	// Alpha is the coin of the linear combination.
	Alpha [4]uint32 `json:"alpha"`
	// Entries are the opened columns.
	Entries []int `json:"entries"`
	// LinComb is the linear combination of every row of every matrix, in
	// order, with the powers of Alpha: a whole codeword.
	LinComb [][4]uint32 `json:"lincomb"`
	// Columns are the opened columns, [matrix][entry][row].
	Columns [][][]uint32 `json:"columns"`
	// Siblings are the opened leaves' Merkle paths, [matrix][entry][level],
	// leaf level first (smt_koalabear's Proof.Siblings).
	Siblings [][][][8]uint32 `json:"siblings"`
}

// NewOpen returns the open command.
func NewOpen(g *cli.Globals) *cobra.Command {
	var (
		scheme   string
		rate     int
		sisArg   string
		maxRows  int
		matrices []string
		ins      []string
		noSISFor string
		entries  string
		alpha    string
		out      string
	)
	cmd := &cobra.Command{
		Use:   "open --scheme linea --rate R --sis D,B [--max-rows M] --matrix ROWSxCOLS --in FILE [--matrix ROWSxCOLS --in FILE ...] [--no-sis-for I,...] --entries E1,E2,... --alpha A0,A1,A2,A3 --out PROOF.json",
		Short: "Commit to a round's matrices with Linea's Vortex and write the round's opening proof as JSON",
		Long: `open commits to the matrices of one round as 'commit --scheme linea' does
(the Vortex of Linea's prover; each --matrix ROWSxCOLS --in FILE pair a file
of canonical little-endian uint32 KoalaBear values, row after row, one COLS
for all, on the first device or the CPU) and writes the round's opening, as
Linea's vortex_koalabear.Prove(entries, encodedMatrices, trees, alpha) makes
it, to --out (- for standard output): the linear combination of every row of
every matrix, in order, with the powers of the coin alpha, then the columns
--entries of each matrix and their Merkle proofs.

--rate R and --sis LOGDEG,LOGBOUND (default 9,16) and --max-rows M (the
parameters' maximum, which fixes the SIS key; default the tallest matrix's
ROWS) are the parameters, as Linea's vortex_koalabear.NewParams takes them.
--no-sis-for lists the matrices, by index from 0 in the order given,
committed without SIS (CommitMerkleWithoutSIS); the others are committed
with SIS. --entries are codeword columns, from 0 to COLSxR-1. --alpha is an
element of KoalaBear's degree-4 extension (gnark-crypto's extensions.E4):
four canonical values B0.A0,B0.A1,B1.A0,B1.A1.

The JSON holds, every value canonical and an E4 as [B0.A0, B0.A1, B1.A0,
B1.A1]: "roots" (each matrix's root, 8 values), "sis" (whether each was
committed with SIS), "alpha", "entries", "lincomb" (the whole codeword, COLSxR
E4 values), "columns" ([matrix][entry][row]) and "siblings"
([matrix][entry][level], leaf level first, 8 values each, as smt_koalabear's
Proof holds them). It carries no statement: a verifier computes X and the
Ys from the inputs (vortex.VerifyLinea in Go, Linea's vortex_koalabear.Verify).`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return openLinea(cmd, g, openArgs{
				scheme: scheme, rate: rate, sis: sisArg, maxRows: maxRows, maxRowsGiven: cmd.Flags().Changed("max-rows"),
				matrices: matrices, ins: ins, noSISFor: noSISFor, entries: entries, alpha: alpha, out: out,
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&scheme, "scheme", "", "linea: the Vortex of Linea's prover (required; the only scheme open proves)")
	f.IntVar(&rate, "rate", 2, "the Reed-Solomon code's inverse rate, a power of two from 2")
	f.StringVar(&sisArg, "sis", "9,16", "the SIS instance, LOGDEG,LOGBOUND")
	f.IntVar(&maxRows, "max-rows", 0, "the parameters' maximum rows, which fixes the SIS key (default: the tallest matrix's ROWS)")
	f.StringArrayVar(&matrices, "matrix", nil, "a matrix of ROWSxCOLS canonical KoalaBear values (little-endian uint32, row by row); repeat with --in for each")
	f.StringArrayVar(&ins, "in", nil, "input file (one per --matrix)")
	f.StringVar(&noSISFor, "no-sis-for", "", "the matrices, by index from 0, committed without SIS: I,...")
	f.StringVar(&entries, "entries", "", "the codeword columns to open: E1,E2,... (from 0 to COLSxR-1)")
	f.StringVar(&alpha, "alpha", "", "the linear combination's coin, an E4: A0,A1,A2,A3 (canonical values)")
	f.StringVar(&out, "out", "", "write the proof's JSON to this file (- for standard output)")
	return cmd
}

// openArgs are open's flags.
type openArgs struct {
	scheme, sis                   string
	rate, maxRows                 int
	maxRowsGiven                  bool
	matrices, ins                 []string
	noSISFor, entries, alpha, out string
}

// openLinea is open: every flag checked and the parameters made before
// any input is read; the matrices read, committed on the first device (or
// the CPU) and opened; the proof written whole or not at all.
func openLinea(cmd *cobra.Command, g *cli.Globals, a openArgs) error {
	switch {
	case a.scheme == "":
		return errors.New("open: --scheme linea is required (open proves the Vortex of Linea's prover)")
	case a.scheme != "linea":
		return fmt.Errorf("open: --scheme %q: accepted is linea (the Vortex of Linea's prover)", a.scheme)
	case len(a.matrices) == 0:
		return errors.New("open: give the round's matrices: --matrix ROWSxCOLS --in FILE, once per matrix")
	case len(a.ins) != len(a.matrices):
		return fmt.Errorf("open: %d --matrix shapes and %d --in files: give one file per matrix, in the same order", len(a.matrices), len(a.ins))
	case a.out == "":
		return errors.New("open: --out PROOF.json is required (- for standard output)")
	}
	s, err := parseSIS(a.sis)
	if err != nil {
		return asOpen(err)
	}
	shapes := make([]shape, len(a.matrices))
	for k, m := range a.matrices {
		if shapes[k], err = parseLineaShape("open", m); err != nil {
			return err
		}
		if shapes[k].cols != shapes[0].cols {
			return fmt.Errorf("open: --matrix %s has %d columns, --matrix %s %d: a round's matrices have one column count", a.matrices[k], shapes[k].cols, a.matrices[0], shapes[0].cols)
		}
	}
	maxRows, err := lineaMaxRows("open", a.maxRowsGiven, a.maxRows, shapes)
	if err != nil {
		return err
	}
	withSIS, err := parseNoSISFor(a.noSISFor, len(shapes))
	if err != nil {
		return err
	}
	al, err := parseAlpha(a.alpha)
	if err != nil {
		return err
	}
	p, err := vortex.NewLineaParams(a.rate, shapes[0].cols, maxRows, s.LogTwoDegree, s.LogTwoBound)
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	es, err := parseEntries(a.entries, p.CodewordSize())
	if err != nil {
		return err
	}
	toStdout := fileout.Same(a.out, "-")
	if !toStdout {
		if err := fileout.Check(a.out); err != nil {
			return fmt.Errorf("open: %w", err)
		}
	}
	devices := g.OpenSoon(0)
	defer devices.Close()
	// The inputs, and the codewords beside them (rate times each).
	limit := g.HostMemory() / int64(2+a.rate)
	var total int64
	for _, sh := range shapes {
		// Each below limit, the sum cannot overflow.
		if total += int64(sh.bytes); int64(sh.bytes) > limit || total > limit {
			return fmt.Errorf("open: the matrices take more than %s together, the most their inputs can take here beside their codewords", bytesize.Tenths(limit))
		}
	}
	rows := make([][]vortex.LineaRow, len(shapes))
	for k, sh := range shapes {
		r, free, err := readLineaMatrix(a.ins[k], sh, limit)
		if err != nil {
			return fmt.Errorf("open: %w", err)
		}
		if !g.Process {
			defer free()
		}
		rows[k] = r
	}
	grp, err := devices.Wait()
	if err != nil {
		return err
	}
	c, err := vortex.NewLineaCommitter(firstDevice(grp), p)
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	if !g.Process {
		defer c.Release()
	}
	spin := cli.NewSpinner(cmd, g, "open: Linea's Vortex")
	states := make([]*vortex.LineaState, len(rows))
	for k := range rows {
		st, err := c.Commit(rows[k], vortex.LineaOptions{NoSIS: !withSIS[k], Context: cmd.Context()})
		if err != nil {
			spin.Done()
			return fmt.Errorf("open: --matrix %s --in %s: %w", a.matrices[k], a.ins[k], err)
		}
		if !g.Process {
			defer st.Release()
		}
		states[k] = st
	}
	proof, err := vortex.ProveLinea(states, al, es)
	spin.Done()
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	if g.Process {
		cli.LeftToExit()
	}
	// Ctrl-C during the work: nothing is written.
	if err := cli.Interrupted(cmd.Context()); err != nil {
		return err
	}
	roots := make([]vortex.Hash, len(states))
	for k, st := range states {
		roots[k] = st.Root()
	}
	write := func(w io.Writer) error {
		defer wgpu.Span("write output")(0)
		return writeLineaProof(w, roots, withSIS, al, es, proof)
	}
	if toStdout {
		return write(cmd.OutOrStdout())
	}
	if err := fileout.Write(a.out, write); err != nil {
		return fmt.Errorf("open: %w", err)
	}
	return nil
}

// asOpen is an error of commit's flag parser parseSIS as
// open's.
func asOpen(err error) error {
	return errors.New("open: " + strings.TrimPrefix(err.Error(), "commit: "))
}

// parseNoSISFor reads --no-sis-for I,... of n matrices: whether each is
// committed with SIS.
func parseNoSISFor(s string, n int) ([]bool, error) {
	withSIS := make([]bool, n)
	for i := range withSIS {
		withSIS[i] = true
	}
	if strings.TrimSpace(s) == "" {
		return withSIS, nil
	}
	for _, f := range strings.Split(s, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || i < 0 || i >= n {
			return nil, fmt.Errorf("open: --no-sis-for %q: %q is not a matrix: give indices from 0 to %d, the --matrix flags' order", s, f, n-1)
		}
		if !withSIS[i] {
			return nil, fmt.Errorf("open: --no-sis-for %q names matrix %d twice", s, i)
		}
		withSIS[i] = false
	}
	return withSIS, nil
}

// parseEntries reads --entries E1,E2,...: codeword columns, each below m.
func parseEntries(s string, m int) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("open: --entries E1,E2,... is required: the codeword columns to open, from 0 to %d", m-1)
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		e, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || e < 0 || e >= m {
			return nil, fmt.Errorf("open: --entries: %q is not a codeword column: the codewords (COLSxR) have columns 0 to %d", f, m-1)
		}
		out = append(out, e)
	}
	return out, nil
}

// parseAlpha reads --alpha A0,A1,A2,A3: an E4 of canonical values.
func parseAlpha(s string) (fext.E4, error) {
	var e fext.E4
	fs := strings.Split(s, ",")
	if strings.TrimSpace(s) == "" || len(fs) != 4 {
		return e, fmt.Errorf("open: --alpha %q: give the coin as four canonical KoalaBear values A0,A1,A2,A3 (B0.A0, B0.A1, B1.A0, B1.A1 of an E4)", s)
	}
	p := field.KoalaBear.P()
	for i, dst := range []*koalabear.Element{&e.B0.A0, &e.B0.A1, &e.B1.A0, &e.B1.A1} {
		v, err := strconv.ParseUint(strings.TrimSpace(fs[i]), 10, 64)
		if err != nil || v >= uint64(p) {
			return e, fmt.Errorf("open: --alpha: value %d, %q, is not a canonical KoalaBear element: accepted are 0 to %d", i, fs[i], p-1)
		}
		dst.SetUint64(v)
	}
	return e, nil
}

// writeLineaProof writes the proof as lineaProofJSON on one line,
// byte for byte what encoding/json makes of it, and a newline; written
// here, as it goes, for the codeword of millions of values.
func writeLineaProof(w io.Writer, roots []vortex.Hash, withSIS []bool, alpha fext.E4, entries []int, pr *vortex.LineaProof) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	var b []byte
	// flush hands b to bw once it is large.
	flush := func() {
		if len(b) > 1<<16 {
			bw.Write(b)
			b = b[:0]
		}
	}
	u32 := func(v uint32) { b = strconv.AppendUint(b, uint64(v), 10) }
	elt := func(e *koalabear.Element) { u32(uint32(e.Uint64())) }
	list := func(n int, item func(i int)) {
		b = append(b, '[')
		for i := range n {
			if i > 0 {
				b = append(b, ',')
			}
			item(i)
			flush()
		}
		b = append(b, ']')
	}
	hash := func(h *vortex.Hash) { list(len(h), func(i int) { elt(&h[i]) }) }
	e4 := func(e *fext.E4) {
		v := [4]*koalabear.Element{&e.B0.A0, &e.B0.A1, &e.B1.A0, &e.B1.A1}
		list(4, func(i int) { elt(v[i]) })
	}
	b = append(b, `{"roots":`...)
	list(len(roots), func(i int) { hash(&roots[i]) })
	b = append(b, `,"sis":`...)
	list(len(withSIS), func(i int) { b = strconv.AppendBool(b, withSIS[i]) })
	b = append(b, `,"alpha":`...)
	e4(&alpha)
	b = append(b, `,"entries":`...)
	list(len(entries), func(i int) { b = strconv.AppendInt(b, int64(entries[i]), 10) })
	b = append(b, `,"lincomb":`...)
	list(len(pr.LinComb), func(i int) { e4(&pr.LinComb[i]) })
	b = append(b, `,"columns":`...)
	list(len(pr.Columns), func(i int) {
		list(len(pr.Columns[i]), func(j int) {
			col := pr.Columns[i][j]
			list(len(col), func(k int) { elt(&col[k]) })
		})
	})
	b = append(b, `,"siblings":`...)
	list(len(pr.MerkleProofs), func(i int) {
		list(len(pr.MerkleProofs[i]), func(j int) {
			sib := pr.MerkleProofs[i][j].Siblings
			list(len(sib), func(l int) { hash(&sib[l]) })
		})
	})
	b = append(b, "}\n"...)
	bw.Write(b)
	return bw.Flush()
}
