// Record commitment: the leaves of a Merkle tree are the hashes of byte
// records of one length, computed on the device into the tree's leaf
// buffer.
//
// Plain-Go meaning: for i < count { leaves[first + i] = hash.HashRecord(records[i*size : (i+1)*size]) }
// for one piece of records, uploaded from its first byte.
//
// hash_record(start, len) comes from the hash's record module, compiled in
// front of this file (merkle_blake3_record.wgsl, or any module defining
// it; its identifiers must not start with mk_ or MK_). It reads the
// records' words with mk_word, defined here.

@group(0) @binding(0) var<storage, read> mk_bytes: array<u32>;
@group(0) @binding(1) var<storage, read_write> mk_out: array<vec4<u32>>;

struct MkRecParams {
	count: u32, // records in this piece
	size: u32,  // bytes per record
	first: u32, // the leaf that record 0 of the piece hashes into
}
@group(0) @binding(2) var<uniform> mk_cp: MkRecParams;

// mk_word returns little-endian word i of the piece's bytes; words past
// the binding read as zero.
fn mk_word(i: u32) -> u32 {
	if (i >= arrayLength(&mk_bytes)) {
		return 0u;
	}
	return mk_bytes[i];
}

const MK_REC_WG: u32 = 64u;

@compute @workgroup_size(64)
fn mk_records(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let r = gid.x + gid.y * nwg.x * MK_REC_WG;
	if (r >= mk_cp.count) {
		return;
	}
	let h = hash_record(r * mk_cp.size, mk_cp.size);
	let o = 2u * (mk_cp.first + r);
	mk_out[o] = vec4<u32>(h[0], h[1], h[2], h[3]);
	mk_out[o + 1u] = vec4<u32>(h[4], h[5], h[6], h[7]);
}
