// The wide products of monty31.wgsl, the part of the field that depends on
// the device: WGSL has no 32×32→64 product, so here the high word is built
// from 16-bit halves, and monty31_wide.shader-int64.wgsl replaces this file
// where the device has 64-bit integers.

// monty31_mul_hi returns the high word of the 64-bit product a·b.
fn monty31_mul_hi(a: u32, b: u32) -> u32 {
	let a0 = a & 0xffffu;
	let a1 = a >> 16u;
	let b0 = b & 0xffffu;
	let b1 = b >> 16u;
	let p01 = a0 * b1;
	let p10 = a1 * b0;
	// Below 3·2^16: no carry is lost.
	let mid = ((a0 * b0) >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
	return a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u);
}

// monty31_mul returns the Montgomery product a·b·2^-32 mod p.
fn monty31_mul(a: u32, b: u32) -> u32 {
	return monty31_reduce(a * b, monty31_mul_hi(a, b));
}
