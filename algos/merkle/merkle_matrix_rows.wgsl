// The matrix commitment's kernel, over the elements that the file
// including this one binds (merkle_matrix.wgsl: Goldilocks elements,
// merkle_matrix32.wgsl: 31-bit ones) at binding 0, with mk_element on
// them: the rows of one piece hashed into the leaf buffer.

@group(0) @binding(1) var<storage, read_write> mk_out: array<vec4<u32>>;

struct MkRowParams {
	rows: u32,  // rows in this piece
	cols: u32,  // elements per row, at least 1
	first: u32, // the leaf that row 0 of the piece hashes into
	base: u32,  // the element of the binding where the piece's row 0 starts
	stride: u32, // elements from a column to the next (column-major files)
}
@group(0) @binding(2) var<uniform> mk_rp: MkRowParams;

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
