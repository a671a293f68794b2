//!include rescue_entry.wgsl
//!include rpo_lib.wgsl
// RPO256 batch kernel (Go: rpo.Batcher): the Rescue-Prime kernel body of
// rescue.wgsl, built with RP_SPONGE_RPO = true (miden-crypto's sponge),
// around rpo_lib.wgsl's permutation. Its one entry point, main
// (rescue_entry.wgsl), permutes states, merges pairs of digests or absorbs
// one block of hash_elements, as params.op says:
//
//   OP_PERMUTE: out[k] = rpo.Permute(in[k]).
//   OP_MERGE:   out[k] = rpo.Merge(in[k][0..4], in[k][4..8]).
//   OP_ABSORB:  the block at element params.j of rpo.HashElements(in[k*m ..][..m]).
//
// Bindings: 0 the input, 1 the output (rescue.wgsl), 2 the parameters.

@group(0) @binding(2) var<uniform> params: Params;

fn permute_variant(s: ptr<function, array<vec2<u32>, 12>>) {
	rpo_permute(s);
}
