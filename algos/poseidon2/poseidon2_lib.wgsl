//!include goldilocks.wgsl
//!include poseidon2_consts.wgsl
//!include state12.wgsl
// Poseidon2 over Goldilocks, width 12, as Plonky3 defines it (p3-goldilocks
// default_goldilocks_poseidon2_12), on elements held as vec2<u32> (x = low
// word, y = high word). Library only: no bindings, no entry points. Every
// field operation is goldilocks.wgsl's (goldilocks_add, goldilocks_sub, goldilocks_mul, goldilocks_pow7).
//
// p2_permute(s) is Go's poseidon2.Permute:
//   s = M_E*s;
//   4 full rounds:     s[i] = (s[i] + RC[r][i])^7; s = M_E*s;
//   22 partial rounds: s[0] = (s[0] + RC[r])^7; s[i] = sum(s) + D[i]*s[i];
//   4 full rounds:     as the first, with the final round constants,
// with M_E = circ(2*M4, M4, M4) on the three blocks of four elements and D
// the internal diagonal minus one (P2_D0 .. P2_D11).
// p2_merge(a, b) is poseidon2.Merge: s = a || b || 0, 0, 0, 0, one
// permutation, digest s[0..4].
//
// The state stays in registers: every index into it is a constant. Loops
// over the rounds read their constants through switches
// (poseidon2_consts.wgsl) rather than indexing constant arrays.

// p2_mat4 returns M4*(x0, x1, x2, x3), M4 = [[2 3 1 1] [1 2 3 1] [1 1 2 3]
// [3 1 1 2]] (Plonky3's MDSMat4), by eleven additions.
fn p2_mat4(x0: vec2<u32>, x1: vec2<u32>, x2: vec2<u32>, x3: vec2<u32>) -> array<vec2<u32>, 4> {
	let t01 = goldilocks_add(x0, x1);
	let t23 = goldilocks_add(x2, x3);
	let t0123 = goldilocks_add(t01, t23);
	let t01123 = goldilocks_add(t0123, x1);
	let t01233 = goldilocks_add(t0123, x3);
	return array<vec2<u32>, 4>(
		goldilocks_add(t01123, t01),                // 2x0 + 3x1 + x2 + x3
		goldilocks_add(t01123, goldilocks_add(x2, x2)),     // x0 + 2x1 + 3x2 + x3
		goldilocks_add(t01233, t23),                // x0 + x1 + 2x2 + 3x3
		goldilocks_add(t01233, goldilocks_add(x0, x0)));    // 3x0 + x1 + x2 + 2x3
}

// p2_mds_light is s = M_E*s: M4 on each block of four, then every element
// plus the sum of the three blocks' elements at its position.
fn p2_mds_light(s: ptr<function, array<vec2<u32>, 12>>) {
	let a = p2_mat4((*s)[0], (*s)[1], (*s)[2], (*s)[3]);
	let b = p2_mat4((*s)[4], (*s)[5], (*s)[6], (*s)[7]);
	let c = p2_mat4((*s)[8], (*s)[9], (*s)[10], (*s)[11]);
	let u0 = goldilocks_add(goldilocks_add(a[0], b[0]), c[0]);
	let u1 = goldilocks_add(goldilocks_add(a[1], b[1]), c[1]);
	let u2 = goldilocks_add(goldilocks_add(a[2], b[2]), c[2]);
	let u3 = goldilocks_add(goldilocks_add(a[3], b[3]), c[3]);
	(*s)[0] = goldilocks_add(a[0], u0);
	(*s)[1] = goldilocks_add(a[1], u1);
	(*s)[2] = goldilocks_add(a[2], u2);
	(*s)[3] = goldilocks_add(a[3], u3);
	(*s)[4] = goldilocks_add(b[0], u0);
	(*s)[5] = goldilocks_add(b[1], u1);
	(*s)[6] = goldilocks_add(b[2], u2);
	(*s)[7] = goldilocks_add(b[3], u3);
	(*s)[8] = goldilocks_add(c[0], u0);
	(*s)[9] = goldilocks_add(c[1], u1);
	(*s)[10] = goldilocks_add(c[2], u2);
	(*s)[11] = goldilocks_add(c[3], u3);
}

// p2_sum returns the sum of the state's elements.
fn p2_sum(s: ptr<function, array<vec2<u32>, 12>>) -> vec2<u32> {
	let a = goldilocks_add(goldilocks_add((*s)[0], (*s)[1]), goldilocks_add((*s)[2], (*s)[3]));
	let b = goldilocks_add(goldilocks_add((*s)[4], (*s)[5]), goldilocks_add((*s)[6], (*s)[7]));
	let c = goldilocks_add(goldilocks_add((*s)[8], (*s)[9]), goldilocks_add((*s)[10], (*s)[11]));
	return goldilocks_add(goldilocks_add(a, b), c);
}

// p2_internal is the internal layer s[i] = sum(s) + D[i]*s[i] with the
// diagonal's small integers (-2, 1, 2, 3, 4, -3, -4) by additions and
// subtractions, and its fractions (1/2, -1/2, 1/4, -1/4, 1/8) by goldilocks_mul:
// 5 products and 33 additions where the plain product takes 12 and 23.
fn p2_internal(s: ptr<function, array<vec2<u32>, 12>>) {
	let sum = p2_sum(s);
	let x0 = (*s)[0];
	let x2 = (*s)[2];
	let x4 = (*s)[4];
	let x5 = (*s)[5];
	let x7 = (*s)[7];
	let x8 = (*s)[8];
	let d4 = goldilocks_add(x4, x4);
	let d5 = goldilocks_add(x5, x5);
	let d7 = goldilocks_add(x7, x7);
	let d8 = goldilocks_add(x8, x8);
	(*s)[0] = goldilocks_sub(sum, goldilocks_add(x0, x0));                 // -2
	(*s)[1] = goldilocks_add(sum, (*s)[1]);                        // 1
	(*s)[2] = goldilocks_add(sum, goldilocks_add(x2, x2));                 // 2
	(*s)[3] = goldilocks_add(sum, goldilocks_mul((*s)[3], P2_D3));         // 1/2
	(*s)[4] = goldilocks_add(sum, goldilocks_add(d4, x4));                 // 3
	(*s)[5] = goldilocks_add(sum, goldilocks_add(d5, d5));                 // 4
	(*s)[6] = goldilocks_add(sum, goldilocks_mul((*s)[6], P2_D6));         // -1/2
	(*s)[7] = goldilocks_sub(sum, goldilocks_add(d7, x7));                 // -3
	(*s)[8] = goldilocks_sub(sum, goldilocks_add(d8, d8));                 // -4
	(*s)[9] = goldilocks_add(sum, goldilocks_mul((*s)[9], P2_D9));         // 1/4
	(*s)[10] = goldilocks_add(sum, goldilocks_mul((*s)[10], P2_D10));      // -1/4
	(*s)[11] = goldilocks_add(sum, goldilocks_mul((*s)[11], P2_D11));      // 1/8
}

// p2_internal_muldiag is the internal layer as the plain product, twelve
// goldilocks_mul by the diagonal (Plonky3's generic matmul_internal), kept to
// measure p2_internal against.
fn p2_internal_muldiag(s: ptr<function, array<vec2<u32>, 12>>) {
	let sum = p2_sum(s);
	(*s)[0] = goldilocks_add(sum, goldilocks_mul((*s)[0], P2_D0));
	(*s)[1] = goldilocks_add(sum, goldilocks_mul((*s)[1], P2_D1));
	(*s)[2] = goldilocks_add(sum, goldilocks_mul((*s)[2], P2_D2));
	(*s)[3] = goldilocks_add(sum, goldilocks_mul((*s)[3], P2_D3));
	(*s)[4] = goldilocks_add(sum, goldilocks_mul((*s)[4], P2_D4));
	(*s)[5] = goldilocks_add(sum, goldilocks_mul((*s)[5], P2_D5));
	(*s)[6] = goldilocks_add(sum, goldilocks_mul((*s)[6], P2_D6));
	(*s)[7] = goldilocks_add(sum, goldilocks_mul((*s)[7], P2_D7));
	(*s)[8] = goldilocks_add(sum, goldilocks_mul((*s)[8], P2_D8));
	(*s)[9] = goldilocks_add(sum, goldilocks_mul((*s)[9], P2_D9));
	(*s)[10] = goldilocks_add(sum, goldilocks_mul((*s)[10], P2_D10));
	(*s)[11] = goldilocks_add(sum, goldilocks_mul((*s)[11], P2_D11));
}

// p2_full_round is full round r (0..7): round constants, the S-box on every
// element, M_E.
fn p2_full_round(s: ptr<function, array<vec2<u32>, 12>>, r: u32) {
	p2_add_rc_full(s, r);
	for (var i = 0u; i < 12u; i++) {
		(*s)[11] = goldilocks_pow7(st12_rotate(s));
	}
	p2_mds_light(s);
}

// p2_permute applies the permutation in place. p2_permute_muldiag differs
// in the internal layer only; each is a whole function, so that a kernel
// holds one of them (Mesa's compilers inline every call).
fn p2_permute(s: ptr<function, array<vec2<u32>, 12>>) {
	p2_mds_light(s);
	for (var r = 0u; r < P2_HALF_FULL_ROUNDS; r++) {
		p2_full_round(s, r);
	}
	for (var r = 0u; r < P2_PARTIAL_ROUNDS; r++) {
		(*s)[0] = goldilocks_pow7(goldilocks_add((*s)[0], p2_rc_partial(r)));
		p2_internal(s);
	}
	for (var r = P2_HALF_FULL_ROUNDS; r < 2u * P2_HALF_FULL_ROUNDS; r++) {
		p2_full_round(s, r);
	}
}

// p2_permute_muldiag is p2_permute with p2_internal_muldiag.
fn p2_permute_muldiag(s: ptr<function, array<vec2<u32>, 12>>) {
	p2_mds_light(s);
	for (var r = 0u; r < P2_HALF_FULL_ROUNDS; r++) {
		p2_full_round(s, r);
	}
	for (var r = 0u; r < P2_PARTIAL_ROUNDS; r++) {
		(*s)[0] = goldilocks_pow7(goldilocks_add((*s)[0], p2_rc_partial(r)));
		p2_internal_muldiag(s);
	}
	for (var r = P2_HALF_FULL_ROUNDS; r < 2u * P2_HALF_FULL_ROUNDS; r++) {
		p2_full_round(s, r);
	}
}

// p2_merge_state is the state a merge permutes: a || b || 0, 0, 0, 0.
fn p2_merge_state(a: array<vec2<u32>, 4>, b: array<vec2<u32>, 4>) -> array<vec2<u32>, 12> {
	let z = vec2<u32>(0u, 0u);
	return array<vec2<u32>, 12>(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3], z, z, z, z);
}

// p2_merge is the 2-to-1 compression of two digests (Go: poseidon2.Merge).
fn p2_merge(a: array<vec2<u32>, 4>, b: array<vec2<u32>, 4>) -> array<vec2<u32>, 4> {
	var s = p2_merge_state(a, b);
	p2_permute(&s);
	return array<vec2<u32>, 4>(s[0], s[1], s[2], s[3]);
}
