//!include goldilocks.wgsl
// convert_digest for the Goldilocks hashes (Rescue; any hash whose digest
// is 4 field elements): another hash's 32-byte digest enters a mixed
// tree's Goldilocks levels as its four little-endian 64-bit words, each
// reduced mod p (a word >= p less p; a 64-bit word is below 2p).
//
// Plain-Go meaning: for j < 4 { e[j] = binary.LittleEndian.Uint64(d[8j:]) % p }
// (rescue.MerkleMerge.ConvertDigest).
fn convert_digest(d: array<u32, 8>) -> array<u32, 8> {
	let e0 = goldilocks_canon(vec2<u32>(d[0], d[1]));
	let e1 = goldilocks_canon(vec2<u32>(d[2], d[3]));
	let e2 = goldilocks_canon(vec2<u32>(d[4], d[5]));
	let e3 = goldilocks_canon(vec2<u32>(d[6], d[7]));
	return array<u32, 8>(e0.x, e0.y, e1.x, e1.y, e2.x, e2.y, e3.x, e3.y);
}
