//!include rescue_entry.wgsl
//!include rescue_ark_mem.wgsl
// The entry point and permutation of the Rescue kernels that read the
// round constants through rp_ark_at, which the including file defines with
// its bindings (arkstorage, arkuniform; arkworkgroup has an entry point of
// its own).

fn permute_variant(s: ptr<function, array<vec2<u32>, 12>>) {
	rp_permute_arkmem(s);
}
