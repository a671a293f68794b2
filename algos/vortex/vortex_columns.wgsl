// Vortex's opened columns on the device (Go: package algos/vortex,
// ProverState.OpenColumns): the selected columns of the codewords
// gathered from their column tile into one buffer, column after column,
// one dispatch a tile for every selected column.
//
// Plain-Go meaning: for i < count, r < rows { c = sel[i]; if tile_lo <= c
// < tile_lo + width { out[(i - sel_off)*rows + r] = tile[r*width + c -
// tile_lo] } }, for i from sel_off (the piece of the selection that the
// out binding holds).

@group(0) @binding(0) var<storage, read> vg_tile: array<u32>;
@group(0) @binding(1) var<storage, read_write> vg_out: array<u32>;
@group(0) @binding(2) var<storage, read> vg_sel: array<u32>;

struct VgParams {
	count: u32,
	rows: u32,
	width: u32,
	tile_lo: u32,
	sel_off: u32,
}
@group(0) @binding(3) var<uniform> vg_params: VgParams;

@compute @workgroup_size(256)
fn vortex_columns(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let t = gid.x + gid.y * nwg.x * 256u;
	let k = t / vg_params.rows;
	let r = t - k * vg_params.rows;
	if (k >= vg_params.count) {
		return;
	}
	let c = vg_sel[vg_params.sel_off + k];
	if ((c < vg_params.tile_lo) | (c - vg_params.tile_lo >= vg_params.width)) {
		return;
	}
	vg_out[k * vg_params.rows + r] = vg_tile[r * vg_params.width + c - vg_params.tile_lo];
}
