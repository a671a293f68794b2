//!include merkle_matrix_rows.wgsl
// Matrix commitment: the leaves of a Merkle tree are the hashes of a
// matrix's rows, computed on the device into the tree's leaf buffer.
//
// Plain-Go meaning: for r < rows { leaves[first + r] = hash.HashRow(data[r*cols : (r+1)*cols]) }
// for one piece of rows of a row-major matrix of Goldilocks elements
// (each a little-endian u64 below p, here a (lo, hi) pair of words).
//
// hash_row(row, cols) comes from the hash's row module, compiled in front
// of this file (rescue_row.wgsl, or any module defining it; its
// identifiers must not start with mk_ or MK_). It reads the row's
// elements with mk_element, defined here. The kernel, mk_rows, is
// merkle_matrix_rows.wgsl's.

@group(0) @binding(0) var<storage, read> mk_data: array<vec2<u32>>;

// mk_element returns element col of row (of the piece).
fn mk_element(row: u32, col: u32) -> vec2<u32> {
	return mk_data[mk_rp.base + row * mk_rp.cols + col];
}
