//!include merkle_matrix_rows.wgsl
// Matrix commitment of a matrix stored column by column on the device:
// merkle_matrix.wgsl with element (row, col) at base + col·stride + row,
// Goldilocks elements as (lo, hi) pairs of words.
//
// Plain-Go meaning: for r < rows { leaves[first + r] = hash.HashRow([data[base + c*stride + r] for c < cols]) }
//
// Invocation r reads element r of each column, so neighbouring
// invocations read neighbouring elements: a polynomial per column, as an
// NTT of rows writes them, is hashed by rows without a transpose.

@group(0) @binding(0) var<storage, read> mk_data: array<vec2<u32>>;

// mk_element returns element col of row (of the piece).
fn mk_element(row: u32, col: u32) -> vec2<u32> {
	return mk_data[mk_rp.base + col * mk_rp.stride + row];
}
