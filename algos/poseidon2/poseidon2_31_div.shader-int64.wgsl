//!include monty31.wgsl
// poseidon2_31_div.wgsl on native 64-bit integers: the same function, the
// same results.

// monty31_div_2exp returns x/2^k for 1 <= k <= 31, x below p, in either
// form, as a k-bit Montgomery reduction: t = -x·p^-1 mod 2^k makes x + t·p
// a multiple of 2^k, below 2^k·p, so that its k-bit shift is x·2^-k mod p
// and already below p. One wide product and no correction, where the
// 32-bit reduction takes two products and a comparison.
fn monty31_div_2exp(x: u32, k: u32) -> u32 {
	let t = (x * (0u - M31_MU)) & ((1u << k) - 1u);
	return u32((u64(x) + u64(t) * u64(M31_P)) >> k);
}
