// Package rescue is the Rescue Prime hash Rp64_256 of winterfell (Goldilocks
// field, 12-element state, 7 rounds, 256-bit digest): a plain-Go reference
// on native uint64 (Permute, Merge, HashElements) and batch functions that
// give the same answers (Batch: MergeMany, HashElementsMany, PermuteMany, and a
// resident Batcher): GPU kernels on a wgpu.Context, the reference on all
// cores on a nil one.
//
// State layout: capacity state[0..4], rate state[4..12], digest
// state[4..8]. Field elements are canonical: every input element must be
// below P; the batch functions reject others with an error naming the
// element, and the reference functions treat them as undefined input.
package rescue

//go:generate go run ./internal/gen -dir .

import (
	"time"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
	"github.com/wgcompute/wgcompute/algos/internal/rescueprime"
	"github.com/wgcompute/wgcompute/algos/rescue/internal/params"
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
)

// InvAlpha is the inverse S-box exponent, the inverse of 7 modulo P-1.
const InvAlpha = rescueprime.InvAlpha

// Permute applies the Rp64_256 permutation to state in place: seven rounds of
//
//	state[i] = state[i]^7; state = MDS·state; state += ARK1[r]
//	state[i] = state[i]^InvAlpha; state = MDS·state; state += ARK2[r]
//
// The MDS product and the inverse S-box's addition chain are the layers
// Rp64_256 shares with RPO256 (package rescueprime).
func Permute(state *[Width]uint64) {
	for r := 0; r < Rounds; r++ {
		rescueprime.Pow7All(state)
		rescueprime.MDSAdd(state, &params.ARK1[r])
		rescueprime.InvSboxAll(state)
		rescueprime.MDSAdd(state, &params.ARK2[r])
	}
}

// Merge is the 2-to-1 merge of two digests used by Merkle trees: state
// zero, state[0] = 8, state[4..8] = a, state[8..12] = b, one permutation,
// digest state[4..8]. It equals HashElements of the eight elements a||b.
func Merge(a, b [DigestSize]uint64) [DigestSize]uint64 {
	var s [Width]uint64
	s[0] = 8
	copy(s[4:8], a[:])
	copy(s[8:12], b[:])
	Permute(&s)
	return [DigestSize]uint64(s[4:8])
}

// HashElements hashes a sequence of field elements: state zero,
// state[0] = len(els), elements added into state[4..12] in turn with a
// permutation after every eighth, and one more after a partial last block.
// No other padding: HashElements(nil) is the zero digest.
func HashElements(els []uint64) [DigestSize]uint64 {
	var s [Width]uint64
	s[0] = uint64(len(els)) % P
	i := 0
	for _, e := range els {
		s[4+i] = gl.Add(s[4+i], e)
		i++
		if i == Rate {
			Permute(&s)
			i = 0
		}
	}
	if i > 0 {
		Permute(&s)
	}
	return [DigestSize]uint64(s[4:8])
}

// gl is the field the hash computes in.
var gl field.Goldilocks

// hashParams are Rescue's parameters: merkle_rescue.wgsl defines
// merge_node with rescue_lib.wgsl's rp_merge, and rescue_row.wgsl hash_row
// with its permutation.
//
// A dispatch per level is the fastest approach for Rescue at every size
// measured on NVIDIA (BENCHMARKS.md, "Merkle trees"): its large merge
// keeps few warps per SM and so pays for the idle invocations of
// in-workgroup levels.
//
// The host levels' model (goldilocks.MerkleHostWidth) takes CPUMerge and
// GPULevel from an NVIDIA GPU and one of its host's cores: GPULevel is a
// tree's fixed cost split over its levels too narrow to fill the GPU,
// each waiting for one merge's latency, fitted to two tree sizes, and
// CPUMerge is one merge (a permutation) on one core (BENCHMARKS.md,
// "Merkle trees"; the fit in bench/results/HISTORY.md, "Figures moved
// from code comments"). With them the host takes the top levels, more of
// them the more cores it has.
var hashParams = goldilocks.Hash{
	Name: "rescue", Title: "Rescue", Merge: Merge, HashElements: HashElements,
	MergeFile: "merkle_rescue.wgsl", RowFile: "rescue_row.wgsl", Shaders: shaders,
	CPUMerge: 13 * time.Microsecond, GPULevel: 350 * time.Microsecond,
	Approach: "level-per-dispatch",
}
