//!include blake3_lib.wgsl
// blake3.wgsl: the BLAKE3 tree kernels. The chunk kernels kept to be
// measured against chunks (chunks_lanes, several chunks in the lanes of
// each state word) are measured/blake3_lanes.wgsl, which includes this file.
//
// Plain-Go meaning, for a piece of params.count chunks whose first chunk
// has the chunk counter params.counter:
//
//	chunks:     for i < count-1 { cvs[i] = chunk i's chaining value }  (full chunks)
//	chunk_tail: cvs[count-1] = chaining value of the last chunk (last_len bytes),
//	            or, when count is 1, rec = its node
//	parents:    out[g] = the subtree root of nodes in[512g .. 512g+511] (pairs
//	            merged level by level, an odd last node carried up); when
//	            count <= 512 (the top level), rec = the top node instead
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
