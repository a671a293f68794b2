// hash_row for matrix commitments over a 31-bit field, as package merkle's
// 32-bit matrix kernel (merkle_matrix32.wgsl) and hash31_many.wgsl call it:
// a padding-free sponge over whichever permutation the module names before
// this file (perm_permute on a state in Montgomery form, an instance's
// poseidon2_31_*.wgsl file), absorbing S31_RATE elements (8 or 16) into
// lanes S31_AT.. (prelude constants): Plonky3's PaddingFreeSponge<perm,
// PERM_WIDTH, 8, 8> with S31_AT 0 and S31_RATE 8; gnark-crypto's
// vortex.HashPoseidon2 over its width-24 permutation with S31_AT 8 and
// S31_RATE 16.
//
// Plain-Go meaning: symmetric.PaddingFreeSponge{Perm, At: S31_AT, Rate:
// S31_RATE, Out: 8}.Hash of the cols canonical elements of the row, each
// read with mk_element(row, c) (defined by the kernel): from the zero
// state, each block of up to S31_RATE elements overwrites lanes S31_AT..
// (a partial last block only its own, the other lanes left as the last
// permutation left them), then one permutation. Returned as the canonical
// elements of lanes 0..8. Where S31_MONTY_IN (a prelude constant) is
// true, mk_element returns the elements in Montgomery form (gnark-crypto's
// koalabear.Element in memory), which the lanes take as they are: the
// same digest, without the conversion at load.
//
// The permutation has one call site, in the block loop (Mesa's compilers
// inline every call); the lanes are written with constant indices only
// (S31_AT + k is a constant expression).

fn s31_lane(s: u32, row: u32, c: u32, cols: u32) -> u32 {
	if (S31_MONTY_IN) {
		return select(s, mk_element(row, min(c, cols - 1u)), c < cols);
	}
	return select(s, monty31_enter(mk_element(row, min(c, cols - 1u))), c < cols);
}

fn hash_row(row: u32, cols: u32) -> array<u32, 8> {
	var s: array<u32, PERM_WIDTH>;
	let blocks = (cols + (S31_RATE - 1u)) / S31_RATE;
	for (var b = 0u; b < blocks; b++) {
		let c = S31_RATE * b;
		s[S31_AT] = s31_lane(s[S31_AT], row, c, cols);
		s[S31_AT + 1u] = s31_lane(s[S31_AT + 1u], row, c + 1u, cols);
		s[S31_AT + 2u] = s31_lane(s[S31_AT + 2u], row, c + 2u, cols);
		s[S31_AT + 3u] = s31_lane(s[S31_AT + 3u], row, c + 3u, cols);
		s[S31_AT + 4u] = s31_lane(s[S31_AT + 4u], row, c + 4u, cols);
		s[S31_AT + 5u] = s31_lane(s[S31_AT + 5u], row, c + 5u, cols);
		s[S31_AT + 6u] = s31_lane(s[S31_AT + 6u], row, c + 6u, cols);
		s[S31_AT + 7u] = s31_lane(s[S31_AT + 7u], row, c + 7u, cols);
		if (S31_RATE == 16u) {
			s[S31_AT + 8u] = s31_lane(s[S31_AT + 8u], row, c + 8u, cols);
			s[S31_AT + 9u] = s31_lane(s[S31_AT + 9u], row, c + 9u, cols);
			s[S31_AT + 10u] = s31_lane(s[S31_AT + 10u], row, c + 10u, cols);
			s[S31_AT + 11u] = s31_lane(s[S31_AT + 11u], row, c + 11u, cols);
			s[S31_AT + 12u] = s31_lane(s[S31_AT + 12u], row, c + 12u, cols);
			s[S31_AT + 13u] = s31_lane(s[S31_AT + 13u], row, c + 13u, cols);
			s[S31_AT + 14u] = s31_lane(s[S31_AT + 14u], row, c + 14u, cols);
			s[S31_AT + 15u] = s31_lane(s[S31_AT + 15u], row, c + 15u, cols);
		}
		perm_permute(&s);
	}
	return array<u32, 8>(monty31_leave(s[0]), monty31_leave(s[1]), monty31_leave(s[2]), monty31_leave(s[3]),
		monty31_leave(s[4]), monty31_leave(s[5]), monty31_leave(s[6]), monty31_leave(s[7]));
}
