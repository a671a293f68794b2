// Linea's hashes over gnark-crypto's width-16 compression, in batches over
// buffers already on the device: the leaves of its Vortex commitment (the
// Merkle-Damgard hash of each column's SIS digest, or of each codeword
// column when a round has no SIS) and the nodes of its Merkle tree (the
// Merkle-Damgard hash of left || right). The module names the width-16
// permutation (an instance's poseidon2_31_gnark-*.wgsl file) before this file.
//
// Plain-Go meaning: symmetric.MerkleDamgard{FeedForwardCompression{Perm,
// Chunk: 8}}.Hash, as md31_gnark.wgsl's hash_row (Linea's
// poseidon2_koalabear.MDHasher: from the zero state, each block of 8
// elements makes state = vortex.CompressPoseidon2(state, block), a partial
// last block padded with zeros in front).
//
// The chain keeps its state in Montgomery form across compressions: the
// feed-forward sum is the same in either form, so an input already in
// Montgomery form (gnark-crypto's koalabear.Element in memory: the SIS
// digests and the codewords on the device) goes into the permutation as
// it is, and only the digest leaves Montgomery form, once, at the end.

@group(0) @binding(0) var<storage, read> mdm_in: array<u32>;
@group(0) @binding(1) var<storage, read_write> mdm_out: array<u32>;

// count is the number of hashes. For md_leaves_monty, m is each input's
// length; for md_columns_monty, m is the rows, stride the words from one
// row to the next and first the column of hash 0.
struct MdmParams {
	count: u32,
	m: u32,
	stride: u32,
	first: u32,
}
@group(0) @binding(2) var<uniform> mdm_params: MdmParams;

const MDM_WG: u32 = 64u;

// mdm_compress is vortex.CompressPoseidon2(st, blk) on Montgomery forms:
// st || blk permuted, the second half fed forward with blk.
fn mdm_compress(st: array<u32, 8>, blk: array<u32, 8>) -> array<u32, 8> {
	var s = array<u32, PERM_WIDTH>(st[0], st[1], st[2], st[3], st[4], st[5], st[6], st[7],
		blk[0], blk[1], blk[2], blk[3], blk[4], blk[5], blk[6], blk[7]);
	perm_permute(&s);
	return array<u32, 8>(monty31_add(s[8], blk[0]), monty31_add(s[9], blk[1]),
		monty31_add(s[10], blk[2]), monty31_add(s[11], blk[3]),
		monty31_add(s[12], blk[4]), monty31_add(s[13], blk[5]),
		monty31_add(s[14], blk[6]), monty31_add(s[15], blk[7]));
}

// mdm_store writes the canonical values of Montgomery state st as digest i.
fn mdm_store(i: u32, st: array<u32, 8>) {
	let at = 8u * i;
	mdm_out[at] = monty31_leave(st[0]);
	mdm_out[at + 1u] = monty31_leave(st[1]);
	mdm_out[at + 2u] = monty31_leave(st[2]);
	mdm_out[at + 3u] = monty31_leave(st[3]);
	mdm_out[at + 4u] = monty31_leave(st[4]);
	mdm_out[at + 5u] = monty31_leave(st[5]);
	mdm_out[at + 6u] = monty31_leave(st[6]);
	mdm_out[at + 7u] = monty31_leave(st[7]);
}

// mdm_block returns the block of the 8 words at in[at + j*step], j < 8.
// The lanes are written out, so that the block stays in registers.
fn mdm_block(at: u32, step: u32) -> array<u32, 8> {
	return array<u32, 8>(mdm_in[at], mdm_in[at + step], mdm_in[at + 2u * step], mdm_in[at + 3u * step],
		mdm_in[at + 4u * step], mdm_in[at + 5u * step], mdm_in[at + 6u * step], mdm_in[at + 7u * step]);
}

// mdm_lane is lane j of a last block whose pad first lanes are zeros and
// whose others are the words at in[at + (j - pad)*step].
fn mdm_lane(at: u32, step: u32, j: u32, pad: u32) -> u32 {
	return select(0u, mdm_in[at + (max(j, pad) - pad) * step], j >= pad);
}

// mdm_tail returns the last block of r < 8 words from in[at], step apart,
// after 8 - r zeros (Linea pads a partial last block in front).
fn mdm_tail(at: u32, step: u32, r: u32) -> array<u32, 8> {
	let pad = 8u - r;
	return array<u32, 8>(mdm_lane(at, step, 0u, pad), mdm_lane(at, step, 1u, pad),
		mdm_lane(at, step, 2u, pad), mdm_lane(at, step, 3u, pad),
		mdm_lane(at, step, 4u, pad), mdm_lane(at, step, 5u, pad),
		mdm_lane(at, step, 6u, pad), mdm_lane(at, step, 7u, pad));
}

// mdm_index returns invocation's hash index over a grid of any shape.
fn mdm_index(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
	return gid.x + gid.y * nwg.x * MDM_WG;
}

// md_leaves_monty: for i < count { out[i] = leave(MD(in[i*m .. (i+1)*m])) },
// the inputs Montgomery forms (a column's SIS digest each), the digests
// canonical.
@compute @workgroup_size(64)
fn md_leaves_monty(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = mdm_index(gid, nwg);
	if (i >= mdm_params.count) {
		return;
	}
	let m = mdm_params.m;
	let base = i * m;
	var st: array<u32, 8>;
	let full = m / 8u;
	for (var b = 0u; b < full; b++) {
		st = mdm_compress(st, mdm_block(base + 8u * b, 1u));
	}
	let r = m - 8u * full;
	if (r > 0u) {
		st = mdm_compress(st, mdm_tail(base + 8u * full, 1u, r));
	}
	mdm_store(i, st);
}

// md_columns_monty: for i < count { out[i] = leave(MD(column first + i)) },
// the column's m elements at in[r*stride + first + i] for r < m (a tile of
// codewords, row after row), Montgomery forms; the digests canonical.
@compute @workgroup_size(64)
fn md_columns_monty(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = mdm_index(gid, nwg);
	if (i >= mdm_params.count) {
		return;
	}
	let m = mdm_params.m;
	let w = mdm_params.stride;
	var at = mdm_params.first + i;
	var st: array<u32, 8>;
	let full = m / 8u;
	for (var b = 0u; b < full; b++) {
		st = mdm_compress(st, mdm_block(at, w));
		at += 8u * w;
	}
	let r = m - 8u * full;
	if (r > 0u) {
		st = mdm_compress(st, mdm_tail(at, w, r));
	}
	mdm_store(i, st);
}

// md_merge: for i < count { out[i] = MD(in[i][0..8] || in[i][8..16]) },
// Linea's tree node of two canonical children, canonical.
@compute @workgroup_size(64)
fn md_merge(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = mdm_index(gid, nwg);
	if (i >= mdm_params.count) {
		return;
	}
	// The children enter Montgomery form; the node leaves it.
	let l = mdm_block(16u * i, 1u);
	let r = mdm_block(16u * i + 8u, 1u);
	var st: array<u32, 8>;
	st = mdm_compress(st, array<u32, 8>(monty31_enter(l[0]), monty31_enter(l[1]), monty31_enter(l[2]),
		monty31_enter(l[3]), monty31_enter(l[4]), monty31_enter(l[5]), monty31_enter(l[6]), monty31_enter(l[7])));
	st = mdm_compress(st, array<u32, 8>(monty31_enter(r[0]), monty31_enter(r[1]), monty31_enter(r[2]),
		monty31_enter(r[3]), monty31_enter(r[4]), monty31_enter(r[5]), monty31_enter(r[6]), monty31_enter(r[7])));
	mdm_store(i, st);
}
