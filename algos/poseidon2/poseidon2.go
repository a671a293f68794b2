// Package poseidon2 is the Poseidon2 permutation over the Goldilocks field
// with a 12-element state, as Plonky3 defines it (p3-goldilocks
// default_goldilocks_poseidon2_12: S-box x^7, 8 full rounds and 22 partial
// rounds, the external 4x4 matrix MDSMat4, the internal diagonal
// MATRIX_DIAG_12_GOLDILOCKS), and the two hashes Plonky3 builds on it:
//
//   - Merge, the 2-to-1 compression of Merkle trees
//     (TruncatedPermutation<_, 2, 4, 12>): state = left || right || 0, 0,
//     0, 0, one permutation, digest state[0..4];
//   - HashElements, the sponge (PaddingFreeSponge<_, 12, 8, 4>): rate 8,
//     each element overwrites the next of state[0..8], a permutation after
//     every eighth element and after a partial last block, digest
//     state[0..4]; no padding.
//
// Beside the plain-Go reference (Permute, Merge, HashElements) are batch
// functions that give the same answers (Batch: MergeMany, HashElementsMany,
// PermuteMany, and a resident Batcher): GPU kernels on a wgpu.Context, a
// faster twin of the reference on all cores on a nil one; on a sched.Group
// they split a batch over its devices; MerkleMerge is the hash
// for package merkle.
//
// State layout: rate state[0..8], capacity state[8..12], digest state[0..4].
// Field elements are canonical: every input element must be below P; the
// batch functions reject others with an error naming the element, and the
// reference functions treat them as undefined input.
//
// The constants and test vectors come from Plonky3 at commit
// 5dc50e51436a811c62443e336f766015fecc9217 (testdata/poseidon2_goldilocks_w12.json
// says which files, and how the further vectors there were computed).
//
// HashElements has no padding, as Plonky3's PaddingFreeSponge: it is
// collision resistant only among inputs of one length (Merkle leaves, rows
// of a fixed width), and inputs of different lengths can collide ([a] and
// [a, 0] hash alike). Callers that hash inputs of varying lengths must fix
// the length by other means.
//
// Over the 31-bit fields (package field: BabyBear, KoalaBear), Permutation31
// is Poseidon2 as parameters of any width plus one round function:
// BabyBear16, BabyBear24, KoalaBear16 and KoalaBear24 are Plonky3's default
// permutations, and BabyBearMerkle and KoalaBearMerkle the hashes of its
// MMCS over them (package merkle's trees and Matrix[uint32] commitments), with
// their batch functions BabyBearBatch and KoalaBearBatch.
package poseidon2

//go:generate go run ./internal/gen -dir .

import (
	"time"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
	"github.com/wgcompute/wgcompute/algos/poseidon2/internal/params"
)

// P is the Goldilocks prime 2^64 - 2^32 + 1.
const P = field.GoldilocksP

const (
	// Width is the state size in field elements.
	Width = params.Width
	// Rate is the number of elements absorbed per permutation.
	Rate = 8
	// DigestSize is the digest size in field elements.
	DigestSize = 4
	// FullRounds is the number of full (external) rounds: half of them
	// before the partial rounds, half after.
	FullRounds = 2 * params.HalfFullRounds
	// PartialRounds is the number of partial (internal) rounds.
	PartialRounds = params.PartialRounds
)

// Permute applies the Poseidon2 permutation to state in place:
//
//	state = M_E·state
//	4 full rounds:    state[i] = (state[i] + RC[r][i])^7; state = M_E·state
//	22 partial rounds: state[0] = (state[0] + RC[r])^7; state[i] = sum(state) + D[i]·state[i]
//	4 full rounds:    as the first four, with the final round constants
//
// where M_E = circ(2·M4, M4, M4) on the three blocks of four elements
// (M4 is params.MDS4) and D is the internal diagonal minus one
// (params.DiagM1).
func Permute(state *[Width]uint64) {
	mdsLight(state)
	for r := range params.ExternalInitial {
		fullRound(state, &params.ExternalInitial[r])
	}
	for _, c := range params.Internal {
		state[0] = goldilocks.Pow7(gl.Add(state[0], c))
		internalLayer(state)
	}
	for r := range params.ExternalFinal {
		fullRound(state, &params.ExternalFinal[r])
	}
}

// fullRound adds the round constants rc, applies the S-box to every
// element and multiplies by M_E.
func fullRound(state *[Width]uint64, rc *[Width]uint64) {
	for i := range state {
		state[i] = goldilocks.Pow7(gl.Add(state[i], rc[i]))
	}
	mdsLight(state)
}

// mdsLight is state = M_E·state: M4 on each block of four, then every
// element plus the sum of the elements at its position in the three blocks.
func mdsLight(state *[Width]uint64) {
	for b := 0; b < Width; b += 4 {
		mat4((*[4]uint64)(state[b : b+4]))
	}
	var sums [4]uint64
	for k := range sums {
		sums[k] = gl.Add(gl.Add(state[k], state[4+k]), state[8+k])
	}
	for i := range state {
		state[i] = gl.Add(state[i], sums[i%4])
	}
}

// mat4 is x = M4·x for M4 = [[2 3 1 1] [1 2 3 1] [1 1 2 3] [3 1 1 2]], by
// additions.
func mat4(x *[4]uint64) {
	t01 := gl.Add(x[0], x[1])
	t23 := gl.Add(x[2], x[3])
	t0123 := gl.Add(t01, t23)
	t01123 := gl.Add(t0123, x[1])
	t01233 := gl.Add(t0123, x[3])
	x0, x2 := x[0], x[2]
	x[3] = gl.Add(t01233, gl.Add(x0, x0)) // 3x0 + x1 + x2 + 2x3
	x[1] = gl.Add(t01123, gl.Add(x2, x2)) // x0 + 2x1 + 3x2 + x3
	x[0] = gl.Add(t01123, t01)            // 2x0 + 3x1 + x2 + x3
	x[2] = gl.Add(t01233, t23)            // x0 + x1 + 2x2 + 3x3
}

// internalLayer is state[i] = sum(state) + DiagM1[i]·state[i]: the
// internal matrix, ones everywhere plus the diagonal DiagM1.
func internalLayer(state *[Width]uint64) {
	var sum uint64
	for _, v := range state {
		sum = gl.Add(sum, v)
	}
	for i := range state {
		state[i] = gl.Add(sum, gl.Mul(params.DiagM1[i], state[i]))
	}
}

// Merge is the 2-to-1 compression of two digests used by Merkle trees
// (Plonky3's TruncatedPermutation<_, 2, 4, 12>, symmetric's over
// Permute): state = a || b || 0, 0, 0, 0, one permutation, digest
// state[0..4]. It equals HashElements of the eight elements a||b.
func Merge(a, b [DigestSize]uint64) [DigestSize]uint64 { return compress(a, b) }

// HashElements hashes a sequence of field elements as Plonky3's
// PaddingFreeSponge<_, 12, 8, 4> (symmetric's over Permute): state zero,
// element j overwrites state[j mod 8], a permutation after every eighth
// element and one more after a partial last block (whose lanes past its
// end keep their values), digest state[0..4]. No padding:
// HashElements(nil) is the zero digest, and inputs of different lengths
// may collide (see the package comment).
func HashElements(els []uint64) [DigestSize]uint64 { return sponge(els) }

// The constructions over the reference permutation.
var (
	compress = goldilocks.Compression(Permute)
	sponge   = goldilocks.Sponge(Permute)
)

// gl is the field the hash computes in.
var gl field.Goldilocks

// hashParams are Poseidon2's parameters: merkle_poseidon2.wgsl defines
// merge_node with poseidon2_lib.wgsl's p2_merge, and poseidon2_row.wgsl
// hash_row with its permutation.
//
// The host levels' model is Rescue's (goldilocks.MerkleHostWidth).
// CPUMerge is Rescue's scaled by the two merges' ratio on one core
// through the batch functions' CPU path (BENCHMARKS.md, "The CPU path";
// the ratio in bench/results/HISTORY.md, "Figures moved from code
// comments"); its GPU level was not measured, and is taken as Rescue's
// scaled the same: a merge's latency on a GPU follows its chain of
// products as its time on a core does. A model, not a measurement.
var hashParams = goldilocks.Hash{
	Name: "poseidon2", Title: "Poseidon2", Merge: Merge, HashElements: HashElements,
	MergeFile: "merkle_poseidon2.wgsl", RowFile: "poseidon2_row.wgsl", Shaders: shaders,
	CPUMerge: 3100 * time.Nanosecond, GPULevel: 85 * time.Microsecond,
}
