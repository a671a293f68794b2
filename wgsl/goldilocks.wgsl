//!include goldilocks_pow.wgsl
// Goldilocks field arithmetic, p = 2^64 - 2^32 + 1, on u32 pairs.
//
// An element is a vec2<u32>: x = low 32 bits, y = high 32 bits. Every
// function takes canonical inputs (< p) and returns canonical outputs, with
// two exceptions. goldilocks_canon, goldilocks_mul and goldilocks_square (and the reductions) take
// any 64-bit values. The _lazy products return any 64-bit value congruent
// to the product: a chain of products (the S-box powers) reduces to [0, p)
// once, at its end, with goldilocks_canon or a last goldilocks_mul. WGSL has no 64-bit
// integers and no mulhi, so 32x32 -> 64 products are built from 16-bit
// halves.
//
// This file is a library: no bindings, no entry points. Kernels get it with
// an include line (//!include goldilocks.wgsl), never by copying. What is
// built only on goldilocks_sub, goldilocks_mul and goldilocks_square (negation and the powers) is
// goldilocks_pow.wgsl's, shared with goldilocks.shader-int64.wgsl.
// Every function here has a Go twin in algos/field/u64emu/model.go that performs the
// same u32 operations; keep the two in step.
//
// Identities used by the reductions: 2^64 = 2^32 - 1 (mod p) and
// 2^96 = -1 (mod p).
//
// Conditions combine with & and |, never && or ||: WGSL's && and || short-
// circuit, so compilers (Tint, and naga since it short-circuits) emit a
// branch for each, about a hundred in a Rescue round, and SwiftShader's
// compiler (Chromium without a GPU) grew past 8 GB on the round loop with
// them (docs/PORTABILITY.md, "WGSL in browsers"). Both operands are plain
// comparisons, so evaluating both gives the same bits.

// p as (low, high) words.
const GL_P = vec2<u32>(1u, 0xffffffffu);

// goldilocks_canon maps any 64-bit value to [0, p): a >= p only when the high word
// is all ones and the low word is not zero, and then a - p = (a.x - 1, 0).
fn goldilocks_canon(a: vec2<u32>) -> vec2<u32> {
    let over = (a.y == 0xffffffffu) & (a.x != 0u);
    return select(a, vec2<u32>(a.x - 1u, 0u), over);
}

// goldilocks_add returns a + b mod p.
fn goldilocks_add(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    let c = u32(lo < a.x);
    // b.y + c cannot wrap: b.y = 0xffffffff implies b.x = 0, so c = 0.
    let hi = a.y + (b.y + c);
    // Subtract p when the sum carried out of 64 bits or is >= p; in both
    // cases the result is (sum + 2^32 - 1) mod 2^64.
    let over = (hi < a.y) | ((hi == 0xffffffffu) & (lo != 0u));
    return select(vec2<u32>(lo, hi), vec2<u32>(lo - 1u, hi + u32(lo != 0u)), over);
}

// goldilocks_sub returns a - b mod p.
fn goldilocks_sub(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x - b.x;
    let br = u32(a.x < b.x);
    // As in goldilocks_add, b.y + br cannot wrap for canonical b.
    let bh = b.y + br;
    let hi = a.y - bh;
    // On a borrow add p, which mod 2^64 is subtracting 2^32 - 1.
    return select(vec2<u32>(lo, hi), vec2<u32>(lo + 1u, hi - u32(lo != 0xffffffffu)), a.y < bh);
}

// goldilocks_mul32 returns the exact 64-bit product of two u32 as (low, high). The
// low word is the native wrapping product; the high word comes from four
// 16x16 products arranged so that no intermediate sum overflows:
// (2^16-1)^2 + 2^16-1 < 2^32 (Hacker's Delight, mulhu).
fn goldilocks_mul32(a: u32, b: u32) -> vec2<u32> {
    let al = a & 0xffffu;
    let ah = a >> 16u;
    let bl = b & 0xffffu;
    let bh = b >> 16u;
    let t = al * bh + ((al * bl) >> 16u);
    let u = ah * bl + (t & 0xffffu);
    let hi = ah * bh + (t >> 16u) + (u >> 16u);
    return vec2<u32>(a * b, hi);
}

// goldilocks_reduce96_lazy returns a 64-bit value congruent to
// lo + mid*2^32 + hi*2^64 mod p for any three words, as
// (mid:lo) + hi*(2^32 - 1).
fn goldilocks_reduce96_lazy(lo: u32, mid: u32, hi: u32) -> vec2<u32> {
    // hi*(2^32-1) = (hi - [hi != 0]) * 2^32 + (2^32 - hi) mod 2^32.
    let tx = 0u - hi;
    let ty = hi - u32(hi != 0u);
    let x = lo + tx;
    // ty + carry cannot wrap: ty <= 2^32 - 2.
    let yadd = ty + u32(x < lo);
    let y = mid + yadd;
    // A carry out of 64 bits is worth 2^64 = 2^32 - 1; adding it back cannot
    // carry again because hi*(2^32-1) <= (2^32-1)^2.
    return select(vec2<u32>(x, y), vec2<u32>(x - 1u, y + u32(x != 0u)), y < mid);
}

// goldilocks_reduce96 returns (lo + mid*2^32 + hi*2^64) mod p for any three words.
fn goldilocks_reduce96(lo: u32, mid: u32, hi: u32) -> vec2<u32> {
    return goldilocks_canon(goldilocks_reduce96_lazy(lo, mid, hi));
}

// goldilocks_reduce128_lazy returns a 64-bit value congruent to
// r0 + r1*2^32 + r2*2^64 + r3*2^96 mod p, as (r1:r0) - r3 + r2*(2^32 - 1).
fn goldilocks_reduce128_lazy(r0: u32, r1: u32, r2: u32, r3: u32) -> vec2<u32> {
    let x = r0 - r3;
    let b = u32(r0 < r3);
    let y = r1 - b;
    // A borrow out of 64 bits is worth -2^64 = -(2^32 - 1). Then the
    // difference is >= 2^64 - 2^32 + 1, so subtracting 2^32 - 1 cannot
    // borrow again.
    let under = b > r1;
    let t = select(vec2<u32>(x, y), vec2<u32>(x + 1u, y - u32(x != 0xffffffffu)), under);
    return goldilocks_reduce96_lazy(t.x, t.y, r2);
}

// goldilocks_reduce128 returns (r0 + r1*2^32 + r2*2^64 + r3*2^96) mod p.
fn goldilocks_reduce128(r0: u32, r1: u32, r2: u32, r3: u32) -> vec2<u32> {
    return goldilocks_canon(goldilocks_reduce128_lazy(r0, r1, r2, r3));
}

// goldilocks_mul_lazy returns a 64-bit value congruent to a * b mod p: the 128-bit
// product from four 32x32 products A = a.x*b.x, B = a.x*b.y, C = a.y*b.x,
// D = a.y*b.y, then goldilocks_reduce128_lazy.
fn goldilocks_mul_lazy(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let A = goldilocks_mul32(a.x, b.x);
    let B = goldilocks_mul32(a.x, b.y);
    let C = goldilocks_mul32(a.y, b.x);
    let D = goldilocks_mul32(a.y, b.y);
    // Word 1: A.y + B.x + C.x, carries k into word 2.
    let h = A.y + B.x;
    let r1 = h + C.x;
    let k = u32(h < B.x) + u32(r1 < C.x);
    // Word 2: B.y + C.y + D.x + k, carries into word 3 (which cannot
    // overflow: the product is < 2^128).
    let m = B.y + C.y;
    let n = m + D.x;
    let r2 = n + k;
    let r3 = D.y + u32(m < C.y) + u32(n < D.x) + u32(r2 < k);
    return goldilocks_reduce128_lazy(A.x, r1, r2, r3);
}

// goldilocks_mul returns a * b mod p.
fn goldilocks_mul(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return goldilocks_canon(goldilocks_mul_lazy(a, b));
}

// goldilocks_square_lazy is goldilocks_mul_lazy(a, a) with the two cross products equal,
// so three 32x32 products.
fn goldilocks_square_lazy(a: vec2<u32>) -> vec2<u32> {
    let A = goldilocks_mul32(a.x, a.x);
    let B = goldilocks_mul32(a.x, a.y);
    let D = goldilocks_mul32(a.y, a.y);
    let h = A.y + B.x;
    let r1 = h + B.x;
    let k = u32(h < B.x) + u32(r1 < B.x);
    let m = B.y + B.y;
    let n = m + D.x;
    let r2 = n + k;
    let r3 = D.y + u32(m < B.y) + u32(n < D.x) + u32(r2 < k);
    return goldilocks_reduce128_lazy(A.x, r1, r2, r3);
}

// goldilocks_square returns a * a mod p.
fn goldilocks_square(a: vec2<u32>) -> vec2<u32> {
    return goldilocks_canon(goldilocks_square_lazy(a));
}

// goldilocks_mul_small returns a * c mod p for a 32-bit c: a 96-bit product from two
// 32x32 products, then goldilocks_reduce96.
fn goldilocks_mul_small(a: vec2<u32>, c: u32) -> vec2<u32> {
    let A = goldilocks_mul32(a.x, c);
    let C = goldilocks_mul32(a.y, c);
    let mid = A.y + C.x;
    // C.y <= 2^32 - 2, so adding the carry cannot wrap.
    let hi = C.y + u32(mid < C.x);
    return goldilocks_reduce96(A.x, mid, hi);
}
