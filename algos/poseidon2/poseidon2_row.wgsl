//!include poseidon2_lib.wgsl
// hash_row for matrix commitments over Poseidon2 (Goldilocks, width 12), as
// package merkle's matrix kernel (merkle_matrix.wgsl) calls it.
//
// Plain-Go meaning: poseidon2.HashElements(row) of the cols elements of
// the row, each read with mk_element(row, c) (defined by the kernel): the
// padding-free sponge, each block of up to 8 elements overwriting the
// first lanes, the lanes past a partial last block kept. Returned as a
// digest of 8 little-endian words (4 elements as (lo, hi) pairs).
//
// The permutation has one call site, in the block loop (Mesa's compilers
// inline every call); the lanes are written with constant indices only.

fn p2_row_lane(s: vec2<u32>, row: u32, c: u32, cols: u32) -> vec2<u32> {
	return select(s, mk_element(row, min(c, cols - 1u)), c < cols);
}

fn hash_row(row: u32, cols: u32) -> array<u32, 8> {
	var s: array<vec2<u32>, 12>;
	let blocks = (cols + 7u) / 8u;
	for (var b = 0u; b < blocks; b++) {
		let c = 8u * b;
		s[0] = p2_row_lane(s[0], row, c, cols);
		s[1] = p2_row_lane(s[1], row, c + 1u, cols);
		s[2] = p2_row_lane(s[2], row, c + 2u, cols);
		s[3] = p2_row_lane(s[3], row, c + 3u, cols);
		s[4] = p2_row_lane(s[4], row, c + 4u, cols);
		s[5] = p2_row_lane(s[5], row, c + 5u, cols);
		s[6] = p2_row_lane(s[6], row, c + 6u, cols);
		s[7] = p2_row_lane(s[7], row, c + 7u, cols);
		p2_permute(&s);
	}
	return array<u32, 8>(s[0].x, s[0].y, s[1].x, s[1].y, s[2].x, s[2].y, s[3].x, s[3].y);
}
