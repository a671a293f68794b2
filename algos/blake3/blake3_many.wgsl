//!include blake3_many_lib.wgsl
// blake3_many.wgsl: many inputs of one length, each its own BLAKE3 hash,
// one invocation per input.
//
// Plain-Go meaning, for a piece of params.count inputs of params.size bytes
// starting at byte params.shift of `data`:
//
//	for i < count { out[first + i] = hash(data[shift + i*size : shift + (i+1)*size]) }
//
// in the mode of params.flags with the key words k0..k7 (blake3.SumMany).

struct ManyParams {
	count: u32,
	size: u32,
	shift: u32, // byte offset of input 0 in the binding (a bound range starts 256-aligned)
	first: u32, // the digest of input 0 in `out`
	flags: u32,
	k0: u32, k1: u32, k2: u32, k3: u32, k4: u32, k5: u32, k6: u32, k7: u32,
}

@group(0) @binding(0) var<storage, read> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<u32>>;
@group(0) @binding(2) var<uniform> params: ManyParams;

fn b3_word(i: u32) -> u32 {
	if (i >= arrayLength(&data)) {
		return 0u;
	}
	return data[i];
}

const MANY_WG = 64u;

@compute @workgroup_size(64)
fn sum_many(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = gid.x + gid.y * nwg.x * MANY_WG;
	if (i >= params.count) {
		return;
	}
	let key0 = vec4<u32>(params.k0, params.k1, params.k2, params.k3);
	let key1 = vec4<u32>(params.k4, params.k5, params.k6, params.k7);
	let h = b3_hash_input(params.shift + i * params.size, params.size, key0, key1, params.flags);
	let o = 2u * (params.first + i);
	out[o] = vec4<u32>(h[0], h[1], h[2], h[3]);
	out[o + 1u] = vec4<u32>(h[4], h[5], h[6], h[7]);
}
