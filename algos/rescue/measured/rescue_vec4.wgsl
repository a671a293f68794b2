//!include rescue_lib.wgsl
//!include rescue_consts_vec4.wgsl
// Rescue Prime Rp64_256 with the state held as three vec4 pairs: four
// Goldilocks elements per G4, low words in lo and high words in hi, so that
// every field operation works on four elements at once. Library only;
// rescue_consts_vec4.wgsl holds the generated rp4_add_ark1, rp4_add_ark2
// and rp4_mds.
//
// rp4_permute_state(s) is Go's rescue.Permute on the usual 12-element state:
// element 4g+c is (s4[g].lo[c], s4[g].hi[c]). The g4_ functions are the
// goldilocks_ functions of goldilocks.wgsl, lane by lane, on canonical inputs.

struct G4 {
	lo: vec4<u32>,
	hi: vec4<u32>,
}

const G4_ZERO = vec4<u32>(0u, 0u, 0u, 0u);
const G4_ONES = vec4<u32>(0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu);
const G4_LOW16 = vec4<u32>(0xffffu, 0xffffu, 0xffffu, 0xffffu);
const G4_SH16 = vec4<u32>(16u, 16u, 16u, 16u);

// g4_bit is u32(c) lane by lane.
fn g4_bit(c: vec4<bool>) -> vec4<u32> {
	return select(G4_ZERO, vec4<u32>(1u, 1u, 1u, 1u), c);
}

// g4_canon is goldilocks_canon: a - p where a >= p.
fn g4_canon(a: G4) -> G4 {
	let over = (a.hi == G4_ONES) & (a.lo != G4_ZERO);
	return G4(select(a.lo, a.lo - 1u, over), select(a.hi, G4_ZERO, over));
}

// g4_add is goldilocks_add: a + b mod p.
fn g4_add(a: G4, b: G4) -> G4 {
	let lo = a.lo + b.lo;
	let hi = a.hi + (b.hi + g4_bit(lo < a.lo));
	let over = (hi < a.hi) | ((hi == G4_ONES) & (lo != G4_ZERO));
	return G4(select(lo, lo - 1u, over), select(hi, hi + g4_bit(lo != G4_ZERO), over));
}

// g4_mul32 is goldilocks_mul32: the 64-bit products a*b as (lo, hi) words.
fn g4_mul32(a: vec4<u32>, b: vec4<u32>) -> G4 {
	let al = a & G4_LOW16;
	let ah = a >> G4_SH16;
	let bl = b & G4_LOW16;
	let bh = b >> G4_SH16;
	let t = al * bh + ((al * bl) >> G4_SH16);
	let u = ah * bl + (t & G4_LOW16);
	return G4(a * b, ah * bh + (t >> G4_SH16) + (u >> G4_SH16));
}

// g4_reduce96 is goldilocks_reduce96: (lo + mid*2^32 + hi*2^64) mod p.
fn g4_reduce96(lo: vec4<u32>, mid: vec4<u32>, hi: vec4<u32>) -> G4 {
	let x = lo + (G4_ZERO - hi);
	let y = mid + (hi - g4_bit(hi != G4_ZERO) + g4_bit(x < lo));
	let c = y < mid;
	return g4_canon(G4(select(x, x - 1u, c), select(y, y + g4_bit(x != G4_ZERO), c)));
}

// g4_reduce128 is goldilocks_reduce128: (r0 + r1*2^32 + r2*2^64 + r3*2^96) mod p.
fn g4_reduce128(r0: vec4<u32>, r1: vec4<u32>, r2: vec4<u32>, r3: vec4<u32>) -> G4 {
	let x = r0 - r3;
	let b = g4_bit(r0 < r3);
	let y = r1 - b;
	let under = b > r1;
	return g4_reduce96(select(x, x + 1u, under), select(y, y - g4_bit(x != G4_ONES), under), r2);
}

// g4_mul is goldilocks_mul: a * b mod p.
fn g4_mul(a: G4, b: G4) -> G4 {
	let A = g4_mul32(a.lo, b.lo);
	let B = g4_mul32(a.lo, b.hi);
	let C = g4_mul32(a.hi, b.lo);
	let D = g4_mul32(a.hi, b.hi);
	let h = A.hi + B.lo;
	let r1 = h + C.lo;
	let k = g4_bit(h < B.lo) + g4_bit(r1 < C.lo);
	let m = B.hi + C.hi;
	let n = m + D.lo;
	let r2 = n + k;
	let r3 = D.hi + g4_bit(m < C.hi) + g4_bit(n < D.lo) + g4_bit(r2 < k);
	return g4_reduce128(A.lo, r1, r2, r3);
}

// g4_square is goldilocks_square: a * a mod p with three 32x32 products.
fn g4_square(a: G4) -> G4 {
	let A = g4_mul32(a.lo, a.lo);
	let B = g4_mul32(a.lo, a.hi);
	let D = g4_mul32(a.hi, a.hi);
	let h = A.hi + B.lo;
	let r1 = h + B.lo;
	let k = g4_bit(h < B.lo) + g4_bit(r1 < B.lo);
	let m = B.hi + B.hi;
	let n = m + D.lo;
	let r2 = n + k;
	let r3 = D.hi + g4_bit(m < B.hi) + g4_bit(n < D.lo) + g4_bit(r2 < k);
	return g4_reduce128(A.lo, r1, r2, r3);
}

// g4_pow7 is goldilocks_pow7: a^7 = a^4 * a^3.
fn g4_pow7(a: G4) -> G4 {
	let a2 = g4_square(a);
	return g4_mul(g4_square(a2), g4_mul(a2, a));
}

// g4_exp_acc squares base n times, then multiplies by tail.
fn g4_exp_acc(base: G4, tail: G4, n: u32) -> G4 {
	var r = base;
	for (var i = 0u; i < n; i++) {
		r = g4_square(r);
	}
	return g4_mul(r, tail);
}

// g4_inv_sbox is rp_inv_sbox, x^INV_ALPHA by winterfell's addition chain.
fn g4_inv_sbox(x: G4) -> G4 {
	let t1 = g4_square(x);
	let t2 = g4_square(t1);
	let t3 = g4_exp_acc(t2, t2, 3u);
	let t4 = g4_exp_acc(t3, t3, 6u);
	let t5 = g4_exp_acc(t4, t4, 12u);
	let t6 = g4_exp_acc(t5, t3, 6u);
	let t7 = g4_exp_acc(t6, t6, 31u);
	let a = g4_square(g4_square(g4_mul(g4_square(t7), t6)));
	return g4_mul(a, g4_mul(g4_mul(t1, t2), x));
}

// g4_fold_limbs is rp_fold_limbs lane by lane: s0 + s1*2^16 + s2*2^32 +
// s3*2^48 mod p, each limb sum below 2^24.
fn g4_fold_limbs(s0: vec4<u32>, s1: vec4<u32>, s2: vec4<u32>, s3: vec4<u32>) -> G4 {
	let lo = s0 + (s1 << G4_SH16);
	let m0 = s2 + (s1 >> G4_SH16) + g4_bit(lo < s0);
	let mid = m0 + (s3 << G4_SH16);
	return g4_reduce96(lo, mid, (s3 >> G4_SH16) + g4_bit(mid < m0));
}

// rp4_rotate moves every group one place down, s[0] to s[2], as st12_rotate
// does for elements: the S-box loops stay loops with constant indices.
fn rp4_rotate(s: ptr<function, array<G4, 3>>) -> G4 {
	let x = (*s)[0];
	(*s)[0] = (*s)[1];
	(*s)[1] = (*s)[2];
	return x;
}

// rp4_permute is the permutation on the vec4 state.
fn rp4_permute(s: ptr<function, array<G4, 3>>) {
	for (var r = 0u; r < RP_ROUNDS; r++) {
		for (var g = 0u; g < 3u; g++) {
			(*s)[2] = g4_pow7(rp4_rotate(s));
		}
		rp4_mds(s);
		rp4_add_ark1(s, r);
		for (var g = 0u; g < 3u; g++) {
			(*s)[2] = g4_inv_sbox(rp4_rotate(s));
		}
		rp4_mds(s);
		rp4_add_ark2(s, r);
	}
}

// rp4_permute_state is rp_permute through the vec4 state: it regroups the
// 12 elements, permutes and writes them back.
fn rp4_permute_state(s: ptr<function, array<vec2<u32>, 12>>) {
	var v: array<G4, 3>;
	for (var g = 0u; g < 3u; g++) {
		let b = 4u * g;
		v[g] = G4(vec4<u32>((*s)[b].x, (*s)[b + 1u].x, (*s)[b + 2u].x, (*s)[b + 3u].x),
			vec4<u32>((*s)[b].y, (*s)[b + 1u].y, (*s)[b + 2u].y, (*s)[b + 3u].y));
	}
	rp4_permute(&v);
	for (var g = 0u; g < 3u; g++) {
		let b = 4u * g;
		(*s)[b] = vec2<u32>(v[g].lo.x, v[g].hi.x);
		(*s)[b + 1u] = vec2<u32>(v[g].lo.y, v[g].hi.y);
		(*s)[b + 2u] = vec2<u32>(v[g].lo.z, v[g].hi.z);
		(*s)[b + 3u] = vec2<u32>(v[g].lo.w, v[g].hi.w);
	}
}
