// Vortex's constant rows on the device (Go: package algos/vortex, Linea's
// rows given as one value): each row that stands for one value is written
// into the piece of rows on the device instead of uploaded in full.
//
// Plain-Go meaning: for p < count, j < width { k := 2*(first+p);
// dst[(pairs[k] - row0)*width + j] = pairs[k+1] }: pairs holds, for each
// constant row of the matrix in order, its row index and its value (a
// Montgomery form), and the piece starts at row row0.

@group(0) @binding(0) var<storage, read> vf_pairs: array<u32>;
@group(0) @binding(1) var<storage, read_write> vf_dst: array<u32>;

struct VfParams {
	count: u32,
	width: u32,
	first: u32,
	row0: u32,
}
@group(0) @binding(2) var<uniform> vf_params: VfParams;

const VF_WG: u32 = 256u;

@compute @workgroup_size(256)
fn vortex_fill(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = gid.x + gid.y * nwg.x * VF_WG;
	if (i >= vf_params.count * vf_params.width) {
		return;
	}
	let p = i / vf_params.width;
	let j = i - p * vf_params.width;
	let k = 2u * (vf_params.first + p);
	vf_dst[(vf_pairs[k] - vf_params.row0) * vf_params.width + j] = vf_pairs[k + 1u];
}
