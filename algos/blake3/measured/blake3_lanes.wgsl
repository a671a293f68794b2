//!include blake3.wgsl
// blake3_lanes.wgsl: chunks_lanes, BLAKE3's chunk kernel with LANE_W
// chunks side by side in the lanes of every state word, kept to be measured
// against blake3.wgsl's chunks (the variants lanes2 to lanes16,
// internal/base/impl's "blake3"). A variant's entry file includes it and
// defines the lane type (blake3_lane4.wgsl, blake3_lane2.wgsl); Go's
// prelude sets GROUPS:
//
//	alias lane = vec4<u32>;          // or vec2<u32>: chunks per vector
//	const LANE_W = 4u;               // lanes in one vector
//	fn to_lane(v: vec4<u32>) -> lane // the first LANE_W components
//	fn lane_x4(v: lane) -> vec4<u32> // back to a vec4, zero-filled
//	const GROUPS: u32                // vectors per invocation (P = LANE_W * GROUPS)
//
// Plain-Go meaning, as blake3.wgsl's chunks: for i < count-1 { cvs[i] =
// chunk i's chaining value } (full chunks).

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
