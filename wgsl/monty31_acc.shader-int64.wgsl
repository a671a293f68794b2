//!include monty31.wgsl
// monty31_acc.wgsl on native 64-bit integers: what replaces it on devices
// with the shader-int64 feature (wgsl.Module.Features). Same functions,
// same bounds, same results; a product added to the sum is one widening
// multiply-add.

alias monty31_acc = u64;

// monty31_acc_mad returns acc + a·b (a, b below p, acc folded).
fn monty31_acc_mad(acc: monty31_acc, a: u32, b: u32) -> monty31_acc {
	return acc + u64(a) * u64(b);
}

// monty31_acc_fold returns acc mod p·2^32 for acc below 2p·2^32.
fn monty31_acc_fold(acc: monty31_acc) -> monty31_acc {
	return select(acc, acc - (u64(M31_P) << 32u), u32(acc >> 32u) >= M31_P);
}

// monty31_acc_reduce returns acc·2^-32 mod p for acc folded.
fn monty31_acc_reduce(acc: monty31_acc) -> u32 {
	return monty31_reduce(u32(acc), u32(acc >> 32u));
}
