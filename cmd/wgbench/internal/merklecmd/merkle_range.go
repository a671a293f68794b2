package merklecmd

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/cmd/internal/bytesize"
	"github.com/wgcompute/wgcompute/cmd/internal/fileout"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/internal/base/checked"
	"github.com/wgcompute/wgcompute/internal/base/split"
	"github.com/wgcompute/wgcompute/wgpu"
)

// A tree built in pieces, apart: 'merkle --range I/M' prints the root of
// one range as a record line, and 'merkle combine' reads the M records and
// prints the tree's root (merkle.Root of each range's leaves, then of
// the ranges' roots); 'merkle prove --range', 'merkle combine --prove' and 'merkle join' make a leaf's
// proof from the same pieces (merkle.JoinProofs).

// recordTag starts every record line; a later format would take another.
const recordTag = "merkle-range"

// recordFormat is the record line, for help and errors.
const recordFormat = recordTag + " hash=NAME range=I/M leaves=N root=HEX"

// rangeRecord is what merkle --range prints: the root of range r of the
// tree of leaves leaves, merged with hash.
type rangeRecord struct {
	hash   merkle.Hash
	r      split.Range
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
	if rec.r, err = split.Parse(vals[1]); err != nil {
		return rec, err
	}
	if rec.leaves, err = strconv.Atoi(vals[2]); err != nil {
		return rec, fmt.Errorf("leaves=%s: want the tree's number of leaves, a power of two", vals[2])
	}
	if _, _, err := rec.r.Bounds(rec.leaves); err != nil {
		return rec, err
	}
	if rec.root, err = parseDigest(vals[3]); err != nil {
		return rec, err
	}
	if err := rec.hash.CheckDigest(rec.root); err != nil {
		return rec, fmt.Errorf("root: %w", err)
	}
	return rec, nil
}

// rangeFlags are the --range and --leaves of merkle and merkle prove.
type rangeFlags struct {
	spec   string
	leaves int
}

// Add adds --range, described by use, and --leaves to c.
func (rf *rangeFlags) add(c *cobra.Command, use string) {
	f := c.Flags()
	f.StringVar(&rf.spec, "range", "", use)
	f.IntVar(&rf.leaves, "leaves", 0, "with --range: the whole tree's number of leaves, when --in holds the range's leaves alone")
}

// set reports whether the command was asked for a range.
func (rf *rangeFlags) set(c *cobra.Command) bool {
	return c.Flags().Changed("range") || c.Flags().Changed("leaves")
}

// leafRange is one range's leaves, read and checked.
type leafRange struct {
	hash   merkle.Hash
	r      split.Range
	total  int // the whole tree's leaves
	lo     int // the index of the range's first leaf in the tree
	leaves [][32]byte
}

// read reads the range's leaves of in, as --range and --leaves say, and
// checks them against the hash.
func (rf *rangeFlags) read(c *cobra.Command, g *cli.Globals, hashName, in string) (*leafRange, error) {
	hash, err := parseHash(hashName)
	if err != nil {
		return nil, err
	}
	if !c.Flags().Changed("range") {
		return nil, errors.New("merkle: --leaves N needs --range I/M: it says how many leaves the whole tree has when --in holds one range's")
	}
	r, err := split.Parse(rf.spec)
	if err != nil {
		return nil, fmt.Errorf("--range: %w", err)
	}
	if in == "" {
		return nil, errors.New("merkle: --in LEAVES is required (a file of N x 32-byte leaves, or with --leaves N of the range's N/M)")
	}
	limit := g.HostMemory() / 3
	limit -= limit % merkle.DigestSize
	lr := &leafRange{hash: hash, r: r, total: rf.leaves}
	if c.Flags().Changed("leaves") {
		lr.leaves, err = readRangeLeaves(in, r, rf.leaves, limit)
	} else {
		lr.leaves, lr.total, err = readLeafRange(in, r, limit)
	}
	if err != nil {
		return nil, err
	}
	// Checked here to name the leaf by its index in the whole tree, which
	// the library, given the range's leaves alone, cannot.
	lr.lo = r.Index * len(lr.leaves)
	for i := range lr.leaves {
		if err := hash.CheckDigest(lr.leaves[i]); err != nil {
			return nil, fmt.Errorf("merkle: leaf %d (leaf %d of range %s): %w", lr.lo+i, i, r, err)
		}
	}
	return lr, nil
}

// run prints (and with out, writes) the record of the range's root.
func (rf *rangeFlags) run(c *cobra.Command, g *cli.Globals, hashName, in string, approach int, out string) error {
	lr, err := rf.read(c, g, hashName, in)
	if err != nil {
		return err
	}
	ctx, err := g.OpenContext()
	if err != nil {
		return err
	}
	defer g.CloseContext(ctx)
	rec := rangeRecord{hash: lr.hash, r: lr.r, leaves: lr.total}
	opts, err := approachOptions(approach)
	if err != nil {
		return err
	}
	if rec.root, err = merkle.Root(ctx, lr.leaves, lr.hash, opts); err != nil {
		return err
	}
	// Ctrl-C during the build: nothing is written.
	if err := cli.Interrupted(c.Context()); err != nil {
		return err
	}
	line := rec.String() + "\n"
	if out != "" && !fileout.Same(out, "-") { // standard output: the line printed below
		if err := fileout.WriteFile(out, []byte(line)); err != nil {
			return fmt.Errorf("merkle: %w", err)
		}
	}
	_, err = io.WriteString(c.OutOrStdout(), line)
	return err
}

// prove returns the proof of leaf index of the tree (its index in the
// whole tree) in the tree of its range: the lower half of a proof that
// merkle join completes.
func (rf *rangeFlags) prove(c *cobra.Command, g *cli.Globals, hashName, in string, approach, index int) (merkle.Proof, error) {
	lr, err := rf.read(c, g, hashName, in)
	if err != nil {
		return merkle.Proof{}, err
	}
	if hi := lr.lo + len(lr.leaves); index < lr.lo || index >= hi {
		return merkle.Proof{}, fmt.Errorf("merkle prove: --index %d: range %s of the tree of %d leaves holds leaves %d..%d", index, lr.r, lr.total, lr.lo, hi-1)
	}
	return subtreeProof(g, lr.leaves, lr.hash, approach, index-lr.lo)
}

// subtreeProof returns the proof of leaf i of the tree of leaves, built
// on the adapter the flags choose; a tree of one leaf has the proof
// merkle.JoinProofs takes for it, of an empty path.
func subtreeProof(g *cli.Globals, leaves [][32]byte, hash merkle.Hash, approach, i int) (merkle.Proof, error) {
	if len(leaves) == 1 {
		return merkle.Proof{Index: 0, Leaves: 1, Leaf: leaves[0], Root: leaves[0]}, nil
	}
	ctx, err := g.OpenContext()
	if err != nil {
		return merkle.Proof{}, err
	}
	defer g.CloseContext(ctx)
	opts, err := approachOptions(approach)
	if err != nil {
		return merkle.Proof{}, err
	}
	tree, err := merkle.Build(ctx, leaves, hash, opts)
	if err != nil {
		return merkle.Proof{}, err
	}
	return tree.Proof(i)
}

// printProof prints p, a proof of any form, as indented JSON, as merkle
// prove does.
func printProof(w io.Writer, p any) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}

// readLeafRange reads range r of the leaves file path, and only its bytes,
// at their offset: a worker reads its share of a file on shared storage.
// It returns the range's leaves and the whole file's number of leaves.
func readLeafRange(path string, r split.Range, limit int64) ([][32]byte, int, error) {
	f, fi, err := cli.OpenInput(path)
	if err != nil {
		return nil, 0, fmt.Errorf("merkle: %w", err)
	}
	defer f.Close()
	if !fi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("merkle: %s is not a regular file: --range reads its range at an offset; to send the range's leaves alone through a pipe, give the tree's size with --leaves N", path)
	}
	size := fi.Size()
	n, err := leafCount(path, size)
	if err != nil {
		return nil, 0, err
	}
	lo, hi, err := r.Bounds(n)
	if err != nil {
		return nil, 0, err
	}
	want := int64(hi-lo) * merkle.DigestSize
	if want > limit {
		return nil, 0, fmt.Errorf("merkle: range %s of %s is %s, more than the %s the leaves can take here", r, path, bytesize.Tenths(want), bytesize.Tenths(limit))
	}
	b := make([]byte, want)
	end := wgpu.Span("read input")
	err = cli.ReadFileAt(path, f, b, int64(lo)*merkle.DigestSize, size)
	end(want)
	if err != nil {
		return nil, 0, fmt.Errorf("merkle: %w", err)
	}
	return asLeaves(b), n, nil
}

// readRangeLeaves reads path, which holds range r of a tree of total
// leaves and nothing else: total/r.Count leaves, from any input.
func readRangeLeaves(path string, r split.Range, total int, limit int64) ([][32]byte, error) {
	if _, _, err := r.Bounds(total); err != nil {
		return nil, fmt.Errorf("--leaves: %w", err)
	}
	n := total / r.Count
	want, err := checked.Mul(int64(n), merkle.DigestSize)
	if err != nil {
		return nil, fmt.Errorf("merkle: range %s of a tree of %d leaves: %w bytes", r, total, err)
	}
	what := fmt.Sprintf("range %s of a tree of %d leaves (%d leaves of 32 bytes)", r, total, n)
	// The claim must be what the input holds: a file of another size is
	// refused as such, before the memory the claim would take is
	// weighed (a one-leaf file given --leaves 2^30 --range 0/2 claims
	// 16 GiB).
	if path != "-" {
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Size() != want {
			return nil, fmt.Errorf("merkle: %s has %d bytes; %s has %d", path, fi.Size(), what, want)
		}
	}
	if want > limit {
		return nil, fmt.Errorf("merkle: range %s of a tree of %d leaves is %s, more than the %s the leaves can take here", r, total, bytesize.Tenths(want), bytesize.Tenths(limit))
	}
	b := make([]byte, want)
	if err := cli.ReadExactly(path, b, what); err != nil {
		return nil, fmt.Errorf("merkle: %w", err)
	}
	return asLeaves(b), nil
}

func newMerkleCombineCmd(g *cli.Globals) *cobra.Command {
	prove := -1
	cmd := &cobra.Command{
		Use:   "combine [--prove R] [flags] [RECORDS...|-]",
		Short: "Print a tree's root from the records of its ranges' roots (merkle --range)",
		Long: `combine reads the records 'wgbench merkle --range I/M' printed, one line each:

  ` + recordFormat + `

from the files named, or from standard input with - or no names, any number
of records to a file, blank lines ignored. They must be the M ranges of one
tree, each once: the same hash and M and N in every record, and every index
0..M-1. It prints the tree's root in hex, as 'wgbench merkle' does: the root
of the tree whose leaves are the M range roots in order of I, which is the
whole tree's root.

With --prove R it prints instead the JSON proof of range R's root as leaf R
of that tree of M roots, which 'wgbench merkle join' joins with a proof from
'wgbench merkle prove --range R/M'. (For M = 1 it is the proof of a tree of
one leaf, the root, with an empty path: join takes it, verify does not.)`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{"-"}
			}
			recs, err := readRangeRecords(cmd.InOrStdin(), args, g.HostMemory()/3)
			if err != nil {
				return err
			}
			roots, err := rangeRoots(recs)
			if err != nil {
				return err
			}
			hash := recs[0].hash
			if cmd.Flags().Changed("prove") {
				if prove < 0 || prove >= len(roots) {
					return fmt.Errorf("merkle combine: --prove %d: the records are of ranges 0..%d", prove, len(roots)-1)
				}
				p, err := subtreeProof(g, roots, hash, 0, prove)
				if err != nil {
					return err
				}
				return printProof(cmd.OutOrStdout(), p)
			}
			ctx, err := g.OpenContext()
			if err != nil {
				return err
			}
			defer g.CloseContext(ctx)
			root, err := merkle.Root(ctx, roots, hash, merkle.Options{})
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), hex.EncodeToString(root[:]))
			return err
		},
	}
	cmd.Flags().IntVar(&prove, "prove", -1, "print the proof of range R's root among the M range roots instead of the root, R from 0 to M-1")
	return cmd
}

func newMerkleJoinCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "join LOWER UPPER",
		Short: "Join a proof inside a range with the proof of the range's root into one of the whole tree",
		Long: `join reads two JSON proofs: LOWER, of leaf J of range R's tree, as
'wgbench merkle prove --range R/M' prints it, and UPPER, of range R's root
among the M range roots, as 'wgbench merkle combine --prove R' prints it. It
prints the proof of the leaf in the whole tree of N leaves (index R*N/M + J,
the lower path then the upper path, the upper proof's root), as
'wgbench merkle prove' would print it for the whole tree; check it with
'wgbench merkle verify'. It is an error if the proofs do not fit together:
the lower proof's root must be the upper proof's leaf, and each path as long
as its tree is deep. Either file may be - for standard input.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return fmt.Errorf("merkle join: %d arguments: want two proof files, LOWER UPPER", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var pieces [2]merkle.Proof
			for k, path := range args {
				var err error
				if pieces[k], err = readProof(path); err != nil {
					return fmt.Errorf("merkle join: %w", err)
				}
			}
			p, err := merkle.JoinProofs(pieces[0], pieces[1])
			if err != nil {
				return err
			}
			return printProof(cmd.OutOrStdout(), p)
		},
	}
}

// placedRecord is a record and where it was read: "file:line".
type placedRecord struct {
	rangeRecord
	at string
}

// readRangeRecords reads and parses every record of the files names, at
// most limit bytes each.
func readRangeRecords(stdin io.Reader, names []string, limit int64) ([]placedRecord, error) {
	var recs []placedRecord
	err := cli.EachRecordLine(stdin, names, limit, func(line, at string) error {
		rec, err := parseRecord(line)
		if err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		recs = append(recs, placedRecord{rec, at})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("merkle combine: %w", err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("merkle combine: no records in %s: give the files merkle --range wrote, or - for standard input", strings.Join(names, ", "))
	}
	return recs, nil
}

// rangeRoots returns the roots of the records in order of their range,
// after checking that they are the ranges of one tree, each once. What it
// holds follows the records read, never the count of ranges they claim: a
// record of range 0/4611686018427387904 costs one map entry, and the ranges
// missing beside it are counted, not listed in memory.
func rangeRoots(recs []placedRecord) ([][32]byte, error) {
	first := recs[0]
	m := first.r.Count
	byIndex := make(map[int]*placedRecord, len(recs))
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
	// Every index is below m and none twice, so len(byIndex) < m means
	// some are missing; the first ten are found in at most
	// len(byIndex)+10 steps.
	if n := m - len(byIndex); n > 0 {
		var missing []string
		for i := 0; len(missing) < 10 && i < m; i++ {
			if byIndex[i] == nil {
				missing = append(missing, strconv.Itoa(i))
			}
		}
		if n > len(missing) {
			missing = append(missing, "...")
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
