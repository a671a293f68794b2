package main

import (
	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/wgpu"
)

func newRescueCmd(g *globals) *cobra.Command {
	return newElementHashCmd(g, elementHash[rescue.Variant]{
		name:  "rescue",
		short: "Rescue Prime Rp64_256 (winterfell) merges and hash_elements on the GPU",
		long: `rescue hashes Goldilocks field elements with Rp64_256 on the GPU.
Records are little-endian u64 field elements, each below p = 2^64 - 2^32 + 1;
digests are 4 such elements (32 bytes). Input is validated in full before
any output is written; --out never holds a partial result (a file is written
beside it and renamed over it; a link is followed, a device written to).
--backend cpu computes with the Go reference on all cores instead.`,
		variants: rescue.VariantNames(),
		fast:     rescue.Fast,
		parse:    rescue.ParseVariant,
		mergeOn: func(grp *wgpu.Group, dst [][4]uint64, pairs [][8]uint64, v rescue.Variant) error {
			return rescue.MergeManyOn(grp, dst, pairs, rescue.Options{Variant: v})
		},
		hashOn: func(grp *wgpu.Group, dst [][4]uint64, els []uint64, m int, v rescue.Variant) error {
			return rescue.HashElementsManyOn(grp, dst, els, m, rescue.Options{Variant: v})
		},
	})
}
