// The workgroup reductions of eigen.wgsl (sum_tree, max_tree), on
// workgroup memory: what every adapter runs. Where the device has subgroup
// operations, eigen_reduce.subgroups.wgsl replaces this file
// (wgsl.Module.Features) with the same functions and the same bits.
// Library only; the workgroup arrays sh and sh_f and WG are eigen.wgsl's.

// sum_tree adds sh_f[0..WG) pairwise in a fixed tree and returns the total
// to every invocation.
fn sum_tree(lid: u32, x: f32) -> f32 {
	sh_f[lid] = x;
	workgroupBarrier();
	for (var k = WG / 2u; k > 0u; k >>= 1u) {
		if (lid < k) {
			sh_f[lid] += sh_f[lid + k];
		}
		workgroupBarrier();
	}
	let total = sh_f[0];
	workgroupBarrier();
	return total;
}

// max_tree is sum_tree's shape for the max of u32 values.
fn max_tree(lid: u32, x: u32) -> u32 {
	sh[lid] = x;
	workgroupBarrier();
	for (var k = WG / 2u; k > 0u; k >>= 1u) {
		if (lid < k) {
			sh[lid] = max(sh[lid], sh[lid + k]);
		}
		workgroupBarrier();
	}
	let m = sh[0];
	workgroupBarrier();
	return m;
}

