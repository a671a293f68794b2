// Vortex's check of the rows on the device (Go: package algos/vortex):
// every word of a piece of rows must be a reduced Montgomery form, below
// M31_P; the smallest index of one that is not goes into the piece's
// slot (atomicMin), which the host filled with 0xffffffff. Checking here
// reads the rows once on the device, instead of once more on the host
// cores that fill the upload's staging memory.
//
// Plain-Go meaning: for i < count { if src[i] >= p { first[slot] =
// min(first[slot], i) } }.
//
// The prelude defines the field's constants (M31_P).

@group(0) @binding(0) var<storage, read> vc_src: array<u32>;
@group(0) @binding(1) var<storage, read_write> vc_first: array<atomic<u32>>;

struct VcParams {
	count: u32,
	slot: u32,
}
@group(0) @binding(2) var<uniform> vc_params: VcParams;

const VC_WG: u32 = 256u;

@compute @workgroup_size(256)
fn vortex_check(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = gid.x + gid.y * nwg.x * VC_WG;
	if (i < vc_params.count && vc_src[i] >= M31_P) {
		atomicMin(&vc_first[vc_params.slot], i);
	}
}
