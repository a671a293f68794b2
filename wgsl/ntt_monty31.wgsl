//!include monty31.wgsl
// ntt.wgsl's field over a 31-bit Montgomery field (BabyBear, KoalaBear):
// an element is one u32 word, held in Montgomery form in the kernel.

alias NtElem = u32;

// NT_TL is log2 of the side of ntt_bitrev_tiles' tiles: runs of 32 words.
const NT_TL: u32 = 5u;

// The butterflies' arithmetic: monty31_add, monty31_sub and monty31_mul,
// the same values, each final correction an unsigned min instead of a
// compare and a select. A value v in [0, 2p) less p is v - p where v >=
// p, and otherwise wraps to at least 2^32 - p > p > v; a value in
// (-p, p) wrapped, plus p, is itself plus p where negative (then below
// p, and below the wrapped value, at least 2^32 - p), and otherwise
// above it. 2p < 2^32 for a 31-bit p, so nothing else wraps.
fn ne_add(a: u32, b: u32) -> u32 {
	let s = a + b;
	return min(s, s - M31_P);
}
fn ne_sub(a: u32, b: u32) -> u32 {
	let d = a - b;
	return min(d, d + M31_P);
}
fn ne_mul(a: u32, b: u32) -> u32 {
	// monty31_reduce of the product (below p^2 < p·2^32): hi - u is in (-p, p).
	let t = (a * b) * M31_MU;
	let r = monty31_mul_hi(a, b) - monty31_mul_hi(t, M31_P);
	return min(r, r + M31_P);
}
fn ne_enter(a: u32) -> u32 { return monty31_enter(a); }
fn ne_leave(a: u32) -> u32 { return monty31_leave(a); }
fn ne_of(lo: u32, hi: u32) -> u32 { return lo; }

fn ne_src(i: u32) -> u32 { return nt_src[i]; }
fn ne_aux(i: u32) -> u32 { return nt_aux[i]; }
fn ne_data(i: u32) -> u32 { return nt_data[i]; }
fn ne_set(i: u32, v: u32) { nt_data[i] = v; }
fn ne_tab(i: u32) -> u32 { return nt_tab[i]; }
