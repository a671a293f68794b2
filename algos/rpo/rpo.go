// Package rpo is RPO256, the Rescue Prime Optimized hash of miden-crypto
// (Rpo256: Goldilocks field, 12-element state, 7 rounds, 256-bit digest):
// a plain-Go reference on native uint64 (Permute, Merge, HashElements,
// Hash of bytes) and batch functions that give the same answers
// (Batch: MergeMany, HashElementsMany, PermuteMany, and a resident Batcher): GPU
// kernels on a wgpu.Context, the reference on all cores on a nil one.
// MerkleMerge makes it a merge of package merkle's trees.
//
// The function is miden-crypto's Rpo256 of releases v0.11 to v0.20
// (testdata/rpo256.json says which files and commit its constants and
// vectors come from): state layout capacity state[0..4], rate
// state[4..12], digest state[4..8]. miden-crypto v0.21 moved the rate to
// state[0..8] and the digest to state[0..4], which gives other digests.
//
// RPO shares its MDS matrix, S-boxes and inverse S-box chain with
// Rp64_256 (package rescue), and its GPU kernel body and batch runner with
// it (package rescueprime); it differs in its round constants, in the
// order of a round's layers and in its sponge, which overwrites the rate
// where Rp64_256 adds to it.
//
// Field elements are canonical: every input element must be below P; the
// batch functions reject others with an error naming the element, and the
// reference functions treat them as undefined input.
package rpo

//go:generate go run ./internal/gen -dir .

import (
	"encoding/binary"
	"time"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
	"github.com/wgcompute/wgcompute/algos/internal/rescueprime"
	"github.com/wgcompute/wgcompute/algos/rpo/internal/params"
)

// P is the Goldilocks prime 2^64 - 2^32 + 1.
const P = field.GoldilocksP

const (
	// Width is the state size in field elements.
	Width = rescueprime.Width
	// Rate is the number of elements absorbed per permutation.
	Rate = rescueprime.Rate
	// DigestSize is the digest size in field elements.
	DigestSize = rescueprime.DigestSize
	// Rounds is the number of permutation rounds.
	Rounds = rescueprime.Rounds
	// ChunkSize is the number of bytes Hash packs into one field element.
	ChunkSize = 7
)

// InvAlpha is the inverse S-box exponent, the inverse of 7 modulo P-1.
const InvAlpha = rescueprime.InvAlpha

// Permute applies the RPO256 permutation to state in place: seven rounds
// of
//
//	state = MDS·state; state += ARK1[r]; state[i] = state[i]^7
//	state = MDS·state; state += ARK2[r]; state[i] = state[i]^InvAlpha
func Permute(state *[Width]uint64) {
	for r := 0; r < Rounds; r++ {
		rescueprime.MDSAdd(state, &params.ARK1[r])
		rescueprime.Pow7All(state)
		rescueprime.MDSAdd(state, &params.ARK2[r])
		rescueprime.InvSboxAll(state)
	}
}

// Merge is the 2-to-1 merge of two digests used by Merkle trees
// (miden-crypto's Rpo256::merge): state zero, state[4..8] = a,
// state[8..12] = b, one permutation, digest state[4..8]. It equals
// HashElements of the eight elements a||b.
func Merge(a, b [DigestSize]uint64) [DigestSize]uint64 {
	var s [Width]uint64
	copy(s[4:8], a[:])
	copy(s[8:12], b[:])
	Permute(&s)
	return [DigestSize]uint64(s[4:8])
}

// HashElements hashes a sequence of field elements (miden-crypto's
// Rpo256::hash_elements): state zero, state[0] = len(els) mod 8, the
// elements written over state[4..12] in turn with a permutation after
// every eighth; a partial last block has the rest of the rate set to zero
// and is permuted. HashElements(nil) is the zero digest.
func HashElements(els []uint64) [DigestSize]uint64 {
	var s [Width]uint64
	s[0] = uint64(len(els) % Rate)
	return absorb(&s, len(els), func(i int) uint64 { return els[i] })
}

// Hash hashes bytes (miden-crypto's Rpo256::hash): every 7 bytes are one
// little-endian field element, the last chunk, of 1 to 7 bytes, followed
// by a byte 1; state zero, state[0] = 8 + (elements mod 8), then the
// elements absorbed as HashElements absorbs them. Hash(nil) is the zero
// digest. It differs from HashElements of any elements.
func Hash(data []byte) [DigestSize]uint64 {
	n := (len(data) + ChunkSize - 1) / ChunkSize
	var s [Width]uint64
	s[0] = uint64(Rate + n%Rate)
	return absorb(&s, n, func(i int) uint64 {
		var buf [8]byte
		c := copy(buf[:], data[i*ChunkSize:min(len(data), (i+1)*ChunkSize)])
		if i == n-1 {
			buf[c] = 1
		}
		return binary.LittleEndian.Uint64(buf[:])
	})
}

// absorb writes the n elements el(0), el(1), ... over the rate of s, a
// permutation after every Rate of them and after a partial last block,
// zero-padded, and returns the digest.
func absorb(s *[Width]uint64, n int, el func(i int) uint64) [DigestSize]uint64 {
	for lo := 0; lo < n; lo += Rate {
		for i := range Rate {
			s[4+i] = 0
			if lo+i < n {
				s[4+i] = el(lo + i)
			}
		}
		Permute(s)
	}
	return [DigestSize]uint64(s[4:8])
}

// hashParams are RPO's parameters: merkle_rpo.wgsl defines merge_node
// with rpo_lib.wgsl's rpo_merge, and rpo_row.wgsl hash_row with its
// permutation.
//
// A dispatch per level, as for Rescue: RPO's merge is as large as
// Rp64_256's (the same layers and state, other constants and order), for
// which it was the fastest approach at every size measured on NVIDIA
// (BENCHMARKS.md, "Merkle trees"). Not measured for RPO itself.
//
// The host levels' model is Rescue's: RPO's merge has Rp64_256's layers
// and state, so its GPU level is taken as Rescue's, and its CPU merge as
// Rescue's scaled by the two merges' ratio through the batch functions'
// CPU path (BENCHMARKS.md, "The CPU path"; the ratio in
// bench/results/HISTORY.md, "Figures moved from code comments"). Not
// measured for RPO's trees themselves.
var hashParams = goldilocks.Hash{
	Name: "rpo", Title: "RPO", Merge: Merge, HashElements: HashElements,
	MergeFile: "merkle_rpo.wgsl", RowFile: "rpo_row.wgsl", Shaders: shaders,
	CPUMerge: 16 * time.Microsecond, GPULevel: 350 * time.Microsecond,
	Approach: "level-per-dispatch",
}
