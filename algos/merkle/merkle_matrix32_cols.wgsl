//!include merkle_matrix_rows.wgsl
// Matrix commitment of a matrix stored column by column on the device,
// over a 31-bit field: merkle_matrix_cols.wgsl for elements of one word
// each (canonical, below the field's p).
//
// Plain-Go meaning: for r < rows { leaves[first + r] = hash.HashRow([data[base + c*stride + r] for c < cols]) }

@group(0) @binding(0) var<storage, read> mk_data: array<u32>;

// mk_element returns element col of row (of the piece).
fn mk_element(row: u32, col: u32) -> u32 {
	return mk_data[mk_rp.base + col * mk_rp.stride + row];
}
