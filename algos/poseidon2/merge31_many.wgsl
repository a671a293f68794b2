// Merge-many over a 31-bit permutation, the batch form of merge_node: the
// module names the permutation (an instance's poseidon2_31_*.wgsl file)
// and the compression that defines merge_node (compress31.wgsl, Plonky3's
// or gnark-crypto's) before this file.
//
// Plain-Go meaning: for i < count { out[i] = merge_node(in[i][0..8],
// in[i][8..16]) }, TruncatedPermutation<perm, 2, 8, PERM_WIDTH> for
// Plonky3's; a pair 16 canonical elements and a digest 8.

@group(0) @binding(0) var<storage, read> mm_in: array<u32>;
@group(0) @binding(1) var<storage, read_write> mm_out: array<u32>;

struct MmParams {
	count: u32,
}
@group(0) @binding(2) var<uniform> mm_params: MmParams;

const MM_WG: u32 = 64u;

@compute @workgroup_size(64)
fn merge_many(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = gid.x + gid.y * nwg.x * MM_WG;
	if (i >= mm_params.count) {
		return;
	}
	var a: array<u32, 8>;
	var b: array<u32, 8>;
	for (var j = 0u; j < 8u; j++) {
		a[j] = mm_in[16u * i + j];
		b[j] = mm_in[16u * i + 8u + j];
	}
	let d = merge_node(a, b);
	for (var j = 0u; j < 8u; j++) {
		mm_out[8u * i + j] = d[j];
	}
}
