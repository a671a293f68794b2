//!include rescue_lib.wgsl
// hash_row for matrix commitments over Rescue Prime (Rp64_256), as package
// merkle's matrix kernel (merkle_matrix.wgsl) calls it.
//
// Plain-Go meaning: rescue.HashElements(row) of the cols elements of the
// row, each read with mk_element(row, c) (defined by the kernel), returned
// as a digest of 8 little-endian words (4 elements as (lo, hi) pairs).
//
// The permutation has one call site, in the block loop: Mesa's compilers
// inline every call, and each extra copy of the permutation costs seconds
// of compile time on llvmpipe. The block is added with constant indices
// only (an element past the row adds zero), so that the state stays in
// registers on GPUs that demote dynamically indexed arrays to memory.

fn rp_row_element(row: u32, c: u32, cols: u32) -> vec2<u32> {
	return select(vec2<u32>(0u, 0u), mk_element(row, min(c, cols - 1u)), c < cols);
}

fn hash_row(row: u32, cols: u32) -> array<u32, 8> {
	var s: array<vec2<u32>, 12>;
	s[0] = vec2<u32>(cols, 0u); // len(els) mod p: cols < 2^32 < p
	let blocks = (cols + 7u) / 8u;
	for (var b = 0u; b < blocks; b++) {
		let c = 8u * b;
		s[4] = goldilocks_add(s[4], rp_row_element(row, c, cols));
		s[5] = goldilocks_add(s[5], rp_row_element(row, c + 1u, cols));
		s[6] = goldilocks_add(s[6], rp_row_element(row, c + 2u, cols));
		s[7] = goldilocks_add(s[7], rp_row_element(row, c + 3u, cols));
		s[8] = goldilocks_add(s[8], rp_row_element(row, c + 4u, cols));
		s[9] = goldilocks_add(s[9], rp_row_element(row, c + 5u, cols));
		s[10] = goldilocks_add(s[10], rp_row_element(row, c + 6u, cols));
		s[11] = goldilocks_add(s[11], rp_row_element(row, c + 7u, cols));
		rp_permute(&s);
	}
	return array<u32, 8>(s[4].x, s[4].y, s[5].x, s[5].y, s[6].x, s[6].y, s[7].x, s[7].y);
}
