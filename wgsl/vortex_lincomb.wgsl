//!include monty31.wgsl
// Vortex's UAlpha on the device (Go: package algos/vortex,
// ProverState.OpenLinComb): the linear combination of a tile of codewords
// with the powers of an extension-field challenge, as gnark-crypto's
// ProverState.OpenLinComb sums it.
//
// Plain-Go meaning: for j < width { for k < 4 { out[4j + k] =
// sum_i pow[4i + k] · cw[i*width + j] } }, every word a Montgomery form
// (gnark-crypto's koalabear.Element in memory): pow[4i .. 4i+4] is alpha^i
// as fext.E4 lays it out (B0.A0, B0.A1, B1.A0, B1.A1), and an extension
// element times a base one is its coordinates times it, so the 4 words of
// column j are UAlpha[j] as an fext.E4.
//
// The prelude defines the field's constants (monty31.wgsl).

@group(0) @binding(0) var<storage, read> vl_cw: array<u32>;
@group(0) @binding(1) var<storage, read_write> vl_out: array<u32>;
@group(0) @binding(2) var<storage, read> vl_pow: array<u32>;

struct VlParams {
	rows: u32,
	width: u32,
}
@group(0) @binding(3) var<uniform> vl_params: VlParams;

const VL_WG: u32 = 256u;

@compute @workgroup_size(256)
fn vortex_lincomb(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let j = gid.x + gid.y * nwg.x * VL_WG;
	if (j >= vl_params.width) {
		return;
	}
	var acc = vec4<u32>(0u, 0u, 0u, 0u);
	for (var i = 0u; i < vl_params.rows; i++) {
		let x = vl_cw[i * vl_params.width + j];
		for (var k = 0u; k < 4u; k++) {
			acc[k] = monty31_add(acc[k], monty31_mul(vl_pow[4u * i + k], x));
		}
	}
	for (var k = 0u; k < 4u; k++) {
		vl_out[4u * j + k] = acc[k];
	}
}
