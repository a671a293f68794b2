package poseidon2

import (
	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
	"github.com/wgcompute/wgcompute/algos/poseidon2/internal/params"
)

// The field operations of the CPU twin are field.Goldilocks's, which do
// not branch on their data; direct calls, so that the compiler inlines
// them.
func canon(a uint64) uint64  { return gl.Canon(a) }
func add(a, b uint64) uint64 { return gl.Add(a, b) }
func sub(a, b uint64) uint64 { return gl.Sub(a, b) }
func mul(a, b uint64) uint64 { return gl.Mul(a, b) }

// pow7 returns a^7 mod P.
func pow7(a uint64) uint64 {
	a2 := mul(a, a)
	a3 := mul(a2, a)
	a4 := mul(a2, a2)
	return mul(a4, a3)
}

// This file is the CPU backend's permutation: Permute with field operations
// that do not branch on their data (a branch on a carry or on the result's
// range is mispredicted half of the time on random elements), and
// the internal layer's twelve products by the diagonal replaced by
// additions and halvings (the diagonal is -2, 1, 2, 1/2, 3, 4, -1/2, -3,
// -4, 1/4, -1/4, 1/8), as Plonky3's internal_layer_mat_mul_goldilocks_12
// does. The tests hold every function here equal to its field.Goldilocks
// or reference counterpart.

// permuteFast is Permute, faster.
func permuteFast(state *[Width]uint64) {
	mdsLightFast(state)
	for r := range params.ExternalInitial {
		fullRoundFast(state, &params.ExternalInitial[r])
	}
	for _, c := range params.Internal {
		state[0] = pow7(add(state[0], c))
		internalLayerFast(state)
	}
	for r := range params.ExternalFinal {
		fullRoundFast(state, &params.ExternalFinal[r])
	}
}

// fullRoundFast is fullRound.
func fullRoundFast(state *[Width]uint64, rc *[Width]uint64) {
	for i := range state {
		state[i] = pow7(add(state[i], rc[i]))
	}
	mdsLightFast(state)
}

// mdsLightFast is mdsLight.
func mdsLightFast(s *[Width]uint64) {
	mat4Fast((*[4]uint64)(s[0:4]))
	mat4Fast((*[4]uint64)(s[4:8]))
	mat4Fast((*[4]uint64)(s[8:12]))
	for k := 0; k < 4; k++ {
		sum := add(add(s[k], s[4+k]), s[8+k])
		s[k] = add(s[k], sum)
		s[4+k] = add(s[4+k], sum)
		s[8+k] = add(s[8+k], sum)
	}
}

// mat4Fast is mat4.
func mat4Fast(x *[4]uint64) {
	t01 := add(x[0], x[1])
	t23 := add(x[2], x[3])
	t0123 := add(t01, t23)
	t01123 := add(t0123, x[1])
	t01233 := add(t0123, x[3])
	x0, x2 := x[0], x[2]
	x[3] = add(t01233, add(x0, x0))
	x[1] = add(t01123, add(x2, x2))
	x[0] = add(t01123, t01)
	x[2] = add(t01233, t23)
}

// halve returns x/2 mod P: x>>1 for even x, (x+P)/2 = (x>>1) + (P+1)/2 for
// odd x (below P either way).
func halve(x uint64) uint64 { return x>>1 + (x&1)*(P/2+1) }

// internalLayerFast is internalLayer by additions and halvings.
func internalLayerFast(s *[Width]uint64) {
	sum := add(add(add(s[0], s[1]), add(s[2], s[3])), add(add(s[4], s[5]), add(s[6], s[7])))
	sum = add(sum, add(add(s[8], s[9]), add(s[10], s[11])))
	d4, d5, d7, d8 := add(s[4], s[4]), add(s[5], s[5]), add(s[7], s[7]), add(s[8], s[8])
	s[0] = sub(sum, add(s[0], s[0]))             // -2
	s[1] = add(sum, s[1])                        // 1
	s[2] = add(sum, add(s[2], s[2]))             // 2
	s[3] = add(sum, halve(s[3]))                 // 1/2
	s[4] = add(sum, add(d4, s[4]))               // 3
	s[5] = add(sum, add(d5, d5))                 // 4
	s[6] = sub(sum, halve(s[6]))                 // -1/2
	s[7] = sub(sum, add(d7, s[7]))               // -3
	s[8] = sub(sum, add(d8, d8))                 // -4
	s[9] = add(sum, halve(halve(s[9])))          // 1/4
	s[10] = sub(sum, halve(halve(s[10])))        // -1/4
	s[11] = add(sum, halve(halve(halve(s[11])))) // 1/8
}

// mergeFast is Merge with permuteFast, and hashElementsFast HashElements.
var (
	mergeFast        = goldilocks.Compression(permuteFast)
	hashElementsFast = goldilocks.Sponge(permuteFast)
)
