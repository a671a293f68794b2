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
// The prelude defines the field's constants (M31_P) and VC_RUN.

@group(0) @binding(0) var<storage, read> vc_src: array<u32>;
@group(0) @binding(1) var<storage, read_write> vc_first: array<atomic<u32>>;

struct VcParams {
	count: u32,
	slot: u32,
}
@group(0) @binding(2) var<uniform> vc_params: VcParams;

const VC_WG: u32 = 256u;
// VC_RUN (prelude, from Go's checkRun) is the words one workgroup checks:
// VC_PER an invocation, each of its loads one of a warp's runs of
// consecutive words.
const VC_PER: u32 = VC_RUN / VC_WG;

@compute @workgroup_size(256)
fn vortex_check(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
	let i0 = (wid.x + wid.y * nwg.x) * VC_RUN + tid;
	var first = 0xffffffffu;
	for (var x = 0u; x < VC_PER; x++) {
		let i = i0 + x * VC_WG;
		if (i < vc_params.count && vc_src[i] >= M31_P) {
			first = min(first, i);
		}
	}
	if (first != 0xffffffffu) {
		atomicMin(&vc_first[vc_params.slot], first);
	}
}
