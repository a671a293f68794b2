// The Goldilocks functions built only on goldilocks_sub, goldilocks_mul and goldilocks_square:
// negation and the powers of the Rescue-Prime S-boxes. Both field
// libraries (goldilocks.wgsl on u32 pairs, goldilocks.shader-int64.wgsl on
// native u64) include this file, so it is written once for both. Library
// only; its Go twins are in algos/field/u64emu/model.go.

// goldilocks_neg returns -a mod p.
fn goldilocks_neg(a: vec2<u32>) -> vec2<u32> {
    return goldilocks_sub(vec2<u32>(0u, 0u), a);
}

// The powers multiply lazily (goldilocks_mul_lazy, goldilocks_square_lazy) and reduce to
// [0, p) once, in their last product: on native u64 that saves a
// comparison and a select per product.

// goldilocks_pow7 returns a^7 mod p (the Rescue-Prime S-box): a^4 * a^3.
fn goldilocks_pow7(a: vec2<u32>) -> vec2<u32> {
    let a2 = goldilocks_square_lazy(a);
    let a3 = goldilocks_mul_lazy(a2, a);
    let a4 = goldilocks_square_lazy(a2);
    return goldilocks_mul(a4, a3);
}

// goldilocks_exp_acc_lazy returns a value congruent to base^(2^m) * tail mod p.
fn goldilocks_exp_acc_lazy(base: vec2<u32>, m: u32, tail: vec2<u32>) -> vec2<u32> {
    var r = base;
    for (var i = 0u; i < m; i++) {
        r = goldilocks_square_lazy(r);
    }
    return goldilocks_mul_lazy(r, tail);
}

// goldilocks_inv_pow7 returns a^10540996611094048183 mod p, the 7th root (the
// inverse Rescue-Prime S-box), with the 72-multiplication addition chain of
// winterfell's Rp64_256.
fn goldilocks_inv_pow7(a: vec2<u32>) -> vec2<u32> {
    let t1 = goldilocks_square_lazy(a);                 // a^2
    let t2 = goldilocks_square_lazy(t1);                // a^4
    let t3 = goldilocks_exp_acc_lazy(t2, 3u, t2);       // a^36
    let t4 = goldilocks_exp_acc_lazy(t3, 6u, t3);
    let t5 = goldilocks_exp_acc_lazy(t4, 12u, t4);
    let t6 = goldilocks_exp_acc_lazy(t5, 6u, t3);
    let t7 = goldilocks_exp_acc_lazy(t6, 31u, t6);
    let x = goldilocks_square_lazy(goldilocks_square_lazy(goldilocks_mul_lazy(goldilocks_square_lazy(t7), t6)));
    let y = goldilocks_mul_lazy(goldilocks_mul_lazy(t1, t2), a);
    return goldilocks_mul(x, y);
}
