//!include monty31.wgsl
// The divisions by powers of two of poseidon2_31.wgsl's internal layers,
// the part that depends on the device: poseidon2_31_div.shader-int64.wgsl
// replaces this file where the device has 64-bit integers. Library only.

// monty31_div_2exp returns x/2^k for 1 <= k <= 31, x below p, in either
// form: the Montgomery reduction of x·2^(32-k), one product where a
// general one takes two.
fn monty31_div_2exp(x: u32, k: u32) -> u32 {
	return monty31_reduce(x << (32u - k), x >> k);
}
