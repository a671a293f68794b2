// Hash-many over a 31-bit permutation on Montgomery forms: hash31_many.wgsl
// for inputs and digests held as gnark-crypto holds its elements in memory
// (koalabear.Element: the Montgomery form x·2^32 mod p), so that its
// buffers are hashed as they are (Vortex's SIS digests into its leaves).
// The module names the permutation and the construction that defines
// hash_row (sponge31.wgsl, gnark-crypto's) before this file.
//
// Plain-Go meaning: for i < count { out[i] = enter(hash_row(leave(in[i*m ..
// (i+1)*m]))) }, every word a reduced Montgomery form. The construction
// reads the words as they are (S31_MONTY_IN true in the prelude), so an
// element is not converted on its way in.

@group(0) @binding(0) var<storage, read> hmm_in: array<u32>;
@group(0) @binding(1) var<storage, read_write> hmm_out: array<u32>;

struct HmmParams {
	count: u32,
	m: u32,
}
@group(0) @binding(2) var<uniform> hmm_params: HmmParams;

const HMM_WG: u32 = 64u;

// mk_element returns element c of input row, in Montgomery form, as the
// construction reads it (S31_MONTY_IN).
fn mk_element(row: u32, c: u32) -> u32 {
	return hmm_in[row * hmm_params.m + c];
}

@compute @workgroup_size(64)
fn hash_many_monty(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = gid.x + gid.y * nwg.x * HMM_WG;
	if (i >= hmm_params.count) {
		return;
	}
	let d = hash_row(i, hmm_params.m);
	for (var j = 0u; j < 8u; j++) {
		hmm_out[8u * i + j] = monty31_enter(d[j]);
	}
}
