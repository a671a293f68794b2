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
fn ne_enter(a: u32) -> u32 { return ne_reduce_select(a * M31_R2, monty31_mul_hi(a, M31_R2)); }
fn ne_leave(a: u32) -> u32 { return ne_reduce_select(a, 0u); }

// ne_reduce_select is monty31_reduce with the correction as a comparison
// and a select, for the conversions at a pass's loads and stores. The
// same values; the passes run faster on NVIDIA's Vulkan with it there
// than with monty31_reduce's min (BENCHMARKS.md, "The prover's pipeline"),
// though the min is the faster correction in the butterflies.
fn ne_reduce_select(lo: u32, hi: u32) -> u32 {
	let u = monty31_mul_hi(lo * M31_MU, M31_P);
	return select(hi - u, hi - u + M31_P, hi < u);
}
fn ne_of(lo: u32, hi: u32) -> u32 { return lo; }

fn ne_src(i: u32) -> u32 { return nt_src[i]; }
fn ne_aux(i: u32) -> u32 { return nt_aux[i]; }
fn ne_data(i: u32) -> u32 { return nt_data[i]; }
fn ne_set(i: u32, v: u32) { nt_data[i] = v; }

// NE_WORDS is an element's words in the buffers, ne_word(v, h) its word
// h (ntt_tiles.wgsl).
const NE_WORDS: u32 = 1u;
fn ne_word(v: u32, h: u32) -> u32 { return v; }
fn ne_tab(i: u32) -> u32 { return nt_tab[i]; }

// ne_reduced reports whether a word of the rows is a reduced Montgomery
// form, below p.
fn ne_reduced(v: u32) -> bool { return v < M31_P; }
