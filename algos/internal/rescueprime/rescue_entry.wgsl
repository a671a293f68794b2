//!include rescue.wgsl
// The entry point shared by the Rescue kernels that need nothing before
// run(k): it reads params.count from the uniform `params`, which the
// including file declares (at binding 2, or 3 after the round constants'
// buffer), with permute_variant.

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let k = index(gid, nwg);
	if (k < params.count) {
		run(k);
	}
}
