package sis_test

import (
	"fmt"
	"log"
	"slices"

	"github.com/consensys/gnark-crypto/field/koalabear"
	"github.com/consensys/gnark-crypto/field/koalabear/vortex"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/algos/sis"
	"github.com/wgcompute/wgcompute/wgpu"
)

// Vortex's column hashes of a 16 × 32 matrix of gnark-crypto elements: the
// SIS digest of each column (sis.NewRSis(0, 9, 16, 16)), then each digest
// hashed into a leaf with gnark-crypto's width-24 Poseidon2 sponge
// (vortex.HashPoseidon2x16), both on the elements as gnark-crypto holds
// them. With a nil Context it runs on the CPU (gnark-crypto's RSis.Hash);
// a Context from wgpu.Open runs both on its GPU, with the same bits.
func Example_vortexColumns() {
	var ctx *wgpu.Context
	const rows, cols = 16, 32
	key, err := sis.New(0, 9, 16, rows)
	if err != nil {
		log.Fatal(err)
	}
	m := make([]koalabear.Element, rows*cols) // row-major, as Vortex's codewords
	for i := range m {
		m[i].SetUint64(uint64(i * i))
	}
	digests := make([]koalabear.Element, cols*key.Degree())
	if err := key.HashColumns(ctx, digests, m, rows, cols, sis.Options{}); err != nil {
		log.Fatal(err)
	}
	leaves := make([]vortex.Hash, cols)
	montgomery := func(x []koalabear.Element) []uint32 {
		out := make([]uint32, len(x))
		for i := range x {
			out[i] = x[i][0] // a koalabear.Element is its Montgomery form
		}
		return out
	}
	words := make([]uint32, 8*cols)
	if err := poseidon2.GnarkKoalaBear.SpongeMontgomeryMany(ctx, words, montgomery(digests), key.Degree(), batch.Options{}); err != nil {
		log.Fatal(err)
	}
	for c := range leaves {
		for j := range 8 {
			leaves[c][j][0] = words[8*c+j]
		}
	}

	// gnark-crypto's own: its RSis.Hash of each column and
	// HashPoseidon2x16 of the digests, 16 columns at a time.
	want := make([]koalabear.Element, len(digests))
	col := make([]koalabear.Element, rows)
	for c := range cols {
		for r := range rows {
			col[r] = m[r*cols+c]
		}
		if err := key.RSis().Hash(col, want[c*key.Degree():(c+1)*key.Degree()]); err != nil {
			log.Fatal(err)
		}
	}
	wantLeaves := make([]vortex.Hash, cols)
	for c := 0; c < cols; c += 16 {
		vortex.HashPoseidon2x16(want[c*key.Degree():], wantLeaves[c:c+16], key.Degree())
	}
	fmt.Println(slices.Equal(digests, want), slices.Equal(leaves, wantLeaves))
	// Output:
	// true true
}
