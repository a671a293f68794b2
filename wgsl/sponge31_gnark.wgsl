// hash_row over a 31-bit field as gnark-crypto's vortex.HashPoseidon2
// hashes, over whichever permutation of width 24 the module names before
// this file (perm_permute on a state in Montgomery form, a
// poseidon2_31_gnark-*24.wgsl file); read by hash31_many.wgsl and by
// package merkle's 32-bit matrix kernel as sponge31.wgsl's hash_row is.
//
// Plain-Go meaning: symmetric.PaddingFreeSponge{Perm, At: 8, Rate: 16,
// Out: 8}.Hash of the cols canonical elements of the row, each read with
// mk_element(row, c) (defined by the kernel): from the zero state, each
// block of up to 16 elements overwrites lanes 8.. (a partial last block
// only its own, the other lanes left as the last permutation left them),
// then one permutation. Returned as the canonical elements of lanes 0..8.
//
// The permutation has one call site, in the block loop (Mesa's compilers
// inline every call); the lanes are written with constant indices only.

fn sg31_lane(s: u32, row: u32, c: u32, cols: u32) -> u32 {
	return select(s, monty31_enter(mk_element(row, min(c, cols - 1u))), c < cols);
}

fn hash_row(row: u32, cols: u32) -> array<u32, 8> {
	var s: array<u32, PERM_WIDTH>;
	let blocks = (cols + 15u) / 16u;
	for (var b = 0u; b < blocks; b++) {
		let c = 16u * b;
		s[8] = sg31_lane(s[8], row, c, cols);
		s[9] = sg31_lane(s[9], row, c + 1u, cols);
		s[10] = sg31_lane(s[10], row, c + 2u, cols);
		s[11] = sg31_lane(s[11], row, c + 3u, cols);
		s[12] = sg31_lane(s[12], row, c + 4u, cols);
		s[13] = sg31_lane(s[13], row, c + 5u, cols);
		s[14] = sg31_lane(s[14], row, c + 6u, cols);
		s[15] = sg31_lane(s[15], row, c + 7u, cols);
		s[16] = sg31_lane(s[16], row, c + 8u, cols);
		s[17] = sg31_lane(s[17], row, c + 9u, cols);
		s[18] = sg31_lane(s[18], row, c + 10u, cols);
		s[19] = sg31_lane(s[19], row, c + 11u, cols);
		s[20] = sg31_lane(s[20], row, c + 12u, cols);
		s[21] = sg31_lane(s[21], row, c + 13u, cols);
		s[22] = sg31_lane(s[22], row, c + 14u, cols);
		s[23] = sg31_lane(s[23], row, c + 15u, cols);
		perm_permute(&s);
	}
	return array<u32, 8>(monty31_leave(s[0]), monty31_leave(s[1]), monty31_leave(s[2]), monty31_leave(s[3]),
		monty31_leave(s[4]), monty31_leave(s[5]), monty31_leave(s[6]), monty31_leave(s[7]));
}
