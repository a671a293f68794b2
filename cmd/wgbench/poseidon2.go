package main

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unsafe"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/internal/fileout"
)

func newPoseidon2Cmd(g *globals) *cobra.Command {
	var (
		inPath, outPath, variant string
		elements                 int
	)
	parent := &cobra.Command{
		Use:   "poseidon2",
		Short: "Poseidon2 (Plonky3, Goldilocks, width 12) merges and hash_elements on the GPU",
		Long: `poseidon2 hashes Goldilocks field elements with Plonky3's Poseidon2 (width 12,
default_goldilocks_poseidon2_12) on the GPU. merge is the 2-to-1 compression
of Plonky3's Merkle trees (TruncatedPermutation<_, 2, 4, 12>); hash is its
padding-free sponge (PaddingFreeSponge<_, 12, 8, 4>: no padding, so hash
records of one length only). Records are little-endian u64 field elements,
each below p = 2^64 - 2^32 + 1; digests are 4 such elements (32 bytes).
Input is validated in full before any output is written; --out never holds
a partial result (a file is written beside it and renamed over it; a link
is followed, a device written to). --backend cpu computes on all cores
instead.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	merge := &cobra.Command{
		Use:   "merge --in FILE [--out FILE]",
		Short: "Merge K pairs of digests: 64-byte records in, 32-byte digests out",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return poseidon2FileCmd(g, cmd, inPath, outPath, variant, 8)
		},
	}
	hash := &cobra.Command{
		Use:   "hash --elements M --in FILE [--out FILE]",
		Short: "hash_elements of K inputs of M elements: M*8-byte records in, 32-byte digests out",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if elements < 1 || elements > maxElements {
				return fmt.Errorf("poseidon2 hash: --elements is %d: give the number of field elements per record, 1 to %d", elements, maxElements)
			}
			return poseidon2FileCmd(g, cmd, inPath, outPath, variant, elements)
		},
	}
	for _, c := range []*cobra.Command{merge, hash} {
		c.Flags().StringVar(&inPath, "in", "", "input file of records (required)")
		c.Flags().StringVar(&outPath, "out", "", "output file (default: stdout)")
		c.Flags().StringVar(&variant, "variant", poseidon2.Fast.String(), "kernel variant, one of "+strings.Join(poseidon2.VariantNames(), ", "))
		c.MarkFlagRequired("in")
		parent.AddCommand(c)
	}
	hash.Flags().IntVar(&elements, "elements", 0, "field elements per record (required)")
	hash.MarkFlagRequired("elements")
	return parent
}

// poseidon2FileCmd hashes the records of inPath (m elements each; m = 8 is
// a merge of two digests) and writes the digests to outPath or stdout, as
// rescueFileCmd does for Rescue.
func poseidon2FileCmd(g *globals, cmd *cobra.Command, inPath, outPath, variant string, m int) error {
	name := "hash"
	if cmd.Name() == "merge" {
		name = "merge"
	}
	v, err := poseidon2.ParseVariant(variant)
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
		fmt.Sprintf("poseidon2 can hash in the host memory available (it needs up to %.3g times the input)", times))
	if err != nil {
		return fmt.Errorf("poseidon2 %s: %w", name, err)
	}
	rec := 8 * m
	if len(raw)%rec != 0 {
		return fmt.Errorf("poseidon2 %s: %s is %d bytes, not a whole number of %d-byte records: record %d has only %d bytes",
			name, inPath, len(raw), rec, len(raw)/rec, len(raw)%rec)
	}
	k := len(raw) / rec
	els := make([]uint64, k*m)
	for i := range els {
		els[i] = binary.LittleEndian.Uint64(raw[8*i:])
		if els[i] >= poseidon2.P {
			return fmt.Errorf("poseidon2 %s: record %d element %d is %d, not a field element (must be below p = %d)",
				name, i/m, i%m, els[i], uint64(poseidon2.P))
		}
	}
	dst := make([][4]uint64, k)
	if k > 0 {
		if err := poseidon2Digests(devices, dst, els, m, v, name == "merge"); err != nil {
			return err
		}
	}
	out := make([]byte, 32*k)
	for i, d := range dst {
		for j, e := range d {
			binary.LittleEndian.PutUint64(out[32*i+8*j:], e)
		}
	}
	if outPath == "" {
		_, err := cmd.OutOrStdout().Write(out)
		return err
	}
	if err := fileout.WriteFile(outPath, out); err != nil {
		return fmt.Errorf("poseidon2 %s: %w", name, err)
	}
	return nil
}

// poseidon2Digests hashes the k = len(dst) records of m elements in els,
// on the devices being opened (the CPU backend included). Merge records
// (m = 8) go through MergeMany, which equals HashElements of the eight
// elements, on els viewed as pairs (not a copy).
func poseidon2Digests(devices *opening, dst [][4]uint64, els []uint64, m int, v poseidon2.Variant, merge bool) error {
	grp, err := devices.wait()
	if err != nil {
		return err
	}
	opts := poseidon2.Options{Variant: v}
	if merge {
		pairs := unsafe.Slice((*[8]uint64)(unsafe.Pointer(unsafe.SliceData(els))), len(dst))
		return poseidon2.MergeManyOn(grp, dst, pairs, opts)
	}
	return poseidon2.HashElementsManyOn(grp, dst, els, m, opts)
}
