// Package goldilocks holds what the hashes over the Goldilocks field with
// a 12-element state and 4-element digests share beyond their batch
// functions (package batch): Rp64_256 (package rescue), RPO256 (package
// rpo) and Poseidon2 (package poseidon2). Here: the digest helpers of
// their MerkleMerge values, the model of their trees' host levels
// (MerkleHostWidth) and the writers of their generated WGSL constants
// files (wgslgen.go). Each hash package exports the digest
// helpers as LeafOf, DigestOf and Leaves.
package goldilocks

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"time"

	"github.com/wgcompute/wgcompute/u64emu"
)

// P is the Goldilocks prime 2^64 - 2^32 + 1.
const P = u64emu.P

const (
	// Width is the state size in field elements.
	Width = 12
	// DigestSize is the digest size in field elements.
	DigestSize = 4
)

// DigestElements reads a 32-byte digest as its DigestSize little-endian
// elements.
func DigestElements(d [32]byte) [DigestSize]uint64 {
	var e [DigestSize]uint64
	for j := range e {
		e[j] = binary.LittleEndian.Uint64(d[8*j:])
	}
	return e
}

// DigestBytes writes a digest's elements as 32 little-endian bytes.
func DigestBytes(e [DigestSize]uint64) [32]byte {
	var d [32]byte
	for j, v := range e {
		binary.LittleEndian.PutUint64(d[8*j:], v)
	}
	return d
}

// Leaves returns digests as Merkle leaves, each written by DigestBytes.
func Leaves(digests [][DigestSize]uint64) [][32]byte {
	leaves := make([][32]byte, len(digests))
	for i, d := range digests {
		leaves[i] = DigestBytes(d)
	}
	return leaves
}

// CheckDigest returns an error naming the first element of d that is not
// a field element (not below P); hash names the hash in it ("Rescue").
func CheckDigest(hash string, d [32]byte) error {
	for j, v := range DigestElements(d) {
		if v >= P {
			return fmt.Errorf("element %d is %d, not a Goldilocks field element: %s digests are 4 little-endian uint64 values below p = %d", j, v, hash, uint64(P))
		}
	}
	return nil
}

// ConvertDigest maps any 32 bytes to a digest of field elements: each of
// the four little-endian 64-bit words is reduced mod P (the rule of every
// family's MerkleMerge.ConvertDigest).
func ConvertDigest(d [32]byte) [32]byte {
	var out [32]byte
	for j := 0; j < DigestSize; j++ {
		binary.LittleEndian.PutUint64(out[8*j:], binary.LittleEndian.Uint64(d[8*j:])%P)
	}
	return out
}

// MerkleHostWidth is the MerkleHostWidth (merkle.HostTop) of a hash whose
// merge takes cpuMerge on one core and whose every level of a tree on a
// GPU waits gpuLevel at least, from a model, not a measurement of each
// host: a level of w nodes costs a GPU about max(gpuLevel, w·t) for its
// small t, and cores cores w/cores·cpuMerge. The host makes every level
// of w nodes for which w·cpuMerge/cores <= gpuLevel, rounded down to a
// power of two, and the GPU stops at twice that width. It returns 0 (no
// host levels) where not even one merge is worth it.
func MerkleHostWidth(cores int, cpuMerge, gpuLevel time.Duration) int {
	if cores < 1 || cpuMerge <= 0 {
		return 0
	}
	w := int64(gpuLevel) * int64(cores) / int64(cpuMerge)
	if w < 1 {
		return 0
	}
	return 2 << (bits.Len64(uint64(w)) - 1)
}
