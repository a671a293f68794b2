// Package rescueprime holds what the two Rescue-Prime hashes over the
// Goldilocks field share: Rp64_256 (package rescue, winterfell's) and
// RPO256 (package rpo, miden-crypto's Rescue Prime Optimized). Both permute
// a 12-element state in 7 rounds of the S-box x^7, the MDS product, round
// constants, the inverse S-box x^InvAlpha, the MDS product and round
// constants again, with the same MDS matrix; they differ in the round
// constants, in where the round starts (Rp64_256 with the S-box, RPO with
// the MDS product) and in the sponge around the permutation.
//
// Shared here, so that neither hash has a copy of the other's code: the
// MDS matrix and its product and the inverse S-box's addition chain in Go
// (the references' layers), the WGSL generator of the MDS product, and
// the kernels of the shared kernel body rescue.wgsl for either hash,
// which package goldilocks's Batcher runs (the batch functions' checks,
// CPU path and Group split, which Poseidon2 shares too, as it shares the
// writers of round-constant functions in WGSL). The shaders share the
// same way, in this package's library (Shaders), on which each hash's
// builds: rescue_round.wgsl holds the layers (S-boxes, the generated MDS
// product of rescue_mds.wgsl) that rescue_lib.wgsl and rpo_lib.wgsl order
// into their permutations.
package rescueprime

//go:generate go run ./gen -dir .

import (
	"github.com/wgcompute/wgcompute/algos/field"
)

// P is the Goldilocks prime 2^64 - 2^32 + 1.
const P = field.GoldilocksP

const (
	// Width is the state size in field elements: capacity state[0..4],
	// rate state[4..12], digest state[4..8], in both hashes.
	Width = 12
	// Rate is the number of elements absorbed per permutation.
	Rate = 8
	// DigestSize is the digest size in field elements.
	DigestSize = 4
	// Rounds is the number of rounds of either permutation.
	Rounds = 7
)

// InvAlpha is the inverse S-box exponent, 7^-1 mod p-1.
const InvAlpha uint64 = 10540996611094048183

// MDSRow is the first row of the circulant MDS matrix of both hashes:
// MDS[i][j] = MDSRow[(j-i) mod 12] (winterfell's Rp64_256 and
// miden-crypto's RPO256 list the same 144 entries).
var MDSRow = [Width]uint64{7, 23, 8, 26, 13, 10, 9, 7, 6, 22, 21, 8}

// MDS is state = MDS·state (MDSAdd with a zero constant).
func MDS(state *[Width]uint64) { MDSAdd(state, &[Width]uint64{}) }

// InvSbox is x^InvAlpha by winterfell's addition chain (63 squarings, 9
// multiplications), which miden-crypto uses too; the tests check it
// against field.Goldilocks.Exp.
func InvSbox(x uint64) uint64 {
	t1 := gl.Square(x)
	t2 := gl.Square(t1)
	t3 := expAcc(t2, t2, 3)
	t4 := expAcc(t3, t3, 6)
	t5 := expAcc(t4, t4, 12)
	t6 := expAcc(t5, t3, 6)
	t7 := expAcc(t6, t6, 31)
	a := gl.Square(gl.Square(gl.Mul(gl.Square(t7), t6)))
	b := gl.Mul(gl.Mul(t1, t2), x)
	return gl.Mul(a, b)
}

// expAcc squares base n times, then multiplies by tail.
func expAcc(base, tail uint64, n int) uint64 {
	for i := 0; i < n; i++ {
		base = gl.Square(base)
	}
	return gl.Mul(base, tail)
}

// gl is the field both hashes compute in.
var gl field.Goldilocks
