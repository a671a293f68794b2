package rpo

import "github.com/wgcompute/wgcompute/algos/internal/goldilocks"

// LeafOf returns the RPO256 digest d as a Merkle leaf or node: the 32 bytes
// MerkleMerge merges, d's elements in little-endian order. The digests
// that MergeMany and HashElementsMany compute become the leaves of a
// merkle.Build this way.
func LeafOf(d [DigestSize]uint64) [32]byte { return goldilocks.DigestBytes(d) }

// DigestOf returns the elements of a Merkle leaf or node, as LeafOf writes
// them. It does not check that they are field elements:
// MerkleMerge.CheckDigest does.
func DigestOf(leaf [32]byte) [DigestSize]uint64 { return goldilocks.DigestElements(leaf) }

// Leaves returns each of digests as LeafOf does, for merkle.Build.
func Leaves(digests [][DigestSize]uint64) [][32]byte { return goldilocks.Leaves(digests) }
