//!include monty31.wgsl
// Sums of Montgomery products with one reduction at the end, for the
// fields of monty31.wgsl. Library only: no bindings, no entry points.
//
// A dot product of Montgomery forms, sum_i a_i·b_i·2^-32 mod p, is the
// Montgomery reduction of the plain sum of the 64-bit products: the
// reduction is linear. A monty31_acc holds that sum kept below p·2^32,
// the bound monty31_reduce accepts: monty31_acc_mad adds a product
// (below p^2 < p·2^31), and after at most two of them the sum is below
// 2p·2^32 < 2^64, where monty31_acc_fold takes p·2^32 off once if it is
// reached (p·2^32 has a zero low word: the high word alone is compared
// and reduced). monty31_acc_reduce returns the sum's Montgomery form
// below p, the same bits as the sum of monty31_mul results summed with
// monty31_add. A monty31_acc's zero value (a var left uninitialised) is
// the empty sum.
//
// Here the sum is two u32 words (low, high) with the carry taken by
// hand; monty31_acc.shader-int64.wgsl replaces this file where the device
// has 64-bit integers.

alias monty31_acc = vec2<u32>;

// monty31_acc_mad returns acc + a·b (a, b below p, acc folded).
fn monty31_acc_mad(acc: monty31_acc, a: u32, b: u32) -> monty31_acc {
	let lo = acc.x + a * b;
	return monty31_acc(lo, acc.y + monty31_mul_hi(a, b) + select(0u, 1u, lo < acc.x));
}

// monty31_acc_fold returns acc mod p·2^32 for acc below 2p·2^32.
fn monty31_acc_fold(acc: monty31_acc) -> monty31_acc {
	return monty31_acc(acc.x, select(acc.y, acc.y - M31_P, acc.y >= M31_P));
}

// monty31_acc_reduce returns acc·2^-32 mod p for acc folded.
fn monty31_acc_reduce(acc: monty31_acc) -> u32 {
	return monty31_reduce(acc.x, acc.y);
}
