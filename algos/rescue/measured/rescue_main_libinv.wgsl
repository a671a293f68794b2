//!include rescue_main.wgsl
// Rescue kernel, variant libinv (Go: rescue.LibInvSbox): the inverse
// S-box by the field library's goldilocks_inv_pow7.

fn permute_variant(s: ptr<function, array<vec2<u32>, 12>>) {
	rp_permute_libinv(s);
}
