// A 31-bit prime field in Montgomery form on native 64-bit integers: what
// replaces monty31.wgsl on devices with the shader-int64 feature
// (wgsl.Module.Features). Same functions, same arguments, same results
// (elements stay one u32 each, in registers and in memory); what changes
// is that a 32×32→64 product is one widening multiply instead of four
// 16-bit ones. See monty31.wgsl for the meaning of each function.

fn m31_mul_hi(a: u32, b: u32) -> u32 {
	return u32((u64(a) * u64(b)) >> 32u);
}

fn m31_reduce(lo: u32, hi: u32) -> u32 {
	let t = lo * M31_MU;
	let u = m31_mul_hi(t, M31_P);
	return select(hi - u, hi - u + M31_P, hi < u);
}

fn m31_mul(a: u32, b: u32) -> u32 {
	let x = u64(a) * u64(b);
	return m31_reduce(u32(x), u32(x >> 32u));
}

fn m31_add(a: u32, b: u32) -> u32 {
	let s = a + b;
	return select(s, s - M31_P, s >= M31_P);
}

fn m31_sub(a: u32, b: u32) -> u32 {
	return select(a - b, a - b + M31_P, a < b);
}

fn m31_enter(a: u32) -> u32 {
	return m31_mul(a, M31_R2);
}

fn m31_leave(m: u32) -> u32 {
	return m31_reduce(m, 0u);
}
