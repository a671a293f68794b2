//!include monty31.wgsl
// Ring-SIS hashes of many columns, as gnark-crypto's koalabear/sis
// RSis.Hash computes each (Go: package algos/sis, Key.HashColumns; its Go
// twin of this kernel is Key.hash).
//
// Plain-Go meaning: for c < count { out[c] = RSis.Hash(column c) }, where a
// column is rows elements, element r at in[c*col_stride + r*row_stride], in
// Montgomery form (gnark-crypto's koalabear.Element in memory), and a hash
// is SIS_D elements in Montgomery form: the coefficients of
// sum_i A_i * M_i mod X^SIS_D + 1, M_i the i-th SIS_D limbs of the column
// (each element's canonical value cut into 32/SIS_LIMB_BITS little-endian
// limbs; gnark-crypto takes a limb l as the Montgomery form l, so it is the
// element l/2^32) and A_i the key's polynomials.
//
// One workgroup hashes one column: per polynomial, a negacyclic NTT of size
// SIS_D in workgroup memory (twist by psi^j, psi a primitive 2*SIS_D-th
// root; Gentleman-Sande, natural order in, bit-reversed out), a product with
// the key's evaluations (sis_key, in the same order) summed into sis_acc;
// then one inverse (Cooley-Tukey, bit-reversed in, natural out, untwisted
// and divided by SIS_D with one product).
//
// The prelude defines SIS_D (a power of two, 2..2048), SIS_WG (the
// workgroup size, min(SIS_D/2, 256)), SIS_LIMB_BITS (8 or 16) and the
// field's constants (monty31.wgsl).

@group(0) @binding(0) var<storage, read> sis_in: array<u32>;
@group(0) @binding(1) var<storage, read_write> sis_out: array<u32>;
// The key's polynomials' evaluations, SIS_D a polynomial.
@group(0) @binding(2) var<storage, read> sis_key: array<u32>;
// [0, D/2): w^k; [D/2, D): w^-k; [D, 2D): psi^j; [2D, 3D): psi^-j / D; w =
// psi^2, all in Montgomery form.
@group(0) @binding(3) var<storage, read> sis_tw: array<u32>;

struct SisParams {
	count: u32,
	rows: u32,
	polys: u32,
	row_stride: u32,
	col_stride: u32,
}
@group(0) @binding(4) var<uniform> sis_params: SisParams;

const SIS_HALF: u32 = SIS_D / 2u;
const SIS_LIMBS: u32 = 32u / SIS_LIMB_BITS;
const SIS_MASK: u32 = (1u << SIS_LIMB_BITS) - 1u;

var<workgroup> sis_buf: array<u32, SIS_D>;
var<workgroup> sis_acc: array<u32, SIS_D>;

// sis_dif is the forward transform of sis_buf in place: stages of half
// length SIS_D/2 down to 1.
fn sis_dif(lid: u32) {
	for (var half = SIS_HALF; half >= 1u; half >>= 1u) {
		let step = SIS_HALF / half;
		for (var b = lid; b < SIS_HALF; b += SIS_WG) {
			let j = b & (half - 1u);
			let i0 = ((b - j) << 1u) + j;
			let i1 = i0 + half;
			let u = sis_buf[i0];
			let v = sis_buf[i1];
			sis_buf[i0] = monty31_add(u, v);
			sis_buf[i1] = monty31_mul(monty31_sub(u, v), sis_tw[j * step]);
		}
		workgroupBarrier();
	}
}

// sis_dit is the inverse transform of sis_buf in place, less the division
// by SIS_D: stages of half length 1 up to SIS_D/2.
fn sis_dit(lid: u32) {
	for (var half = 1u; half <= SIS_HALF; half <<= 1u) {
		let step = SIS_HALF / half;
		for (var b = lid; b < SIS_HALF; b += SIS_WG) {
			let j = b & (half - 1u);
			let i0 = ((b - j) << 1u) + j;
			let i1 = i0 + half;
			let u = sis_buf[i0];
			let v = monty31_mul(sis_buf[i1], sis_tw[SIS_HALF + j * step]);
			sis_buf[i0] = monty31_add(u, v);
			sis_buf[i1] = monty31_sub(u, v);
		}
		workgroupBarrier();
	}
}

@compute @workgroup_size(SIS_WG)
fn sis_hash(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let col = wid.x + wid.y * nwg.x;
	if (col >= sis_params.count) {
		return;
	}
	for (var k = lid; k < SIS_D; k += SIS_WG) {
		sis_acc[k] = 0u;
	}
	let base = col * sis_params.col_stride;
	for (var i = 0u; i < sis_params.polys; i++) {
		for (var k = lid; k < SIS_D; k += SIS_WG) {
			let g = i * SIS_D + k;
			let r = g / SIS_LIMBS;
			var l = 0u;
			if (r < sis_params.rows) {
				let c = monty31_leave(sis_in[base + r * sis_params.row_stride]);
				l = (c >> ((g % SIS_LIMBS) * SIS_LIMB_BITS)) & SIS_MASK;
			}
			sis_buf[k] = monty31_mul(l, sis_tw[SIS_D + k]);
		}
		workgroupBarrier();
		sis_dif(lid);
		// Each invocation reads and writes its own places from here to the
		// next polynomial's load.
		for (var k = lid; k < SIS_D; k += SIS_WG) {
			sis_acc[k] = monty31_add(sis_acc[k], monty31_mul(sis_buf[k], sis_key[i * SIS_D + k]));
		}
	}
	for (var k = lid; k < SIS_D; k += SIS_WG) {
		sis_buf[k] = sis_acc[k];
	}
	workgroupBarrier();
	sis_dit(lid);
	for (var k = lid; k < SIS_D; k += SIS_WG) {
		sis_out[col * SIS_D + k] = monty31_mul(sis_buf[k], sis_tw[2u * SIS_D + k]);
	}
}
