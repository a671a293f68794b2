// Package goldilocks holds what the batch functions of the hashes over the
// Goldilocks field with a 12-element state and 4-element digests share:
// Rp64_256 (package rescue), RPO256 (package rpo) and Poseidon2 (package
// poseidon2). Each has a plain-Go reference, a CPU path (a nil Context, on
// all cores), a GPU Batcher, free functions and functions split over a
// wgpu.Group, with the same input checks and error texts; the family
// describes itself as a Hash (its name and Go functions) and its kernels as
// Kernels, and the Batcher here runs either side.
//
// Shared here besides: the checks, the digest helpers of the families'
// MerkleMerge values, the naming of kernel variants, and the writers of
// their generated WGSL constants files (wgslgen.go).
package goldilocks

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/wgcompute/wgcompute/internal/checked"
	"github.com/wgcompute/wgcompute/internal/par"
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

// Flat views a slice of uint64 arrays as its elements, without copying.
func Flat[T [4]uint64 | [8]uint64 | [12]uint64](s []T) []uint64 {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice(&s[0][0], len(s)*len(s[0]))
}

// FirstNonCanonical returns the index of the first element >= P, or -1.
// Large inputs are scanned by all cores, since validation runs before every
// upload.
func FirstNonCanonical(els []uint64) int {
	return par.First(len(els), 1<<20, func(i int) bool { return els[i] >= P })
}

// CheckMerge returns the error of a merge batch that cannot run: dst and
// pairs of different lengths, or an element not below P (named by pair and
// element).
func (h *Hash) CheckMerge(dst [][4]uint64, pairs [][8]uint64) error {
	if len(dst) != len(pairs) {
		return fmt.Errorf("%s: merge: %d destination digests for %d pairs: they must be equal", h.Name, len(dst), len(pairs))
	}
	if i := FirstNonCanonical(Flat(pairs)); i >= 0 {
		return fmt.Errorf("%s: merge: pair %d element %d is %d, not a field element (must be below p = %d)", h.Name, i/8, i%8, pairs[i/8][i%8], uint64(P))
	}
	return nil
}

// CheckHash returns the error of a hash batch that cannot run: m < 0 (or
// above h.MaxElements where that is set), inputs not len(dst)*m elements,
// or an element not below P (named by input and element).
func (h *Hash) CheckHash(dst [][4]uint64, inputs []uint64, m int) error {
	if h.MaxElements > 0 && (m < 0 || m > h.MaxElements) {
		return fmt.Errorf("%s: hash: %d elements per input: must be 0 to %d", h.Name, m, h.MaxElements)
	}
	if m < 0 {
		return fmt.Errorf("%s: hash: %d elements per input: must be zero or more", h.Name, m)
	}
	want, err := checked.Mul(len(dst), m)
	if err != nil {
		return fmt.Errorf("%s: hash: %d inputs of %d elements: %w elements", h.Name, len(dst), m, err)
	}
	if want != len(inputs) {
		return fmt.Errorf("%s: hash: %d elements for %d inputs of %d elements: need exactly %d", h.Name, len(inputs), len(dst), m, want)
	}
	if i := FirstNonCanonical(inputs); i >= 0 {
		return fmt.Errorf("%s: hash: input %d element %d is %d, not a field element (must be below p = %d)", h.Name, i/m, i%m, inputs[i], uint64(P))
	}
	return nil
}

// CheckPermute returns the error of a permutation batch with an element
// not below P (named by state and element).
func (h *Hash) CheckPermute(states [][12]uint64) error {
	els := Flat(states)
	if i := FirstNonCanonical(els); i >= 0 {
		return fmt.Errorf("%s: permute: state %d element %d is %d, not a field element (must be below p = %d)", h.Name, i/12, i%12, els[i], uint64(P))
	}
	return nil
}

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

// Variants names a family's kernel variants: Names[v] is variant v's
// name, Names[0] the default's.
type Variants struct {
	// Hash starts the errors: "rescue".
	Hash  string
	Names []string
}

// Name returns variant v's name, or "Variant(v)" for a value out of range.
func (vs Variants) Name(v int) string {
	if v >= 0 && v < len(vs.Names) {
		return vs.Names[v]
	}
	return fmt.Sprintf("Variant(%d)", v)
}

// Parse returns the variant named s, or an error listing the names.
func (vs Variants) Parse(s string) (int, error) {
	for v, name := range vs.Names {
		if name == s {
			return v, nil
		}
	}
	return 0, fmt.Errorf("%s: unknown variant %q: accepted are %v", vs.Hash, s, vs.Names)
}

// Check returns the error of a variant value out of range.
func (vs Variants) Check(v int) error {
	if v < 0 || v >= len(vs.Names) {
		return fmt.Errorf("%s: unknown variant %d: accepted are %v (0..%d)", vs.Hash, v, vs.Names, len(vs.Names)-1)
	}
	return nil
}
