//!include poseidon2_lib.wgsl
// Poseidon2 (Goldilocks, width 12) batch kernels, shared by every variant.
// Each variant's entry file, poseidon2_main_<variant>.wgsl, includes this
// one and defines fn p2_permute_variant(s), which calls the variant's
// permutation (see poseidon2_lib.wgsl).
//
//   permute:       for k < count { out[k] = Permute(in[k]) }          (12 elements in, 12 out)
//   merge:         for k < count { out[k] = Merge(in[k][0..4], in[k][4..8]) }  (8 in, 4 out)
//   hash_elements: for k < count { out[k] = HashElements(in[k*m .. (k+1)*m]) } (m in, 4 out; m >= 1)
//
// Elements are canonical Goldilocks values as (low, high) u32 pairs; the
// host rejects inputs >= p, and hashes m = 0 (the zero digest) itself.
// Each entry point calls the permutation from one place: hash_elements
// from a loop over the blocks of its input, with the state in registers
// from block to block.

@group(0) @binding(0) var<storage, read> p2_in: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read_write> p2_out: array<vec2<u32>>;

// P2Params are the words of the uniform every entry point reads: the item
// count and, for hash_elements, the elements per item.
struct P2Params {
	count: u32,
	m: u32,
}
@group(0) @binding(2) var<uniform> p2_params: P2Params;

// P2_WG is the workgroup size of every entry point.
const P2_WG: u32 = 64u;

// p2_index is the invocation's item: gid.x + gid.y * nwg.x * P2_WG, the
// grid wgpu.Grid lays out past 65535 workgroups.
fn p2_index(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
	return gid.x + gid.y * nwg.x * P2_WG;
}

@compute @workgroup_size(64)
fn permute(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let k = p2_index(gid, nwg);
	if (k >= p2_params.count) {
		return;
	}
	let b = 12u * k;
	var s = array<vec2<u32>, 12>(p2_in[b], p2_in[b + 1u], p2_in[b + 2u], p2_in[b + 3u], p2_in[b + 4u], p2_in[b + 5u],
		p2_in[b + 6u], p2_in[b + 7u], p2_in[b + 8u], p2_in[b + 9u], p2_in[b + 10u], p2_in[b + 11u]);
	p2_permute_variant(&s);
	p2_out[b] = s[0];
	p2_out[b + 1u] = s[1];
	p2_out[b + 2u] = s[2];
	p2_out[b + 3u] = s[3];
	p2_out[b + 4u] = s[4];
	p2_out[b + 5u] = s[5];
	p2_out[b + 6u] = s[6];
	p2_out[b + 7u] = s[7];
	p2_out[b + 8u] = s[8];
	p2_out[b + 9u] = s[9];
	p2_out[b + 10u] = s[10];
	p2_out[b + 11u] = s[11];
}

// p2_store_digest writes s[0..4] as item k's digest.
fn p2_store_digest(k: u32, s: ptr<function, array<vec2<u32>, 12>>) {
	let o = 4u * k;
	p2_out[o] = (*s)[0];
	p2_out[o + 1u] = (*s)[1];
	p2_out[o + 2u] = (*s)[2];
	p2_out[o + 3u] = (*s)[3];
}

@compute @workgroup_size(64)
fn merge(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let k = p2_index(gid, nwg);
	if (k >= p2_params.count) {
		return;
	}
	let b = 8u * k;
	let z = vec2<u32>(0u, 0u);
	var s = array<vec2<u32>, 12>(p2_in[b], p2_in[b + 1u], p2_in[b + 2u], p2_in[b + 3u],
		p2_in[b + 4u], p2_in[b + 5u], p2_in[b + 6u], p2_in[b + 7u], z, z, z, z);
	p2_permute_variant(&s);
	p2_store_digest(k, &s);
}

@compute @workgroup_size(64)
fn hash_elements(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let k = p2_index(gid, nwg);
	if (k >= p2_params.count) {
		return;
	}
	let m = p2_params.m;
	let base = k * m;
	var s: array<vec2<u32>, 12>;
	// Each block of up to 8 elements overwrites s[0..n]; the lanes past a
	// partial last block keep their values (PaddingFreeSponge).
	for (var j = 0u; j < m; j += 8u) {
		let n = min(8u, m - j);
		let b = base + j;
		s[0] = p2_in[b];
		if (n > 1u) { s[1] = p2_in[b + 1u]; }
		if (n > 2u) { s[2] = p2_in[b + 2u]; }
		if (n > 3u) { s[3] = p2_in[b + 3u]; }
		if (n > 4u) { s[4] = p2_in[b + 4u]; }
		if (n > 5u) { s[5] = p2_in[b + 5u]; }
		if (n > 6u) { s[6] = p2_in[b + 6u]; }
		if (n > 7u) { s[7] = p2_in[b + 7u]; }
		p2_permute_variant(&s);
	}
	p2_store_digest(k, &s);
}
