//!include rescue_main.wgsl
// Rescue kernel, variant densemds (Go: rescue.DenseMDS): the MDS product
// by dense goldilocks_mul products.

fn permute_variant(s: ptr<function, array<vec2<u32>, 12>>) {
	rp_permute_dense(s);
}
