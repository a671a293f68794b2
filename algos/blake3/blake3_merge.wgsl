//!include blake3_lib.wgsl
// blake3_merge.wgsl: the 2-to-1 Merkle merge of many pairs at once.
//
// Plain-Go meaning: for i < params.count { digests[i] = blake3.Merge(pairs[i][:32], pairs[i][32:]) }

struct MergeParams {
	count: u32,
}

const MERGE_WG = 64u;

@group(0) @binding(0) var<storage, read> pairs: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> digests: array<vec4<u32>>;
@group(0) @binding(2) var<uniform> params: MergeParams;

@compute @workgroup_size(64)
fn merge_many(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = gid.x + gid.y * nwg.x * MERGE_WG;
	if (i >= params.count) {
		return;
	}
	let m = array<vec4<u32>, 4>(pairs[4u * i], pairs[4u * i + 1u], pairs[4u * i + 2u], pairs[4u * i + 3u]);
	let o = b3_compress_rows(B3_IV0, B3_IV1, m, 0u, 0u, 64u, B3_CHUNK_START | B3_CHUNK_END | B3_ROOT);
	digests[2u * i] = o.a;
	digests[2u * i + 1u] = o.b;
}
