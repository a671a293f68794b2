// Command merkle is the README's library program: it makes leaves from
// records, builds a Merkle tree of them with Rescue Prime, proves leaves
// and verifies the proofs.
package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/wgpu"
)

func main() {
	// The default adapter, or the CPU where WGCOMPUTE_BACKEND=cpu asks for
	// it: the library reads no variable, the program decides.
	ctx, err := wgpu.Open(wgpu.Options{Backend: os.Getenv("WGCOMPUTE_BACKEND")})
	if errors.Is(err, wgpu.ErrCPUBackend) {
		ctx, err = nil, nil // a nil Context is the CPU backend: every call runs on all cores
	}
	if err != nil {
		log.Fatal(err) // says what was tried and why no adapter was found
	}
	defer ctx.Close()

	// A hash is a value of the type its package exports.
	hash := rescue.MerkleMerge{}

	// Rescue hashes Goldilocks field elements, which must be canonical:
	// below rescue.P = 2^64 - 2^32 + 1. x % rescue.P makes any uint64 one.
	// Leaf i is the Rescue hash of record i's 3 elements, its 4 digest
	// elements stored little-endian in 32 bytes (field.GoldilocksLeaf).
	leaves := make([][32]byte, 1000)
	for i := range leaves {
		record := []uint64{uint64(i), uint64(i) * 0x9e3779b97f4a7c15 % rescue.P, rescue.P - 1}
		leaves[i] = field.GoldilocksLeaf(rescue.HashElements(record))
	}

	tree, err := merkle.Build(ctx, leaves, hash, merkle.Options{})
	if err != nil {
		log.Fatal(err)
	}
	root := tree.Root() // publish the root and the number of leaves
	proof, err := tree.Proof(5)
	if err != nil {
		log.Fatal(err)
	}

	// A verifier checks the proof against the root and size it trusts.
	ok := merkle.Verify(hash, root, len(leaves), proof)
	// A multi-proof holds every node the verifier cannot compute, once.
	multi, err := tree.MultiProof([]int{3, 17, 99})
	if err != nil {
		log.Fatal(err)
	}
	ok = ok && merkle.Verify(hash, root, len(leaves), multi)
	fmt.Printf("root %x\nleaves 5, 3, 17 and 99 verified: %v\n", root, ok)

	// A leaf whose elements are not canonical is refused, not reduced.
	var bad [32]byte
	binary.LittleEndian.PutUint64(bad[:], rescue.P) // p itself is not below p
	_, err = merkle.Build(ctx, [][32]byte{bad, leaves[1]}, hash, merkle.Options{})
	fmt.Println("refused:", err)
}
