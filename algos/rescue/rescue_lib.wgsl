//!include rescue_round.wgsl
//!include rescue_consts.wgsl
// Rescue Prime Rp64_256 (winterfell) on Goldilocks elements held as
// vec2<u32> (x = low word, y = high word). Library only: no bindings, no
// entry points. The round's layers are rescue_round.wgsl's, which RPO256
// shares; the round constants are rescue_consts.wgsl's.
//
// rp_permute(s) is Go's rescue.Permute: seven rounds of
//   s[i] = s[i]^7; s = MDS*s; s += ARK1[r]; s[i] = s[i]^INV_ALPHA; s = MDS*s; s += ARK2[r].
// rp_merge(a, b) is rescue.Merge: state 0, s[0] = 8, s[4..8] = a,
// s[8..12] = b, one permutation, digest s[4..8].

// rp_permute applies the Rp64_256 permutation in place. The variants below
// differ in one step each and exist to be measured against it; each is a
// whole function, since Mesa's compilers inline every call before they
// fold constant selectors, and a permutation holding two variants'
// code at once is too large for lavapipe to compile.
fn rp_permute(s: ptr<function, array<vec2<u32>, 12>>) {
	for (var r = 0u; r < RP_ROUNDS; r++) {
		rp_sbox(s);
		rp_mds_small(s);
		rp_add_ark1(s, r);
		rp_inv_sbox_all(s);
		rp_mds_small(s);
		rp_add_ark2(s, r);
	}
}

// rp_permute_dense is rp_permute with the dense goldilocks_mul MDS product.
fn rp_permute_dense(s: ptr<function, array<vec2<u32>, 12>>) {
	for (var r = 0u; r < RP_ROUNDS; r++) {
		rp_sbox(s);
		rp_mds_dense(s);
		rp_add_ark1(s, r);
		rp_inv_sbox_all(s);
		rp_mds_dense(s);
		rp_add_ark2(s, r);
	}
}

// rp_permute_libinv is rp_permute with the field library's goldilocks_inv_pow7 as
// the inverse S-box.
fn rp_permute_libinv(s: ptr<function, array<vec2<u32>, 12>>) {
	for (var r = 0u; r < RP_ROUNDS; r++) {
		rp_sbox(s);
		rp_mds_small(s);
		rp_add_ark1(s, r);
		for (var i = 0u; i < 12u; i++) {
			(*s)[11] = goldilocks_inv_pow7(st12_rotate(s));
		}
		rp_mds_small(s);
		rp_add_ark2(s, r);
	}
}

// rp_merge_state is the state merge permutes: s[0] = 8 (elements
// absorbed), s[4..8] = a, s[8..12] = b.
fn rp_merge_state(a: array<vec2<u32>, 4>, b: array<vec2<u32>, 4>) -> array<vec2<u32>, 12> {
	let z = vec2<u32>(0u, 0u);
	return array<vec2<u32>, 12>(vec2<u32>(8u, 0u), z, z, z, a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]);
}

// rp_merge is the Rp64_256 2-to-1 merge of two digests (Go: rescue.Merge).
fn rp_merge(a: array<vec2<u32>, 4>, b: array<vec2<u32>, 4>) -> array<vec2<u32>, 4> {
	var s = rp_merge_state(a, b);
	rp_permute(&s);
	return array<vec2<u32>, 4>(s[4], s[5], s[6], s[7]);
}
