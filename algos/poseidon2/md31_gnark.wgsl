// hash_row over a 31-bit field as gnark-crypto's Merkle-Damgard hasher
// hashes (poseidon2.NewMerkleDamgardHasher), over compress31.wgsl's
// merge_node (gnark-crypto's, C31_FEED_FORWARD true), which the module
// includes before this file with a
// permutation of width 16; read by hash31_many.wgsl as sponge31.wgsl's
// hash_row is.
//
// Plain-Go meaning: symmetric.MerkleDamgard{FeedForwardCompression{Perm,
// Chunk: 8}}.Hash of the cols canonical elements of the row, each read
// with mk_element(row, c): from the zero state, each block of 8 elements
// (a partial last block padded with zeros in front) makes state =
// merge_node(state, block). Returned as the 8 canonical elements of the
// state.
//
// merge_node, and so the permutation, has one call site, in the block loop.

// md31_lane returns lane j of the block that starts at element start of
// the row, pad zeros in front of it.
fn md31_lane(row: u32, start: u32, j: u32, pad: u32) -> u32 {
	return select(0u, mk_element(row, start + max(j, pad) - pad), j >= pad);
}

fn hash_row(row: u32, cols: u32) -> array<u32, 8> {
	var st: array<u32, 8>;
	let blocks = (cols + 7u) / 8u;
	// The last block holds 1..8 elements, after 8 - that many zeros.
	let last = cols + 8u - 8u * blocks;
	for (var b = 0u; b < blocks; b++) {
		let pad = select(0u, 8u - last, b + 1u == blocks);
		let start = 8u * b;
		let blk = array<u32, 8>(md31_lane(row, start, 0u, pad), md31_lane(row, start, 1u, pad),
			md31_lane(row, start, 2u, pad), md31_lane(row, start, 3u, pad),
			md31_lane(row, start, 4u, pad), md31_lane(row, start, 5u, pad),
			md31_lane(row, start, 6u, pad), md31_lane(row, start, 7u, pad));
		st = merge_node(st, blk);
	}
	return st;
}
