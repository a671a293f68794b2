package main

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/internal/checked"
	"github.com/wgcompute/wgcompute/internal/registry"
	"github.com/wgcompute/wgcompute/u64emu"
)

// newElementHashCmds builds the command of every Goldilocks hash of the
// registry, named after it, with the subcommands merge and hash.
func newElementHashCmds(g *globals) []*cobra.Command {
	var cmds []*cobra.Command
	for _, h := range registry.Of(registry.Goldilocks) {
		cmds = append(cmds, newElementHashCmd(g, h))
	}
	return cmds
}

// newElementHashCmd builds the command of h, with its subcommands merge
// and hash.
func newElementHashCmd(g *globals, h registry.Hash) *cobra.Command {
	var (
		inPath, outPath, variant string
		elements                 int
	)
	parent := &cobra.Command{
		Use:   h.Name,
		Short: h.Title + " merges and hash_elements on the GPU",
		Long: h.Name + " hashes Goldilocks field elements on the GPU with " + h.About + `
Records are little-endian u64 field elements, each below p = 2^64 - 2^32 + 1;
digests are 4 such elements (32 bytes). Input is validated in full before
any output is written; --out never holds a partial result (a file is written
beside it and renamed over it; a link is followed, a device written to).
--backend cpu computes on all cores instead. --variant runs one of the
kernel variants kept to be measured against the default (every variant
gives the same digests).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	merge := &cobra.Command{
		Use:   "merge --in FILE [--out FILE]",
		Short: "Merge K pairs of digests: 64-byte records in, 32-byte digests out",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return elementFileCmd(g, cmd, h, inPath, outPath, variant, 8)
		},
	}
	hash := &cobra.Command{
		Use:   "hash --elements M --in FILE [--out FILE]",
		Short: "hash_elements of K inputs of M elements: M*8-byte records in, 32-byte digests out",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if elements < 1 || elements > maxElements {
				return fmt.Errorf("%s hash: --elements is %d: give the number of field elements per record, 1 to %d", h.Name, elements, maxElements)
			}
			return elementFileCmd(g, cmd, h, inPath, outPath, variant, elements)
		},
	}
	for _, c := range []*cobra.Command{merge, hash} {
		c.Flags().StringVar(&inPath, "in", "", "input file of records (required)")
		c.Flags().StringVar(&outPath, "out", "", "output file (default: stdout)")
		c.Flags().StringVar(&variant, "variant", h.Variants()[0], "kernel variant, one of "+strings.Join(h.Variants(), ", "))
		c.MarkFlagRequired("in")
		parent.AddCommand(c)
	}
	hash.Flags().IntVar(&elements, "elements", 0, "field elements per record (required)")
	hash.MarkFlagRequired("elements")
	return parent
}

// maxElements bounds hash's --elements: the GPU kernels take inputs of at
// most 2^31 elements (16 GiB records).
const maxElements = 1 << 31

// elementFileCmd hashes the records of inPath (m elements each; m = 8 is
// a merge of two digests) with h and writes the digests to outPath or
// stdout.
func elementFileCmd(g *globals, cmd *cobra.Command, h registry.Hash, inPath, outPath, variant string, m int) error {
	name := "hash"
	if cmd.Name() == "merge" {
		name = "merge"
	}
	v, err := h.Variant(variant)
	if err != nil {
		return err
	}
	// The input and its elements (8 bytes each, twice), the digests and
	// their bytes (32 each, twice) are in host memory at once: 2 + 8/m
	// times the input (3 for merges), bounded at 4 times or more.
	times := max(4, 2+8/float64(m))
	devices := g.openSoon()
	defer devices.close()
	raw, err := readInput(inPath, int64(float64(g.hostMemory())/times),
		fmt.Sprintf("%s can hash in the host memory available (it needs up to %.3g times the input)", h.Name, times))
	if err != nil {
		return fmt.Errorf("%s %s: %w", h.Name, name, err)
	}
	rec, err := checked.Mul(8, m)
	if err != nil {
		return fmt.Errorf("%s %s: records of %d elements: %w bytes", h.Name, name, m, err)
	}
	if len(raw)%rec != 0 {
		return fmt.Errorf("%s %s: %s is %d bytes, not a whole number of %d-byte records: record %d has only %d bytes",
			h.Name, name, inPath, len(raw), rec, len(raw)/rec, len(raw)%rec)
	}
	k := len(raw) / rec
	els := asElements[uint64](raw)
	canonical := batch.FirstNonCanonical(els, u64emu.P) < 0
	dst := make([][4]uint64, k)
	if k > 0 {
		grp, err := devices.wait()
		if err != nil {
			return err
		}
		// The library checks every element before any kernel runs, on
		// every backend, and names the first that is not below p: "rescue:
		// merge: pair 3 element 2 is ..., not a field element (must be
		// below p = ...)", a pair or an input being a record of the file.
		// Its error starts with the command's name, so it is returned as
		// it is; nothing has been written by then.
		// The records go in pieces, so that a progress bar moves and
		// Ctrl-C is answered between them; the digests do not depend on
		// where the pieces end. An input with an element that is not
		// canonical goes whole, so that the library's error counts
		// records from the file's start.
		piece := 1024
		if !canonical {
			piece = k
		}
		bar := newMeter(cmd, g, h.Name+" "+name, int64(k), "records")
		err = inPieces(cmd.Context(), bar, k, piece, func(lo, hi int) error {
			if name == "merge" {
				// MergeMany equals HashElements of the eight elements, on els
				// viewed as pairs (not a copy).
				pairs := unsafe.Slice((*[8]uint64)(unsafe.Pointer(unsafe.SliceData(els))), k)
				return v.MergeManyOn(grp, dst[lo:hi], pairs[lo:hi], batch.Options{})
			}
			return v.HashElementsManyOn(grp, dst[lo:hi], els[lo*m:hi*m], m, batch.Options{})
		})
		if err != nil {
			return err
		}
	}
	out := digestsAsBytes(dst)
	if outPath == "" {
		_, err := cmd.OutOrStdout().Write(out)
		return err
	}
	if err := writeOutput(outPath, out); err != nil {
		return fmt.Errorf("%s %s: %w", h.Name, name, err)
	}
	return nil
}
