// Matrices of several heights in one tree (merkle.CommitMatrices, the
// shape of Plonky3's MMCS): at a level as wide as some matrices are tall,
// each node is merged once more, with the digest of those matrices' rows.
//
// Plain-Go meaning: for i < count { nodes[count + i] = merge(nodes[count + i], digests[count + i]) }
// (a level of count nodes sits at count..2count-1 of the heap).
//
// merge_node comes from the hash's merge module, compiled in front of this
// file, as for merkle.wgsl.

@group(0) @binding(0) var<storage, read> mk_inj: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> mk_inj_nodes: array<vec4<u32>>;

struct MkInjParams {
	count: u32, // nodes to merge, from node count on
}
@group(0) @binding(2) var<uniform> mk_ip: MkInjParams;

const MK_INJ_WG: u32 = 64u;

@compute @workgroup_size(64)
fn mk_inject(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = gid.x + gid.y * nwg.x * MK_INJ_WG;
	if (i >= mk_ip.count) {
		return;
	}
	let o = 2u * (mk_ip.count + i);
	let a0 = mk_inj_nodes[o];
	let a1 = mk_inj_nodes[o + 1u];
	let b0 = mk_inj[o];
	let b1 = mk_inj[o + 1u];
	let h = merge_node(array<u32, 8>(a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w), array<u32, 8>(b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w));
	mk_inj_nodes[o] = vec4<u32>(h[0], h[1], h[2], h[3]);
	mk_inj_nodes[o + 1u] = vec4<u32>(h[4], h[5], h[6], h[7]);
}
