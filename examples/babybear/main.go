// Command babybear is the README's BabyBear program: it commits to a
// matrix of BabyBear elements as Plonky3's MMCS does (Poseidon2), opens
// a row and verifies it.
package main

import (
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/wgpu"
)

func main() {
	ctx, err := wgpu.Open(wgpu.Options{Backend: os.Getenv("WGCOMPUTE_BACKEND")})
	if errors.Is(err, wgpu.ErrCPUBackend) {
		ctx, err = nil, nil // the CPU backend
	}
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Close()

	// A hash is a value of the type its package exports; the 31-bit
	// fields' hashes are values of one type, named by field.
	hash := poseidon2.BabyBearMerkle

	// 64 rows of 16 BabyBear elements, row by row, each canonical: below
	// p = 2013265921 (field.BabyBear.P()), not in Montgomery form.
	// field.BabyBear.Reduce makes any uint64 one.
	m := merkle.Matrix[uint32]{Rows: 64, Cols: 16, Data: make([]uint32, 64*16)}
	for i := range m.Data {
		m.Data[i] = field.BabyBear.Reduce(uint64(i) * 0x9e3779b97f4a7c15)
	}
	tree, err := merkle.CommitMatrix(ctx, m, hash, merkle.Options{})
	if err != nil {
		log.Fatal(err)
	}
	proof, err := tree.Proof(5)
	if err != nil {
		log.Fatal(err)
	}
	ok := merkle.VerifyRow(hash, tree.Root(), m.Rows, m.Row(5), proof)

	// The root is 8 canonical elements as little-endian uint32s, printed
	// as wgbench prints roots: in hex (poseidon2.Digest31Elements gives
	// the elements).
	fmt.Printf("root %x\n", tree.Root())
	fmt.Println("row 5 verified:", ok)

	// An element at or above p is refused, with its row and column.
	m.Data[3*16+7] = field.BabyBear.P()
	_, err = merkle.CommitMatrix(ctx, m, hash, merkle.Options{})
	fmt.Println("refused:", err)
}
