package rescue

import (
	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgsl"
)

// HashRow returns the digest of HashElements(row): the leaf of a row in
// package merkle's matrix commitments (a merkle.RowHash[uint64]). The elements
// must be below P, as HashElements requires.
func (MerkleMerge) HashRow(row []uint64) [32]byte {
	return goldilocks.DigestBytes(HashElements(row))
}

// Modulus returns P: a row's elements are values below it (with HashRow
// and RowModule, a merkle.RowHash[uint64]).
func (MerkleMerge) Modulus() uint64 { return P }

// FieldName returns "Goldilocks", the field's name in merkle's errors.
func (MerkleMerge) FieldName() string { return "Goldilocks" }

// RowModule returns rescue_row.wgsl, which defines hash_row with
// rescue_lib.wgsl's permutation: HashElements of a row in one invocation.
func (MerkleMerge) RowModule() wgpu.Module {
	return wgsl.Module{Files: []string{"rescue_row.wgsl"}}
}

// ConvertDigest maps any 32 bytes to a Rescue digest, as a mixed Merkle
// tree takes another hash's digests into its Rescue levels (a
// merkle.DigestConverter): each of the four little-endian 64-bit words is
// reduced mod P. The rule is canonical (one digest for any 32 bytes, and
// a Rescue digest maps to itself) and keeps almost all of a 256-bit
// digest: a word maps to the same element as at most one other word (w
// and w+P, for w < 2^32-1), so a collision after the conversion costs
// about 2^128 work, as one before it does; taking 56-bit limbs instead
// would keep 224 bits (2^112).
func (MerkleMerge) ConvertDigest(d [32]byte) [32]byte { return goldilocks.ConvertDigest(d) }

// ConvertModule returns goldilocks_digest.wgsl, which defines
// convert_digest as ConvertDigest does.
func (MerkleMerge) ConvertModule() wgpu.Module {
	return wgsl.Module{Files: []string{"goldilocks_digest.wgsl"}}
}
