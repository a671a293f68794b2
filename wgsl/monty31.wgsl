//!include monty31_wide.wgsl
// A 31-bit prime field in Montgomery form (Plonky3's Monty-31: BabyBear,
// KoalaBear), on u32 alone. Library only: no bindings, no entry points.
// The prelude defines M31_P (the prime, below 2^31), M31_MU (p^-1 mod
// 2^32) and M31_R2 (2^64 mod p): Go's field.Monty31.Consts.
//
// The corrections are unsigned minima rather than a comparison and a
// select, which GPUs run in fewer operations: a sum s below 2^32 less p is
// s - p where s >= p, and otherwise wraps to at least 2^32 - p > p > s; a
// difference or a reduction's high word d in (-p, p), wrapped, plus p is
// d + p where d < 0 (below p, so below the wrapped d, at least 2^32 - p),
// and otherwise d + p > d (2p < 2^32).
//
// A value x is held as its Montgomery form x·2^32 mod p, below p. Sums and
// differences are the same in either form; monty31_mul is the Montgomery
// product (Go: field.Monty31.MontyMul). monty31_enter and monty31_leave convert a
// canonical value in and out (Go: ToMonty, FromMonty).
//
// The products (monty31_mul_hi, monty31_mul) are in monty31_wide.wgsl, which a
// device with 64-bit integers replaces.

// monty31_reduce returns (hi·2^32 + lo)·2^-32 mod p for a value below p·2^32:
// t = lo·p^-1 mod 2^32 makes the value minus t·p a multiple of 2^32 (the
// low words cancel), whose high word, plus p where it went negative, is
// the result.
fn monty31_reduce(lo: u32, hi: u32) -> u32 {
	let t = lo * M31_MU;
	let d = hi - monty31_mul_hi(t, M31_P);
	return min(d, d + M31_P);
}

// monty31_add returns a + b mod p (the sum is below 2^32).
fn monty31_add(a: u32, b: u32) -> u32 {
	let s = a + b;
	return min(s, s - M31_P);
}

// monty31_sub returns a - b mod p, a and b below p.
fn monty31_sub(a: u32, b: u32) -> u32 {
	let d = a - b;
	return min(d, d + M31_P);
}

// monty31_enter returns the Montgomery form of a canonical a.
fn monty31_enter(a: u32) -> u32 {
	return monty31_mul(a, M31_R2);
}

// monty31_leave returns the canonical value of a Montgomery form m.
fn monty31_leave(m: u32) -> u32 {
	return monty31_reduce(m, 0u);
}
