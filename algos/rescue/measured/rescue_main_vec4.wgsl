//!include rescue_main.wgsl
//!include rescue_vec4.wgsl
// Rescue kernel, variant vec4 (Go: rescue.Vec4): the state as three vec4
// pairs inside the permutation.

fn permute_variant(s: ptr<function, array<vec2<u32>, 12>>) {
	rp4_permute_state(s);
}
