//!include rescue_main.wgsl
// Rescue kernel, variant fast (Go: rescue.Fast): the permutation of
// rescue_lib.wgsl, round constants as literals.

fn permute_variant(s: ptr<function, array<vec2<u32>, 12>>) {
	rp_permute(s);
}
