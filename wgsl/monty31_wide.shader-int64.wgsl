// monty31_wide.wgsl on native 64-bit integers: what replaces it on devices
// with the shader-int64 feature (wgsl.Module.Features). Same functions,
// same results (elements stay one u32 each, in registers and in memory);
// a 32×32→64 product is one widening multiply instead of four 16-bit ones.

fn monty31_mul_hi(a: u32, b: u32) -> u32 {
	return u32((u64(a) * u64(b)) >> 32u);
}

fn monty31_mul(a: u32, b: u32) -> u32 {
	let x = u64(a) * u64(b);
	return monty31_reduce(u32(x), u32(x >> 32u));
}
