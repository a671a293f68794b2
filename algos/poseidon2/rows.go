package poseidon2

import (
	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgsl"
)

// HashRow returns the digest of HashElements(row): the leaf of a row in
// package merkle's matrix commitments (a merkle.RowHash[uint64]), as Plonky3
// commits a matrix's rows with its PaddingFreeSponge. The elements must be
// below P, as HashElements requires.
func (MerkleMerge) HashRow(row []uint64) [32]byte {
	return goldilocks.DigestBytes(HashElements(row))
}

// Modulus returns P: a row's elements are values below it (with HashRow
// and RowModule, a merkle.RowHash[uint64]).
func (MerkleMerge) Modulus() uint64 { return P }

// FieldName returns "Goldilocks", the field's name in merkle's errors.
func (MerkleMerge) FieldName() string { return "Goldilocks" }

// RowModule returns poseidon2_row.wgsl, which defines hash_row with
// poseidon2_lib.wgsl's permutation: HashElements of a row in one
// invocation.
func (MerkleMerge) RowModule() wgpu.Module {
	return wgsl.Module{Files: []string{"poseidon2_row.wgsl"}}
}

// ConvertDigest maps any 32 bytes to a Poseidon2 digest, as a mixed Merkle
// tree takes another hash's digests into its Poseidon2 levels (a
// merkle.DigestConverter): each of the four little-endian 64-bit words is
// reduced mod P, the rule every Goldilocks hash here uses (see
// rescue.MerkleMerge.ConvertDigest for why).
func (MerkleMerge) ConvertDigest(d [32]byte) [32]byte { return goldilocks.ConvertDigest(d) }

// ConvertModule returns goldilocks_digest.wgsl, which defines
// convert_digest as ConvertDigest does.
func (MerkleMerge) ConvertModule() wgpu.Module {
	return wgsl.Module{Files: []string{"goldilocks_digest.wgsl"}}
}
