// Mixed trees: where the hash changes between two levels, the nodes of the
// lower level are converted to digests of the upper hash in place.
//
// Plain-Go meaning: for i < count { nodes[count + i] = hash.ConvertDigest(nodes[count + i]) }
// (a level of count nodes sits at count..2count-1 of the heap).
//
// convert_digest comes from the upper hash's conversion module, compiled in
// front of this file (goldilocks_digest.wgsl for the Goldilocks hashes).

@group(0) @binding(0) var<storage, read_write> mk_conv: array<vec4<u32>>;

struct MkConvParams {
	count: u32, // nodes to convert, from node count on
}
@group(0) @binding(1) var<uniform> mk_cvp: MkConvParams;

const MK_CONV_WG: u32 = 64u;

@compute @workgroup_size(64)
fn mk_convert(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = gid.x + gid.y * nwg.x * MK_CONV_WG;
	if (i >= mk_cvp.count) {
		return;
	}
	let o = 2u * (mk_cvp.count + i);
	let a = mk_conv[o];
	let b = mk_conv[o + 1u];
	let d = convert_digest(array<u32, 8>(a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w));
	mk_conv[o] = vec4<u32>(d[0], d[1], d[2], d[3]);
	mk_conv[o + 1u] = vec4<u32>(d[4], d[5], d[6], d[7]);
}
