//!include monty31.wgsl
//!include poseidon2_31_div.wgsl
// Poseidon2 over a 31-bit field (BabyBear, KoalaBear) at any width, as
// Plonky3 defines it, on a state held in Montgomery form (monty31.wgsl).
// Library only: no bindings, no entry points. The width's and the
// constants' layers come from the file that includes this one, which
// package poseidon2 generates at run time from the instance's row
// (poseidon2_31_babybear16.wgsl, ...; algos/poseidon2/internal/params31):
// P31_HALF_FULL_ROUNDS (4 in Plonky3's instances, 3 or 4 in gnark-crypto's),
// P31_PARTIAL_ROUNDS, P31_DEGREE, p31_rc_full and p31_rc_partial, and from
// the generated files it includes, PERM_WIDTH, p31_sbox_all, p31_mds_light
// and p31_sum (the width's, poseidon2_31_width16.wgsl) and p31_internal
// (the field's and width's, poseidon2_31_internal_babybear16.wgsl).
//
// perm_permute(s) is Go's poseidon2.Permutation31.Permute:
//   s = M_E*s;
//   H full rounds:  s[i] = (s[i] + RC[r][i])^D; s = M_E*s;
//   partial rounds: s[0] = (s[0] + RC[r])^D; s[i] = sum(s) + V[i]*s[i];
//   H full rounds:  as the first, with the final round constants,
// H = P31_HALF_FULL_ROUNDS.
// The constructions (sponge31.wgsl, compress31.wgsl) call it by that name,
// over whichever permutation their module names.

// p31_quad returns 4x.
fn p31_quad(x: u32) -> u32 {
	let d = monty31_add(x, x);
	return monty31_add(d, d);
}

// p31_mul_2p returns a·b·2^-32 mod p plus 0 or p, below 2p, for a·b
// below p·2^32: the Montgomery reduction less its correction, whose high
// word minus t·p's (in (-p, p)) plus p is taken as it is.
fn p31_mul_2p(a: u32, b: u32) -> u32 {
	return monty31_mul_hi(a, b) - monty31_mul_hi((a * b) * M31_MU, M31_P) + M31_P;
}

// p31_sbox returns x^D, D = 3 or 7. x^2 stays below 2p, unreduced: x^2·x
// is still below 2p^2 < p·2^32, which the next product reduces.
fn p31_sbox(x: u32) -> u32 {
	let x2 = p31_mul_2p(x, x);
	let x3 = monty31_mul(x2, x);
	if (P31_DEGREE == 3u) {
		return x3;
	}
	return monty31_mul(monty31_mul(x3, x3), x);
}

// p31_mat4 returns M4*(x0, x1, x2, x3), M4 = [[2 3 1 1] [1 2 3 1] [1 1 2 3]
// [3 1 1 2]] (Plonky3's MDSMat4), by additions.
fn p31_mat4(x0: u32, x1: u32, x2: u32, x3: u32) -> array<u32, 4> {
	let t01 = monty31_add(x0, x1);
	let t23 = monty31_add(x2, x3);
	let t0123 = monty31_add(t01, t23);
	let t01123 = monty31_add(t0123, x1);
	let t01233 = monty31_add(t0123, x3);
	return array<u32, 4>(
		monty31_add(t01123, t01),             // 2x0 + 3x1 + x2 + x3
		monty31_add(t01123, monty31_add(x2, x2)), // x0 + 2x1 + 3x2 + x3
		monty31_add(t01233, t23),             // x0 + x1 + 2x2 + 3x3
		monty31_add(t01233, monty31_add(x0, x0))); // 3x0 + x1 + x2 + 2x3
}

// p31_full_round is full round r (0..2H-1).
fn p31_full_round(s: ptr<function, array<u32, PERM_WIDTH>>, r: u32) {
	p31_rc_full(s, r);
	p31_sbox_all(s);
	p31_mds_light(s);
}

// perm_permute applies the permutation in place.
fn perm_permute(s: ptr<function, array<u32, PERM_WIDTH>>) {
	p31_mds_light(s);
	for (var r = 0u; r < 2u * P31_HALF_FULL_ROUNDS; r++) {
		if (r == P31_HALF_FULL_ROUNDS) {
			for (var q = 0u; q < P31_PARTIAL_ROUNDS; q++) {
				(*s)[0] = p31_sbox(monty31_add((*s)[0], p31_rc_partial(q)));
				p31_internal(s);
			}
		}
		p31_full_round(s, r);
	}
}
