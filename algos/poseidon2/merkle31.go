package poseidon2

import (
	"fmt"
	"github.com/wgcompute/wgcompute/algos/field"

	"github.com/wgcompute/wgcompute/wgpu"
)

// MerkleMerge31 is Poseidon2 over a 31-bit field as the hash of package
// merkle's trees and matrix commitments, in the shape of Plonky3's
// MerkleTreeMmcs over BabyBear or KoalaBear: a digest is Digest31
// canonical elements, each a little-endian uint32 (the 32 bytes of a
// merkle digest); two digests merge by TruncatedPermutation<perm16, 2, 8,
// 16> and a matrix's row hashes by PaddingFreeSponge<perm16, 16, 8, 8>,
// both over the width-16 permutation. It is a merkle.Hash and a
// merkle.RowHash[uint32].
//
// Plonky3 serializes elements in Montgomery form (since v0.4); digests
// here are canonical values, so bytes differ from Plonky3's serialized
// ones while the elements are equal. Rows are canonical values, or
// Montgomery forms where a merkle.Matrix's Form says so (RowModuleIn).
//
// Its zero value is BabyBearMerkle; KoalaBearMerkle is the other.
type MerkleMerge31 struct{ p *Permutation31 }

// perm returns the hash's width-16 permutation.
func (m MerkleMerge31) perm() *Permutation31 {
	if m.p == nil {
		return BabyBear16
	}
	return m.p
}

// NewMerkleMerge31 returns the hash of Plonky3's MMCS over p (as
// BabyBearMerkle is over BabyBear16), or an error where p is not of
// width 16.
func NewMerkleMerge31(p *Permutation31) (MerkleMerge31, error) {
	if p == nil || p.Width() != 16 {
		return MerkleMerge31{}, fmt.Errorf("poseidon2: a MerkleMerge31 is over a permutation of width 16")
	}
	return MerkleMerge31{p}, nil
}

var (
	// BabyBearMerkle is MerkleMerge31 over BabyBear16.
	BabyBearMerkle = MerkleMerge31{BabyBear16}
	// KoalaBearMerkle is MerkleMerge31 over KoalaBear16.
	KoalaBearMerkle = MerkleMerge31{KoalaBear16}
)

// Name returns "poseidon2-babybear" or "poseidon2-koalabear".
func (m MerkleMerge31) Name() string { return "poseidon2-" + m.perm().Field().Name() }

// Permutation returns the permutation the hash is built on.
func (m MerkleMerge31) Permutation() *Permutation31 { return m.perm() }

// reducing31 is a permutation that takes any uint32 and reduces it mod p
// first, as the kernels' conversion into Montgomery form does, and
// computes as they do (permuteMonty): so Merge
// and HashRow are defined on every input, the same on the host and on
// the device, though only canonical ones are digests and rows.
type reducing31 struct{ *Permutation31 }

func (r reducing31) Permute(s []uint32) error {
	if len(s) != r.Width() {
		return fmt.Errorf("poseidon2: %s permutes %d elements, given %d", r.Name(), r.Width(), len(s))
	}
	for i, x := range s {
		s[i] = r.f.ToMonty(x) // any uint32: ToMonty reduces it
	}
	r.permuteMonty(s)
	for i, x := range s {
		s[i] = r.f.FromMonty(x)
	}
	return nil
}

// Merge returns TruncatedPermutation<perm, 2, 8, 16> of the digests'
// elements, as a digest.
func (m MerkleMerge31) Merge(left, right [32]byte) [32]byte {
	return Digest31Bytes(m.perm().merge8(Digest31Elements(left), Digest31Elements(right)))
}

// HashRow returns PaddingFreeSponge<perm, 16, 8, 8> of row, as a
// digest: the leaf of a row in package merkle's matrix commitments. The
// elements must be below the field's p, as merkle checks.
func (m MerkleMerge31) HashRow(row []uint32) [32]byte {
	return Digest31Bytes(m.perm().hash8(row))
}

// many31 is how many digests HashRowsMany and MergeMany convert at a
// time, so that their scratch stays small and in cache.
const many31 = 256

// HashRowsMany sets dst[i] to HashRow(data[i·cols : (i+1)·cols]) for
// every i < len(dst), the rows side by side in the permutation's blocks
// of states: package merkle's CPU matrix commitments take it (an optional
// method of merkle.Hash) in place of HashRow row by row.
func (m MerkleMerge31) HashRowsMany(dst [][32]byte, data []uint32, cols int) {
	p := m.perm()
	var out [many31][Digest31]uint32
	for lo := 0; lo < len(dst); lo += many31 {
		n := min(many31, len(dst)-lo)
		p.hash8Many(out[:n], data[lo*cols:(lo+n)*cols], cols)
		for i, e := range out[:n] {
			dst[lo+i] = Digest31Bytes(e)
		}
	}
}

// MergeMany sets dst[i] to Merge(below[2i], below[2i+1]) for every
// i < len(dst), the pairs side by side in the permutation's blocks of
// states: package merkle's CPU builds take it (an optional method of
// merkle.Hash) in place of Merge pair by pair.
func (m MerkleMerge31) MergeMany(dst, below [][32]byte) {
	p := m.perm()
	var pairs [many31][2 * Digest31]uint32
	var out [many31][Digest31]uint32
	for lo := 0; lo < len(dst); lo += many31 {
		n := min(many31, len(dst)-lo)
		for i := range n {
			field.ReadElements(pairs[i][:Digest31], below[2*(lo+i)][:])
			field.ReadElements(pairs[i][Digest31:], below[2*(lo+i)+1][:])
		}
		p.merge8Many(out[:n], pairs[:n])
		for i, e := range out[:n] {
			dst[lo+i] = Digest31Bytes(e)
		}
	}
}

// CheckDigest returns an error naming the first element of d that is not
// below the field's p.
func (m MerkleMerge31) CheckDigest(d [32]byte) error {
	f := m.perm().Field()
	for i, x := range Digest31Elements(d) {
		if x >= f.P() {
			return fmt.Errorf("element %d is %d: Poseidon2 %s digests are %d little-endian uint32 elements below p = %d", i, x, f.Name(), Digest31, f.P())
		}
	}
	return nil
}

// Modulus returns the field's p.
func (m MerkleMerge31) Modulus() uint32 { return m.perm().Field().P() }

// FieldName returns the field's name, "babybear" or "koalabear".
func (m MerkleMerge31) FieldName() string { return m.perm().Field().Name() }

// MergeModule returns compress31.wgsl over the permutation and Plonky3's
// construction, which defines merge_node as Merge does.
func (m MerkleMerge31) MergeModule() wgpu.Module {
	return m.perm().module(plonky3Construction, "compress31.wgsl")
}

// RowModule returns sponge31.wgsl over the permutation and Plonky3's
// construction, which defines hash_row as HashRow does.
func (m MerkleMerge31) RowModule() wgpu.Module {
	return m.perm().module(plonky3Construction, "sponge31.wgsl")
}

// RowModuleIn returns RowModule for rows whose elements are held in form
// f: for field.Montgomery (gnark-crypto's elements in memory) the sponge
// absorbs the words as they are, the same digests as RowModule's of
// their values. Package merkle takes it (an optional method of
// merkle.RowHash) to commit to a matrix of Form field.Montgomery.
func (m MerkleMerge31) RowModuleIn(f field.Form) (wgpu.Module, error) {
	c, err := plonky3Construction.in(m.Name(), f)
	if err != nil {
		return nil, err
	}
	return m.perm().module(c, "sponge31.wgsl"), nil
}

// Digest31Elements returns the Digest31 little-endian uint32 elements of
// d.
func Digest31Elements(d [32]byte) [Digest31]uint32 {
	var e [Digest31]uint32
	field.ReadElements(e[:], d[:])
	return e
}

// Digest31Bytes returns the digest of elements e, each as a little-endian
// uint32.
func Digest31Bytes(e [Digest31]uint32) [32]byte {
	var d [32]byte
	field.PutElements(d[:], e[:])
	return d
}
