//!include monty31.wgsl
// ntt.wgsl's field over a 31-bit Montgomery field (BabyBear, KoalaBear):
// an element is one u32 word, held in Montgomery form in the kernel.

alias NtElem = u32;

// NT_TL is log2 of the side of ntt_bitrev_tiles' tiles: runs of 32 words.
const NT_TL: u32 = 5u;

// The butterflies' arithmetic: monty31.wgsl's sum and difference, and
// the product's two words reduced by its monty31_reduce (the low word a
// wrapping product, the high word monty31_mul_hi).
fn ne_add(a: u32, b: u32) -> u32 { return monty31_add(a, b); }
fn ne_sub(a: u32, b: u32) -> u32 { return monty31_sub(a, b); }
fn ne_mul(a: u32, b: u32) -> u32 { return monty31_reduce(a * b, monty31_mul_hi(a, b)); }
fn ne_enter(a: u32) -> u32 { return monty31_enter(a); }
fn ne_leave(a: u32) -> u32 { return monty31_leave(a); }
fn ne_of(lo: u32, hi: u32) -> u32 { return lo; }

fn ne_src(i: u32) -> u32 { return nt_src[i]; }
fn ne_aux(i: u32) -> u32 { return nt_aux[i]; }
fn ne_data(i: u32) -> u32 { return nt_data[i]; }
fn ne_set(i: u32, v: u32) { nt_data[i] = v; }
fn ne_tab(i: u32) -> u32 { return nt_tab[i]; }
