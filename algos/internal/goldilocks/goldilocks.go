// Package goldilocks holds what the hashes over the Goldilocks field with
// a 12-element state and 4-element digests share beyond their batch
// functions (package batch): Rp64_256 (package rescue), RPO256 (package
// rpo) and Poseidon2 (package poseidon2). Here: the digest helpers of
// their MerkleMerge values and the writers of their generated WGSL
// constants files (wgslgen.go). Each hash package exports the digest
// helpers as LeafOf, DigestOf and Leaves.
package goldilocks

import (
	"encoding/binary"
	"fmt"

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
