//!include blake3_lib.wgsl
// blake3_many_lib.wgsl: BLAKE3 of one whole input in one invocation, for
// kernels that hash many inputs side by side (blake3.SumMany, Merkle leaves
// from records). Library only: no bindings, no entry points; every
// identifier starts with b3_ or B3_.
//
// b3_hash_input(start, len, key0, key1, flags) is the BLAKE3 hash (32
// bytes, as 8 little-endian words) of the len bytes at byte offset start
// of the including kernel's data, which it reads with
//
//	fn b3_word(i: u32) -> u32 // little-endian word i of the data
//
// defined by the includer (a word past the data may read as anything:
// bytes past the input are masked). key0/key1 are the key words (the IV,
// a keyed_hash key, or a derive_key context key) and flags the mode
// (0, B3_KEYED_HASH or B3_DERIVE_KEY_MATERIAL). In Go:
// cpuRoot(data[start:start+len], 0, key, flags, 1), the reference
// Hasher's digest.
//
// Chunks are hashed in order; each chunk's chaining value is pushed on a
// stack and merged with the subtrees it completes (as many as the chunk
// count's trailing zeros), and after the last chunk the stack is folded
// from the top, the last parent with ROOT. An input of one chunk gets ROOT
// on its last block. The compression function has two call sites, the
// block loop and the parent loop: Mesa's compilers inline every call.

// b3_word_at returns the little-endian word of the 4 bytes at byte o.
fn b3_word_at(o: u32) -> u32 {
	let i = o >> 2u;
	let s = (o & 3u) * 8u;
	let lo = b3_word(i);
	if (s == 0u) {
		return lo;
	}
	return (lo >> s) | (b3_word(i + 1u) << (32u - s));
}

// b3_keep keeps the first n bytes (n may be <= 0 or >= 4) of a word.
fn b3_keep(w: u32, n: i32) -> u32 {
	if (n >= 4) {
		return w;
	}
	if (n <= 0) {
		return 0u;
	}
	return w & ((1u << (8u * u32(n))) - 1u);
}

// b3_block_at returns the 64-byte block at byte o, keeping its first n
// bytes and zeros after them.
fn b3_block_at(o: u32, n: u32) -> array<vec4<u32>, 4> {
	var m: array<vec4<u32>, 4>;
	let ni = i32(n);
	for (var k = 0u; k < 4u; k++) {
		let b = o + 16u * k;
		let nk = ni - i32(16u * k);
		m[k] = vec4<u32>(b3_keep(b3_word_at(b), nk), b3_keep(b3_word_at(b + 4u), nk - 4), b3_keep(b3_word_at(b + 8u), nk - 8), b3_keep(b3_word_at(b + 12u), nk - 12));
	}
	return m;
}

const B3_STACK: u32 = 32u; // subtree chaining values: inputs below 2^32 bytes need 22

fn b3_hash_input(start: u32, len: u32, key0: vec4<u32>, key1: vec4<u32>, flags: u32) -> array<u32, 8> {
	let chunks = max(1u, (len + 1023u) / 1024u);
	var stack: array<vec4<u32>, 64>; // B3_STACK chaining values, two vec4 each
	var sn = 0u;
	var cv0 = key0;
	var cv1 = key1;
	for (var c = 0u; c < chunks; c++) {
		let last = c + 1u == chunks;
		let clen = min(1024u, len - 1024u * c);
		let blocks = max(1u, (clen + 63u) / 64u);
		cv0 = key0;
		cv1 = key1;
		for (var b = 0u; b < blocks; b++) {
			var fl = flags;
			if (b == 0u) {
				fl |= B3_CHUNK_START;
			}
			if (b + 1u == blocks) {
				fl |= B3_CHUNK_END;
				if (chunks == 1u) {
					fl |= B3_ROOT;
				}
			}
			let blen = min(64u, clen - 64u * b);
			let o = b3_compress_rows(cv0, cv1, b3_block_at(start + 1024u * c + 64u * b, blen), c, 0u, blen, fl);
			cv0 = o.a;
			cv1 = o.b;
		}
		// Merge the subtrees this chunk completes (all of them after the
		// last chunk, which is never pushed), then push it.
		var merges = countTrailingZeros(c + 1u);
		if (last) {
			merges = sn;
		}
		for (var j = 0u; j < merges; j++) {
			sn -= 1u;
			var fl = flags | B3_PARENT;
			if (last && sn == 0u) {
				fl |= B3_ROOT;
			}
			let m = array<vec4<u32>, 4>(stack[2u * sn], stack[2u * sn + 1u], cv0, cv1);
			let o = b3_compress_rows(key0, key1, m, 0u, 0u, 64u, fl);
			cv0 = o.a;
			cv1 = o.b;
		}
		if (!last && sn < B3_STACK) {
			stack[2u * sn] = cv0;
			stack[2u * sn + 1u] = cv1;
			sn += 1u;
		}
	}
	return array<u32, 8>(cv0.x, cv0.y, cv0.z, cv0.w, cv1.x, cv1.y, cv1.z, cv1.w);
}
