package main

import (
	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/wgpu"
)

func newPoseidon2Cmd(g *globals) *cobra.Command {
	return newElementHashCmd(g, elementHash[poseidon2.Variant]{
		name:  "poseidon2",
		short: "Poseidon2 (Plonky3, Goldilocks, width 12) merges and hash_elements on the GPU",
		long: `poseidon2 hashes Goldilocks field elements with Plonky3's Poseidon2 (width 12,
default_goldilocks_poseidon2_12) on the GPU. merge is the 2-to-1 compression
of Plonky3's Merkle trees (TruncatedPermutation<_, 2, 4, 12>); hash is its
padding-free sponge (PaddingFreeSponge<_, 12, 8, 4>: no padding, so hash
records of one length only). Records are little-endian u64 field elements,
each below p = 2^64 - 2^32 + 1; digests are 4 such elements (32 bytes).
Input is validated in full before any output is written; --out never holds
a partial result (a file is written beside it and renamed over it; a link
is followed, a device written to). --backend cpu computes on all cores
instead.`,
		variants: poseidon2.VariantNames(),
		fast:     poseidon2.Fast,
		parse:    poseidon2.ParseVariant,
		mergeOn: func(grp *wgpu.Group, dst [][4]uint64, pairs [][8]uint64, v poseidon2.Variant) error {
			return poseidon2.MergeManyOn(grp, dst, pairs, poseidon2.Options{Variant: v})
		},
		hashOn: func(grp *wgpu.Group, dst [][4]uint64, els []uint64, m int, v poseidon2.Variant) error {
			return poseidon2.HashElementsManyOn(grp, dst, els, m, poseidon2.Options{Variant: v})
		},
	})
}
