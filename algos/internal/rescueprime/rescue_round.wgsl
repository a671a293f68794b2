//!include goldilocks.wgsl
//!include rescue_mds.wgsl
//!include state12.wgsl
// The layers of a Rescue-Prime round over Goldilocks elements held as
// vec2<u32> (x = low word, y = high word), shared by Rp64_256
// (rescue_lib.wgsl) and RPO256 (rpo_lib.wgsl), which differ only in their
// round constants and in the order they apply these in (Go: package
// algos/internal/rescueprime). Library only: no bindings, no entry points.
//
//   rp_sbox(s):         s[i] = s[i]^7 for every i.
//   rp_inv_sbox_all(s): s[i] = s[i]^INV_ALPHA for every i (INV_ALPHA = 7^-1 mod p-1).
//   rp_mds_small(s):    s = MDS*s (rescue_mds.wgsl, generated), and
//   rp_mds_dense(s):    the same by full field products.

// rp_fold_limbs reduces a.x + a.y*2^16 + a.z*2^32 + a.w*2^48 (each limb
// below 2^24) to a canonical element.
fn rp_fold_limbs(a: vec4<u32>) -> vec2<u32> {
	let lo = a.x + (a.y << 16u);
	let c0 = select(0u, 1u, lo < a.x);
	let m0 = a.z + (a.y >> 16u) + c0;
	let mid = m0 + (a.w << 16u);
	let c1 = select(0u, 1u, mid < m0);
	return goldilocks_reduce96(lo, mid, (a.w >> 16u) + c1);
}

// rp_exp_acc squares base n times, then multiplies by tail, lazily: the
// result is congruent, reduced to [0, p) only by the chain's last product.
fn rp_exp_acc(base: vec2<u32>, tail: vec2<u32>, n: u32) -> vec2<u32> {
	var r = base;
	for (var i = 0u; i < n; i++) {
		r = goldilocks_square_lazy(r);
	}
	return goldilocks_mul_lazy(r, tail);
}

// rp_inv_sbox is x^INV_ALPHA (INV_ALPHA = 10540996611094048183) by
// winterfell's addition chain: 63 squarings and 9 multiplications, where a
// generic square-and-multiply takes about 100.
fn rp_inv_sbox(x: vec2<u32>) -> vec2<u32> {
	let t1 = goldilocks_square_lazy(x);
	let t2 = goldilocks_square_lazy(t1);
	let t3 = rp_exp_acc(t2, t2, 3u);
	let t4 = rp_exp_acc(t3, t3, 6u);
	let t5 = rp_exp_acc(t4, t4, 12u);
	let t6 = rp_exp_acc(t5, t3, 6u);
	let t7 = rp_exp_acc(t6, t6, 31u);
	let a = goldilocks_square_lazy(goldilocks_square_lazy(goldilocks_mul_lazy(goldilocks_square_lazy(t7), t6)));
	let b = goldilocks_mul_lazy(goldilocks_mul_lazy(t1, t2), x);
	return goldilocks_mul(a, b);
}

// rp_sbox is s[i] = s[i]^7 for every i.
fn rp_sbox(s: ptr<function, array<vec2<u32>, 12>>) {
	for (var i = 0u; i < 12u; i++) {
		(*s)[11] = goldilocks_pow7(st12_rotate(s));
	}
}

// rp_inv_sbox_all is s[i] = s[i]^INV_ALPHA for every i, by the chain.
fn rp_inv_sbox_all(s: ptr<function, array<vec2<u32>, 12>>) {
	for (var i = 0u; i < 12u; i++) {
		(*s)[11] = rp_inv_sbox(st12_rotate(s));
	}
}
