package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/internal/fileout"
)

// A tree's root from pieces built apart: 'merkle --range I/M' prints the
// root of one range as a record line, and 'merkle combine' reads the M
// records and prints the tree's root (merkle.RangeRoot and merkle.Combine).

// recordTag starts every record line; a later format would take another.
const recordTag = "merkle-range"

// recordFormat is the record line, for help and errors.
const recordFormat = recordTag + " hash=NAME range=I/M leaves=N root=HEX"

// rangeRecord is what merkle --range prints: the root of range r of the
// tree of leaves leaves, merged with hash.
type rangeRecord struct {
	hash   merkle.Hash
	r      merkle.Range
	leaves int
	root   [32]byte
}

// String returns the record line, without its newline:
// "merkle-range hash=blake3 range=3/16 leaves=1048576 root=<64 hex digits>".
func (rec rangeRecord) String() string {
	return fmt.Sprintf("%s hash=%s range=%s leaves=%d root=%x", recordTag, rec.hash.Name(), rec.r, rec.leaves, rec.root[:])
}

// parseRecord reads a record line as rangeRecord.String writes it: its
// fields in that order, separated by blanks.
func parseRecord(line string) (rangeRecord, error) {
	var rec rangeRecord
	f := strings.Fields(line)
	if len(f) != 5 || f[0] != recordTag {
		return rec, fmt.Errorf("not a record: want %q, as merkle --range prints it", recordFormat)
	}
	var vals [4]string
	for k, key := range []string{"hash", "range", "leaves", "root"} {
		v, ok := strings.CutPrefix(f[k+1], key+"=")
		if !ok {
			return rec, fmt.Errorf("field %d is %q, not %s=...: want %q", k+2, f[k+1], key, recordFormat)
		}
		vals[k] = v
	}
	var err error
	if rec.hash, err = parseHash(vals[0]); err != nil {
		return rec, err
	}
	if rec.r, err = merkle.ParseRange(vals[1]); err != nil {
		return rec, err
	}
	if rec.leaves, err = strconv.Atoi(vals[2]); err != nil {
		return rec, fmt.Errorf("leaves=%s: want the tree's number of leaves, a power of two", vals[2])
	}
	if err := rec.r.Check(rec.leaves); err != nil {
		return rec, err
	}
	if rec.root, err = merkle.ParseDigest(vals[3]); err != nil {
		return rec, err
	}
	if err := rec.hash.CheckDigest(rec.root); err != nil {
		return rec, fmt.Errorf("root: %w", err)
	}
	return rec, nil
}

// rangeFlags are merkle's --range and --leaves.
type rangeFlags struct {
	spec   string
	leaves int
}

func (rf *rangeFlags) add(c *cobra.Command) {
	f := c.Flags()
	f.StringVar(&rf.spec, "range", "", "compute the root of range I of M equal ranges of the leaves, M a power of two, and print it as a record line for merkle combine (I/M, as 3/16)")
	f.IntVar(&rf.leaves, "leaves", 0, "with --range: the whole tree's number of leaves, when --in holds the range's leaves alone")
}

// set reports whether the command was asked for a range's root.
func (rf *rangeFlags) set(c *cobra.Command) bool {
	return c.Flags().Changed("range") || c.Flags().Changed("leaves")
}

// run prints (and with out, writes) the record of the range's root.
func (rf *rangeFlags) run(c *cobra.Command, g *globals, hashName, in string, approach int, out string) error {
	hash, err := parseHash(hashName)
	if err != nil {
		return err
	}
	if !c.Flags().Changed("range") {
		return errors.New("merkle: --leaves N needs --range I/M: it says how many leaves the whole tree has when --in holds one range's")
	}
	r, err := merkle.ParseRange(rf.spec)
	if err != nil {
		return fmt.Errorf("--range: %w", err)
	}
	if in == "" {
		return errors.New("merkle: --in LEAVES is required (a file of N x 32-byte leaves, or with --leaves N of the range's N/M)")
	}
	limit := g.hostMemory() / 3
	limit -= limit % merkle.DigestSize
	rec := rangeRecord{hash: hash, r: r, leaves: rf.leaves}
	var leaves [][32]byte
	if c.Flags().Changed("leaves") {
		leaves, err = readRangeLeaves(in, r, rf.leaves, limit)
	} else {
		leaves, rec.leaves, err = readLeafRange(in, r, limit)
	}
	if err != nil {
		return err
	}
	// Checked here to name the leaf by its index in the whole file, which
	// RangeRoot, given the range's leaves alone, cannot.
	lo := r.Index * len(leaves)
	for i := range leaves {
		if err := hash.CheckDigest(leaves[i]); err != nil {
			return fmt.Errorf("merkle: leaf %d (leaf %d of range %s): %w", lo+i, i, r, err)
		}
	}
	ctx, err := g.openContext()
	if err != nil {
		return err
	}
	defer ctx.Close()
	if rec.root, err = merkle.RangeRoot(ctx, leaves, hash, merkle.Options{Approach: merkle.Approach(approach)}); err != nil {
		return err
	}
	line := rec.String() + "\n"
	if out != "" {
		if err := fileout.WriteFile(out, []byte(line)); err != nil {
			return fmt.Errorf("merkle: %w", err)
		}
	}
	_, err = io.WriteString(c.OutOrStdout(), line)
	return err
}

// readLeafRange reads range r of the leaves file path, and only its bytes,
// at their offset: a worker reads its share of a file on shared storage.
// It returns the range's leaves and the whole file's number of leaves.
func readLeafRange(path string, r merkle.Range, limit int64) ([][32]byte, int, error) {
	f, fi, err := openInput(path)
	if err != nil {
		return nil, 0, fmt.Errorf("merkle: %w", err)
	}
	defer f.Close()
	if !fi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("merkle: %s is not a regular file: --range reads its range at an offset; to send the range's leaves alone through a pipe, give the tree's size with --leaves N", path)
	}
	size := fi.Size()
	if size%merkle.DigestSize != 0 {
		return nil, 0, fmt.Errorf("merkle: %s has %d bytes, not a whole number of 32-byte leaves", path, size)
	}
	n := int(size / merkle.DigestSize)
	if err := checkLeafCount(path, n); err != nil {
		return nil, 0, err
	}
	lo, hi, err := r.Bounds(n)
	if err != nil {
		return nil, 0, err
	}
	want := int64(hi-lo) * merkle.DigestSize
	if want > limit {
		return nil, 0, fmt.Errorf("merkle: range %s of %s is %s, more than the %s the leaves can take here", r, path, byteSize(want), byteSize(limit))
	}
	b := make([]byte, want)
	if err := readAt(f, b, int64(lo)*merkle.DigestSize); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, 0, fmt.Errorf("merkle: %s: shorter than its size of %d bytes while read", path, size)
		}
		return nil, 0, fmt.Errorf("merkle: %s: %w", path, bare(err))
	}
	return asLeaves(b), n, nil
}

// readRangeLeaves reads path, which holds range r of a tree of total
// leaves and nothing else: total/r.Count leaves, from any input.
func readRangeLeaves(path string, r merkle.Range, total int, limit int64) ([][32]byte, error) {
	if err := r.Check(total); err != nil {
		return nil, fmt.Errorf("--leaves: %w", err)
	}
	n := total / r.Count
	if want := int64(n) * merkle.DigestSize; want > limit {
		return nil, fmt.Errorf("merkle: range %s of a tree of %d leaves is %s, more than the %s the leaves can take here", r, total, byteSize(want), byteSize(limit))
	}
	b := make([]byte, n*merkle.DigestSize)
	what := fmt.Sprintf("range %s of a tree of %d leaves (%d leaves of 32 bytes)", r, total, n)
	if err := readExactly(path, b, what); err != nil {
		return nil, fmt.Errorf("merkle: %w", err)
	}
	return asLeaves(b), nil
}

func newMerkleCombineCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "combine [RECORDS...|-]",
		Short: "Print a tree's root from the records of its ranges' roots (merkle --range)",
		Long: `combine reads the records 'wgbench merkle --range I/M' printed, one line each:

  ` + recordFormat + `

from the files named, or from standard input with - or no names, any number
of records to a file, blank lines ignored. They must be the M ranges of one
tree, each once: the same hash and M and N in every record, and every index
0..M-1. It prints the tree's root in hex, as 'wgbench merkle' does: the root
of the tree whose leaves are the M range roots in order of I, which is the
whole tree's root.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{"-"}
			}
			root, err := merkleCombine(g, cmd.InOrStdin(), args)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), hex.EncodeToString(root[:]))
			return err
		},
	}
}

// merkleCombine reads the records in the files names ("-": stdin), checks
// that they are every range of one tree once, and combines their roots.
func merkleCombine(g *globals, stdin io.Reader, names []string) ([32]byte, error) {
	var root [32]byte
	recs, err := readRecords(stdin, names, g.hostMemory()/3)
	if err != nil {
		return root, err
	}
	roots, err := rangeRoots(recs)
	if err != nil {
		return root, err
	}
	ctx, err := g.openContext()
	if err != nil {
		return root, err
	}
	defer ctx.Close()
	return merkle.Combine(ctx, roots, recs[0].hash, merkle.Options{})
}

// placedRecord is a record and where it was read: "file:line".
type placedRecord struct {
	rangeRecord
	at string
}

// readRecords reads and parses every record of the files names, at most
// limit bytes each.
func readRecords(stdin io.Reader, names []string, limit int64) ([]placedRecord, error) {
	var recs []placedRecord
	for _, name := range names {
		var b []byte
		var err error
		if name == "-" {
			if b, err = io.ReadAll(io.LimitReader(stdin, limit+1)); err == nil && int64(len(b)) > limit {
				err = fmt.Errorf("larger than %s, the most the records can take here", byteSize(limit))
			}
			if err != nil {
				return nil, fmt.Errorf("merkle combine: standard input: %w", err)
			}
			name = "standard input"
		} else if b, err = readInput(name, limit, "the records can take here"); err != nil {
			return nil, fmt.Errorf("merkle combine: %w", err)
		}
		for k, line := range strings.Split(string(b), "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			at := fmt.Sprintf("%s:%d", name, k+1)
			rec, err := parseRecord(line)
			if err != nil {
				return nil, fmt.Errorf("merkle combine: %s: %w", at, err)
			}
			recs = append(recs, placedRecord{rec, at})
		}
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("merkle combine: no records in %s: give the files merkle --range wrote, or - for standard input", strings.Join(names, ", "))
	}
	return recs, nil
}

// rangeRoots returns the roots of the records in order of their range,
// after checking that they are the ranges of one tree, each once.
func rangeRoots(recs []placedRecord) ([][32]byte, error) {
	first := recs[0]
	m := first.r.Count
	byIndex := make([]*placedRecord, m)
	for k := range recs {
		rec := &recs[k]
		if rec.hash.Name() != first.hash.Name() || rec.r.Count != m || rec.leaves != first.leaves {
			return nil, fmt.Errorf("merkle combine: %s is range %s of a tree of %d leaves with %s, but %s is range %s of a tree of %d leaves with %s: the records must be of one tree, split one way",
				rec.at, rec.r, rec.leaves, rec.hash.Name(), first.at, first.r, first.leaves, first.hash.Name())
		}
		if prev := byIndex[rec.r.Index]; prev != nil {
			return nil, fmt.Errorf("merkle combine: range %s is in %s and again in %s: give each range once", rec.r, prev.at, rec.at)
		}
		byIndex[rec.r.Index] = rec
	}
	var missing []string
	for i, rec := range byIndex {
		if rec == nil {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if n := len(missing); n > 0 {
		if n > 10 {
			missing = append(missing[:10], "...")
		}
		return nil, fmt.Errorf("merkle combine: %d of the %d ranges of the tree of %d leaves with %s have no record: missing %s",
			n, m, first.leaves, first.hash.Name(), strings.Join(missing, ", "))
	}
	roots := make([][32]byte, m)
	for i, rec := range byIndex {
		roots[i] = rec.root
	}
	return roots, nil
}
