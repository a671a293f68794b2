//!include blake3_lib.wgsl
// blake3.wgsl: the BLAKE3 tree kernels. A variant's entry file includes it
// and defines the lane type of the lane kernel (blake3_lane4.wgsl,
// blake3_lane2.wgsl); Go's prelude sets GROUPS:
//
//	alias lane = vec4<u32>;          // or vec2<u32>: chunks per vector
//	const LANE_W = 4u;               // lanes in one vector
//	fn to_lane(v: vec4<u32>) -> lane // the first LANE_W components
//	fn lane_x4(v: lane) -> vec4<u32> // back to a vec4, zero-filled
//	const GROUPS: u32                // vectors per invocation (P = LANE_W * GROUPS)
//
// Plain-Go meaning, for a piece of params.count chunks whose first chunk
// has the chunk counter params.counter:
//
//	chunks / chunks_lanes: for i < count-1 { cvs[i] = chunk i's chaining value }  (full chunks)
//	chunk_tail:            cvs[count-1] = chaining value of the last chunk (last_len bytes),
//	                       or, when count is 1, rec = its node
//	parents:               out[g] = the subtree root of nodes in[512g .. 512g+511] (pairs
//	                       merged level by level, an odd last node carried up); when
//	                       count <= 512 (the top level), rec = the top node instead
//
// rec, the piece's top node, is 28 words: block[16], cv[8], counter_lo,
// counter_hi, block_len, flags (ROOT not set). The host compresses it for
// the piece's chaining value, or, when the piece is the whole input, with
// ROOT for as many output blocks as it needs.

struct Params {
	count: u32,
	last_len: u32,
	counter_lo: u32,
	counter_hi: u32,
	flags: u32,
	k0: u32, k1: u32, k2: u32, k3: u32, k4: u32, k5: u32, k6: u32, k7: u32,
}

const WG = 64u;
const PARENT_WG = 256u;

fn key0() -> vec4<u32> { return vec4<u32>(params.k0, params.k1, params.k2, params.k3); }
fn key1() -> vec4<u32> { return vec4<u32>(params.k4, params.k5, params.k6, params.k7); }

// counter_at is the 64-bit chunk counter of chunk i of the piece, as (lo, hi).
fn counter_at(i: u32) -> vec2<u32> {
	let lo = params.counter_lo + i;
	return vec2<u32>(lo, params.counter_hi + select(0u, 1u, lo < i));
}

fn write_record(m: array<vec4<u32>, 4>, cv0: vec4<u32>, cv1: vec4<u32>, ctr: vec2<u32>, block_len: u32, flags: u32) {
	var mv = m;
	for (var k = 0u; k < 4u; k++) {
		let w = mv[k];
		rec[4u * k] = w.x;
		rec[4u * k + 1u] = w.y;
		rec[4u * k + 2u] = w.z;
		rec[4u * k + 3u] = w.w;
	}
	rec[16] = cv0.x; rec[17] = cv0.y; rec[18] = cv0.z; rec[19] = cv0.w;
	rec[20] = cv1.x; rec[21] = cv1.y; rec[22] = cv1.z; rec[23] = cv1.w;
	rec[24] = ctr.x;
	rec[25] = ctr.y;
	rec[26] = block_len;
	rec[27] = flags;
}

@group(0) @binding(0) var<storage, read> data: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> cvs: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> rec: array<u32>;
@group(0) @binding(3) var<uniform> params: Params;

// chunks: one full chunk per invocation, the state as four vec4 rows.
@compute @workgroup_size(64)
fn chunks(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = gid.x + gid.y * nwg.x * WG;
	if (i + 1u >= params.count) {
		return;
	}
	let ctr = counter_at(i);
	var cv0 = key0();
	var cv1 = key1();
	let base = i * 64u;
	for (var b = 0u; b < 16u; b++) {
		let at = base + 4u * b;
		let m = array<vec4<u32>, 4>(data[at], data[at + 1u], data[at + 2u], data[at + 3u]);
		var fl = params.flags;
		if (b == 0u) {
			fl |= B3_CHUNK_START;
		}
		if (b == 15u) {
			fl |= B3_CHUNK_END;
		}
		let o = b3_compress_rows(cv0, cv1, m, ctr.x, ctr.y, 64u, fl);
		cv0 = o.a;
		cv1 = o.b;
	}
	cvs[2u * i] = cv0;
	cvs[2u * i + 1u] = cv1;
}

// masked keeps the first n bytes (0..4 and beyond) of a little-endian word.
fn masked(w: u32, n: i32) -> u32 {
	if (n >= 4) {
		return w;
	}
	if (n <= 0) {
		return 0u;
	}
	return w & ((1u << (8u * u32(n))) - 1u);
}

fn masked4(v: vec4<u32>, n: i32) -> vec4<u32> {
	return vec4<u32>(masked(v.x, n), masked(v.y, n - 4), masked(v.z, n - 8), masked(v.w, n - 12));
}

// chunk_tail: the last chunk of the piece, which may be partial (0..1024
// bytes); bytes past the input are read as zeros whatever the buffer holds.
@compute @workgroup_size(1)
fn chunk_tail() {
	let i = params.count - 1u;
	let len = params.last_len;
	let nb = max(1u, (len + 63u) / 64u);
	let ctr = counter_at(i);
	var cv0 = key0();
	var cv1 = key1();
	for (var b = 0u; b < nb; b++) {
		let blen = min(64u, len - 64u * b);
		let at = i * 64u + 4u * b;
		let n = i32(blen);
		let m = array<vec4<u32>, 4>(masked4(data[at], n), masked4(data[at + 1u], n - 16),
			masked4(data[at + 2u], n - 32), masked4(data[at + 3u], n - 48));
		var fl = params.flags;
		if (b == 0u) {
			fl |= B3_CHUNK_START;
		}
		if (b + 1u == nb) {
			fl |= B3_CHUNK_END;
			if (params.count == 1u) {
				write_record(m, cv0, cv1, ctr, blen, fl);
				return;
			}
		}
		let o = b3_compress_rows(cv0, cv1, m, ctr.x, ctr.y, blen, fl);
		cv0 = o.a;
		cv1 = o.b;
	}
	cvs[2u * i] = cv0;
	cvs[2u * i + 1u] = cv1;
}

// ---- the lane kernel: LANE_W chunks in the lanes of each state word ----

struct LQ {
	a: lane,
	b: lane,
	c: lane,
	d: lane,
}

fn lrot16(x: lane) -> lane { return (x >> lane(16u)) | (x << lane(16u)); }
fn lrot12(x: lane) -> lane { return (x >> lane(12u)) | (x << lane(20u)); }
fn lrot8(x: lane) -> lane { return (x >> lane(8u)) | (x << lane(24u)); }
fn lrot7(x: lane) -> lane { return (x >> lane(7u)) | (x << lane(25u)); }

fn lane_g(a0: lane, b0: lane, c0: lane, d0: lane, mx: lane, my: lane) -> LQ {
	var a = a0 + b0 + mx;
	var d = lrot16(d0 ^ a);
	var c = c0 + d;
	var b = lrot12(b0 ^ c);
	a = a + b + my;
	d = lrot8(d ^ a);
	c = c + d;
	b = lrot7(b ^ c);
	return LQ(a, b, c, d);
}

struct LCV {
	h0: lane, h1: lane, h2: lane, h3: lane, h4: lane, h5: lane, h6: lane, h7: lane,
}

// lane_compress compresses one block of LANE_W chunks at once and returns
// the new chaining values.
fn lane_compress(h: LCV, m0: lane, m1: lane, m2: lane, m3: lane, m4: lane, m5: lane, m6: lane, m7: lane,
	m8: lane, m9: lane, m10: lane, m11: lane, m12: lane, m13: lane, m14: lane, m15: lane,
	ctr_lo: lane, ctr_hi: lane, flags: u32) -> LCV {
	var v0 = h.h0; var v1 = h.h1; var v2 = h.h2; var v3 = h.h3;
	var v4 = h.h4; var v5 = h.h5; var v6 = h.h6; var v7 = h.h7;
	var v8 = lane(B3_IV0.x); var v9 = lane(B3_IV0.y); var v10 = lane(B3_IV0.z); var v11 = lane(B3_IV0.w);
	var v12 = ctr_lo; var v13 = ctr_hi; var v14 = lane(64u); var v15 = lane(flags);
	var q: LQ;
	q = lane_g(v0, v4, v8, v12, m0, m1); v0 = q.a; v4 = q.b; v8 = q.c; v12 = q.d;
	q = lane_g(v1, v5, v9, v13, m2, m3); v1 = q.a; v5 = q.b; v9 = q.c; v13 = q.d;
	q = lane_g(v2, v6, v10, v14, m4, m5); v2 = q.a; v6 = q.b; v10 = q.c; v14 = q.d;
	q = lane_g(v3, v7, v11, v15, m6, m7); v3 = q.a; v7 = q.b; v11 = q.c; v15 = q.d;
	q = lane_g(v0, v5, v10, v15, m8, m9); v0 = q.a; v5 = q.b; v10 = q.c; v15 = q.d;
	q = lane_g(v1, v6, v11, v12, m10, m11); v1 = q.a; v6 = q.b; v11 = q.c; v12 = q.d;
	q = lane_g(v2, v7, v8, v13, m12, m13); v2 = q.a; v7 = q.b; v8 = q.c; v13 = q.d;
	q = lane_g(v3, v4, v9, v14, m14, m15); v3 = q.a; v4 = q.b; v9 = q.c; v14 = q.d;
	q = lane_g(v0, v4, v8, v12, m2, m6); v0 = q.a; v4 = q.b; v8 = q.c; v12 = q.d;
	q = lane_g(v1, v5, v9, v13, m3, m10); v1 = q.a; v5 = q.b; v9 = q.c; v13 = q.d;
	q = lane_g(v2, v6, v10, v14, m7, m0); v2 = q.a; v6 = q.b; v10 = q.c; v14 = q.d;
	q = lane_g(v3, v7, v11, v15, m4, m13); v3 = q.a; v7 = q.b; v11 = q.c; v15 = q.d;
	q = lane_g(v0, v5, v10, v15, m1, m11); v0 = q.a; v5 = q.b; v10 = q.c; v15 = q.d;
	q = lane_g(v1, v6, v11, v12, m12, m5); v1 = q.a; v6 = q.b; v11 = q.c; v12 = q.d;
	q = lane_g(v2, v7, v8, v13, m9, m14); v2 = q.a; v7 = q.b; v8 = q.c; v13 = q.d;
	q = lane_g(v3, v4, v9, v14, m15, m8); v3 = q.a; v4 = q.b; v9 = q.c; v14 = q.d;
	q = lane_g(v0, v4, v8, v12, m3, m4); v0 = q.a; v4 = q.b; v8 = q.c; v12 = q.d;
	q = lane_g(v1, v5, v9, v13, m10, m12); v1 = q.a; v5 = q.b; v9 = q.c; v13 = q.d;
	q = lane_g(v2, v6, v10, v14, m13, m2); v2 = q.a; v6 = q.b; v10 = q.c; v14 = q.d;
	q = lane_g(v3, v7, v11, v15, m7, m14); v3 = q.a; v7 = q.b; v11 = q.c; v15 = q.d;
	q = lane_g(v0, v5, v10, v15, m6, m5); v0 = q.a; v5 = q.b; v10 = q.c; v15 = q.d;
	q = lane_g(v1, v6, v11, v12, m9, m0); v1 = q.a; v6 = q.b; v11 = q.c; v12 = q.d;
	q = lane_g(v2, v7, v8, v13, m11, m15); v2 = q.a; v7 = q.b; v8 = q.c; v13 = q.d;
	q = lane_g(v3, v4, v9, v14, m8, m1); v3 = q.a; v4 = q.b; v9 = q.c; v14 = q.d;
	q = lane_g(v0, v4, v8, v12, m10, m7); v0 = q.a; v4 = q.b; v8 = q.c; v12 = q.d;
	q = lane_g(v1, v5, v9, v13, m12, m9); v1 = q.a; v5 = q.b; v9 = q.c; v13 = q.d;
	q = lane_g(v2, v6, v10, v14, m14, m3); v2 = q.a; v6 = q.b; v10 = q.c; v14 = q.d;
	q = lane_g(v3, v7, v11, v15, m13, m15); v3 = q.a; v7 = q.b; v11 = q.c; v15 = q.d;
	q = lane_g(v0, v5, v10, v15, m4, m0); v0 = q.a; v5 = q.b; v10 = q.c; v15 = q.d;
	q = lane_g(v1, v6, v11, v12, m11, m2); v1 = q.a; v6 = q.b; v11 = q.c; v12 = q.d;
	q = lane_g(v2, v7, v8, v13, m5, m8); v2 = q.a; v7 = q.b; v8 = q.c; v13 = q.d;
	q = lane_g(v3, v4, v9, v14, m1, m6); v3 = q.a; v4 = q.b; v9 = q.c; v14 = q.d;
	q = lane_g(v0, v4, v8, v12, m12, m13); v0 = q.a; v4 = q.b; v8 = q.c; v12 = q.d;
	q = lane_g(v1, v5, v9, v13, m9, m11); v1 = q.a; v5 = q.b; v9 = q.c; v13 = q.d;
	q = lane_g(v2, v6, v10, v14, m15, m10); v2 = q.a; v6 = q.b; v10 = q.c; v14 = q.d;
	q = lane_g(v3, v7, v11, v15, m14, m8); v3 = q.a; v7 = q.b; v11 = q.c; v15 = q.d;
	q = lane_g(v0, v5, v10, v15, m7, m2); v0 = q.a; v5 = q.b; v10 = q.c; v15 = q.d;
	q = lane_g(v1, v6, v11, v12, m5, m3); v1 = q.a; v6 = q.b; v11 = q.c; v12 = q.d;
	q = lane_g(v2, v7, v8, v13, m0, m1); v2 = q.a; v7 = q.b; v8 = q.c; v13 = q.d;
	q = lane_g(v3, v4, v9, v14, m6, m4); v3 = q.a; v4 = q.b; v9 = q.c; v14 = q.d;
	q = lane_g(v0, v4, v8, v12, m9, m14); v0 = q.a; v4 = q.b; v8 = q.c; v12 = q.d;
	q = lane_g(v1, v5, v9, v13, m11, m5); v1 = q.a; v5 = q.b; v9 = q.c; v13 = q.d;
	q = lane_g(v2, v6, v10, v14, m8, m12); v2 = q.a; v6 = q.b; v10 = q.c; v14 = q.d;
	q = lane_g(v3, v7, v11, v15, m15, m1); v3 = q.a; v7 = q.b; v11 = q.c; v15 = q.d;
	q = lane_g(v0, v5, v10, v15, m13, m3); v0 = q.a; v5 = q.b; v10 = q.c; v15 = q.d;
	q = lane_g(v1, v6, v11, v12, m0, m10); v1 = q.a; v6 = q.b; v11 = q.c; v12 = q.d;
	q = lane_g(v2, v7, v8, v13, m2, m6); v2 = q.a; v7 = q.b; v8 = q.c; v13 = q.d;
	q = lane_g(v3, v4, v9, v14, m4, m7); v3 = q.a; v4 = q.b; v9 = q.c; v14 = q.d;
	q = lane_g(v0, v4, v8, v12, m11, m15); v0 = q.a; v4 = q.b; v8 = q.c; v12 = q.d;
	q = lane_g(v1, v5, v9, v13, m5, m0); v1 = q.a; v5 = q.b; v9 = q.c; v13 = q.d;
	q = lane_g(v2, v6, v10, v14, m1, m9); v2 = q.a; v6 = q.b; v10 = q.c; v14 = q.d;
	q = lane_g(v3, v7, v11, v15, m8, m6); v3 = q.a; v7 = q.b; v11 = q.c; v15 = q.d;
	q = lane_g(v0, v5, v10, v15, m14, m10); v0 = q.a; v5 = q.b; v10 = q.c; v15 = q.d;
	q = lane_g(v1, v6, v11, v12, m2, m12); v1 = q.a; v6 = q.b; v11 = q.c; v12 = q.d;
	q = lane_g(v2, v7, v8, v13, m3, m4); v2 = q.a; v7 = q.b; v8 = q.c; v13 = q.d;
	q = lane_g(v3, v4, v9, v14, m7, m13); v3 = q.a; v4 = q.b; v9 = q.c; v14 = q.d;
	return LCV(v0 ^ v8, v1 ^ v9, v2 ^ v10, v3 ^ v11, v4 ^ v12, v5 ^ v13, v6 ^ v14, v7 ^ v15);
}

// chunks_lanes: P = LANE_W * GROUPS consecutive full chunks per
// invocation, LANE_W of them side by side in the lanes of every vector.
@compute @workgroup_size(64)
fn chunks_lanes(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let t = gid.x + gid.y * nwg.x * WG;
	let full = params.count - 1u;
	for (var grp = 0u; grp < GROUPS; grp++) {
		let c0 = (t * GROUPS + grp) * LANE_W;
		if (c0 >= full) {
			return;
		}
		// Lanes past the last full chunk re-read that chunk and are not stored.
		let last = full - 1u;
		let b0 = min(c0, last) * 64u;
		let b1 = min(c0 + 1u, last) * 64u;
		let b2 = min(c0 + 2u, last) * 64u;
		let b3 = min(c0 + 3u, last) * 64u;
		let lo = lane(params.counter_lo + c0) + to_lane(vec4<u32>(0u, 1u, 2u, 3u));
		let hi = lane(params.counter_hi) + select(lane(0u), lane(1u), lo < lane(c0) + to_lane(vec4<u32>(0u, 1u, 2u, 3u)));
		var h = LCV(lane(params.k0), lane(params.k1), lane(params.k2), lane(params.k3),
			lane(params.k4), lane(params.k5), lane(params.k6), lane(params.k7));
		for (var b = 0u; b < 16u; b++) {
			let o = 4u * b;
			let a0 = data[b0 + o]; let a1 = data[b0 + o + 1u]; let a2 = data[b0 + o + 2u]; let a3 = data[b0 + o + 3u];
			let e0 = data[b1 + o]; let e1 = data[b1 + o + 1u]; let e2 = data[b1 + o + 2u]; let e3 = data[b1 + o + 3u];
			let f0 = data[b2 + o]; let f1 = data[b2 + o + 1u]; let f2 = data[b2 + o + 2u]; let f3 = data[b2 + o + 3u];
			let g0 = data[b3 + o]; let g1 = data[b3 + o + 1u]; let g2 = data[b3 + o + 2u]; let g3 = data[b3 + o + 3u];
			var fl = params.flags;
			if (b == 0u) {
				fl |= B3_CHUNK_START;
			}
			if (b == 15u) {
				fl |= B3_CHUNK_END;
			}
			h = lane_compress(h,
				to_lane(vec4<u32>(a0.x, e0.x, f0.x, g0.x)), to_lane(vec4<u32>(a0.y, e0.y, f0.y, g0.y)),
				to_lane(vec4<u32>(a0.z, e0.z, f0.z, g0.z)), to_lane(vec4<u32>(a0.w, e0.w, f0.w, g0.w)),
				to_lane(vec4<u32>(a1.x, e1.x, f1.x, g1.x)), to_lane(vec4<u32>(a1.y, e1.y, f1.y, g1.y)),
				to_lane(vec4<u32>(a1.z, e1.z, f1.z, g1.z)), to_lane(vec4<u32>(a1.w, e1.w, f1.w, g1.w)),
				to_lane(vec4<u32>(a2.x, e2.x, f2.x, g2.x)), to_lane(vec4<u32>(a2.y, e2.y, f2.y, g2.y)),
				to_lane(vec4<u32>(a2.z, e2.z, f2.z, g2.z)), to_lane(vec4<u32>(a2.w, e2.w, f2.w, g2.w)),
				to_lane(vec4<u32>(a3.x, e3.x, f3.x, g3.x)), to_lane(vec4<u32>(a3.y, e3.y, f3.y, g3.y)),
				to_lane(vec4<u32>(a3.z, e3.z, f3.z, g3.z)), to_lane(vec4<u32>(a3.w, e3.w, f3.w, g3.w)),
				lo, hi, fl);
		}
		var cv = array<vec4<u32>, 8>(lane_x4(h.h0), lane_x4(h.h1), lane_x4(h.h2), lane_x4(h.h3),
			lane_x4(h.h4), lane_x4(h.h5), lane_x4(h.h6), lane_x4(h.h7));
		for (var j = 0u; j < LANE_W; j++) {
			if (c0 + j < full) {
				cvs[2u * (c0 + j)] = vec4<u32>(cv[0][j], cv[1][j], cv[2][j], cv[3][j]);
				cvs[2u * (c0 + j) + 1u] = vec4<u32>(cv[4][j], cv[5][j], cv[6][j], cv[7][j]);
			}
		}
	}
}

// ---- parent levels ----

var<workgroup> nodes: array<vec4<u32>, 512>;

fn parent_cv(l0: vec4<u32>, l1: vec4<u32>, r0: vec4<u32>, r1: vec4<u32>) -> array<vec4<u32>, 2> {
	let o = b3_compress_rows(key0(), key1(), array<vec4<u32>, 4>(l0, l1, r0, r1), 0u, 0u, 64u, params.flags | B3_PARENT);
	return array<vec4<u32>, 2>(o.a, o.b);
}

fn parent_record(l0: vec4<u32>, l1: vec4<u32>, r0: vec4<u32>, r1: vec4<u32>) {
	write_record(array<vec4<u32>, 4>(l0, l1, r0, r1), key0(), key1(), vec2<u32>(0u, 0u), 64u, params.flags | B3_PARENT);
}

// parents: 256 invocations reduce up to 512 nodes to one, level by level
// in workgroup memory; params.count is the number of nodes in `data`.
@compute @workgroup_size(256)
fn parents(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let g = wid.x + wid.y * nwg.x;
	let t = lid.x;
	let base = g * 512u;
	if (base >= params.count) {
		return;
	}
	var c = min(512u, params.count - base);
	let top = params.count <= 512u;
	if (top && c == 2u) {
		if (t == 0u) {
			parent_record(data[2u * base], data[2u * base + 1u], data[2u * base + 2u], data[2u * base + 3u]);
		}
		return;
	}
	let l = 2u * (base + 2u * t);
	if (2u * t + 1u < c) {
		let p = parent_cv(data[l], data[l + 1u], data[l + 2u], data[l + 3u]);
		nodes[2u * t] = p[0];
		nodes[2u * t + 1u] = p[1];
	} else if (2u * t < c) {
		nodes[2u * t] = data[l];
		nodes[2u * t + 1u] = data[l + 1u];
	}
	c = (c + 1u) / 2u;
	workgroupBarrier();
	loop {
		if (c <= 1u) {
			break;
		}
		if (top && c == 2u) {
			if (t == 0u) {
				parent_record(nodes[0], nodes[1], nodes[2], nodes[3]);
			}
			return;
		}
		var n0 = vec4<u32>();
		var n1 = vec4<u32>();
		let k = 4u * t;
		if (2u * t + 1u < c) {
			let p = parent_cv(nodes[k], nodes[k + 1u], nodes[k + 2u], nodes[k + 3u]);
			n0 = p[0];
			n1 = p[1];
		} else if (2u * t < c) {
			n0 = nodes[k];
			n1 = nodes[k + 1u];
		}
		workgroupBarrier();
		if (2u * t < c) {
			nodes[2u * t] = n0;
			nodes[2u * t + 1u] = n1;
		}
		c = (c + 1u) / 2u;
		workgroupBarrier();
	}
	if (t == 0u) {
		cvs[2u * g] = nodes[0];
		cvs[2u * g + 1u] = nodes[1];
	}
}
