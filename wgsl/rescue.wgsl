//!include rescue_lib.wgsl
// Rescue Prime Rp64_256 batch kernel body, shared by every variant. Each
// variant's entry file, wgsl/rescue_main_<variant>.wgsl, includes it and
// defines the rest: the uniform `params` (Params, followed by the round
// constants for arkuniform) after the storage bindings (binding 2,
// or 3 when binding 2 holds the round constants), fn permute_variant(s),
// which calls the variant's permutation, and the entry point main, which
// calls run(k) for k < params.count (rescue_entry.wgsl's, for every
// variant but arkworkgroup, which fills workgroup memory first).
//
//   OP_PERMUTE: out[k] = Permute(in[k]) (12 elements in and out).
//   OP_MERGE:   out[k] = Merge(in[k][0..4], in[k][4..8]) (8 in, 4 out).
//   OP_ABSORB:  one block of HashElements: the state out[k] (12 elements;
//               a fresh state with s[0] = m when params.j = 0) gets
//               in[k*m + j ..][..min(8, m-j)] added to its rate and is
//               permuted. The host dispatches it for j = 0, 8, 16, ... < m
//               and reads the digest from state elements 4..8.
//
// Elements are canonical Goldilocks values as (low, high) u32 pairs; the
// host rejects inputs >= p.
//
// The permutation is reached from one call site and never inside a loop of
// the kernel's own: Mesa's compilers inline every call, and lavapipe
// crashes compiling a module with the permutation inlined twice or nested
// in a further loop. Hashing therefore takes one dispatch per block, and
// every variant is a module of its own whose permute_variant calls one
// permutation.

@group(0) @binding(0) var<storage, read> rp_in: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read_write> rp_out: array<vec2<u32>>;

// Params are the four words every kernel reads from its uniform `params`.
struct Params {
	count: u32,
	m: u32,
	op: u32,
	j: u32,
}

const WG: u32 = 64u;
const OP_PERMUTE: u32 = 0u;
const OP_MERGE: u32 = 1u;
const OP_ABSORB: u32 = 2u;

fn index(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
	return gid.x + gid.y * nwg.x * WG;
}

fn load_state(k: u32) -> array<vec2<u32>, 12> {
	let b = k * 12u;
	return array<vec2<u32>, 12>(rp_in[b], rp_in[b + 1u], rp_in[b + 2u], rp_in[b + 3u], rp_in[b + 4u], rp_in[b + 5u],
		rp_in[b + 6u], rp_in[b + 7u], rp_in[b + 8u], rp_in[b + 9u], rp_in[b + 10u], rp_in[b + 11u]);
}

fn store_state(k: u32, s: ptr<function, array<vec2<u32>, 12>>) {
	let b = k * 12u;
	for (var i = 0u; i < 12u; i++) {
		rp_out[b + i] = (*s)[i];
	}
}

fn merge_load(k: u32) -> array<vec2<u32>, 12> {
	let b = k * 8u;
	let l = array<vec2<u32>, 4>(rp_in[b], rp_in[b + 1u], rp_in[b + 2u], rp_in[b + 3u]);
	let r = array<vec2<u32>, 4>(rp_in[b + 4u], rp_in[b + 5u], rp_in[b + 6u], rp_in[b + 7u]);
	return rp_merge_state(l, r);
}

fn store_digest(k: u32, s: array<vec2<u32>, 12>) {
	let o = k * 4u;
	rp_out[o] = s[4];
	rp_out[o + 1u] = s[5];
	rp_out[o + 2u] = s[6];
	rp_out[o + 3u] = s[7];
}

// absorb_load returns the state of input k with the block at element
// params.j added into its rate.
fn absorb_load(k: u32) -> array<vec2<u32>, 12> {
	let m = params.m;
	let j = params.j;
	var s: array<vec2<u32>, 12>;
	if (j == 0u) {
		s[0] = vec2<u32>(m, 0u);
	} else {
		s = load_out_state(k);
	}
	let n = min(8u, m - j);
	let base = k * m + j;
	for (var t = 0u; t < n; t++) {
		s[4u + t] = gl_add(s[4u + t], rp_in[base + t]);
	}
	return s;
}

fn load_out_state(k: u32) -> array<vec2<u32>, 12> {
	let b = k * 12u;
	return array<vec2<u32>, 12>(rp_out[b], rp_out[b + 1u], rp_out[b + 2u], rp_out[b + 3u], rp_out[b + 4u], rp_out[b + 5u],
		rp_out[b + 6u], rp_out[b + 7u], rp_out[b + 8u], rp_out[b + 9u], rp_out[b + 10u], rp_out[b + 11u]);
}

fn run(k: u32) {
	let op = params.op;
	var s: array<vec2<u32>, 12>;
	if (op == OP_PERMUTE) {
		s = load_state(k);
	} else if (op == OP_MERGE) {
		s = merge_load(k);
	} else {
		s = absorb_load(k);
	}
	permute_variant(&s);
	if (op == OP_MERGE) {
		store_digest(k, s);
	} else {
		store_state(k, &s);
	}
}
