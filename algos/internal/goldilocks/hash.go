package goldilocks

import (
	"fmt"
	"sync"
	"time"

	"github.com/wgcompute/wgcompute/algos/field"

	"github.com/wgcompute/wgcompute/algos/symmetric"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Hash is one Goldilocks hash with a 12-element state and 4-element
// digests as parameters: its names, its Go functions, the WGSL files of
// its merge and row hash, and its cost constants. Everything package
// merkle asks of such a hash is written once, over a Hash, by Merkle and
// Tuned; a hash package declares one Hash and its MerkleMerge type embeds
// Merkle (or Tuned) of it.
type Hash struct {
	// Name is the hash's name as merkle and the registry take it
	// ("rescue").
	Name string
	// Title names the hash in errors ("Rescue").
	Title string
	// Merge is the 2-to-1 merge of two digests and HashElements the hash
	// of a sequence of elements: the reference functions, the oracle of the
	// hash's kernels.
	Merge        func(a, b [DigestSize]uint64) [DigestSize]uint64
	HashElements func(els []uint64) [DigestSize]uint64
	// MergeFile is the WGSL file that defines merge_node with the hash's
	// merge (merkle_rescue.wgsl), RowFile the file that defines hash_row
	// as HashElements of a row in one invocation (rescue_row.wgsl), both
	// files of Shaders, the hash package's library.
	MergeFile, RowFile string
	Shaders            *wgsl.Library
	// CPUMerge is one merge's time on one core and GPULevel the least time
	// of one level of a tree on a GPU: the model of MerkleHostWidth.
	CPUMerge, GPULevel time.Duration
	// Approach is the merkle approach of Tuned's MerkleApproach
	// ("level-per-dispatch"); Merkle alone does not answer it.
	Approach string
}

// Spec names a Hash as a type: a zero-size type whose Hash method returns
// the package's Hash value, so that the zero value of Merkle[S] (and of a
// hash package's MerkleMerge, which embeds it) is the hash.
type Spec interface{ Hash() *Hash }

// Merkle is the hash S names as package merkle takes it: a merkle.Hash, a
// merkle.RowHash, with ConvertDigest and MerkleHostWidth. A digest
// is DigestSize field elements, each a little-endian uint64 below P
// (DigestBytes), and the parent of two digests is the hash's Merge of
// their elements.
type Merkle[S Spec] struct{}

// hash returns the parameters S names.
func (Merkle[S]) hash() *Hash {
	var s S
	return s.Hash()
}

// Name returns the hash's name ("rescue", "rpo", "poseidon2").
func (m Merkle[S]) Name() string { return m.hash().Name }

// Merge returns the hash's Merge of the digests' elements, as a digest.
func (m Merkle[S]) Merge(left, right [32]byte) [32]byte {
	return field.GoldilocksLeaf(m.hash().Merge(field.GoldilocksDigest(left), field.GoldilocksDigest(right)))
}

// CheckDigest returns an error naming the first element of d that is not
// a field element (not below P).
func (m Merkle[S]) CheckDigest(d [32]byte) error { return CheckDigest(m.hash().Title, d) }

// MergeModule returns the WGSL file that defines merge_node with the
// hash's merge (merkle_rescue.wgsl for Rescue).
func (m Merkle[S]) MergeModule() wgpu.Module {
	h := m.hash()
	return wgsl.Module{Library: h.Shaders, Files: []string{h.MergeFile}}
}

// HashRow returns the digest of the hash's HashElements(row): the leaf of
// a row in package merkle's matrix commitments (a merkle.RowHash[uint64]).
// The elements must be below P, as HashElements requires.
func (m Merkle[S]) HashRow(row []uint64) [32]byte {
	return field.GoldilocksLeaf(m.hash().HashElements(row))
}

// Modulus returns P: a row's elements are values below it (with HashRow
// and RowModule, a merkle.RowHash[uint64]).
func (Merkle[S]) Modulus() uint64 { return P }

// FieldName returns "Goldilocks", the field's name in merkle's errors.
func (Merkle[S]) FieldName() string { return "Goldilocks" }

// RowModule returns the WGSL file that defines hash_row with the hash's
// permutation: HashElements of a row in one invocation (rescue_row.wgsl
// for Rescue).
func (m Merkle[S]) RowModule() wgpu.Module {
	h := m.hash()
	return wgsl.Module{Library: h.Shaders, Files: []string{h.RowFile}}
}

// ConvertDigest maps any 32 bytes to a digest of the hash, as a mixed
// Merkle tree takes another hash's digests into the hash's levels (a
// merkle.Hash's ConvertDigest): each of the four little-endian 64-bit words is
// reduced mod P. The rule is canonical (one digest for any 32 bytes, and
// a digest maps to itself) and keeps almost all of a 256-bit digest: a
// word maps to the same element as at most one other word (w and w+P, for
// w < 2^32-1), so a collision after the conversion costs about 2^128
// work, as one before it does; taking 56-bit limbs instead would keep 224
// bits (2^112).
func (Merkle[S]) ConvertDigest(d [32]byte) [32]byte { return ConvertDigest(d) }

// ConvertModule returns goldilocks_digest.wgsl, which defines
// convert_digest as ConvertDigest does.
func (Merkle[S]) ConvertModule() wgpu.Module {
	return wgsl.Module{Library: shaders, Files: []string{"goldilocks_digest.wgsl"}}
}

// MerkleHostWidth returns the width from which a tree's levels are built
// on a GPU, the narrower ones above on cores host cores: the model
// MerkleHostWidth (the package function) over the hash's CPUMerge and
// GPULevel, not a measurement of each host.
func (m Merkle[S]) MerkleHostWidth(cores int) int {
	h := m.hash()
	return MerkleHostWidth(cores, h.CPUMerge, h.GPULevel)
}

// Tuned is Merkle with the tuning answers a merkle.Hash may give: the hash's
// Approach at every size, and merkle's default workgroup size.
type Tuned[S Spec] struct{ Merkle[S] }

// MerkleApproach returns the hash's Approach.
func (m Tuned[S]) MerkleApproach(int) string { return m.hash().Approach }

// MerkleWorkgroupSize returns 0: merkle's default for every approach.
func (Tuned[S]) MerkleWorkgroupSize(string) int { return 0 }

// Permutation is a permutation of the Width-element state, as
// package symmetric's constructions take it.
type Permutation func(state *[Width]uint64)

// Width returns the state size, Width.
func (Permutation) Width() int { return Width }

// Permute permutes state, of Width elements, in place.
func (p Permutation) Permute(state []uint64) error {
	if len(state) != Width {
		return fmt.Errorf("goldilocks: a permutation of %d elements, given %d", Width, len(state))
	}
	p((*[Width]uint64)(state))
	return nil
}

// states are the constructions' states: symmetric's Hash and Compress
// would allocate one per call (a state handed to a permutation behind an
// interface escapes), which a merge of a few microseconds would notice.
var states = sync.Pool{New: func() any { return new([Width]uint64) }}

// Sponge returns symmetric.PaddingFreeSponge of perm with rate 8 and
// output DigestSize (Plonky3's PaddingFreeSponge<_, 12, 8, 4>) as a
// function of the elements.
func Sponge(perm func(*[Width]uint64)) func(els []uint64) [DigestSize]uint64 {
	return sponge{symmetric.PaddingFreeSponge[uint64]{Perm: Permutation(perm), Rate: 8, Out: DigestSize}}.hash
}

// Compression returns symmetric.TruncatedPermutation of perm over two
// digests (Plonky3's TruncatedPermutation<_, 2, 4, 12>) as a function of
// the two.
func Compression(perm func(*[Width]uint64)) func(a, b [DigestSize]uint64) [DigestSize]uint64 {
	return compression{symmetric.TruncatedPermutation[uint64]{Perm: Permutation(perm), N: 2, Chunk: DigestSize}}.compress
}

// sponge and compression run symmetric's constructions in a pooled state.
type (
	sponge struct {
		s symmetric.PaddingFreeSponge[uint64]
	}
	compression struct {
		c symmetric.TruncatedPermutation[uint64]
	}
)

func (s sponge) hash(els []uint64) [DigestSize]uint64 {
	st := states.Get().(*[Width]uint64)
	_ = s.s.HashInto(st[:], els) // cannot fail: the sizes fit the width
	d := [DigestSize]uint64(st[:DigestSize])
	states.Put(st)
	return d
}

func (c compression) compress(a, b [DigestSize]uint64) [DigestSize]uint64 {
	st := states.Get().(*[Width]uint64)
	_ = c.c.CompressInto(st[:], a[:], b[:]) // cannot fail: two digests fit the width
	d := [DigestSize]uint64(st[:DigestSize])
	states.Put(st)
	return d
}
