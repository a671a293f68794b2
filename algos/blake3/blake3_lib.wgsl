// blake3_lib.wgsl: the BLAKE3 compression function and the Merkle 2-to-1
// merge, with no bindings and no entry points. It is composed in front of
// kernels (blake3.wgsl, Merkle tree kernels); every identifier starts with
// b3_ or B3_.
//
// b3_compress(cv, block, counter, block_len, flags) is the plain-Go
// compress of package blake3: all 16 output words, the first 8 being the
// chaining value. b3_merge(left, right) is blake3.Merge: BLAKE3 of the 64
// bytes left||right (one chunk, one block, CHUNK_START|CHUNK_END|ROOT, the
// IV as key, counter 0), digest words little-endian.
//
// The state is held as four vec4<u32> rows (a, b, c, d); a column step runs
// the four G functions of a round in the vector lanes, and the diagonal
// step rotates rows b, c, d by swizzles so that the diagonals line up as
// columns. The message schedule of the seven rounds is unrolled with the
// permutation applied at compile time.

const B3_IV0 = vec4<u32>(0x6A09E667u, 0xBB67AE85u, 0x3C6EF372u, 0xA54FF53Au);
const B3_IV1 = vec4<u32>(0x510E527Fu, 0x9B05688Cu, 0x1F83D9ABu, 0x5BE0CD19u);

const B3_CHUNK_START = 1u;
const B3_CHUNK_END = 2u;
const B3_PARENT = 4u;
const B3_ROOT = 8u;
const B3_KEYED_HASH = 16u;
const B3_DERIVE_KEY_CONTEXT = 32u;
const B3_DERIVE_KEY_MATERIAL = 64u;

struct B3Rows {
	a: vec4<u32>,
	b: vec4<u32>,
	c: vec4<u32>,
	d: vec4<u32>,
}

fn b3_rotr16(x: vec4<u32>) -> vec4<u32> { return (x >> vec4<u32>(16u)) | (x << vec4<u32>(16u)); }
fn b3_rotr12(x: vec4<u32>) -> vec4<u32> { return (x >> vec4<u32>(12u)) | (x << vec4<u32>(20u)); }
fn b3_rotr8(x: vec4<u32>) -> vec4<u32> { return (x >> vec4<u32>(8u)) | (x << vec4<u32>(24u)); }
fn b3_rotr7(x: vec4<u32>) -> vec4<u32> { return (x >> vec4<u32>(7u)) | (x << vec4<u32>(25u)); }

// b3_g4 runs four G functions at once, one per lane.
fn b3_g4(s: B3Rows, mx: vec4<u32>, my: vec4<u32>) -> B3Rows {
	var a = s.a + s.b + mx;
	var d = b3_rotr16(s.d ^ a);
	var c = s.c + d;
	var b = b3_rotr12(s.b ^ c);
	a = a + b + my;
	d = b3_rotr8(d ^ a);
	c = c + d;
	b = b3_rotr7(b ^ c);
	return B3Rows(a, b, c, d);
}

// b3_round is one round: columns, then diagonals through swizzles.
fn b3_round(s: B3Rows, m0: vec4<u32>, m1: vec4<u32>, m2: vec4<u32>, m3: vec4<u32>) -> B3Rows {
	let t = b3_g4(s, m0, m1);
	let u = b3_g4(B3Rows(t.a, t.b.yzwx, t.c.zwxy, t.d.wxyz), m2, m3);
	return B3Rows(u.a, u.b.wxyz, u.c.zwxy, u.d.yzwx);
}

// b3_rounds runs the seven rounds on the message m (16 words as 4 vec4).
fn b3_rounds(s0: B3Rows, m: array<vec4<u32>, 4>) -> B3Rows {
	var s = s0;
	s = b3_round(s, vec4<u32>(m[0].x, m[0].z, m[1].x, m[1].z), vec4<u32>(m[0].y, m[0].w, m[1].y, m[1].w),
		vec4<u32>(m[2].x, m[2].z, m[3].x, m[3].z), vec4<u32>(m[2].y, m[2].w, m[3].y, m[3].w));
	s = b3_round(s, vec4<u32>(m[0].z, m[0].w, m[1].w, m[1].x), vec4<u32>(m[1].z, m[2].z, m[0].x, m[3].y),
		vec4<u32>(m[0].y, m[3].x, m[2].y, m[3].w), vec4<u32>(m[2].w, m[1].y, m[3].z, m[2].x));
	s = b3_round(s, vec4<u32>(m[0].w, m[2].z, m[3].y, m[1].w), vec4<u32>(m[1].x, m[3].x, m[0].z, m[3].z),
		vec4<u32>(m[1].z, m[2].y, m[2].w, m[2].x), vec4<u32>(m[1].y, m[0].x, m[3].w, m[0].y));
	s = b3_round(s, vec4<u32>(m[2].z, m[3].x, m[3].z, m[3].y), vec4<u32>(m[1].w, m[2].y, m[0].w, m[3].w),
		vec4<u32>(m[1].x, m[2].w, m[1].y, m[0].y), vec4<u32>(m[0].x, m[0].z, m[2].x, m[1].z));
	s = b3_round(s, vec4<u32>(m[3].x, m[2].y, m[3].w, m[3].z), vec4<u32>(m[3].y, m[2].w, m[2].z, m[2].x),
		vec4<u32>(m[1].w, m[1].y, m[0].x, m[1].z), vec4<u32>(m[0].z, m[0].w, m[0].y, m[1].x));
	s = b3_round(s, vec4<u32>(m[2].y, m[2].w, m[2].x, m[3].w), vec4<u32>(m[3].z, m[1].y, m[3].x, m[0].y),
		vec4<u32>(m[3].y, m[0].x, m[0].z, m[1].x), vec4<u32>(m[0].w, m[2].z, m[1].z, m[1].w));
	s = b3_round(s, vec4<u32>(m[2].w, m[1].y, m[0].y, m[2].x), vec4<u32>(m[3].w, m[0].x, m[2].y, m[1].z),
		vec4<u32>(m[3].z, m[0].z, m[0].w, m[1].w), vec4<u32>(m[2].z, m[3].x, m[1].x, m[3].y));
	return s;
}

// b3_compress_rows is the compression function on rows: cv0, cv1 are the
// chaining value's words 0..3 and 4..7; it returns the full output as rows
// (a, b = the new chaining value; c, d = the extended half).
fn b3_compress_rows(cv0: vec4<u32>, cv1: vec4<u32>, m: array<vec4<u32>, 4>, counter_lo: u32, counter_hi: u32, block_len: u32, flags: u32) -> B3Rows {
	let s = b3_rounds(B3Rows(cv0, cv1, B3_IV0, vec4<u32>(counter_lo, counter_hi, block_len, flags)), m);
	return B3Rows(s.a ^ s.c, s.b ^ s.d, s.c ^ cv0, s.d ^ cv1);
}

// b3_compress is the BLAKE3 compression function: all 16 output words.
fn b3_compress(cv: array<u32, 8>, block: array<u32, 16>, counter_lo: u32, counter_hi: u32, block_len: u32, flags: u32) -> array<u32, 16> {
	let m = array<vec4<u32>, 4>(
		vec4<u32>(block[0], block[1], block[2], block[3]),
		vec4<u32>(block[4], block[5], block[6], block[7]),
		vec4<u32>(block[8], block[9], block[10], block[11]),
		vec4<u32>(block[12], block[13], block[14], block[15]));
	let o = b3_compress_rows(vec4<u32>(cv[0], cv[1], cv[2], cv[3]), vec4<u32>(cv[4], cv[5], cv[6], cv[7]), m, counter_lo, counter_hi, block_len, flags);
	return array<u32, 16>(o.a.x, o.a.y, o.a.z, o.a.w, o.b.x, o.b.y, o.b.z, o.b.w,
		o.c.x, o.c.y, o.c.z, o.c.w, o.d.x, o.d.y, o.d.z, o.d.w);
}

// b3_merge is BLAKE3 of the 64-byte concatenation left||right: the 2-to-1
// merge of Merkle trees (blake3.Merge in Go).
fn b3_merge(left: array<u32, 8>, right: array<u32, 8>) -> array<u32, 8> {
	let m = array<vec4<u32>, 4>(
		vec4<u32>(left[0], left[1], left[2], left[3]),
		vec4<u32>(left[4], left[5], left[6], left[7]),
		vec4<u32>(right[0], right[1], right[2], right[3]),
		vec4<u32>(right[4], right[5], right[6], right[7]));
	let o = b3_compress_rows(B3_IV0, B3_IV1, m, 0u, 0u, 64u, B3_CHUNK_START | B3_CHUNK_END | B3_ROOT);
	return array<u32, 8>(o.a.x, o.a.y, o.a.z, o.a.w, o.b.x, o.b.y, o.b.z, o.b.w);
}
