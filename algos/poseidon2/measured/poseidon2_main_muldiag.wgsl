//!include poseidon2_main.wgsl
// Poseidon2 kernels, variant muldiag (Go: poseidon2.MulDiag): the internal
// layer as twelve products by the diagonal.

fn p2_permute_variant(s: ptr<function, array<vec2<u32>, 12>>) {
	p2_permute_muldiag(s);
}
