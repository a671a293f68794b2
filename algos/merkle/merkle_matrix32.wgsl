//!include merkle_matrix_rows.wgsl
// Matrix commitment over a 31-bit field: merkle_matrix.wgsl for elements
// of one word each.
//
// Plain-Go meaning: for r < rows { leaves[first + r] = hash.HashRow32(data[r*cols : (r+1)*cols]) }
// for one piece of rows of a row-major matrix of canonical elements (each
// a little-endian u32 below the field's p).
//
// hash_row(row, cols) comes from the hash's row module, compiled in front
// of this file (sponge31.wgsl over a permutation); it reads the row's
// elements with mk_element, defined here.

@group(0) @binding(0) var<storage, read> mk_data: array<u32>;

// mk_element returns element col of row (of the piece).
fn mk_element(row: u32, col: u32) -> u32 {
	return mk_data[mk_rp.base + row * mk_rp.cols + col];
}
