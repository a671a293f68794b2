//!include poseidon2_main.wgsl
// Poseidon2 kernels, variant fast (Go: poseidon2.Fast): the permutation of
// poseidon2_lib.wgsl, its internal layer by additions and five products.

fn p2_permute_variant(s: ptr<function, array<vec2<u32>, 12>>) {
	p2_permute(s);
}
