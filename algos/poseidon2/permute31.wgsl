// Permute-many over a 31-bit permutation: the module names the permutation
// before this file (a poseidon2_31_*.wgsl file).
//
// Plain-Go meaning: for i < count { out[i] = perm.Permute(in[i]) }, each state
// W = PERM_WIDTH, every element canonical in and out.

@group(0) @binding(0) var<storage, read> pm_in: array<u32>;
@group(0) @binding(1) var<storage, read_write> pm_out: array<u32>;

struct PmParams {
	count: u32,
}
@group(0) @binding(2) var<uniform> pm_params: PmParams;

const PM_WG: u32 = 64u;

@compute @workgroup_size(64)
fn permute_many(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = gid.x + gid.y * nwg.x * PM_WG;
	if (i >= pm_params.count) {
		return;
	}
	let base = i * PERM_WIDTH;
	var s: array<u32, PERM_WIDTH>;
	for (var j = 0u; j < PERM_WIDTH; j++) {
		s[j] = monty31_enter(pm_in[base + j]);
	}
	perm_permute(&s);
	for (var j = 0u; j < PERM_WIDTH; j++) {
		pm_out[base + j] = monty31_leave(s[j]);
	}
}
