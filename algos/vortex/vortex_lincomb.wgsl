//!include monty31_acc.wgsl
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
// Each coordinate's sum is kept unreduced (monty31_acc.wgsl: two products
// added, then one conditional subtraction) and reduced once at the end;
// a Montgomery reduction and a modular add per product cost more
// instructions than the memory traffic leaves time for. Four rows are
// loaded at once, so that each invocation has loads in flight.
//
// The prelude defines the field's constants (monty31.wgsl).

@group(0) @binding(0) var<storage, read> vl_cw: array<u32>;
@group(0) @binding(1) var<storage, read_write> vl_out: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> vl_pow: array<vec4<u32>>;

struct VlParams {
	rows: u32,
	width: u32,
}
@group(0) @binding(3) var<uniform> vl_params: VlParams;

const VL_WG: u32 = 256u;

@compute @workgroup_size(256)
fn vortex_lincomb(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let w = vl_params.width;
	let rows = vl_params.rows;
	let j = gid.x + gid.y * nwg.x * VL_WG;
	if (j >= w) {
		return;
	}
	var acc: array<monty31_acc, 4>; // the empty sums
	var at = j;
	var i = 0u;
	for (; i + 4u <= rows; i += 4u) {
		let x0 = vl_cw[at];
		let x1 = vl_cw[at + w];
		let x2 = vl_cw[at + 2u * w];
		let x3 = vl_cw[at + 3u * w];
		let q0 = vl_pow[i];
		let q1 = vl_pow[i + 1u];
		let q2 = vl_pow[i + 2u];
		let q3 = vl_pow[i + 3u];
		for (var k = 0u; k < 4u; k++) {
			let a = monty31_acc_fold(monty31_acc_mad(monty31_acc_mad(acc[k], q0[k], x0), q1[k], x1));
			acc[k] = monty31_acc_fold(monty31_acc_mad(monty31_acc_mad(a, q2[k], x2), q3[k], x3));
		}
		at += 4u * w;
	}
	for (; i < rows; i++) {
		let x = vl_cw[at];
		let q = vl_pow[i];
		for (var k = 0u; k < 4u; k++) {
			acc[k] = monty31_acc_fold(monty31_acc_mad(acc[k], q[k], x));
		}
		at += w;
	}
	vl_out[j] = vec4<u32>(monty31_acc_reduce(acc[0]), monty31_acc_reduce(acc[1]), monty31_acc_reduce(acc[2]), monty31_acc_reduce(acc[3]));
}
