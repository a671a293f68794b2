//!include goldilocks_pow.wgsl
// Goldilocks field arithmetic, p = 2^64 - 2^32 + 1, on native 64-bit
// integers: what replaces goldilocks.wgsl on devices with the shader-int64
// feature (wgsl.Module.Features). Same functions, same arguments (elements
// stay vec2<u32>, x = low word, y = high word, in registers and in memory),
// same canonical results (the _lazy functions return values congruent to
// the other file's, not always the same bits): kernels include
// goldilocks.wgsl and get this file where the device allows it. What changes is the arithmetic: a 32x32 -> 64
// product is one widening multiply instead of four 16-bit ones, and sums
// carry through 64-bit adds.
//
// Every function is checked against the Go model (u64emu) like the u32
// version, on lavapipe, which has 64-bit integers.

const GL_P = vec2<u32>(1u, 0xffffffffu);
const GL_P64: u64 = 0xffffffff00000001lu;
// 2^64 mod p.
const GL_EPS64: u64 = 0xfffffffflu;

fn goldilocks_to64(a: vec2<u32>) -> u64 {
    return (u64(a.y) << 32u) | u64(a.x);
}

fn goldilocks_from64(x: u64) -> vec2<u32> {
    return vec2<u32>(u32(x & 0xfffffffflu), u32(x >> 32u));
}

// goldilocks_canon64 maps any 64-bit value to [0, p).
fn goldilocks_canon64(x: u64) -> u64 {
    return select(x, x - GL_P64, x >= GL_P64);
}

// goldilocks_canon works on the words, as goldilocks.wgsl's does: a >= p only when
// the high word is all ones and the low word is not zero, and then
// a - p = (a.x - 1, 0). Two 32-bit compares and a decrement, where a 64-bit
// compare and subtract take more; & rather than && for goldilocks.wgsl's
// reason (no branch).
fn goldilocks_canon(a: vec2<u32>) -> vec2<u32> {
    let over = (a.y == 0xffffffffu) & (a.x != 0u);
    return select(a, vec2<u32>(a.x - 1u, 0u), over);
}

// goldilocks_add: a carry out of 64 bits is worth 2^64 = 2^32 - 1 (mod p), and
// adding it back cannot carry again for canonical inputs.
fn goldilocks_add(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let x = goldilocks_to64(a);
    let s = x + goldilocks_to64(b);
    return goldilocks_from64(select(goldilocks_canon64(s), s + GL_EPS64, s < x));
}

// goldilocks_sub: on a borrow add p, which mod 2^64 is subtracting 2^32 - 1.
fn goldilocks_sub(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let x = goldilocks_to64(a);
    let y = goldilocks_to64(b);
    let d = x - y;
    return goldilocks_from64(d - u64(select(0u, 0xffffffffu, x < y)));
}

fn goldilocks_mul32(a: u32, b: u32) -> vec2<u32> {
    return goldilocks_from64(u64(a) * u64(b));
}

// goldilocks_reduce96_64 returns (x + hi*2^64) mod p, not always canonical:
// hi*(2^32 - 1) fits in 64 bits, and a carry out of the sum is worth
// 2^32 - 1 again, which cannot carry a second time.
fn goldilocks_reduce96_64(x: u64, hi: u32) -> u64 {
    let s = x + u64(hi) * GL_EPS64;
    return s + u64(select(0u, 0xffffffffu, s < x));
}

fn goldilocks_reduce96_lazy(lo: u32, mid: u32, hi: u32) -> vec2<u32> {
    return goldilocks_from64(goldilocks_reduce96_64(goldilocks_to64(vec2<u32>(lo, mid)), hi));
}

fn goldilocks_reduce96(lo: u32, mid: u32, hi: u32) -> vec2<u32> {
    return goldilocks_canon(goldilocks_reduce96_lazy(lo, mid, hi));
}

// goldilocks_reduce128_64 returns a 64-bit value congruent to lo + hi*2^64 mod p,
// not always canonical, as lo - hi.hi + hi.lo*(2^32 - 1): 2^96 = -1 and
// 2^64 = 2^32 - 1 (mod p).
fn goldilocks_reduce128_64(lo: u64, hi: u64) -> u64 {
    let hh = hi >> 32u;
    var t = lo - hh;
    // A borrow is worth -2^64 = -(2^32 - 1); then t >= 2^64 - 2^32 + 1,
    // so this cannot borrow again.
    t -= u64(select(0u, 0xffffffffu, lo < hh));
    return goldilocks_reduce96_64(t, u32(hi & 0xfffffffflu));
}

fn goldilocks_reduce128_lazy(r0: u32, r1: u32, r2: u32, r3: u32) -> vec2<u32> {
    return goldilocks_from64(goldilocks_reduce128_64(goldilocks_to64(vec2<u32>(r0, r1)), goldilocks_to64(vec2<u32>(r2, r3))));
}

fn goldilocks_reduce128(r0: u32, r1: u32, r2: u32, r3: u32) -> vec2<u32> {
    return goldilocks_canon(goldilocks_reduce128_lazy(r0, r1, r2, r3));
}

// goldilocks_mul128 returns the 128-bit product a*b as (low, high) 64-bit halves,
// from four widening 32x32 products, each of the middle two accumulating
// the carry of the one before: (2^32 - 1)^2 + 2^32 - 1 < 2^64, so no sum
// wraps, and the high half cannot since the product is below 2^128.
fn goldilocks_mul128(a: vec2<u32>, b: vec2<u32>) -> array<u64, 2> {
    let A = u64(a.x) * u64(b.x);
    let t = u64(a.x) * u64(b.y) + (A >> 32u);
    let u = u64(a.y) * u64(b.x) + (t & 0xfffffffflu);
    let lo = (A & 0xfffffffflu) | (u << 32u);
    let hi = u64(a.y) * u64(b.y) + (t >> 32u) + (u >> 32u);
    return array<u64, 2>(lo, hi);
}

// goldilocks_mul_lazy returns a 64-bit value congruent to a*b mod p, for any
// 64-bit a and b.
fn goldilocks_mul_lazy(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let r = goldilocks_mul128(a, b);
    return goldilocks_from64(goldilocks_reduce128_64(r[0], r[1]));
}

fn goldilocks_mul(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return goldilocks_canon(goldilocks_mul_lazy(a, b));
}

// goldilocks_square_lazy: three widening products, the cross product doubled.
fn goldilocks_square_lazy(a: vec2<u32>) -> vec2<u32> {
    let A = u64(a.x) * u64(a.x);
    let B = u64(a.x) * u64(a.y);
    let D = u64(a.y) * u64(a.y);
    let mid = (A >> 32u) + 2lu * (B & 0xfffffffflu);
    let lo = (A & 0xfffffffflu) | (mid << 32u);
    let hi = D + 2lu * (B >> 32u) + (mid >> 32u);
    return goldilocks_from64(goldilocks_reduce128_64(lo, hi));
}

fn goldilocks_square(a: vec2<u32>) -> vec2<u32> {
    return goldilocks_canon(goldilocks_square_lazy(a));
}

// goldilocks_mul_small: a 96-bit product from two widening products.
fn goldilocks_mul_small(a: vec2<u32>, c: u32) -> vec2<u32> {
    let A = u64(a.x) * u64(c);
    let C = u64(a.y) * u64(c);
    let mid = (A >> 32u) + (C & 0xfffffffflu);
    let lo = (A & 0xfffffffflu) | (mid << 32u);
    let hi = u32((C >> 32u) + (mid >> 32u));
    return goldilocks_from64(goldilocks_canon64(goldilocks_reduce96_64(lo, hi)));
}
