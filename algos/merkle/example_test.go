package merkle_test

import (
	"encoding/binary"
	"fmt"
	"log"

	"github.com/consensys/gnark-crypto/field/koalabear"

	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/wgpu"
)

// exampleLeaves returns n leaves that every hash accepts: leaf i is the
// Rescue digest (i, 0, 0, 0), its elements little-endian and below p.
func exampleLeaves(n int) [][32]byte {
	leaves := make([][32]byte, n)
	for i := range leaves {
		binary.LittleEndian.PutUint64(leaves[i][:], uint64(i))
	}
	return leaves
}

// A Rescue tree on the device of ctx (here nil, the CPU; wgpu.Open gives
// a GPU), its timing, a proof and a multi-proof checked against the root
// a verifier trusts.
func ExampleBuild() {
	var ctx *wgpu.Context
	leaves := exampleLeaves(1000)
	reference, err := merkle.Build(nil, leaves, rescue.MerkleMerge{}, merkle.Options{})
	if err != nil {
		log.Fatal(err)
	}
	trustedRoot, trustedLeaves := reference.Root(), len(leaves)

	var t wgpu.Timing // every call reports its time through Options.Timing
	tree, err := merkle.Build(ctx, leaves, rescue.MerkleMerge{}, merkle.Options{Timing: &t})
	if err != nil {
		log.Fatal(err)
	}
	elapsed := t.Elapsed() // the kernels' time where the adapter measures it, else the wall time
	proof, err := tree.Proof(5)
	if err != nil {
		log.Fatal(err)
	}
	ok := merkle.Verify(rescue.MerkleMerge{}, trustedRoot, trustedLeaves, proof) // the root and size you trust
	// A multi-proof holds every node the verifier cannot compute, once.
	multi, err := tree.MultiProof([]int{3, 17, 99})
	if err != nil {
		log.Fatal(err)
	}
	ok = ok && merkle.Verify(rescue.MerkleMerge{}, trustedRoot, trustedLeaves, multi)

	fmt.Printf("%x %v %v\n", tree.Root(), ok, elapsed > 0)
	// Output:
	// 880fa7d433f0c1056bda5fb545bd900a7aab9ce0a82141f937e7c3613b8bac70 true true
}

// A capped tree keeps only its top levels; a proof rebuilds the rest.
func ExampleOptions_capHeight() {
	var ctx *wgpu.Context
	leaves := exampleLeaves(1000)

	// Only the top 3 levels on the host (a cap of 2^2 subtree roots): a proof
	// rebuilds its leaf's subtree from the leaves on the same GPU.
	capped, err := merkle.Build(ctx, leaves, blake3.MerkleMerge{}, merkle.Options{CapHeight: 2})
	if err != nil {
		log.Fatal(err)
	}
	proof, err := capped.Proof(123)
	if err != nil {
		log.Fatal(err)
	}

	fmt.Println(merkle.Verify(blake3.MerkleMerge{}, capped.Root(), len(leaves), proof))
	// Output:
	// true
}

// Tree after tree of one size through one Committer.
func ExampleCommitter_BuildInto() {
	var ctx *wgpu.Context
	batches := [][][32]byte{exampleLeaves(64), exampleLeaves(65)[1:]}

	// Tree after tree of one size: keep a Committer and reuse each tree's memory
	// (a new 1 GiB of nodes costs Go about 100 ms of one core to zero: H100,
	// 2026-11-23, bench/e2e; BENCHMARKS.md, "The system path, second pass").
	c, err := merkle.NewCommitter(ctx, merkle.Schedule{{Hash: blake3.MerkleMerge{}}}, merkle.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Release()
	var t2 *merkle.Tree
	for _, leaves := range batches {
		t2, err = c.BuildInto(t2, leaves) // t2's nodes are overwritten: take what you need first
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%x\n", t2.Root())
	}
	// Output:
	// 65849a1102b1d03c8d8ee466dddc4455fcf8b61a23be102a35938b76ff3dfa02
	// 3e9d14eb6812875fbed1120dcbd849143182f8988dc16bf9e0ebc8816de60c2f
}

// A matrix committed row by row, and a row opened.
func ExampleCommitMatrix() {
	var ctx *wgpu.Context
	elements := make([]uint64, 64*8)
	for i := range elements {
		elements[i] = uint64(i)
	}

	// A matrix of Goldilocks elements (row-major, rows a power of two): leaf r is
	// Rescue's hash_elements of row r, hashed on the GPU into the tree's leaves.
	m := merkle.Matrix[uint64]{Rows: 64, Cols: 8, Data: elements}
	tree, err := merkle.CommitMatrix(ctx, m, rescue.MerkleMerge{}, merkle.Options{})
	if err != nil {
		log.Fatal(err)
	}
	proof, err := tree.Proof(5)
	if err != nil {
		log.Fatal(err)
	}
	ok := merkle.VerifyRow(rescue.MerkleMerge{}, tree.Root(), m.Rows, m.Row(5), proof)

	fmt.Printf("%x %v\n", tree.Root(), ok)
	// Output:
	// e22e79f89f9af15011ba8569c79273707eea4f0a9b04013fb664e496b57f03dd true
}

// A tree with a hash per level, built from leaves or from records.
func ExampleBuild_mixed() {
	var ctx *wgpu.Context
	records := make([]byte, 64*100)
	for i := range records {
		records[i] = byte(i)
	}

	// A hash per level: BLAKE3 for the lowest 4 levels, Rescue above (BLAKE3
	// digests enter the Rescue levels as their 4 little-endian words mod p).
	s := merkle.Schedule{{Hash: blake3.MerkleMerge{}, Count: 4}, {Hash: rescue.MerkleMerge{}}}
	c, err := merkle.NewCommitter(ctx, s, merkle.Options{}) // records of 100 bytes,
	if err != nil {
		log.Fatal(err)
	}
	tree, err := merkle.CommitRecords(ctx, records, 100, blake3.MerkleMerge{}, merkle.Options{Committer: c}) // BLAKE3 leaves on the GPU
	if err != nil {
		log.Fatal(err)
	}
	same, err := merkle.Build(ctx, tree.Leaves(), nil, merkle.Options{Schedule: s})
	if err != nil {
		log.Fatal(err)
	}
	proof, err := same.Proof(5)
	if err != nil {
		log.Fatal(err)
	}
	ok := merkle.VerifyMixed(s, tree.Root(), len(tree.Leaves()), proof)

	fmt.Printf("%x %v\n", same.Root(), ok)
	// Output:
	// fe0a0654768bc2f5774bb3ef075f3a4d9da58a164dbe897ed8dc3873cdde5dab true
}

// A gnark-crypto prover's matrix of koalabear.Element values (Montgomery
// form in memory) committed as it is: the tree of its values, the same as
// the canonical values' (on the device of ctx, here nil, the CPU).
func ExampleMontyMatrix() {
	var ctx *wgpu.Context
	const rows, cols = 8, 5
	els := make([]koalabear.Element, rows*cols) // the prover's matrix, row by row
	for i := range els {
		els[i].SetUint64(uint64(i * i))
	}
	tree, err := merkle.CommitMatrix(ctx, merkle.MontyMatrix(rows, cols, els),
		poseidon2.GnarkKoalaBear, merkle.Options{})
	if err != nil {
		log.Fatal(err)
	}
	values := make([]uint32, rows*cols) // the same matrix, canonical
	for i := range values {
		values[i] = uint32(i * i)
	}
	canonical, err := merkle.CommitMatrix(ctx, merkle.Matrix[uint32]{Rows: rows, Cols: cols, Data: values},
		poseidon2.GnarkKoalaBear, merkle.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tree.Root() == canonical.Root())
	// Output:
	// true
}
