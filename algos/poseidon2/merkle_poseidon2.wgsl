//!include poseidon2_lib.wgsl
// merge_node for Merkle trees over Poseidon2 (Goldilocks, width 12): a
// digest is 4 Goldilocks elements, each a little-endian u64 stored as (lo,
// hi) words; the parent is p2_merge of the children (Go: poseidon2.Merge).
fn merge_node(a: array<u32, 8>, b: array<u32, 8>) -> array<u32, 8> {
	let l = array<vec2<u32>, 4>(vec2<u32>(a[0], a[1]), vec2<u32>(a[2], a[3]), vec2<u32>(a[4], a[5]), vec2<u32>(a[6], a[7]));
	let r = array<vec2<u32>, 4>(vec2<u32>(b[0], b[1]), vec2<u32>(b[2], b[3]), vec2<u32>(b[4], b[5]), vec2<u32>(b[6], b[7]));
	let h = p2_merge(l, r);
	return array<u32, 8>(h[0].x, h[0].y, h[1].x, h[1].y, h[2].x, h[2].y, h[3].x, h[3].y);
}
