//!include rescue_round.wgsl
//!include rpo_consts.wgsl
// RPO256, miden-crypto's Rescue Prime Optimized, on Goldilocks elements
// held as vec2<u32> (x = low word, y = high word). Library only: no
// bindings, no entry points. The round's layers are rescue_round.wgsl's,
// which Rp64_256 shares (the same MDS matrix and S-boxes); RPO's round
// constants are rpo_consts.wgsl's, and its round starts with the MDS
// product where Rp64_256's starts with the S-box.
//
// rpo_permute(s) is Go's rpo.Permute: seven rounds of
//   s = MDS*s; s += ARK1[r]; s[i] = s[i]^7; s = MDS*s; s += ARK2[r]; s[i] = s[i]^INV_ALPHA.
// rpo_merge(a, b) is rpo.Merge: state 0, s[4..8] = a, s[8..12] = b, one
// permutation, digest s[4..8].

// rpo_permute applies the RPO256 permutation in place, the state in
// registers: every layer indexes it with constants only.
fn rpo_permute(s: ptr<function, array<vec2<u32>, 12>>) {
	for (var r = 0u; r < RPO_ROUNDS; r++) {
		rp_mds_small(s);
		rpo_add_ark1(s, r);
		rp_sbox(s);
		rp_mds_small(s);
		rpo_add_ark2(s, r);
		rp_inv_sbox_all(s);
	}
}

// rpo_merge_state is the state merge permutes: capacity zero, s[4..8] = a,
// s[8..12] = b.
fn rpo_merge_state(a: array<vec2<u32>, 4>, b: array<vec2<u32>, 4>) -> array<vec2<u32>, 12> {
	let z = vec2<u32>(0u, 0u);
	return array<vec2<u32>, 12>(z, z, z, z, a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]);
}

// rpo_merge is the RPO256 2-to-1 merge of two digests (Go: rpo.Merge).
fn rpo_merge(a: array<vec2<u32>, 4>, b: array<vec2<u32>, 4>) -> array<vec2<u32>, 4> {
	var s = rpo_merge_state(a, b);
	rpo_permute(&s);
	return array<vec2<u32>, 4>(s[4], s[5], s[6], s[7]);
}
