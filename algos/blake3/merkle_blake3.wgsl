//!include blake3_lib.wgsl
// merge_node for Merkle trees over BLAKE3: the 2-to-1 merge of blake3_lib.wgsl
// (BLAKE3 of the 64 bytes left || right), digests as 8 little-endian words.
fn merge_node(a: array<u32, 8>, b: array<u32, 8>) -> array<u32, 8> {
	return b3_merge(a, b);
}
