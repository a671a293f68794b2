//!include goldilocks.wgsl
// ntt.wgsl's field over Goldilocks: an element is a vec2<u32> (low word,
// high word), canonical, two consecutive u32 words in the buffers
// (little-endian uint64s); goldilocks.shader-int64.wgsl replaces the
// arithmetic where the device has 64-bit integers.

alias NtElem = vec2<u32>;

// NT_TL is log2 of the side of ntt_bitrev_tiles' tiles: runs of 16
// elements, 128 bytes, and two tiles in 16 KiB of workgroup memory.
const NT_TL: u32 = 4u;

fn ne_add(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return goldilocks_add(a, b); }
fn ne_sub(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return goldilocks_sub(a, b); }
fn ne_mul(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return goldilocks_mul(a, b); }
fn ne_enter(a: vec2<u32>) -> vec2<u32> { return a; }
fn ne_leave(a: vec2<u32>) -> vec2<u32> { return a; }
fn ne_of(lo: u32, hi: u32) -> vec2<u32> { return vec2<u32>(lo, hi); }

fn ne_src(i: u32) -> vec2<u32> { return vec2<u32>(nt_src[2u * i], nt_src[2u * i + 1u]); }
fn ne_aux(i: u32) -> vec2<u32> { return vec2<u32>(nt_aux[2u * i], nt_aux[2u * i + 1u]); }
fn ne_data(i: u32) -> vec2<u32> { return vec2<u32>(nt_data[2u * i], nt_data[2u * i + 1u]); }
fn ne_set(i: u32, v: vec2<u32>) {
	nt_data[2u * i] = v.x;
	nt_data[2u * i + 1u] = v.y;
}

// NE_WORDS is an element's words in the buffers, ne_word(v, h) its word
// h (ntt_tiles.wgsl).
const NE_WORDS: u32 = 2u;
fn ne_word(v: vec2<u32>, h: u32) -> u32 { return v[h]; }
fn ne_tab(i: u32) -> vec2<u32> { return vec2<u32>(nt_tab[2u * i], nt_tab[2u * i + 1u]); }

// ne_reduced reports whether an element of the rows is canonical, below
// p = 2^64 - 2^32 + 1: a high word below 2^32 - 1, or a low word of 0
// (below p wherever the high word is).
fn ne_reduced(v: vec2<u32>) -> bool { return (v.y < 0xffffffffu) | (v.x == 0u); }
