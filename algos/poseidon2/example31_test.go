package poseidon2_test

import (
	"fmt"
	"log"

	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/wgpu"
)

// A BabyBear matrix committed as Plonky3's MMCS commits it, and a row
// opened. With a nil Context it runs on the CPU; a Context from wgpu.Open
// hashes the rows and builds the tree on its GPU, with the same root.
func Example_babyBearCommitment() {
	var ctx *wgpu.Context
	m := merkle.Matrix[uint32]{Rows: 64, Cols: 16, Data: make([]uint32, 64*16)}
	for i := range m.Data {
		m.Data[i] = uint32(i) // canonical values, below p
	}
	tree, err := merkle.CommitMatrix(ctx, m, poseidon2.BabyBearMerkle, merkle.Options{})
	if err != nil {
		log.Fatal(err)
	}
	proof, err := tree.Proof(5)
	if err != nil {
		log.Fatal(err)
	}
	ok := merkle.VerifyRow(poseidon2.BabyBearMerkle, tree.Root(), m.Rows, m.Row(5), proof)

	// The root is 8 canonical elements, as little-endian uint32s.
	fmt.Println(poseidon2.Digest31Elements(tree.Root()), ok)
	// Output:
	// [1704783888 220508969 1578913448 1631382107 367803545 1678302581 99274912 1078039797] true
}
