// hash_row for matrix commitments over a 31-bit field, as package merkle's
// 32-bit matrix kernel (merkle_matrix32.wgsl) calls it: Plonky3's
// PaddingFreeSponge<perm, PERM_WIDTH, 8, 8> over whichever permutation the
// module names before this file (perm_permute on a state in Montgomery
// form, a poseidon2_31_*.wgsl file).
//
// Plain-Go meaning: symmetric.PaddingFreeSponge{Perm, Rate: 8, Out: 8}.Hash
// of the cols canonical elements of the row, each read with
// mk_element(row, c) (defined by the kernel): from the zero state, each
// block of up to 8 elements overwrites the first lanes (a partial last
// block only its own), then one permutation. Returned as the 8 canonical
// elements of the digest.
//
// The permutation has one call site, in the block loop (Mesa's compilers
// inline every call); the lanes are written with constant indices only.

fn s31_lane(s: u32, row: u32, c: u32, cols: u32) -> u32 {
	return select(s, monty31_enter(mk_element(row, min(c, cols - 1u))), c < cols);
}

fn hash_row(row: u32, cols: u32) -> array<u32, 8> {
	var s: array<u32, PERM_WIDTH>;
	let blocks = (cols + 7u) / 8u;
	for (var b = 0u; b < blocks; b++) {
		let c = 8u * b;
		s[0] = s31_lane(s[0], row, c, cols);
		s[1] = s31_lane(s[1], row, c + 1u, cols);
		s[2] = s31_lane(s[2], row, c + 2u, cols);
		s[3] = s31_lane(s[3], row, c + 3u, cols);
		s[4] = s31_lane(s[4], row, c + 4u, cols);
		s[5] = s31_lane(s[5], row, c + 5u, cols);
		s[6] = s31_lane(s[6], row, c + 6u, cols);
		s[7] = s31_lane(s[7], row, c + 7u, cols);
		perm_permute(&s);
	}
	return array<u32, 8>(monty31_leave(s[0]), monty31_leave(s[1]), monty31_leave(s[2]), monty31_leave(s[3]),
		monty31_leave(s[4]), monty31_leave(s[5]), monty31_leave(s[6]), monty31_leave(s[7]));
}
