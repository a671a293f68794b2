package main

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/internal/fileout"
	"github.com/wgcompute/wgcompute/wgpu"
)

// isSchedule reports whether a --hash value names a schedule of several
// hashes ("blake3:4,rescue") rather than one hash.
func isSchedule(s string) bool { return strings.ContainsAny(s, ":,") }

// parseSchedule reads a --hash value, one hash or a schedule, as a
// schedule of the hashes the merkle commands offer.
func parseSchedule(s string) (merkle.Schedule, error) {
	if s == "" {
		return nil, errors.New("merkle: --hash is required: blake3, rescue, or a schedule such as blake3:4,rescue")
	}
	return merkle.ParseSchedule(s, parseHash)
}

// mixedBuild reads the leaves file and builds its mixed tree on the first
// device the flags open (or the CPU).
func mixedBuild(g *globals, schedule, in string, approach int) (*merkle.Tree, error) {
	s, err := parseSchedule(schedule)
	if err != nil {
		return nil, err
	}
	if in == "" {
		return nil, errors.New("merkle: --in LEAVES is required (a file of N x 32-byte leaves)")
	}
	devices := g.openSoon()
	defer devices.close()
	leaves, err := readLeaves(in, g.hostMemory()/3)
	if err != nil {
		return nil, err
	}
	grp, err := devices.wait()
	if err != nil {
		return nil, err
	}
	return merkle.BuildMixed(firstDevice(grp), leaves, s, merkle.Options{Approach: merkle.Approach(approach)})
}

// firstDevice returns the group's first Context (nil: the CPU). Mixed
// trees and commitments are built on one device.
func firstDevice(g *wgpu.Group) *wgpu.Context {
	if g == nil || g.Len() == 0 {
		return nil
	}
	return g.Contexts()[0]
}

// verifyMixed is merkle verify for a schedule: VerifyMixed against the
// trusted root and size, else the proof's own with a warning.
func verifyMixed(cmd *cobra.Command, schedule, proofIn, rootHex string, leaves int) error {
	s, err := parseSchedule(schedule)
	if err != nil {
		return err
	}
	if proofIn == "" {
		return errors.New("merkle verify: --proof FILE is required (a proof as printed by merkle prove)")
	}
	p, err := readProof(proofIn)
	if err != nil {
		return fmt.Errorf("merkle verify: %w", err)
	}
	root, n := p.Root, p.Leaves
	trusted := true
	if rootHex != "" {
		if root, err = merkle.ParseDigest(rootHex); err != nil {
			return fmt.Errorf("merkle verify: --root: %w", err)
		}
	} else {
		trusted = false
	}
	if cmd.Flags().Changed("leaves") {
		n = leaves
	} else {
		trusted = false
	}
	if _, err := s.Levels(n); err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "merkle verify: %s does not verify: %v\n", proofIn, err)
		return exitError{1}
	}
	if !merkle.VerifyMixed(s, root, n, p) {
		fmt.Fprintf(cmd.ErrOrStderr(), "merkle verify: %s does not verify: leaf %d of %d and its path of %d digests do not give root %x with the schedule %s\n", proofIn, p.Index, n, len(p.Path), root[:], s)
		return exitError{1}
	}
	if !trusted {
		fmt.Fprintf(cmd.ErrOrStderr(), "merkle verify: the proof is consistent, but the tree's root and size were taken from the proof itself where not given (root %x, %d leaves): "+
			"compare them with the ones you trust, or pass --root and --leaves\n", p.Root[:], p.Leaves)
	}
	return nil
}

// parseShape reads ROWSxCOLS ("1024x8").
func parseShape(s string) (rows, cols int, err error) {
	r, c, ok := strings.Cut(strings.ToLower(s), "x")
	rows, errR := strconv.Atoi(r)
	cols, errC := strconv.Atoi(c)
	if !ok || errR != nil || errC != nil || rows < 1 || cols < 1 {
		return 0, 0, fmt.Errorf("commit: --matrix %q: want ROWSxCOLS, as 1024x8 (rows a power of two, at least 2; 1 column or more)", s)
	}
	return rows, cols, nil
}

func newCommitCmd(g *globals) *cobra.Command {
	var (
		matrix   string
		records  int
		hashName string
		in, out  string
		approach int
		prove    int
	)
	cmd := &cobra.Command{
		Use:   "commit (--matrix ROWSxCOLS | --records SIZE) --in FILE [--hash H|SCHEDULE] [--out NODES] [--prove I]",
		Short: "Commit to a matrix of field elements or to byte records with a Merkle tree, leaves hashed on the GPU",
		Long: `commit builds a Merkle tree whose leaves it hashes itself, on the GPU (rows or
records hashed straight into the tree's leaf buffer), and prints the root in
hex.

--matrix ROWSxCOLS: --in holds a matrix of Goldilocks field elements, row by
row: ROWS x COLS little-endian uint64 values, each below p = 2^64 - 2^32 + 1
(ROWSxCOLSx8 bytes exactly; ROWS a power of two, at least 2). Leaf r is the
hash of row r (Rescue: hash_elements of its COLS elements). --hash defaults to
rescue.

--records SIZE: --in holds N records of SIZE bytes each (N x SIZE bytes; N a
power of two, at least 2). Leaf i is the BLAKE3 hash of record i. --hash
defaults to blake3.

--hash takes one hash or a schedule: blake3:4,rescue merges the lowest 4
levels with BLAKE3 and the levels above with Rescue (BLAKE3 digests enter the
Rescue levels as their four little-endian words reduced mod p). The leaf hash
is the schedule's first.

--out writes all N nodes (N x 32 bytes, node 0 zero, node 1 the root);
--prove I prints the JSON proof of leaf I instead of the root, which
'wgbench merkle verify --hash H' checks (with the same H).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			tree, err := commitFile(cmd, g, matrix, records, hashName, in, approach)
			if err != nil {
				return err
			}
			if out != "" {
				if err := fileout.WriteFile(out, wgpu.Bytes(tree.Nodes())); err != nil {
					return fmt.Errorf("commit: %w", err)
				}
			}
			if cmd.Flags().Changed("prove") {
				p, err := tree.Proof(prove)
				if err != nil {
					return err
				}
				return printProof(cmd.OutOrStdout(), p)
			}
			root := tree.Root()
			_, err = fmt.Fprintln(cmd.OutOrStdout(), hex.EncodeToString(root[:]))
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&matrix, "matrix", "", "commit to a matrix of ROWSxCOLS field elements (little-endian uint64, row by row)")
	f.IntVar(&records, "records", 0, "commit to records of SIZE bytes")
	f.StringVar(&hashName, "hash", "", "hash or schedule: rescue (default for --matrix), blake3 (default for --records), or as blake3:4,rescue")
	f.StringVar(&in, "in", "", "input file")
	f.StringVar(&out, "out", "", "write the N nodes (N x 32 bytes) to this file")
	f.IntVar(&approach, "approach", 0, "1: a dispatch per level, 2: workgroup levels, 3: subtrees in workgroup memory (default: fastest)")
	f.IntVar(&prove, "prove", 0, "print the JSON proof of leaf I instead of the root")
	return cmd
}

// commitFile reads --in and commits to it as the flags say.
func commitFile(cmd *cobra.Command, g *globals, matrix string, size int, hashName, in string, approach int) (*merkle.Tree, error) {
	isMatrix, isRecords := matrix != "", cmd.Flags().Changed("records")
	if isMatrix == isRecords {
		return nil, errors.New("commit: give one of --matrix ROWSxCOLS (field elements) and --records SIZE (byte records)")
	}
	if in == "" {
		return nil, errors.New("commit: --in FILE is required")
	}
	if hashName == "" {
		hashName = "blake3"
		if isMatrix {
			hashName = "rescue"
		}
	}
	s, err := parseSchedule(hashName)
	if err != nil {
		return nil, err
	}
	var rows, cols int
	if isMatrix {
		if rows, cols, err = parseShape(matrix); err != nil {
			return nil, err
		}
	} else if size < 1 {
		return nil, fmt.Errorf("commit: --records %d: a record has 1 byte or more", size)
	}
	devices := g.openSoon()
	defer devices.close()
	// The input, the tree's leaves and nodes (64 bytes a leaf), and for a
	// matrix the elements decoded.
	raw, err := readInput(in, g.hostMemory()/3, "a commitment's input can take here (its tree takes host memory too)")
	if err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	grp, err := devices.wait()
	if err != nil {
		return nil, err
	}
	c, err := merkle.NewCommitter(firstDevice(grp), s, merkle.Options{Approach: merkle.Approach(approach)})
	if err != nil {
		return nil, err
	}
	defer c.Release()
	if isRecords {
		hash, ok := s[0].Hash.(merkle.RecordHash)
		if !ok {
			return nil, fmt.Errorf("commit: --records: %s does not hash records: the schedule's first hash makes the leaves (blake3 does)", s[0].Hash.Name())
		}
		if len(raw)%size != 0 {
			return nil, fmt.Errorf("commit: %s has %d bytes, not a whole number of %d-byte records", in, len(raw), size)
		}
		return c.CommitRecords(raw, size, hash)
	}
	hash, ok := s[0].Hash.(merkle.RowHash)
	if !ok {
		return nil, fmt.Errorf("commit: --matrix: %s does not hash rows of field elements: the schedule's first hash makes the leaves (rescue does)", s[0].Hash.Name())
	}
	if want := uint64(rows) * uint64(cols) * 8; uint64(len(raw)) != want {
		return nil, fmt.Errorf("commit: %s has %d bytes: a %dx%d matrix of little-endian uint64 is %d bytes", in, len(raw), rows, cols, want)
	}
	els := make([]uint64, rows*cols)
	for i := range els {
		els[i] = binary.LittleEndian.Uint64(raw[8*i:])
	}
	return c.CommitMatrix(merkle.Matrix{Rows: rows, Cols: cols, Data: els}, hash)
}

// The hashes the commit command's leaves come from.
var (
	_ merkle.RowHash    = rescue.MerkleMerge{}
	_ merkle.RecordHash = blake3.MerkleMerge{}
)
