package main

import (
	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/rpo"
	"github.com/wgcompute/wgcompute/wgpu"
)

func newRPOCmd(g *globals) *cobra.Command {
	return newElementHashCmd(g, elementHash[rpo.Variant]{
		name:  "rpo",
		short: "Rescue Prime Optimized RPO256 (miden-crypto) merges and hash_elements on the GPU",
		long: `rpo hashes Goldilocks field elements with RPO256, miden-crypto's Rpo256
(releases 0.11 to 0.20), on the GPU: merge is Rpo256::merge, hash is
Rpo256::hash_elements. Records are little-endian u64 field elements, each
below p = 2^64 - 2^32 + 1; digests are 4 such elements (32 bytes). Input is
validated in full before any output is written; --out never holds a partial
result (a file is written beside it and renamed over it; a link is followed,
a device written to). --backend cpu computes with the Go reference on all
cores instead.`,
		variants: rpo.VariantNames(),
		fast:     rpo.Fast,
		parse:    rpo.ParseVariant,
		mergeOn: func(grp *wgpu.Group, dst [][4]uint64, pairs [][8]uint64, v rpo.Variant) error {
			return rpo.MergeManyOn(grp, dst, pairs, rpo.Options{Variant: v})
		},
		hashOn: func(grp *wgpu.Group, dst [][4]uint64, els []uint64, m int, v rpo.Variant) error {
			return rpo.HashElementsManyOn(grp, dst, els, m, rpo.Options{Variant: v})
		},
	})
}
