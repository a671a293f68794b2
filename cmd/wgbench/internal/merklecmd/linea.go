package merklecmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/consensys/gnark-crypto/field/koalabear"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/wgcompute/wgcompute/algos/vortex"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
)

// lineaFlags are commit's flags of --scheme linea alone.
type lineaFlags struct {
	// noSIS is --no-sis: the columns themselves hashed into the leaves
	// (Linea's CommitMerkleWithoutSIS).
	noSIS bool
	// maxRows is --max-rows: the parameters' maximum rows, which fixes
	// the SIS key; 0 for the matrix's own rows.
	maxRows int
}

// register adds the flags to commit's.
func (l *lineaFlags) register(f *pflag.FlagSet) {
	f.BoolVar(&l.noSIS, "no-sis", false, "--scheme linea: hash the codewords' columns themselves into the leaves (Linea's CommitMerkleWithoutSIS)")
	f.IntVar(&l.maxRows, "max-rows", 0, "--scheme linea: the parameters' maximum rows, which fixes the SIS key (default: the matrix's ROWS)")
}

// checkScheme refuses a --scheme commit does not know, and the flags of
// --scheme linea elsewhere.
func (l *lineaFlags) checkScheme(cmd *cobra.Command, scheme string) error {
	given := cmd.Flags().Changed("scheme")
	if given && scheme != "vortex" && scheme != "linea" {
		return fmt.Errorf("commit: --scheme %q: accepted are vortex (gnark-crypto's Vortex over KoalaBear) and linea (the Vortex of Linea's prover); leave it out for a Merkle tree", scheme)
	}
	if scheme == "linea" {
		return nil
	}
	for _, f := range []string{"no-sis", "max-rows"} {
		if cmd.Flags().Changed(f) {
			return fmt.Errorf("commit: --%s is a flag of --scheme linea, not of %s", f, schemeName(given, scheme))
		}
	}
	return nil
}

// schemeName names what commit makes without --scheme linea.
func schemeName(given bool, scheme string) string {
	if given {
		return "--scheme " + scheme
	}
	return "a Merkle tree (no --scheme)"
}

// commitLinea is commit --scheme linea: the --in file's ROWS x COLS
// canonical KoalaBear elements committed with the Vortex of Linea's prover
// (vortex.LineaCommitter: Linea's CommitMerkleWithSIS, or
// CommitMerkleWithoutSIS with --no-sis) on the first device, or the CPU,
// the root printed as 8 canonical elements, the hex of their
// little-endian uint32s. The file is read as commit --scheme vortex reads
// it (readWords, then Montgomery forms where it lies), the parameters (the
// SIS key, the domains) made meanwhile.
func commitLinea(cmd *cobra.Command, g *cli.Globals, l *lineaFlags, matrices, ins []string, rate int, sisArg string) error {
	for _, f := range []string{"records", "hash", "field", "out", "prove", "approach", "blowup"} {
		if cmd.Flags().Changed(f) {
			return fmt.Errorf("commit: --scheme linea takes --matrix, --in, --rate, --sis, --no-sis and --max-rows, not --%s", f)
		}
	}
	if len(matrices) != 1 || len(ins) != 1 {
		return errors.New("commit: --scheme linea takes one --matrix ROWSxCOLS and one --in FILE ('wgbench open' opens several matrices of a round)")
	}
	s, err := parseSIS(sisArg)
	if err != nil {
		return err
	}
	sh, err := parseLineaShape("commit", matrices[0])
	if err != nil {
		return err
	}
	maxRows, err := lineaMaxRows("commit", cmd.Flags().Changed("max-rows"), l.maxRows, []shape{sh})
	if err != nil {
		return err
	}
	start, err := startCommit(g, "vortex: Linea's parameters", func() (*vortex.LineaParams, error) {
		return vortex.NewLineaParams(rate, sh.cols, maxRows, s.LogTwoDegree, s.LogTwoBound)
	}, func() ([]vortex.LineaRow, func(), error) { return readLineaMatrix(ins[0], sh, g.HostMemory()/4) })
	defer start.devices.Close()
	if !g.Process {
		defer start.free()
	}
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	p, rows, devices, free := start.params, start.input, start.devices, start.free
	endWait := wgpu.Span("wait for the devices")
	grp, err := devices.Wait()
	endWait(0)
	if err != nil {
		return err
	}
	c, err := vortex.NewLineaCommitter(firstDevice(grp), p)
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	spin := cli.NewSpinner(cmd, g, "commit: Linea's Vortex")
	st, err := c.Commit(rows, vortex.LineaOptions{NoSIS: l.noSIS, Context: cmd.Context()})
	spin.Done()
	if err != nil {
		c.Release()
		return fmt.Errorf("commit: %w", err)
	}
	defer closeTraced(g, grp, free, st.Release, c.Release)
	if err := cli.Interrupted(cmd.Context()); err != nil {
		return err
	}
	_, err = fmt.Fprintln(cmd.OutOrStdout(), rootHex(st.Root()))
	return err
}

// lineaMaxRows is the parameters' maximum rows: --max-rows where given,
// else the tallest matrix's; no matrix may have more.
func lineaMaxRows(name string, given bool, maxRows int, shapes []shape) (int, error) {
	tallest := 0
	for _, s := range shapes {
		tallest = max(tallest, s.rows)
	}
	if !given {
		return tallest, nil
	}
	if maxRows < 1 {
		return 0, fmt.Errorf("%s: --max-rows %d: the parameters' maximum is 1 row or more", name, maxRows)
	}
	if tallest > maxRows {
		return 0, fmt.Errorf("%s: a matrix of %d rows exceeds --max-rows %d, the parameters' maximum: give --max-rows %d or more", name, tallest, maxRows, tallest)
	}
	return maxRows, nil
}

// parseLineaShape reads a Linea matrix's --matrix ROWSxCOLS for the
// command cmd: parseShape, its message saying what Linea's scheme takes.
func parseLineaShape(cmd, s string) (shape, error) {
	sh, err := parseShape(s, 4)
	if err != nil && !strings.Contains(err.Error(), "too many bytes") {
		return shape{}, fmt.Errorf("%s: --matrix %q: want ROWSxCOLS, as 512x65536 (1 row or more; columns a power of two)", cmd, s)
	}
	if err != nil {
		return shape{}, errors.New(cmd + ": " + strings.TrimPrefix(err.Error(), "commit: "))
	}
	return sh, nil
}

// readLineaMatrix reads the --in file of the matrix sh (canonical
// little-endian uint32, row after row) as commit --scheme vortex does,
// its values made Montgomery forms where they lie, and returns its rows:
// a row whose entries are all one value as that constant
// (vortex.LineaConstant, as Linea's smartvectors.Constant: the same
// codeword, not uploaded in full), the others as views of the matrix. free
// frees the matrix once the rows are no longer used.
func readLineaMatrix(path string, sh shape, limit int64) (_ []vortex.LineaRow, free func(), err error) {
	vals, free, err := readWords(path, sh, limit)
	if err != nil {
		return nil, nil, err
	}
	m, err := vortex.FromCanonicalInPlace(vals, sh.rows, sh.cols)
	if err != nil {
		free()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return lineaRows(m, sh.rows, sh.cols), free, nil
}

// lineaRows returns the rows of the row-major matrix m, those of one
// value throughout as constants.
func lineaRows(m []koalabear.Element, rows, cols int) []vortex.LineaRow {
	out := make([]vortex.LineaRow, rows)
	par.For(rows, 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := m[i*cols : (i+1)*cols]
			constant := true
			for _, v := range row[1:] {
				if v != row[0] {
					constant = false
					break
				}
			}
			if constant {
				out[i] = vortex.LineaConstant(row[0])
			} else {
				out[i] = vortex.LineaValues(row)
			}
		}
	})
	return out
}
