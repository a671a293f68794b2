package rescue_test

import (
	"fmt"
	"log"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// The README's Group example: a Merkle root and a batch of Rescue merges
// split over the members of g. Here g is two CPU members (nil Contexts);
// sched.OpenGroup gives every GPU of the machine, with the same results.
func Example_group() {
	g, err := sched.NewGroup(nil, nil)
	if err != nil {
		log.Fatal(err)
	}
	leaves := make([][32]byte, 1000)
	pairs := make([][8]uint64, 100) // each two Rescue digests of 4 elements below p
	for i := range pairs {
		pairs[i][0] = uint64(i)
	}

	root, err := merkle.Root(g, leaves, blake3.MerkleMerge{}, merkle.Options{})
	if err != nil {
		log.Fatal(err)
	}
	merged := make([][4]uint64, len(pairs)) // a Rescue digest is 4 Goldilocks elements, not 32 bytes
	err = rescue.Batch.MergeMany(g, merged, pairs, batch.Options{})
	if err != nil {
		log.Fatal(err)
	}

	fmt.Printf("%x\n", root)
	fmt.Println(merged[7] == rescue.Merge([4]uint64(pairs[7][:4]), [4]uint64(pairs[7][4:])))
	// Output:
	// 52bf2c90c17de2a0b10481c34d6aa60c780a24775fcb844af2ec180dcf4acf30
	// true
}

// Digests computed in a batch become the leaves of a Merkle tree, and a
// tree's nodes digests again.
func Example_leaves() {
	var ctx *wgpu.Context // the CPU; a Context from wgpu.Open hashes on the GPU
	pairs := make([][8]uint64, 4)
	for i := range pairs {
		pairs[i][0] = uint64(i)
	}
	digests := make([][4]uint64, len(pairs))
	if err := rescue.Batch.MergeMany(ctx, digests, pairs, batch.Options{}); err != nil {
		log.Fatal(err)
	}
	tree, err := merkle.Build(ctx, field.GoldilocksLeaves(digests), rescue.MerkleMerge{}, merkle.Options{})
	if err != nil {
		log.Fatal(err)
	}
	root := field.GoldilocksDigest(tree.Root())
	left := rescue.Merge(digests[0], digests[1])
	right := rescue.Merge(digests[2], digests[3])
	fmt.Println(root == rescue.Merge(left, right))
	fmt.Println(field.GoldilocksLeaf(left) == tree.Nodes()[2])
	// Output:
	// true
	// true
}
