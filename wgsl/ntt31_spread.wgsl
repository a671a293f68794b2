// Spreads rows of 2^k words into wider rows, for the low-degree extension
// and Reed-Solomon encoding (Go: algos/ntt, Extender). Plain-Go meaning:
//
//	for i < units { dst[(i>>k)<<out_log + (i mod 2^k)·stride + off] = src[i] }
//
// A copy is out_log = k, stride 1, off 0. Words are moved as they are, in
// whichever form they are held.

@group(0) @binding(0) var<storage, read> sp_src: array<u32>;
@group(0) @binding(1) var<storage, read_write> sp_dst: array<u32>;

struct SpParams {
	log_n: u32,
	units: u32,
	out_log: u32,
	stride: u32,
	off: u32,
}
@group(0) @binding(2) var<uniform> sp: SpParams;

@compute @workgroup_size(NTT_WG)
fn ntt_spread(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = gid.x + gid.y * nwg.x * NTT_WG;
	if (i >= sp.units) {
		return;
	}
	let j = i & ((1u << sp.log_n) - 1u);
	sp_dst[((i >> sp.log_n) << sp.out_log) + j * sp.stride + sp.off] = sp_src[i];
}
