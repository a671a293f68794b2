// Package goldilocks is the one implementation of the hashes over the
// Goldilocks field with a 12-element state and 4-element digests beyond
// their batch functions (package batch): Rp64_256 (package rescue),
// RPO256 (package rpo) and Poseidon2 (package poseidon2). A hash is a
// Hash value, its parameters (names, Go functions, WGSL files, cost
// constants), and everything package merkle asks of it (merges, digests,
// row hashes, conversions, the host levels' model) is written once here,
// over any Hash (Merkle, Tuned), on digests as package field converts them
// (field.GoldilocksLeaf, GoldilocksDigest). Here too: the sponge and
// compression of package symmetric over a 12-element permutation, and
// the writers of the hashes' generated WGSL constants files (wgslgen.go).
package goldilocks

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"time"

	"github.com/wgcompute/wgcompute/algos/field"
)

// P is the Goldilocks prime 2^64 - 2^32 + 1.
const P = field.GoldilocksP

const (
	// Width is the state size in field elements.
	Width = 12
	// DigestSize is the digest size in field elements.
	DigestSize = 4
)

// CheckDigest returns an error naming the first element of d that is not
// a field element (not below P); hash names the hash in it ("Rescue").
func CheckDigest(hash string, d [32]byte) error {
	for j, v := range field.GoldilocksDigest(d) {
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

// MerkleHostWidth is the MerkleHostWidth (an optional method of a merkle.Hash) of a hash whose
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

// Pow7 returns a^7 mod P, the S-box of Rescue, RPO and Poseidon2 over
// Goldilocks.
func Pow7(a uint64) uint64 {
	var f field.Goldilocks
	a2 := f.Square(a)
	a3 := f.Mul(a2, a)
	a4 := f.Square(a2)
	return f.Mul(a4, a3)
}
