//!include rescue_lib.wgsl
// Rescue Prime Rp64_256 with the round constants read from memory instead
// of literals. Library only: the kernel's file defines
// rp_ark_at(i) -> vec2<u32>, the constant at index i of ARK1 (rows 0..6,
// 12 elements each) followed by ARK2 (from RP_ARK2_BASE on), held in a
// storage, uniform or workgroup array (Go: rescue's arkWords).

// rp_add_ark_at is s[i] += ARK[base + i] for all i (mod p).
fn rp_add_ark_at(s: ptr<function, array<vec2<u32>, 12>>, base: u32) {
	(*s)[0] = goldilocks_add((*s)[0], rp_ark_at(base));
	(*s)[1] = goldilocks_add((*s)[1], rp_ark_at(base + 1u));
	(*s)[2] = goldilocks_add((*s)[2], rp_ark_at(base + 2u));
	(*s)[3] = goldilocks_add((*s)[3], rp_ark_at(base + 3u));
	(*s)[4] = goldilocks_add((*s)[4], rp_ark_at(base + 4u));
	(*s)[5] = goldilocks_add((*s)[5], rp_ark_at(base + 5u));
	(*s)[6] = goldilocks_add((*s)[6], rp_ark_at(base + 6u));
	(*s)[7] = goldilocks_add((*s)[7], rp_ark_at(base + 7u));
	(*s)[8] = goldilocks_add((*s)[8], rp_ark_at(base + 8u));
	(*s)[9] = goldilocks_add((*s)[9], rp_ark_at(base + 9u));
	(*s)[10] = goldilocks_add((*s)[10], rp_ark_at(base + 10u));
	(*s)[11] = goldilocks_add((*s)[11], rp_ark_at(base + 11u));
}

// rp_permute_arkmem is rp_permute with the constants from rp_ark_at.
fn rp_permute_arkmem(s: ptr<function, array<vec2<u32>, 12>>) {
	for (var r = 0u; r < RP_ROUNDS; r++) {
		rp_sbox(s);
		rp_mds_small(s);
		rp_add_ark_at(s, r * RP_WIDTH);
		rp_inv_sbox_all(s);
		rp_mds_small(s);
		rp_add_ark_at(s, RP_ARK2_BASE + r * RP_WIDTH);
	}
}
