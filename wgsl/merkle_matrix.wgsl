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
// elements with mk_element, defined here.

@group(0) @binding(0) var<storage, read> mk_data: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read_write> mk_out: array<vec4<u32>>;

struct MkRowParams {
	rows: u32,  // rows in this piece
	cols: u32,  // elements per row, at least 1
	first: u32, // the leaf that row 0 of the piece hashes into
}
@group(0) @binding(2) var<uniform> mk_rp: MkRowParams;

// mk_element returns element col of row (of the piece).
fn mk_element(row: u32, col: u32) -> vec2<u32> {
	return mk_data[row * mk_rp.cols + col];
}

const MK_ROW_WG: u32 = 64u;

@compute @workgroup_size(64)
fn mk_rows(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let r = gid.x + gid.y * nwg.x * MK_ROW_WG;
	if (r >= mk_rp.rows) {
		return;
	}
	let h = hash_row(r, mk_rp.cols);
	let o = 2u * (mk_rp.first + r);
	mk_out[o] = vec4<u32>(h[0], h[1], h[2], h[3]);
	mk_out[o + 1u] = vec4<u32>(h[4], h[5], h[6], h[7]);
}
