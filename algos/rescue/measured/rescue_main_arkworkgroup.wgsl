//!include rescue.wgsl
//!include rescue_ark_mem.wgsl
// Rescue kernel, variant arkworkgroup (Go: rescue.ArkWorkgroup): every
// workgroup first copies the round constants from the storage buffer at
// binding 2 (Go: arkWords) into workgroup memory and reads them there; the
// parameters' uniform is at binding 3.

@group(0) @binding(2) var<storage, read> rp_ark: array<vec2<u32>, RP_ARK_LEN>;
@group(0) @binding(3) var<uniform> params: Params;

var<workgroup> rp_wg_ark: array<vec2<u32>, RP_ARK_LEN>;

fn rp_ark_at(i: u32) -> vec2<u32> {
	return rp_wg_ark[i];
}

fn permute_variant(s: ptr<function, array<vec2<u32>, 12>>) {
	rp_permute_arkmem(s);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	for (var i = li; i < RP_ARK_LEN; i += WG) {
		rp_wg_ark[i] = rp_ark[i];
	}
	workgroupBarrier();
	let k = index(gid, nwg);
	if (k < params.count) {
		run(k);
	}
}
