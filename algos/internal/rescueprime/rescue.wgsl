//!include rescue_round.wgsl
// Rescue-Prime batch kernel body over Goldilocks, shared by every variant
// of Rp64_256 (winterfell; Go: package rescue) and by RPO256 (miden-crypto;
// Go: package rpo). Each kernel's entry file includes it and its hash's
// library, and defines the rest: the uniform `params` (Params, followed by
// the round constants for arkuniform) after the storage bindings (binding
// 2, or 3 when binding 2 holds the round constants), fn
// permute_variant(s), which calls the kernel's permutation, and the entry
// point main, which calls run(k) for k < params.count (rescue_entry.wgsl's,
// for every kernel but Rp64_256's arkworkgroup, which fills workgroup
// memory first).
//
// The prelude constant RP_SPONGE_RPO (Go: rescueprime.SpongeConst) says
// whose sponge the kernel follows:
//   false, winterfell's Rp64_256: a fresh state has s[0] = m (elements
//          hashed); elements are added into the rate; a partial last block
//          leaves the rest of the rate as it is.
//   true,  miden-crypto's RPO256: a fresh state has s[0] = m mod 8;
//          elements overwrite the rate; a partial last block is padded
//          with zeros.
// In both a merge is HashElements of the eight elements of its two
// digests: s[0] = 8 or 0, s[4..12] = a||b, one permutation.
//
//   OP_PERMUTE: out[k] = Permute(in[k]) (12 elements in and out).
//   OP_MERGE:   out[k] = Merge(in[k][0..4], in[k][4..8]) (8 in, 4 out).
//   OP_ABSORB:  one block of HashElements: the state out[k] (12 elements;
//               a fresh state when params.j = 0) takes
//               in[k*m + j ..][..min(8, m-j)] into its rate and is
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

// rp_capacity0 is s[0] of a fresh state for m elements, in the kernel's
// sponge.
fn rp_capacity0(m: u32) -> vec2<u32> {
	return vec2<u32>(select(m, m % 8u, RP_SPONGE_RPO), 0u);
}

// merge_load returns the state that merges pair k: a fresh state for 8
// elements with the pair in its rate (in either sponge, adding into a zero
// rate is overwriting it).
fn merge_load(k: u32) -> array<vec2<u32>, 12> {
	let b = k * 8u;
	let z = vec2<u32>(0u, 0u);
	return array<vec2<u32>, 12>(rp_capacity0(8u), z, z, z, rp_in[b], rp_in[b + 1u], rp_in[b + 2u], rp_in[b + 3u],
		rp_in[b + 4u], rp_in[b + 5u], rp_in[b + 6u], rp_in[b + 7u]);
}

fn store_digest(k: u32, s: array<vec2<u32>, 12>) {
	let o = k * 4u;
	rp_out[o] = s[4];
	rp_out[o + 1u] = s[5];
	rp_out[o + 2u] = s[6];
	rp_out[o + 3u] = s[7];
}

// absorb_load returns the state of input k with the block at element
// params.j taken into its rate.
fn absorb_load(k: u32) -> array<vec2<u32>, 12> {
	let m = params.m;
	let j = params.j;
	var s: array<vec2<u32>, 12>;
	if (j == 0u) {
		s[0] = rp_capacity0(m);
	} else {
		s = load_out_state(k);
	}
	let n = min(8u, m - j);
	let base = k * m + j;
	if (RP_SPONGE_RPO) {
		// Overwrite all eight rate elements, zeros past the input; the
		// index is clamped so that no read passes the input's end.
		for (var t = 0u; t < 8u; t++) {
			s[4u + t] = select(vec2<u32>(0u, 0u), rp_in[base + min(t, n - 1u)], t < n);
		}
	} else {
		for (var t = 0u; t < n; t++) {
			s[4u + t] = goldilocks_add(s[4u + t], rp_in[base + t]);
		}
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
