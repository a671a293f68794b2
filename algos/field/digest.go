package field

// A digest of the Goldilocks hashes (Rescue's Rp64_256, RPO256, Poseidon2
// of width 12) is four elements, and a Merkle tree's leaves and nodes,
// which their MerkleMerge merges, are 32 bytes: the four elements as
// PutElements writes them, little-endian, in order. The functions below
// convert between the two for any of these hashes.

// GoldilocksLeaf returns the digest d as a Merkle leaf or node. The digests
// a hash's HashElements, Merge and batch functions compute become the
// leaves of a tree this way.
func GoldilocksLeaf(d [4]uint64) [32]byte {
	var leaf [32]byte
	PutElements(leaf[:], d[:])
	return leaf
}

// GoldilocksDigest returns the elements of a Merkle leaf or node, as
// GoldilocksLeaf writes them (a root's, a path's). It does not check that
// they are below GoldilocksP: a hash's MerkleMerge.CheckDigest does.
func GoldilocksDigest(leaf [32]byte) [4]uint64 {
	var d [4]uint64
	ReadElements(d[:], leaf[:])
	return d
}

// GoldilocksLeaves returns each of digests as GoldilocksLeaf does.
func GoldilocksLeaves(digests [][4]uint64) [][32]byte {
	leaves := make([][32]byte, len(digests))
	for i, d := range digests {
		leaves[i] = GoldilocksLeaf(d)
	}
	return leaves
}
