// Hash-many over a 31-bit permutation, the batch form of hash_row: the
// module names the permutation (an instance's poseidon2_31_*.wgsl file)
// and the construction that defines hash_row (sponge31.wgsl, Plonky3's or
// gnark-crypto's sponge; md31_gnark.wgsl, gnark-crypto's) before this file.
//
// Plain-Go meaning: for i < count { out[i] = hash_row(in[i*m .. (i+1)*m]) },
// PaddingFreeSponge<perm, PERM_WIDTH, 8, 8> for Plonky3's; every element
// canonical, a digest 8 elements. Each input is hashed in one invocation,
// block after block.

@group(0) @binding(0) var<storage, read> hm_in: array<u32>;
@group(0) @binding(1) var<storage, read_write> hm_out: array<u32>;

struct HmParams {
	count: u32,
	m: u32,
}
@group(0) @binding(2) var<uniform> hm_params: HmParams;

const HM_WG: u32 = 64u;

// mk_element returns element c of input row, as sponge31.wgsl reads it.
fn mk_element(row: u32, c: u32) -> u32 {
	return hm_in[row * hm_params.m + c];
}

@compute @workgroup_size(64)
fn hash_many(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = gid.x + gid.y * nwg.x * HM_WG;
	if (i >= hm_params.count) {
		return;
	}
	let d = hash_row(i, hm_params.m);
	for (var j = 0u; j < 8u; j++) {
		hm_out[8u * i + j] = d[j];
	}
}
