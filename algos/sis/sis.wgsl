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
// sis_hash: one workgroup hashes one column: per polynomial, a negacyclic NTT of size
// SIS_D in workgroup memory (twist by psi^j, psi a primitive 2*SIS_D-th
// root; Gentleman-Sande, natural order in, bit-reversed out), a product with
// the key's evaluations (sis_key, in the same order) summed into sis_acc;
// then one inverse (Cooley-Tukey, bit-reversed in, natural out, untwisted
// and divided by SIS_D with one product). sis_hash8, below, computes the
// same stages for the degrees that are powers of 8, several columns a
// workgroup, three stages at a time in registers.
//
// The prelude defines SIS_D (a power of two, 2..2048), SIS_WG (sis_hash's
// workgroup size, min(SIS_D/2, 256)), SIS_LIMB_BITS (8 or 16), sis_hash8's
// SIS8_WG and SIS8_PASSES (below) and the field's constants (monty31.wgsl).

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

// sis_hash8 is sis_hash where SIS_D is a power of 8 (8, 64, 512): the same
// butterflies with the same twiddles, so the same values after every third
// stage, but three stages at a time in registers. A column's SIS8_T =
// SIS_D/8 invocations hold 8 points each and swap them through workgroup
// memory between such passes only; SIS8_Q = SIS8_WG/SIS8_T columns share a
// workgroup. An invocation's twiddles are the same for every polynomial,
// so it keeps them in registers. Its twists are too, but it reads them
// where used: their registers go to the eight elements it loads ahead
// (held as well, they cost occupancy). The sum over polynomials stays in
// its registers, as the last forward pass and the first inverse one own
// the same 8 points. The key's evaluations are laid out as the
// invocations read them: point 8t+m of polynomial i at sis_key[i*SIS_D +
// m*SIS8_T + t], so that a column's neighbouring invocations read
// neighbouring words. A workgroup's invocation lid is invocation t =
// lid / SIS8_Q of its column q = lid % SIS8_Q: neighbouring invocations are
// of neighbouring columns, so that their loads of a row-major matrix are
// adjacent words.
//
// In pass p, S = SIS_D/8^(p+1), invocation t of a column owns points o +
// S*m, m < 8, o = (t/S)*8S + t%S; its DIF stages are those of half
// lengths 4S, 2S and S, whose twiddles are w^(u + m*SIS_D/8) (m < 4),
// w^(2u + m*SIS_D/4) (m < 2) and w^(4u), u = (t%S)*8^p. The last pass (S
// = 1, u = 0) multiplies by w^0 = 1 nowhere.
//
// The prelude defines SIS8_WG (a multiple of SIS8_T, at most 256) and
// SIS8_PASSES (log8 SIS_D).

// max: sis_hash8 is not used below SIS_D = 8, but the module must build.
const SIS8_T: u32 = max(SIS_D / 8u, 1u);
const SIS8_Q: u32 = SIS8_WG / SIS8_T;
// A polynomial's elements.
const SIS8_E: u32 = max(SIS_D / SIS_LIMBS, 1u);
// Two buffers used in turn, so that one barrier per swap suffices: a swap
// writes a buffer whose last reads came before the previous swap's barrier.
const SIS8_BUF: u32 = SIS8_WG * 8u;
var<workgroup> sis8_buf: array<u32, 2u * SIS8_BUF>;

// sis8_sw is where point i of a column sits in its buffer: the low 5 bits
// mixed with bits 5 to 7, so that with the columns' mixes (sis8_col) a
// warp's accesses in every pass of SIS_D = 512 fall in distinct banks. It
// is linear over bits: sis8_sw(a + b) =
// sis8_sw(a) ^ sis8_sw(b) where a and b share no bit.
fn sis8_sw(i: u32) -> u32 {
	return i ^ ((i >> 5u) & 7u) ^ (((i >> 6u) & 3u) << 3u);
}

// sis8_mul_diff returns (a - b)·w, the Montgomery product, for a and b
// below p: a - b + p is below 2p < 2^32, so that a·w stays below p·2^32 as
// monty31_reduce needs, and its result is the reduced one; the sum's
// reduction (monty31_sub) is left out.
fn sis8_mul_diff(a: u32, b: u32, w: u32) -> u32 {
	return monty31_mul(a + (M31_P - b), w);
}

// sis8_dif is a pass of three DIF stages: c holds w^(u + m*SIS_D/8) (m <
// 4), w^(2u + m*SIS_D/4) (m < 2) and w^(4u).
fn sis8_dif(x: ptr<function, array<u32, 8>>, c: ptr<function, array<u32, 7>>) {
	for (var m = 0u; m < 4u; m++) {
		let a = (*x)[m];
		let b = (*x)[m + 4u];
		(*x)[m] = monty31_add(a, b);
		(*x)[m + 4u] = sis8_mul_diff(a, b, (*c)[m]);
	}
	for (var h = 0u; h < 8u; h += 4u) {
		for (var m = h; m < h + 2u; m++) {
			let a = (*x)[m];
			let b = (*x)[m + 2u];
			(*x)[m] = monty31_add(a, b);
			(*x)[m + 2u] = sis8_mul_diff(a, b, (*c)[4u + m - h]);
		}
	}
	for (var m = 0u; m < 8u; m += 2u) {
		let a = (*x)[m];
		let b = (*x)[m + 1u];
		(*x)[m] = monty31_add(a, b);
		(*x)[m + 1u] = sis8_mul_diff(a, b, (*c)[6u]);
	}
}

// sis8_dif_last is sis8_dif for u = 0, less its products by 1: c holds
// w^(SIS_D/8), w^(SIS_D/4) and w^(3*SIS_D/8).
fn sis8_dif_last(x: ptr<function, array<u32, 8>>, c: ptr<function, array<u32, 3>>) {
	let a = (*x)[0];
	let b = (*x)[4];
	(*x)[0] = monty31_add(a, b);
	(*x)[4] = monty31_sub(a, b);
	for (var m = 1u; m < 4u; m++) {
		let a = (*x)[m];
		let b = (*x)[m + 4u];
		(*x)[m] = monty31_add(a, b);
		(*x)[m + 4u] = sis8_mul_diff(a, b, (*c)[m - 1u]);
	}
	for (var h = 0u; h < 8u; h += 4u) {
		let a0 = (*x)[h];
		let b0 = (*x)[h + 2u];
		(*x)[h] = monty31_add(a0, b0);
		(*x)[h + 2u] = monty31_sub(a0, b0);
		let a1 = (*x)[h + 1u];
		let b1 = (*x)[h + 3u];
		(*x)[h + 1u] = monty31_add(a1, b1);
		(*x)[h + 3u] = sis8_mul_diff(a1, b1, (*c)[1]);
	}
	for (var m = 0u; m < 8u; m += 2u) {
		let a = (*x)[m];
		let b = (*x)[m + 1u];
		(*x)[m] = monty31_add(a, b);
		(*x)[m + 1u] = monty31_sub(a, b);
	}
}

// sis8_dit is a pass of three DIT stages, the inverse of sis8_dif's order:
// c holds the inverses of sis8_dif's twiddles.
fn sis8_dit(x: ptr<function, array<u32, 8>>, c: ptr<function, array<u32, 7>>) {
	for (var m = 0u; m < 8u; m += 2u) {
		let a = (*x)[m];
		let b = monty31_mul((*x)[m + 1u], (*c)[6u]);
		(*x)[m] = monty31_add(a, b);
		(*x)[m + 1u] = monty31_sub(a, b);
	}
	for (var h = 0u; h < 8u; h += 4u) {
		for (var m = h; m < h + 2u; m++) {
			let a = (*x)[m];
			let b = monty31_mul((*x)[m + 2u], (*c)[4u + m - h]);
			(*x)[m] = monty31_add(a, b);
			(*x)[m + 2u] = monty31_sub(a, b);
		}
	}
	for (var m = 0u; m < 4u; m++) {
		let a = (*x)[m];
		let b = monty31_mul((*x)[m + 4u], (*c)[m]);
		(*x)[m] = monty31_add(a, b);
		(*x)[m + 4u] = monty31_sub(a, b);
	}
}

// sis8_dit_last is sis8_dit for u = 0, less its products by 1.
fn sis8_dit_last(x: ptr<function, array<u32, 8>>, c: ptr<function, array<u32, 3>>) {
	for (var m = 0u; m < 8u; m += 2u) {
		let a = (*x)[m];
		let b = (*x)[m + 1u];
		(*x)[m] = monty31_add(a, b);
		(*x)[m + 1u] = monty31_sub(a, b);
	}
	for (var h = 0u; h < 8u; h += 4u) {
		let a0 = (*x)[h];
		let b0 = (*x)[h + 2u];
		(*x)[h] = monty31_add(a0, b0);
		(*x)[h + 2u] = monty31_sub(a0, b0);
		let a1 = (*x)[h + 1u];
		let b1 = monty31_mul((*x)[h + 3u], (*c)[1]);
		(*x)[h + 1u] = monty31_add(a1, b1);
		(*x)[h + 3u] = monty31_sub(a1, b1);
	}
	let a = (*x)[0];
	let b = (*x)[4];
	(*x)[0] = monty31_add(a, b);
	(*x)[4] = monty31_sub(a, b);
	for (var m = 1u; m < 4u; m++) {
		let a = (*x)[m];
		let b = monty31_mul((*x)[m + 4u], (*c)[m - 1u]);
		(*x)[m] = monty31_add(a, b);
		(*x)[m + 4u] = monty31_sub(a, b);
	}
}

// sis8_own returns where pass p's points of invocation t start (o) and
// its u.
fn sis8_own(t: u32, p: u32) -> vec2<u32> {
	// max: pass 1 of a single-pass degree is never used, but is computed.
	let s = max(SIS8_T >> (3u * p), 1u);
	let jj = t % s;
	return vec2<u32>((t / s) * 8u * s + jj, jj << (3u * p));
}

// sis8_twiddles returns pass p's twiddles for invocation t, from half
// (0: forward, SIS_HALF: inverse) of sis_tw.
fn sis8_twiddles(t: u32, p: u32, half: u32) -> array<u32, 7> {
	let u = sis8_own(t, p).y;
	var c: array<u32, 7>;
	for (var m = 0u; m < 4u; m++) {
		c[m] = sis_tw[half + u + m * (SIS_D / 8u)];
	}
	for (var m = 0u; m < 2u; m++) {
		c[4u + m] = sis_tw[half + 2u * u + m * (SIS_D / 4u)];
	}
	c[6] = sis_tw[half + 4u * u];
	return c;
}

// sis8_last returns the last pass's twiddles from half of sis_tw.
fn sis8_last(half: u32) -> array<u32, 3> {
	return array<u32, 3>(sis_tw[half + SIS_D / 8u], sis_tw[half + SIS_D / 4u], sis_tw[half + 3u * (SIS_D / 8u)]);
}

// sis8_col returns where column c of a workgroup starts in a buffer (x)
// and what its points' places are mixed with (y): bits 0 and 1 of c onto
// bits 1 and 3, and 2 and 4, of the place. A warp holds eight consecutive
// invocations of each of four columns; in every pass of SIS_D = 512 their
// eight points' places (sis8_sw) span bits 0-2 or bits 0, 3 and 4, and the
// columns' mixes span what each leaves, so that the warp's 32 accesses
// fall in distinct banks.
fn sis8_col(c: u32) -> vec2<u32> {
	return vec2<u32>(c * SIS_D, (((c & 1u) * 10u) ^ (((c >> 1u) & 1u) * 20u)) & (SIS_D - 1u));
}

// sis8_swap moves a column's points from pass p's owners to pass q's
// through buffer (swap & 1), cb the column's sis8_col.
fn sis8_swap(x: ptr<function, array<u32, 8>>, t: u32, cb: vec2<u32>, p: u32, q: u32, swap: u32) {
	let b = (swap & 1u) * SIS8_BUF + cb.x;
	let sp = SIS8_T >> (3u * p);
	let op = sis8_sw(sis8_own(t, p).x) ^ cb.y;
	for (var m = 0u; m < 8u; m++) {
		sis8_buf[b + (op ^ sis8_sw(sp * m))] = (*x)[m];
	}
	workgroupBarrier();
	let sq = SIS8_T >> (3u * q);
	let oq = sis8_sw(sis8_own(t, q).x) ^ cb.y;
	for (var m = 0u; m < 8u; m++) {
		(*x)[m] = sis8_buf[b + (oq ^ sis8_sw(sq * m))];
	}
}

// sis8_point returns point m of pass 0 that invocation t of a column
// owns (t + m*SIS8_T): its element in the polynomial is the point's
// quotient by SIS_LIMBS, its limb the remainder.
fn sis8_point(t: u32, m: u32) -> u32 {
	return t + m * SIS8_T;
}

// sis8_fetch returns, as they are in memory (Montgomery forms), the
// elements of polynomial i of column col that hold invocation t's points
// in pass 0 (sis8_point); 0 (whose limbs are 0) past the rows or the
// columns, and for i past the polynomials. Two or more invocations load
// each element, one limb each.
fn sis8_fetch(i: u32, t: u32, col: u32) -> array<u32, 8> {
	var v: array<u32, 8>;
	for (var m = 0u; m < 8u; m++) {
		let r = i * SIS8_E + sis8_point(t, m) / SIS_LIMBS;
		if ((i < sis_params.polys) & (col < sis_params.count) & (r < sis_params.rows)) {
			v[m] = sis_in[col * sis_params.col_stride + r * sis_params.row_stride];
		}
	}
	return v;
}

@compute @workgroup_size(SIS8_WG)
fn sis_hash8(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let q = lid % SIS8_Q;
	let t = lid / SIS8_Q;
	let col0 = (wid.x + wid.y * nwg.x) * SIS8_Q;
	let col = col0 + q;
	let cb = sis8_col(q);
	var c0 = sis8_twiddles(t, 0u, 0u);
	var c1 = sis8_twiddles(t, 1u, 0u);
	var cl = sis8_last(0u);
	var acc: array<u32, 8>;
	var x: array<u32, 8>;
	var swap = 0u;
	// The next polynomial's elements, loaded before this one's passes so
	// that their latency overlaps its arithmetic.
	var next = sis8_fetch(0u, t, col);
	for (var i = 0u; i < sis_params.polys; i++) {
		// Pass 0 owns points t + m*SIS8_T: each invocation takes their
		// limbs out of the elements it loaded, canonical, and twists them
		// by psi^k; no trip through workgroup memory comes before it. A
		// column past the end (the last workgroup's) hashes zeros.
		for (var m = 0u; m < 8u; m++) {
			let l = (monty31_leave(next[m]) >> ((sis8_point(t, m) % SIS_LIMBS) * SIS_LIMB_BITS)) & SIS_MASK;
			x[m] = monty31_mul(l, sis_tw[SIS_D + sis8_point(t, m)]);
		}
		next = sis8_fetch(i + 1u, t, col);
		// The key's evaluations that the last pass multiplies, loaded
		// before the passes too.
		var key: array<u32, 8>;
		for (var m = 0u; m < 8u; m++) {
			key[m] = sis_key[i * SIS_D + m * SIS8_T + t];
		}
		if (SIS8_PASSES > 1u) {
			sis8_dif(&x, &c0);
			sis8_swap(&x, t, cb, 0u, 1u, swap);
			swap++;
		}
		if (SIS8_PASSES > 2u) {
			sis8_dif(&x, &c1);
			sis8_swap(&x, t, cb, 1u, 2u, swap);
			swap++;
		}
		sis8_dif_last(&x, &cl);
		// The last pass owns points 8t + m.
		for (var m = 0u; m < 8u; m++) {
			acc[m] = monty31_add(acc[m], monty31_mul(x[m], key[m]));
		}
	}
	x = acc;
	var d = sis8_last(SIS_HALF);
	sis8_dit_last(&x, &d);
	if (SIS8_PASSES > 2u) {
		sis8_swap(&x, t, cb, 2u, 1u, swap);
		swap++;
		var e = sis8_twiddles(t, 1u, SIS_HALF);
		sis8_dit(&x, &e);
	}
	if (SIS8_PASSES > 1u) {
		sis8_swap(&x, t, cb, 1u, 0u, swap);
		var e = sis8_twiddles(t, 0u, SIS_HALF);
		sis8_dit(&x, &e);
	}
	if (col < sis_params.count) {
		for (var m = 0u; m < 8u; m++) {
			let k = t + m * SIS8_T;
			sis_out[col * SIS_D + k] = monty31_mul(x[m], sis_tw[2u * SIS_D + k]);
		}
	}
}
