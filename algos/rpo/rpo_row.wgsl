//!include rpo_lib.wgsl
// hash_row for matrix commitments over RPO256, as package merkle's matrix
// kernel (merkle_matrix.wgsl) calls it.
//
// Plain-Go meaning: rpo.HashElements(row) of the cols elements of the row,
// each read with mk_element(row, c) (defined by the kernel): capacity
// s[0] = cols mod 8, each block of up to 8 elements written over the rate
// s[4..12], a partial last block zero-padded, a permutation after each.
// Returned as a digest of 8 little-endian words (s[4..8] as (lo, hi)
// pairs).
//
// The permutation has one call site, in the block loop (Mesa's compilers
// inline every call); the rate is written with constant indices only.

fn rpo_row_element(row: u32, c: u32, cols: u32) -> vec2<u32> {
	return select(vec2<u32>(0u, 0u), mk_element(row, min(c, cols - 1u)), c < cols);
}

fn hash_row(row: u32, cols: u32) -> array<u32, 8> {
	var s: array<vec2<u32>, 12>;
	s[0] = vec2<u32>(cols % 8u, 0u);
	let blocks = (cols + 7u) / 8u;
	for (var b = 0u; b < blocks; b++) {
		let c = 8u * b;
		s[4] = rpo_row_element(row, c, cols);
		s[5] = rpo_row_element(row, c + 1u, cols);
		s[6] = rpo_row_element(row, c + 2u, cols);
		s[7] = rpo_row_element(row, c + 3u, cols);
		s[8] = rpo_row_element(row, c + 4u, cols);
		s[9] = rpo_row_element(row, c + 5u, cols);
		s[10] = rpo_row_element(row, c + 6u, cols);
		s[11] = rpo_row_element(row, c + 7u, cols);
		rpo_permute(&s);
	}
	return array<u32, 8>(s[4].x, s[4].y, s[5].x, s[5].y, s[6].x, s[6].y, s[7].x, s[7].y);
}
