// The number-theoretic transform, radix 2, on rows of n = 2^k elements
// stored one after another (Go: algos/ntt), over any field: the module
// names the field's file before this one (ntt_monty31.wgsl,
// ntt_goldilocks.wgsl), which defines the element type NtElem, its
// arithmetic (ne_add, ne_sub, ne_mul, ne_enter, ne_leave) and its words in
// the buffers (ne_src, ne_data, ne_set, ne_tab, ne_aux, ne_of,
// ne_reduced, NE_WORDS, ne_word), the file of the input's check
// (nt_check and nt_checked: ntt_check.wgsl, or ntt_nocheck.wgsl, which
// checks nothing), and the file of the output (nt_put: ntt_rows.wgsl, or
// ntt_tiles.wgsl, which cuts the output rows into column tiles bound
// apart: a commitment's codewords, wider than one binding, written where
// its column hashes read them).
//
// Plain-Go meaning of one pass (ntt.passRef): for every row and every
// group of 2^m elements whose indices differ only in bits lo..lo+m-1,
// run the radix-2 stages s = lo+m-1 down to lo (DIF) or lo up to lo+m-1
// (DIT) on them, stage s pairing index x (bit s clear) with x + 2^s:
//
//	DIF: a, b = a + b, (a - b)·w^e      DIT: a, b = a + b·w^e, a - b·w^e
//
// where e = (x mod 2^s)·2^(k-1-s) and w is the transform's root of order
// n. All DIF passes from the top bits down take natural order to
// bit-reversed order; all DIT passes from the bottom up take bit-reversed
// order to natural order.
//
// A workgroup holds its groups in workgroup memory (NTT_TILE elements, a
// prelude constant chosen from the device's limits) and runs the pass's
// stages there, so a pass reads and writes device memory once. It runs
// them four at a time (nt_round16): an invocation takes the sixteen
// elements four stages pair into registers, with one twiddle read (the
// other fourteen are products of it and a table of sixteenth roots), and a
// barrier follows each round; the stages left over run as a pair
// (nt_pair, radix 4) and one alone. The round on the pass's top bits reads
// device memory itself where it comes first (DIF) and writes it where it
// comes last (DIT), which saves a trip through workgroup memory and a
// barrier; so do DIF's last round or pair in a strided pass (NT_DIF_OUT). A group of a pass above the low bits (lo > 0) takes 2^c
// consecutive columns (c = c_log) so that its loads and stores are runs of
// 2^c words.
//
// Elements are in the field's kernel form (Montgomery form for the 31-bit
// fields); flags say where canonical values enter and leave, and where a table-driven scale (the coset's
// powers, 1/n) is applied.
//
// A pass reads nt_src and writes nt_data, or reads nt_data where it runs
// in place (NT_IN_PLACE, a prelude bool: WebGPU refuses a buffer bound
// writable and bound again in one dispatch, so a pass in place binds its
// rows once and something else, never read, at nt_src): element pos of row r goes to nt_data[r·2^out_log +
// pos·out_stride + out_off], so that a transform's first pass can read
// another buffer and its last can write into wider rows (the cosets of a
// low-degree extension, side by side). With NT_AUX the last pass also
// copies nt_aux[r·2^k + pos] to nt_data[r·2^out_log + pos·out_stride +
// aux_off] (the input itself, where it is one of the cosets).
//
// Twiddles: w^e = A[e mod 2^a]·B[e >> a], two small tables (A[t] = w^t,
// B[t] = w^(t·2^a)) that the ntt_table kernel writes on the device, and
// O[t] = w^(t·2^(k-4)) (t < 8) for the radix-16 rounds; the scales
// likewise: S(i) = SA[i mod 2^sa]·SB[i >> sa].

// Only nt_data is written: WebGPU lets a dispatch bind a buffer at
// several read-only bindings (ranges that overlap included), but bound
// writable nowhere else (Go: Plan.passDispatch).
@group(0) @binding(0) var<storage, read> nt_src: array<u32>;
@group(0) @binding(1) var<storage, read_write> nt_data: array<u32>;
@group(0) @binding(2) var<storage, read> nt_tab: array<u32>;
@group(0) @binding(3) var<storage, read> nt_aux: array<u32>;

struct NtParams {
	log_n: u32,   // k: a row has 2^k elements
	units: u32,   // groups of 2^c columns in this dispatch
	lo: u32,      // the pass's lowest bit
	m: u32,       // its stages
	c_log: u32,   // log2 of the columns in a group
	q_log: u32,   // log2 of the groups in a workgroup
	flags: u32,   // NT_* below
	tw_a: u32,    // offset of A in nt_tab
	tw_b: u32,    // offset of B
	a_log: u32,   // log2 |A|
	sc_a: u32,    // offset of SA
	sc_b: u32,    // offset of SB
	sa_log: u32,  // log2 |SA|
	out_log: u32, // log2 of a row of nt_data
	out_stride: u32,
	out_off: u32,
	aux_off: u32,
	base_lo: u32, // ntt_table's base and scale, kernel form
	base_hi: u32,
	scale_lo: u32,
	scale_hi: u32,
	fuse_tw_a: u32, // NT_FUSE: the inverse's twiddles and scale
	fuse_tw_b: u32,
	fuse_sc_a: u32,
	fuse_sc_b: u32,
	tw_o: u32,       // offset of O: O[a] = w^(a·2^(k-4)), a < 8
	fuse_tw_o: u32,  // the inverse's O (NT_FUSE)
	check_slot: u32, // ntt_check.wgsl: the word of nt_first it keeps
	check_base: u32, // and the index of the rows' first element there
}
// NT_PARAMS_AT (prelude) is the uniform's binding, after the storage
// bindings: 4, or 5 with ntt_check.wgsl's, or 12 with ntt_tiles.wgsl's.
@group(0) @binding(NT_PARAMS_AT) var<uniform> nt: NtParams;

const NT_DIT: u32 = 1u;        // stages from the low bit up, b·w before the sums
const NT_ENTER: u32 = 2u;      // loads are canonical: enter Montgomery form
const NT_LEAVE: u32 = 4u;      // stores are canonical: leave Montgomery form
const NT_SCALE_IN: u32 = 8u;   // multiply each load by S(its index)
const NT_SCALE_OUT: u32 = 16u; // multiply each store by S(its index)
const NT_REV_IN: u32 = 32u;    // S's index of a load is its position bit-reversed
const NT_REV_OUT: u32 = 64u;   // S's index of a store is its position bit-reversed
const NT_AUX: u32 = 128u;      // copy nt_aux beside the stores
// NT_FUSE: before its own stages, the pass runs an inverse transform's
// last pass on its tile (DIF, the same bits, twiddles at fuse_tw_*) and
// multiplies each element by that inverse's scale S'(rev(pos)) (tables
// at fuse_sc_*) and then by its own NT_SCALE_IN (where both scales are
// powers at rev(pos), Go gives one table of their products at fuse_sc_*
// and no NT_SCALE_IN): a Reed-Solomon encoding's coefficients go from the
// inverse to the coset's transform without a trip through device memory.
const NT_FUSE: u32 = 256u;
// NT_DIF_OUT: the pass's last stages, DIF's last round or its pair (m
// even), store their elements to device memory themselves, as DIT's last
// round does, saving a trip through workgroup memory and a barrier. Go
// sets it on the strided passes (lo > 0), whose elements there are runs
// of columns; on the low bits they would be sixteen words apart across
// a warp.
const NT_DIF_OUT: u32 = 512u;
// NT_DIT_IN: DIT's first round loads its elements from device memory
// itself, as DIF's first round does (m a multiple of 4, so that a round
// comes first). Go sets it on the strided DIT passes, whose elements
// there are runs of columns.
const NT_DIT_IN: u32 = 1024u;
// NT_UNIT: the pass runs a row's lowest stages (lo = 0), whose twiddles
// are the same for every invocation: the round on bits 0..3
// (nt_radix16_unit) and the lone stage 0 run without the products of
// twiddle 1. Go sets it on the low bits' passes that have either
// (unitTwiddles). Only a module made for its passes' flags runs it
// (nt_fast): one that reads them (the software adapters') leaves it out.
const NT_UNIT: u32 = 2048u;

// NT_FLAGS (prelude) is the flags of every pass this module runs, or
// NT_FLAGS_ANY where its passes read them from NtParams: a module made for
// one set of them leaves out what the others would run, which costs a
// GPU's passes time even behind a branch not taken.
const NT_FLAGS_ANY: u32 = 0xffffffffu;

// nt_flags returns the pass's NT_* flags.
fn nt_flags() -> u32 {
	if (NT_FLAGS != NT_FLAGS_ANY) {
		return NT_FLAGS;
	}
	return nt.flags;
}

// nt_fast reports whether the module runs flag's own code: made for one
// set of flags (NT_FLAGS) that has it. Where a flag only saves work, a
// module for any flags runs the general code instead, and its compilers
// need not take in a second listing.
fn nt_fast(flag: u32) -> bool {
	return NT_FLAGS != NT_FLAGS_ANY && (NT_FLAGS & flag) != 0u;
}

var<workgroup> nt_sh: array<NtElem, NTT_TILE>;

// nt_sw is where element p of the tile lies in nt_sh: p with its low five
// bits xored with the five above, a permutation of each run of 32 that
// spreads a radix-16 round's strided loads over the banks (sixteen
// consecutive elements an invocation would fall on two banks) and leaves
// every run of 32 consecutive elements on 32 banks.
fn nt_sw(p: u32) -> u32 {
	return p ^ ((p >> 5u) & 31u);
}

// nt_twiddle returns w^e from the two tables at ta and tb.
fn nt_twiddle(e: u32, ta: u32, tb: u32) -> NtElem {
	let lo = e & ((1u << nt.a_log) - 1u);
	let hi = e >> nt.a_log;
	let wa = ne_tab(ta + lo);
	if (hi == 0u) {
		return wa;
	}
	let wb = ne_tab(tb + hi);
	if (lo == 0u) {
		return wb;
	}
	return ne_mul(wa, wb);
}

// nt_scale returns S(i) from the scale tables at sa and sb.
fn nt_scale(i: u32, sa: u32, sb: u32) -> NtElem {
	let lo = i & ((1u << nt.sa_log) - 1u);
	return ne_mul(ne_tab(sa + lo), ne_tab(sb + (i >> nt.sa_log)));
}

// nt_rev returns the k-bit reversal of a position in a row.
fn nt_rev(pos: u32) -> u32 {
	return reverseBits(pos) >> (32u - nt.log_n);
}

// nt_global returns the index in nt_data of element i (of 2^m) of column
// col (of 2^c) of group u.
fn nt_global(u: u32, i: u32, col: u32) -> u32 {
	let blocks_log = nt.lo - nt.c_log; // column blocks below the pass's bits
	let top = nt.lo + nt.m;
	let block = u & ((1u << blocks_log) - 1u);
	let rest = u >> blocks_log;
	let hi_log = nt.log_n - top;
	let hi = rest & ((1u << hi_log) - 1u);
	let row = rest >> hi_log;
	return (row << nt.log_n) | (hi << top) | (i << nt.lo) | (block << nt.c_log) | col;
}

// nt_stage runs the pass's stage t alone on the workgroup's tile, radix
// 2: what is left of m after the radix-16 rounds and a pair.
fn nt_stage(first: u32, tile: u32, unit_log: u32, tid: u32, dit: bool, ta: u32, tb: u32, t: u32) {
	let s = nt.lo + t;
	let tmask = (1u << t) - 1u;
	let half_log = unit_log - 1u;
	let cmask = (1u << nt.c_log) - 1u;
	let blocks_mask = (1u << (nt.lo - nt.c_log)) - 1u;
	for (var b = tid; b < tile / 2u; b += NTT_WG) {
		let q = b >> half_log;
		let r = b & ((1u << half_log) - 1u);
		let col = r & cmask;
		let ih = r >> nt.c_log;
		let i0 = ((ih >> t) << (t + 1u)) | (ih & tmask);
		let p0 = (q << unit_log) | (i0 << nt.c_log) | col;
		let p1 = p0 + (1u << (t + nt.c_log));
		let block = (first + q) & blocks_mask;
		let j = ((i0 & tmask) << nt.lo) | (block << nt.c_log) | col;
		let w = nt_twiddle(j << (nt.log_n - 1u - s), ta, tb);
		let a = nt_sh[nt_sw(p0)];
		let bb = nt_sh[nt_sw(p1)];
		if (!NT_BUTTERFLIES) {
			nt_sh[nt_sw(p0)] = nt_bare(a);
			nt_sh[nt_sw(p1)] = nt_bare(bb);
		} else if (nt_fast(NT_UNIT) && s == 0u) {
			// A row's lowest stage: every twiddle is 1.
			nt_sh[nt_sw(p0)] = ne_add(a, bb);
			nt_sh[nt_sw(p1)] = ne_sub(a, bb);
		} else if (dit) {
			let bw = ne_mul(bb, w);
			nt_sh[nt_sw(p0)] = ne_add(a, bw);
			nt_sh[nt_sw(p1)] = ne_sub(a, bw);
		} else {
			nt_sh[nt_sw(p0)] = ne_add(a, bb);
			nt_sh[nt_sw(p1)] = ne_mul(ne_sub(a, bb), w);
		}
	}
}

// nt_pair runs the pass's stages t and t-1 on the workgroup's tile, an
// invocation taking the four elements they pair, with one twiddle read
// (the other two are its square and its product with w4 = w^(2^(k-2))).
// With NT_IO_STORE in io (DIF's last stages, NT_DIF_OUT) it stores the
// four to device memory instead of the tile.
fn nt_pair(first: u32, tile: u32, unit_log: u32, tid: u32, dit: bool, ta: u32, tb: u32, t: u32, w4: NtElem, io: u32) {
	let cmask = (1u << nt.c_log) - 1u;
	let quarter_log = unit_log - 2u;
	let blocks_mask = (1u << (nt.lo - nt.c_log)) - 1u;
	let s = nt.lo + t;
	let lmask = (1u << (t - 1u)) - 1u;
	let d1 = 1u << (t - 1u + nt.c_log);
	let d2 = d1 << 1u;
	for (var b = tid; b < tile / 4u; b += NTT_WG) {
		let q = b >> quarter_log;
		let r = b & ((1u << quarter_log) - 1u);
		let col = r & cmask;
		let ih = r >> nt.c_log;
		let i0 = ((ih >> (t - 1u)) << (t + 1u)) | (ih & lmask);
		let p0 = (q << unit_log) | (i0 << nt.c_log) | col;
		let block = (first + q) & blocks_mask;
		let j = ((i0 & lmask) << nt.lo) | (block << nt.c_log) | col;
		// Stage t pairs i0 with i0 + 2^t at w^e and i0 + 2^(t-1)
		// with i0 + 2^t + 2^(t-1) at w^(e + 2^(k-2)); stage t-1 pairs
		// both at w^(2e).
		let w0 = nt_twiddle(j << (nt.log_n - 1u - s), ta, tb);
		let w1 = ne_mul(w0, w4);
		let w2 = ne_mul(w0, w0);
		let v0 = nt_sh[nt_sw(p0)];
		let v1 = nt_sh[nt_sw(p0 + d1)];
		let v2 = nt_sh[nt_sw(p0 + d2)];
		let v3 = nt_sh[nt_sw(p0 + d1 + d2)];
		// x: the four elements after the two stages, at i0, i0 + 2^(t-1),
		// i0 + 2^t and i0 + 2^t + 2^(t-1).
		var x: array<NtElem, 4>;
		if (!NT_BUTTERFLIES) {
			x = array<NtElem, 4>(nt_bare(v0), nt_bare(v1), nt_bare(v2), nt_bare(v3));
		} else if (dit) {
			let b1 = ne_mul(v1, w2);
			let b3 = ne_mul(v3, w2);
			let u0 = ne_add(v0, b1);
			let u1 = ne_sub(v0, b1);
			let u2 = ne_add(v2, b3);
			let u3 = ne_sub(v2, b3);
			let c2 = ne_mul(u2, w0);
			let c3 = ne_mul(u3, w1);
			x = array<NtElem, 4>(ne_add(u0, c2), ne_add(u1, c3), ne_sub(u0, c2), ne_sub(u1, c3));
		} else {
			let u0 = ne_add(v0, v2);
			let u2 = ne_mul(ne_sub(v0, v2), w0);
			let u1 = ne_add(v1, v3);
			let u3 = ne_mul(ne_sub(v1, v3), w1);
			x = array<NtElem, 4>(ne_add(u0, u1), ne_mul(ne_sub(u0, u1), w2), ne_add(u2, u3), ne_mul(ne_sub(u2, u3), w2));
		}
		if ((io & NT_IO_STORE) != 0u) {
			// A strided pass's last stages: consecutive invocations on
			// consecutive columns, so the stores are runs.
			let u = first + q;
			if (u < nt.units) {
				let g0 = nt_global(u, i0, col);
				let gd = 1u << (nt.lo + t - 1u);
				nt_store(g0, x[0], nt_aux_at(g0), 0u);
				nt_store(g0 + gd, x[1], nt_aux_at(g0 + gd), 0u);
				nt_store(g0 + 2u * gd, x[2], nt_aux_at(g0 + 2u * gd), 0u);
				nt_store(g0 + 3u * gd, x[3], nt_aux_at(g0 + 3u * gd), 0u);
			}
		} else {
			nt_sh[nt_sw(p0)] = x[0];
			nt_sh[nt_sw(p0 + d1)] = x[1];
			nt_sh[nt_sw(p0 + d2)] = x[2];
			nt_sh[nt_sw(p0 + d1 + d2)] = x[3];
		}
	}
}

// NT_BUTTERFLIES (prelude) is false in a module made to measure the
// passes' memory schedule alone: each round, pair and stage then adds one
// to its elements' words (nt_bare) instead of its butterflies, so that
// the compiler keeps every load and store, and the output is the input
// plus the steps each element went through (in each word of it). The
// product's modules set it true, and the branches fold away.

// nt_bare is a step's stand-in for its butterflies where !NT_BUTTERFLIES.
fn nt_bare(a: NtElem) -> NtElem {
	return a + NtElem(1u);
}

// nt_dif returns a DIF butterfly's pair: a + b, (a - b)·w.
fn nt_dif(a: NtElem, b: NtElem, w: NtElem) -> array<NtElem, 2> {
	return array<NtElem, 2>(ne_add(a, b), ne_mul(ne_sub(a, b), w));
}

// nt_dit returns a DIT butterfly's pair: a + b·w, a - b·w.
fn nt_dit(a: NtElem, b: NtElem, w: NtElem) -> array<NtElem, 2> {
	let bw = ne_mul(b, w);
	return array<NtElem, 2>(ne_add(a, bw), ne_sub(a, bw));
}

// nt_radix16 runs a radix-16 round's four stages on v in registers:
// DIF's stages 3 down to 0, or DIT's 0 up to 3. Stage q pairs x with x +
// 2^q at (w·o[a])^(2^(3-q)), a = x mod 2^q, o[a] = ω^a the table of
// sixteenth roots (o[0] = 1 is not read); so fourteen products of w make
// the fifteen twiddles. The passes' rounds and the ceiling benchmark's
// kernel (measured/ntt_ceiling.wgsl) run this same arithmetic.
fn nt_radix16(v: ptr<function, array<NtElem, 16>>, dit: bool, w: NtElem, o: array<NtElem, 8>) {
	if (nt_bare16(v)) {
		return;
	}
	// Stage 3's twiddles, then each stage's the squares of the one's above.
	let t8 = array<NtElem, 8>(w, ne_mul(w, o[1]), ne_mul(w, o[2]), ne_mul(w, o[3]), ne_mul(w, o[4]), ne_mul(w, o[5]), ne_mul(w, o[6]), ne_mul(w, o[7]));
	let t4 = array<NtElem, 4>(ne_mul(t8[0], t8[0]), ne_mul(t8[1], t8[1]), ne_mul(t8[2], t8[2]), ne_mul(t8[3], t8[3]));
	let t2 = array<NtElem, 2>(ne_mul(t4[0], t4[0]), ne_mul(t4[1], t4[1]));
	let t1 = ne_mul(t2[0], t2[0]);
	var x: array<NtElem, 2>;
	if (dit) {
		x = nt_dit((*v)[0], (*v)[1], t1); (*v)[0] = x[0]; (*v)[1] = x[1];
		x = nt_dit((*v)[2], (*v)[3], t1); (*v)[2] = x[0]; (*v)[3] = x[1];
		x = nt_dit((*v)[4], (*v)[5], t1); (*v)[4] = x[0]; (*v)[5] = x[1];
		x = nt_dit((*v)[6], (*v)[7], t1); (*v)[6] = x[0]; (*v)[7] = x[1];
		x = nt_dit((*v)[8], (*v)[9], t1); (*v)[8] = x[0]; (*v)[9] = x[1];
		x = nt_dit((*v)[10], (*v)[11], t1); (*v)[10] = x[0]; (*v)[11] = x[1];
		x = nt_dit((*v)[12], (*v)[13], t1); (*v)[12] = x[0]; (*v)[13] = x[1];
		x = nt_dit((*v)[14], (*v)[15], t1); (*v)[14] = x[0]; (*v)[15] = x[1];

		x = nt_dit((*v)[0], (*v)[2], t2[0]); (*v)[0] = x[0]; (*v)[2] = x[1];
		x = nt_dit((*v)[1], (*v)[3], t2[1]); (*v)[1] = x[0]; (*v)[3] = x[1];
		x = nt_dit((*v)[4], (*v)[6], t2[0]); (*v)[4] = x[0]; (*v)[6] = x[1];
		x = nt_dit((*v)[5], (*v)[7], t2[1]); (*v)[5] = x[0]; (*v)[7] = x[1];
		x = nt_dit((*v)[8], (*v)[10], t2[0]); (*v)[8] = x[0]; (*v)[10] = x[1];
		x = nt_dit((*v)[9], (*v)[11], t2[1]); (*v)[9] = x[0]; (*v)[11] = x[1];
		x = nt_dit((*v)[12], (*v)[14], t2[0]); (*v)[12] = x[0]; (*v)[14] = x[1];
		x = nt_dit((*v)[13], (*v)[15], t2[1]); (*v)[13] = x[0]; (*v)[15] = x[1];

		x = nt_dit((*v)[0], (*v)[4], t4[0]); (*v)[0] = x[0]; (*v)[4] = x[1];
		x = nt_dit((*v)[1], (*v)[5], t4[1]); (*v)[1] = x[0]; (*v)[5] = x[1];
		x = nt_dit((*v)[2], (*v)[6], t4[2]); (*v)[2] = x[0]; (*v)[6] = x[1];
		x = nt_dit((*v)[3], (*v)[7], t4[3]); (*v)[3] = x[0]; (*v)[7] = x[1];
		x = nt_dit((*v)[8], (*v)[12], t4[0]); (*v)[8] = x[0]; (*v)[12] = x[1];
		x = nt_dit((*v)[9], (*v)[13], t4[1]); (*v)[9] = x[0]; (*v)[13] = x[1];
		x = nt_dit((*v)[10], (*v)[14], t4[2]); (*v)[10] = x[0]; (*v)[14] = x[1];
		x = nt_dit((*v)[11], (*v)[15], t4[3]); (*v)[11] = x[0]; (*v)[15] = x[1];

		x = nt_dit((*v)[0], (*v)[8], t8[0]); (*v)[0] = x[0]; (*v)[8] = x[1];
		x = nt_dit((*v)[1], (*v)[9], t8[1]); (*v)[1] = x[0]; (*v)[9] = x[1];
		x = nt_dit((*v)[2], (*v)[10], t8[2]); (*v)[2] = x[0]; (*v)[10] = x[1];
		x = nt_dit((*v)[3], (*v)[11], t8[3]); (*v)[3] = x[0]; (*v)[11] = x[1];
		x = nt_dit((*v)[4], (*v)[12], t8[4]); (*v)[4] = x[0]; (*v)[12] = x[1];
		x = nt_dit((*v)[5], (*v)[13], t8[5]); (*v)[5] = x[0]; (*v)[13] = x[1];
		x = nt_dit((*v)[6], (*v)[14], t8[6]); (*v)[6] = x[0]; (*v)[14] = x[1];
		x = nt_dit((*v)[7], (*v)[15], t8[7]); (*v)[7] = x[0]; (*v)[15] = x[1];
	} else {
		x = nt_dif((*v)[0], (*v)[8], t8[0]); (*v)[0] = x[0]; (*v)[8] = x[1];
		x = nt_dif((*v)[1], (*v)[9], t8[1]); (*v)[1] = x[0]; (*v)[9] = x[1];
		x = nt_dif((*v)[2], (*v)[10], t8[2]); (*v)[2] = x[0]; (*v)[10] = x[1];
		x = nt_dif((*v)[3], (*v)[11], t8[3]); (*v)[3] = x[0]; (*v)[11] = x[1];
		x = nt_dif((*v)[4], (*v)[12], t8[4]); (*v)[4] = x[0]; (*v)[12] = x[1];
		x = nt_dif((*v)[5], (*v)[13], t8[5]); (*v)[5] = x[0]; (*v)[13] = x[1];
		x = nt_dif((*v)[6], (*v)[14], t8[6]); (*v)[6] = x[0]; (*v)[14] = x[1];
		x = nt_dif((*v)[7], (*v)[15], t8[7]); (*v)[7] = x[0]; (*v)[15] = x[1];

		x = nt_dif((*v)[0], (*v)[4], t4[0]); (*v)[0] = x[0]; (*v)[4] = x[1];
		x = nt_dif((*v)[1], (*v)[5], t4[1]); (*v)[1] = x[0]; (*v)[5] = x[1];
		x = nt_dif((*v)[2], (*v)[6], t4[2]); (*v)[2] = x[0]; (*v)[6] = x[1];
		x = nt_dif((*v)[3], (*v)[7], t4[3]); (*v)[3] = x[0]; (*v)[7] = x[1];
		x = nt_dif((*v)[8], (*v)[12], t4[0]); (*v)[8] = x[0]; (*v)[12] = x[1];
		x = nt_dif((*v)[9], (*v)[13], t4[1]); (*v)[9] = x[0]; (*v)[13] = x[1];
		x = nt_dif((*v)[10], (*v)[14], t4[2]); (*v)[10] = x[0]; (*v)[14] = x[1];
		x = nt_dif((*v)[11], (*v)[15], t4[3]); (*v)[11] = x[0]; (*v)[15] = x[1];

		x = nt_dif((*v)[0], (*v)[2], t2[0]); (*v)[0] = x[0]; (*v)[2] = x[1];
		x = nt_dif((*v)[1], (*v)[3], t2[1]); (*v)[1] = x[0]; (*v)[3] = x[1];
		x = nt_dif((*v)[4], (*v)[6], t2[0]); (*v)[4] = x[0]; (*v)[6] = x[1];
		x = nt_dif((*v)[5], (*v)[7], t2[1]); (*v)[5] = x[0]; (*v)[7] = x[1];
		x = nt_dif((*v)[8], (*v)[10], t2[0]); (*v)[8] = x[0]; (*v)[10] = x[1];
		x = nt_dif((*v)[9], (*v)[11], t2[1]); (*v)[9] = x[0]; (*v)[11] = x[1];
		x = nt_dif((*v)[12], (*v)[14], t2[0]); (*v)[12] = x[0]; (*v)[14] = x[1];
		x = nt_dif((*v)[13], (*v)[15], t2[1]); (*v)[13] = x[0]; (*v)[15] = x[1];

		x = nt_dif((*v)[0], (*v)[1], t1); (*v)[0] = x[0]; (*v)[1] = x[1];
		x = nt_dif((*v)[2], (*v)[3], t1); (*v)[2] = x[0]; (*v)[3] = x[1];
		x = nt_dif((*v)[4], (*v)[5], t1); (*v)[4] = x[0]; (*v)[5] = x[1];
		x = nt_dif((*v)[6], (*v)[7], t1); (*v)[6] = x[0]; (*v)[7] = x[1];
		x = nt_dif((*v)[8], (*v)[9], t1); (*v)[8] = x[0]; (*v)[9] = x[1];
		x = nt_dif((*v)[10], (*v)[11], t1); (*v)[10] = x[0]; (*v)[11] = x[1];
		x = nt_dif((*v)[12], (*v)[13], t1); (*v)[12] = x[0]; (*v)[13] = x[1];
		x = nt_dif((*v)[14], (*v)[15], t1); (*v)[14] = x[0]; (*v)[15] = x[1];
	}
}

// nt_bare16 runs a bare round's stand-in on v where !NT_BUTTERFLIES,
// and reports whether it did (the radix-16 rounds then do nothing
// else).
fn nt_bare16(v: ptr<function, array<NtElem, 16>>) -> bool {
	if (NT_BUTTERFLIES) {
		return false;
	}
	for (var x = 0u; x < 16u; x++) {
		(*v)[x] = nt_bare((*v)[x]);
	}
	return true;
}

// nt_one returns a butterfly's pair at twiddle 1, DIT's or DIF's alike:
// a + b, a - b.
fn nt_one(a: NtElem, b: NtElem) -> array<NtElem, 2> {
	return array<NtElem, 2>(ne_add(a, b), ne_sub(a, b));
}

// nt_radix16_unit is nt_radix16 where w is 1 (NT_UNIT: the round on a
// row's lowest bits): stage q's twiddles are then o[a·2^(3-q)] as they
// are, and its butterflies at 1 take no product, 29 products fewer.
// Written out like nt_radix16's listing, every index a constant (a
// form that indexed the elements through a pointer ran as fast on the
// H200, but leaves the keeping of v in registers to each compiler).
fn nt_radix16_unit(v: ptr<function, array<NtElem, 16>>, dit: bool, o: array<NtElem, 8>) {
	if (nt_bare16(v)) {
		return;
	}
	var x: array<NtElem, 2>;
	if (dit) {
		x = nt_one((*v)[0], (*v)[1]); (*v)[0] = x[0]; (*v)[1] = x[1];
		x = nt_one((*v)[2], (*v)[3]); (*v)[2] = x[0]; (*v)[3] = x[1];
		x = nt_one((*v)[4], (*v)[5]); (*v)[4] = x[0]; (*v)[5] = x[1];
		x = nt_one((*v)[6], (*v)[7]); (*v)[6] = x[0]; (*v)[7] = x[1];
		x = nt_one((*v)[8], (*v)[9]); (*v)[8] = x[0]; (*v)[9] = x[1];
		x = nt_one((*v)[10], (*v)[11]); (*v)[10] = x[0]; (*v)[11] = x[1];
		x = nt_one((*v)[12], (*v)[13]); (*v)[12] = x[0]; (*v)[13] = x[1];
		x = nt_one((*v)[14], (*v)[15]); (*v)[14] = x[0]; (*v)[15] = x[1];

		x = nt_one((*v)[0], (*v)[2]); (*v)[0] = x[0]; (*v)[2] = x[1];
		x = nt_dit((*v)[1], (*v)[3], o[4]); (*v)[1] = x[0]; (*v)[3] = x[1];
		x = nt_one((*v)[4], (*v)[6]); (*v)[4] = x[0]; (*v)[6] = x[1];
		x = nt_dit((*v)[5], (*v)[7], o[4]); (*v)[5] = x[0]; (*v)[7] = x[1];
		x = nt_one((*v)[8], (*v)[10]); (*v)[8] = x[0]; (*v)[10] = x[1];
		x = nt_dit((*v)[9], (*v)[11], o[4]); (*v)[9] = x[0]; (*v)[11] = x[1];
		x = nt_one((*v)[12], (*v)[14]); (*v)[12] = x[0]; (*v)[14] = x[1];
		x = nt_dit((*v)[13], (*v)[15], o[4]); (*v)[13] = x[0]; (*v)[15] = x[1];

		x = nt_one((*v)[0], (*v)[4]); (*v)[0] = x[0]; (*v)[4] = x[1];
		x = nt_dit((*v)[1], (*v)[5], o[2]); (*v)[1] = x[0]; (*v)[5] = x[1];
		x = nt_dit((*v)[2], (*v)[6], o[4]); (*v)[2] = x[0]; (*v)[6] = x[1];
		x = nt_dit((*v)[3], (*v)[7], o[6]); (*v)[3] = x[0]; (*v)[7] = x[1];
		x = nt_one((*v)[8], (*v)[12]); (*v)[8] = x[0]; (*v)[12] = x[1];
		x = nt_dit((*v)[9], (*v)[13], o[2]); (*v)[9] = x[0]; (*v)[13] = x[1];
		x = nt_dit((*v)[10], (*v)[14], o[4]); (*v)[10] = x[0]; (*v)[14] = x[1];
		x = nt_dit((*v)[11], (*v)[15], o[6]); (*v)[11] = x[0]; (*v)[15] = x[1];

		x = nt_one((*v)[0], (*v)[8]); (*v)[0] = x[0]; (*v)[8] = x[1];
		x = nt_dit((*v)[1], (*v)[9], o[1]); (*v)[1] = x[0]; (*v)[9] = x[1];
		x = nt_dit((*v)[2], (*v)[10], o[2]); (*v)[2] = x[0]; (*v)[10] = x[1];
		x = nt_dit((*v)[3], (*v)[11], o[3]); (*v)[3] = x[0]; (*v)[11] = x[1];
		x = nt_dit((*v)[4], (*v)[12], o[4]); (*v)[4] = x[0]; (*v)[12] = x[1];
		x = nt_dit((*v)[5], (*v)[13], o[5]); (*v)[5] = x[0]; (*v)[13] = x[1];
		x = nt_dit((*v)[6], (*v)[14], o[6]); (*v)[6] = x[0]; (*v)[14] = x[1];
		x = nt_dit((*v)[7], (*v)[15], o[7]); (*v)[7] = x[0]; (*v)[15] = x[1];
	} else {
		x = nt_one((*v)[0], (*v)[8]); (*v)[0] = x[0]; (*v)[8] = x[1];
		x = nt_dif((*v)[1], (*v)[9], o[1]); (*v)[1] = x[0]; (*v)[9] = x[1];
		x = nt_dif((*v)[2], (*v)[10], o[2]); (*v)[2] = x[0]; (*v)[10] = x[1];
		x = nt_dif((*v)[3], (*v)[11], o[3]); (*v)[3] = x[0]; (*v)[11] = x[1];
		x = nt_dif((*v)[4], (*v)[12], o[4]); (*v)[4] = x[0]; (*v)[12] = x[1];
		x = nt_dif((*v)[5], (*v)[13], o[5]); (*v)[5] = x[0]; (*v)[13] = x[1];
		x = nt_dif((*v)[6], (*v)[14], o[6]); (*v)[6] = x[0]; (*v)[14] = x[1];
		x = nt_dif((*v)[7], (*v)[15], o[7]); (*v)[7] = x[0]; (*v)[15] = x[1];

		x = nt_one((*v)[0], (*v)[4]); (*v)[0] = x[0]; (*v)[4] = x[1];
		x = nt_dif((*v)[1], (*v)[5], o[2]); (*v)[1] = x[0]; (*v)[5] = x[1];
		x = nt_dif((*v)[2], (*v)[6], o[4]); (*v)[2] = x[0]; (*v)[6] = x[1];
		x = nt_dif((*v)[3], (*v)[7], o[6]); (*v)[3] = x[0]; (*v)[7] = x[1];
		x = nt_one((*v)[8], (*v)[12]); (*v)[8] = x[0]; (*v)[12] = x[1];
		x = nt_dif((*v)[9], (*v)[13], o[2]); (*v)[9] = x[0]; (*v)[13] = x[1];
		x = nt_dif((*v)[10], (*v)[14], o[4]); (*v)[10] = x[0]; (*v)[14] = x[1];
		x = nt_dif((*v)[11], (*v)[15], o[6]); (*v)[11] = x[0]; (*v)[15] = x[1];

		x = nt_one((*v)[0], (*v)[2]); (*v)[0] = x[0]; (*v)[2] = x[1];
		x = nt_dif((*v)[1], (*v)[3], o[4]); (*v)[1] = x[0]; (*v)[3] = x[1];
		x = nt_one((*v)[4], (*v)[6]); (*v)[4] = x[0]; (*v)[6] = x[1];
		x = nt_dif((*v)[5], (*v)[7], o[4]); (*v)[5] = x[0]; (*v)[7] = x[1];
		x = nt_one((*v)[8], (*v)[10]); (*v)[8] = x[0]; (*v)[10] = x[1];
		x = nt_dif((*v)[9], (*v)[11], o[4]); (*v)[9] = x[0]; (*v)[11] = x[1];
		x = nt_one((*v)[12], (*v)[14]); (*v)[12] = x[0]; (*v)[14] = x[1];
		x = nt_dif((*v)[13], (*v)[15], o[4]); (*v)[13] = x[0]; (*v)[15] = x[1];

		x = nt_one((*v)[0], (*v)[1]); (*v)[0] = x[0]; (*v)[1] = x[1];
		x = nt_one((*v)[2], (*v)[3]); (*v)[2] = x[0]; (*v)[3] = x[1];
		x = nt_one((*v)[4], (*v)[5]); (*v)[4] = x[0]; (*v)[5] = x[1];
		x = nt_one((*v)[6], (*v)[7]); (*v)[6] = x[0]; (*v)[7] = x[1];
		x = nt_one((*v)[8], (*v)[9]); (*v)[8] = x[0]; (*v)[9] = x[1];
		x = nt_one((*v)[10], (*v)[11]); (*v)[10] = x[0]; (*v)[11] = x[1];
		x = nt_one((*v)[12], (*v)[13]); (*v)[12] = x[0]; (*v)[13] = x[1];
		x = nt_one((*v)[14], (*v)[15]); (*v)[14] = x[0]; (*v)[15] = x[1];
	}
}

// nt_round16 runs the pass's stages t0+3 down to t0 (DIF) or t0 up to
// t0+3 (DIT) on the workgroup's tile, radix 16: an invocation takes the
// sixteen elements i0 + x·2^t0 (x < 16) that the four stages pair and
// runs the 32 butterflies in registers, one barrier a round instead of
// one a stage pair. With W = w^(J·2^(k-4-s0)) (s0 = lo + t0, J the bits
// below s0 of the group's index), stage s0+q pairs x with x + 2^q at
// W^(2^(3-q))·w^(a·2^(k-1-q)) for a = x mod 2^q: (W·ω^a)^(2^(3-q)) with ω
// = w^(2^(k-4)), a sixteenth root of unity; so one twiddle read and
// fourteen products give the fifteen twiddles. io (NT_IO_*) says whether
// it loads its elements from device memory (nt_load) instead of the tile,
// and stores them there (nt_store): DIF's first round or DIT's last (the
// top bits), for which a group's elements are a column of the pass's
// unit, or DIF's last (NT_DIF_OUT).
fn nt_round16(first: u32, tile: u32, unit_log: u32, tid: u32, dit: bool, ta: u32, tb: u32, to: u32, t0: u32, io: u32) {
	let cmask = (1u << nt.c_log) - 1u;
	let blocks_mask = (1u << (nt.lo - nt.c_log)) - 1u;
	let sixteenth_log = unit_log - 4u;
	let s0 = nt.lo + t0;
	let lmask = (1u << t0) - 1u;
	let d = 1u << (t0 + nt.c_log);
	let ks = nt.log_n - 4u;
	// ω^a for a < 8 (uniform: the same table words for every invocation).
	let o = array<NtElem, 8>(ne_tab(to), ne_tab(to + 1u), ne_tab(to + 2u), ne_tab(to + 3u), ne_tab(to + 4u), ne_tab(to + 5u), ne_tab(to + 6u), ne_tab(to + 7u));
	for (var b = tid; b < tile / 16u; b += NTT_WG) {
		let q = b >> sixteenth_log;
		let r = b & ((1u << sixteenth_log) - 1u);
		let col = r & cmask;
		let ih = r >> nt.c_log;
		let i0 = ((ih >> t0) << (t0 + 4u)) | (ih & lmask);
		let p0 = (q << unit_log) | (i0 << nt.c_log) | col;
		let block = (first + q) & blocks_mask;
		let jj = ((i0 & lmask) << nt.lo) | (block << nt.c_log) | col;
		let w = nt_twiddle(jj << (ks - s0), ta, tb);
		// The round on the pass's top bits may read its elements from
		// device memory and write them there (io): its sixteen elements
		// are then 2^(lo+t0) apart in the row, consecutive invocations on
		// consecutive columns or elements.
		let u = first + q;
		let g0 = nt_global(u, i0, col);
		let gd = 1u << (nt.lo + t0);
		var v: array<NtElem, 16>;
		if ((io & NT_IO_LOAD) != 0u) {
			if (u < nt.units) {
				v[0] = nt_load(g0);
				v[1] = nt_load(g0 + gd);
				v[2] = nt_load(g0 + 2u * gd);
				v[3] = nt_load(g0 + 3u * gd);
				v[4] = nt_load(g0 + 4u * gd);
				v[5] = nt_load(g0 + 5u * gd);
				v[6] = nt_load(g0 + 6u * gd);
				v[7] = nt_load(g0 + 7u * gd);
				v[8] = nt_load(g0 + 8u * gd);
				v[9] = nt_load(g0 + 9u * gd);
				v[10] = nt_load(g0 + 10u * gd);
				v[11] = nt_load(g0 + 11u * gd);
				v[12] = nt_load(g0 + 12u * gd);
				v[13] = nt_load(g0 + 13u * gd);
				v[14] = nt_load(g0 + 14u * gd);
				v[15] = nt_load(g0 + 15u * gd);
			}
		} else {
			v[0] = nt_sh[nt_sw(p0)];
			v[1] = nt_sh[nt_sw(p0 + d)];
			v[2] = nt_sh[nt_sw(p0 + 2u * d)];
			v[3] = nt_sh[nt_sw(p0 + 3u * d)];
			v[4] = nt_sh[nt_sw(p0 + 4u * d)];
			v[5] = nt_sh[nt_sw(p0 + 5u * d)];
			v[6] = nt_sh[nt_sw(p0 + 6u * d)];
			v[7] = nt_sh[nt_sw(p0 + 7u * d)];
			v[8] = nt_sh[nt_sw(p0 + 8u * d)];
			v[9] = nt_sh[nt_sw(p0 + 9u * d)];
			v[10] = nt_sh[nt_sw(p0 + 10u * d)];
			v[11] = nt_sh[nt_sw(p0 + 11u * d)];
			v[12] = nt_sh[nt_sw(p0 + 12u * d)];
			v[13] = nt_sh[nt_sw(p0 + 13u * d)];
			v[14] = nt_sh[nt_sw(p0 + 14u * d)];
			v[15] = nt_sh[nt_sw(p0 + 15u * d)];
		}
		// Where NT_AUX and this round stores, the input's sixteen elements
		// that go beside the stores are loaded before the butterflies, so
		// that their latency overlaps the arithmetic. Loaded after the
		// butterflies, all before the first store, they gained nothing
		// (BENCHMARKS.md, "The encoding's input loaded before its last
		// butterflies").
		var a: array<NtElem, 16>;
		if ((io & NT_IO_STORE) != 0u && (nt_flags() & NT_AUX) != 0u && u < nt.units) {
			a[0] = ne_aux(g0);
			a[1] = ne_aux(g0 + gd);
			a[2] = ne_aux(g0 + 2u * gd);
			a[3] = ne_aux(g0 + 3u * gd);
			a[4] = ne_aux(g0 + 4u * gd);
			a[5] = ne_aux(g0 + 5u * gd);
			a[6] = ne_aux(g0 + 6u * gd);
			a[7] = ne_aux(g0 + 7u * gd);
			a[8] = ne_aux(g0 + 8u * gd);
			a[9] = ne_aux(g0 + 9u * gd);
			a[10] = ne_aux(g0 + 10u * gd);
			a[11] = ne_aux(g0 + 11u * gd);
			a[12] = ne_aux(g0 + 12u * gd);
			a[13] = ne_aux(g0 + 13u * gd);
			a[14] = ne_aux(g0 + 14u * gd);
			a[15] = ne_aux(g0 + 15u * gd);
		}
		if (nt_fast(NT_UNIT) && s0 == 0u) {
			// The round on a row's lowest bits, where w is 1.
			nt_radix16_unit(&v, dit, o);
		} else {
			nt_radix16(&v, dit, w, o);
		}
		if ((io & NT_IO_STORE) != 0u) {
			if (u < nt.units) {
				nt_store(g0, v[0], a[0], nt_slot(0u));
				nt_store(g0 + gd, v[1], a[1], nt_slot(1u));
				nt_store(g0 + 2u * gd, v[2], a[2], nt_slot(2u));
				nt_store(g0 + 3u * gd, v[3], a[3], nt_slot(3u));
				nt_store(g0 + 4u * gd, v[4], a[4], nt_slot(4u));
				nt_store(g0 + 5u * gd, v[5], a[5], nt_slot(5u));
				nt_store(g0 + 6u * gd, v[6], a[6], nt_slot(6u));
				nt_store(g0 + 7u * gd, v[7], a[7], nt_slot(7u));
				nt_store(g0 + 8u * gd, v[8], a[8], nt_slot(8u));
				nt_store(g0 + 9u * gd, v[9], a[9], nt_slot(9u));
				nt_store(g0 + 10u * gd, v[10], a[10], nt_slot(10u));
				nt_store(g0 + 11u * gd, v[11], a[11], nt_slot(11u));
				nt_store(g0 + 12u * gd, v[12], a[12], nt_slot(12u));
				nt_store(g0 + 13u * gd, v[13], a[13], nt_slot(13u));
				nt_store(g0 + 14u * gd, v[14], a[14], nt_slot(14u));
				nt_store(g0 + 15u * gd, v[15], a[15], nt_slot(15u));
			}
		} else {
			nt_sh[nt_sw(p0)] = v[0];
			nt_sh[nt_sw(p0 + d)] = v[1];
			nt_sh[nt_sw(p0 + 2u * d)] = v[2];
			nt_sh[nt_sw(p0 + 3u * d)] = v[3];
			nt_sh[nt_sw(p0 + 4u * d)] = v[4];
			nt_sh[nt_sw(p0 + 5u * d)] = v[5];
			nt_sh[nt_sw(p0 + 6u * d)] = v[6];
			nt_sh[nt_sw(p0 + 7u * d)] = v[7];
			nt_sh[nt_sw(p0 + 8u * d)] = v[8];
			nt_sh[nt_sw(p0 + 9u * d)] = v[9];
			nt_sh[nt_sw(p0 + 10u * d)] = v[10];
			nt_sh[nt_sw(p0 + 11u * d)] = v[11];
			nt_sh[nt_sw(p0 + 12u * d)] = v[12];
			nt_sh[nt_sw(p0 + 13u * d)] = v[13];
			nt_sh[nt_sw(p0 + 14u * d)] = v[14];
			nt_sh[nt_sw(p0 + 15u * d)] = v[15];
		}
	}
}

// nt_stages runs the pass's stages on the workgroup's tile, DIF or DIT,
// with the twiddles of the tables at ta, tb and to, and ends on a barrier.
// DIF's stages run from the top down, DIT's from the bottom up: m = 4·r
// + e stages as r radix-16 rounds on the top 4·r and e below them, a pair
// (radix 4) where e >= 2 and one stage alone where e is odd, a barrier
// after each round. io (NT_IO_*) lets DIF's first round load the tile
// from device memory and DIT's last store it there, or DIF's last round
// or pair (NT_DIF_OUT: then e is even) and DIT's first round (NT_DIT_IN:
// then e is 0); NT_IO_NO_LOW leaves out the pair and the stage alone.
fn nt_stages(first: u32, tile: u32, unit_log: u32, tid: u32, dit: bool, ta: u32, tb: u32, to: u32, io: u32) {
	let rounds = nt.m >> 2u;
	let e = nt.m & 3u;
	// The stages below the rounds that run here: none where NT_IO_NO_LOW.
	let low = select(e, 0u, (io & NT_IO_NO_LOW) != 0u);
	// w^(2^(k-2)): a fourth root of unity (for a pair, k >= 2).
	let w4 = nt_twiddle(select(0u, 1u << (nt.log_n - 2u), nt.log_n >= 2u), ta, tb);
	if (dit) {
		if ((low & 1u) != 0u) {
			nt_stage(first, tile, unit_log, tid, true, ta, tb, 0u);
			workgroupBarrier();
		}
		if (low >= 2u) {
			nt_pair(first, tile, unit_log, tid, true, ta, tb, e - 1u, w4, 0u);
			workgroupBarrier();
		}
		for (var i = 0u; i < rounds; i++) {
			nt_round16(first, tile, unit_log, tid, true, ta, tb, to, e + 4u * i, select(0u, io & NT_IO_STORE, i + 1u == rounds) | select(0u, io & NT_IO_LOAD, i == 0u && e == 0u));
			workgroupBarrier();
		}
	} else {
		for (var i = 0u; i < rounds; i++) {
			let last = i + 1u == rounds && e == 0u;
			nt_round16(first, tile, unit_log, tid, false, ta, tb, to, nt.m - 4u - 4u * i, select(0u, io & NT_IO_LOAD, i == 0u) | select(0u, io & NT_IO_STORE, last));
			workgroupBarrier();
		}
		if (low >= 2u) {
			nt_pair(first, tile, unit_log, tid, false, ta, tb, e - 1u, w4, select(0u, io & NT_IO_STORE, (e & 1u) == 0u));
			workgroupBarrier();
		}
		if ((low & 1u) != 0u) {
			nt_stage(first, tile, unit_log, tid, false, ta, tb, 0u);
			workgroupBarrier();
		}
	}
}

// NT_IO_LOAD and NT_IO_STORE: nt_stages' first round loads the tile from
// device memory, its last stores it there (nt_round16).
const NT_IO_LOAD: u32 = 1u;
const NT_IO_STORE: u32 = 2u;
// NT_IO_NO_LOW: nt_stages leaves out the stages below its rounds, the
// pair and the stage alone (a fused pass runs them, nt_fuse_low).
const NT_IO_NO_LOW: u32 = 4u;

// nt_load returns element g of the rows (nt_global's index) as a pass's
// first stage takes it: checked where the module checks, entered and
// scaled as the flags say.
fn nt_load(g: u32) -> NtElem {
	var v: NtElem;
	if (NT_IN_PLACE) {
		v = ne_data(g);
	} else {
		v = ne_src(g);
	}
	nt_check(g, v);
	if ((nt_flags() & NT_ENTER) != 0u) {
		v = ne_enter(v);
	}
	if ((nt_flags() & (NT_SCALE_IN | NT_FUSE)) == NT_SCALE_IN) {
		v = nt_scale_in(v, g & ((1u << nt.log_n) - 1u));
	}
	return v;
}

// nt_store writes v, element g of the rows after the pass's last stage,
// where the layout puts it, scaled and left as the flags say, with a
// (nt_aux's element g, nt_aux_at) beside it where NT_AUX; slot is its
// tile where the output is tiled (ntt_tiles.wgsl: a constant at each
// call).
fn nt_store(g: u32, v0: NtElem, a: NtElem, slot: u32) {
	let pos = g & ((1u << nt.log_n) - 1u);
	var v = v0;
	if ((nt_flags() & NT_SCALE_OUT) != 0u) {
		v = ne_mul(v, nt_scale(select(pos, nt_rev(pos), (nt_flags() & NT_REV_OUT) != 0u), nt.sc_a, nt.sc_b));
	}
	if ((nt_flags() & NT_LEAVE) != 0u) {
		v = ne_leave(v);
	}
	let base = ((g >> nt.log_n) << nt.out_log) + pos * nt.out_stride;
	nt_put(base + nt.out_off, slot, v);
	if ((nt_flags() & NT_AUX) != 0u) {
		nt_put(base + nt.aux_off, slot, a);
	}
}

// nt_aux_at returns nt_aux's element g where NT_AUX (nt_store's a), else
// nothing read.
fn nt_aux_at(g: u32) -> NtElem {
	if ((nt_flags() & NT_AUX) != 0u) {
		return ne_aux(g);
	}
	return NtElem();
}

// nt_slot returns the tile of element x of the last round of a DIT pass
// on a row's top bits (ntt_tiles.wgsl): x's four bits are the top bits of
// its column, so the tiles' 2^NT_TILES_LOG are its top NT_TILES_LOG; 0
// where the output is whole rows (NT_TILES_LOG = 0).
fn nt_slot(x: u32) -> u32 {
	return x >> (4u - NT_TILES_LOG);
}

// nt_fuse_scale returns v, element pos of a row after the fused
// inverse's stages, times the inverse's scale and the pass's own
// (NT_FUSE).
fn nt_fuse_scale(v: NtElem, pos: u32) -> NtElem {
	let x = ne_mul(v, nt_scale(nt_rev(pos), nt.fuse_sc_a, nt.fuse_sc_b));
	if ((nt_flags() & NT_SCALE_IN) != 0u) {
		return nt_scale_in(x, pos);
	}
	return x;
}

// nt_scale_in returns v, element pos of a row, times the pass's own
// scale S(pos), or S(rev(pos)) where NT_REV_IN (NT_SCALE_IN).
fn nt_scale_in(v: NtElem, pos: u32) -> NtElem {
	return ne_mul(v, nt_scale(select(pos, nt_rev(pos), (nt_flags() & NT_REV_IN) != 0u), nt.sc_a, nt.sc_b));
}

// nt_block_stage runs stage t of nt_fuse_low's block of n elements in x,
// DIT's butterflies or DIF's: offset i with i + 2^t at w[4t + (i mod
// 2^t)], at 1 where i mod 2^t is 0. A stage of 2^t >= n pairs nothing.
fn nt_block_stage(x: ptr<function, array<NtElem, 8>>, n: u32, t: u32, dit: bool, w: ptr<function, array<NtElem, 12>>) {
	let h = 1u << t;
	for (var i = 0u; i < 8u; i++) {
		if ((i & h) == 0u && i + h < n) {
			let j = i & (h - 1u);
			var y = nt_one((*x)[i], (*x)[i + h]);
			if (j != 0u && dit) {
				y = nt_dit((*x)[i], (*x)[i + h], (*w)[4u * t + j]);
			} else if (j != 0u) {
				y = nt_dif((*x)[i], (*x)[i + h], (*w)[4u * t + j]);
			}
			(*x)[i] = y[0];
			(*x)[i + h] = y[1];
		}
	}
}

// nt_fuse_low runs a fused pass's inverse's last e = m mod 4 stages
// (DIF), the scales and the pass's own first e stages (DIT) on each block
// of 2^e consecutive elements of the tile, in registers: both transforms'
// stages there are the row's lowest e bits (a fused pass is the low bits'
// pass: lo = 0 and c_log = 0), on the same blocks, so nothing goes
// through workgroup memory between them. Stage t pairs offset i with i +
// 2^t at w^((i mod 2^t)·2^(k-1-t)), a root of order 2^(t+1) at most: the
// same for every block, so each is read once.
fn nt_fuse_low(first: u32, tile: u32, unit_log: u32, tid: u32) {
	let e = nt.m & 3u;
	let n = 1u << e;
	let nmask = (1u << nt.log_n) - 1u;
	let ks = nt.log_n - 1u;
	// wi[4t + j] and wf[4t + j]: stage t's twiddle at offset j, the
	// inverse's and the pass's own.
	var wi: array<NtElem, 12>;
	var wf: array<NtElem, 12>;
	for (var t = 0u; t < 3u; t++) {
		for (var j = 1u; j < 4u; j++) {
			if (t < e && j < (1u << t)) {
				wi[4u * t + j] = nt_twiddle(j << (ks - t), nt.fuse_tw_a, nt.fuse_tw_b);
				wf[4u * t + j] = nt_twiddle(j << (ks - t), nt.tw_a, nt.tw_b);
			}
		}
	}
	let per_log = unit_log - e;
	for (var b = tid; b < (tile >> e); b += NTT_WG) {
		let q = b >> per_log;
		let u = first + q;
		if (u >= nt.units) {
			continue;
		}
		let i0 = (b & ((1u << per_log) - 1u)) << e;
		let p0 = (q << unit_log) | i0;
		var x: array<NtElem, 8>;
		for (var i = 0u; i < 8u; i++) {
			if (i < n) {
				x[i] = nt_sh[nt_sw(p0 + i)];
			}
		}
		if (NT_BUTTERFLIES) {
			// The inverse's stages, from the top down.
			for (var tt = 0u; tt < 3u; tt++) {
				nt_block_stage(&x, n, 2u - tt, false, &wi);
			}
			for (var i = 0u; i < 8u; i++) {
				if (i < n) {
					x[i] = nt_fuse_scale(x[i], nt_global(u, i0 + i, 0u) & nmask);
				}
			}
			// The pass's own, from the bottom up.
			for (var t = 0u; t < 3u; t++) {
				nt_block_stage(&x, n, t, true, &wf);
			}
		} else {
			for (var i = 0u; i < 8u; i++) {
				x[i] = nt_bare(x[i]);
			}
		}
		for (var i = 0u; i < 8u; i++) {
			if (i < n) {
				nt_sh[nt_sw(p0 + i)] = x[i];
			}
		}
	}
}

// ntt_pass runs one pass: DIF's first radix-16 round loads the tile from
// device memory itself, and DIT's last stores it (the round on the top
// bits), as DIF's last round or pair does where NT_DIF_OUT and DIT's
// first round where NT_DIT_IN; otherwise the tile is loaded before the
// stages and stored after.
@compute @workgroup_size(NTT_WG)
fn ntt_pass(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
	let first = (wid.x + wid.y * nwg.x) << nt.q_log;
	if (first >= nt.units) {
		return;
	}
	let unit_log = nt.m + nt.c_log;
	let tile = 1u << (unit_log + nt.q_log);
	let nmask = (1u << nt.log_n) - 1u;
	let cmask = (1u << nt.c_log) - 1u;
	let fuse = (nt_flags() & NT_FUSE) != 0u;
	let dit = (nt_flags() & NT_DIT) != 0u;
	let rounds = nt.m >= 4u;
	// The first stages load their own elements where they are the fused
	// inverse's, the pass's own in DIF, or DIT's first round (NT_DIT_IN).
	let direct_in = rounds && (fuse || !dit || ((nt_flags() & NT_DIT_IN) != 0u && (nt.m & 3u) == 0u));
	// DIT's last round stores its own elements; so do DIF's last stages
	// where the flags say (NT_DIF_OUT).
	let direct_out = (rounds && dit) || (nt_flags() & NT_DIF_OUT) != 0u;
	if (!direct_in) {
		for (var l = tid; l < tile; l += NTT_WG) {
			let u = first + (l >> unit_log);
			if (u < nt.units) {
				let r = l & ((1u << unit_log) - 1u);
				nt_sh[nt_sw(l)] = nt_load(nt_global(u, r >> nt.c_log, r & cmask));
			}
		}
		workgroupBarrier();
	}
	// A fused pass whose m is not a multiple of 4 ends the inverse and
	// begins its own stages with the row's lowest m mod 4 bits, less than
	// a round: those stages and the scales between run together
	// (nt_fuse_low), with no trip through workgroup memory between them.
	let low = fuse && (nt.m & 3u) != 0u;
	if (fuse) {
		nt_stages(first, tile, unit_log, tid, false, nt.fuse_tw_a, nt.fuse_tw_b, nt.fuse_tw_o, select(0u, NT_IO_LOAD, direct_in) | select(0u, NT_IO_NO_LOW, low));
		if (low) {
			nt_fuse_low(first, tile, unit_log, tid);
		} else {
			for (var l = tid; l < tile; l += NTT_WG) {
				let u = first + (l >> unit_log);
				if (u < nt.units) {
					let r = l & ((1u << unit_log) - 1u);
					let pos = nt_global(u, r >> nt.c_log, r & cmask) & nmask;
					nt_sh[nt_sw(l)] = nt_fuse_scale(nt_sh[nt_sw(l)], pos);
				}
			}
		}
		workgroupBarrier();
	}
	var io = select(0u, NT_IO_STORE, direct_out) | select(0u, NT_IO_NO_LOW, low);
	if (direct_in && !fuse) {
		io |= NT_IO_LOAD;
	}
	nt_stages(first, tile, unit_log, tid, dit, nt.tw_a, nt.tw_b, nt.tw_o, io);
	if (!direct_out) {
		for (var l = tid; l < tile; l += NTT_WG) {
			let u = first + (l >> unit_log);
			if (u < nt.units) {
				let r = l & ((1u << unit_log) - 1u);
				let g = nt_global(u, r >> nt.c_log, r & cmask);
				nt_store(g, nt_sh[nt_sw(l)], nt_aux_at(g), 0u);
			}
		}
	}
	nt_checked();
}

// ntt_bitrev reverses the order of every row of nt_data in place:
// element i of a row swaps with element rev(i), each pair once. Params:
// log_n, units = the elements bound (whole rows).
@compute @workgroup_size(NTT_WG)
fn ntt_bitrev(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = gid.x + gid.y * nwg.x * NTT_WG;
	if (i >= nt.units) {
		return;
	}
	let pos = i & ((1u << nt.log_n) - 1u);
	let rp = nt_rev(pos);
	if (pos < rp) {
		let j = i - pos + rp;
		let a = ne_data(i);
		ne_set(i, ne_data(j));
		ne_set(j, a);
	}
}

// ntt_bitrev_tiles is ntt_bitrev for rows of 2^(2·NT_TL) or more, in
// tiles that keep both the loads and the stores runs of T = 2^NT_TL
// elements (NT_TL from the field's file: 128-byte runs): with index i =
// h·2^(k-t) + mid·T + l (h and l of t = NT_TL bits), rev(i) =
// rev(l)·2^(k-t) + rev(mid)·T + rev(h), so the tile of one mid (T runs of
// T elements) goes to the tile of rev(mid), transposed. A workgroup takes
// the tiles of mid and rev(mid) (the mid above its reversal leaves it to
// the other's) and writes each where the other was. Params: log_n, units
// = the tiles bound (rows·2^(k-2t)).
const NT_T: u32 = 1u << NT_TL;
const NT_TP: u32 = NT_T + 1u; // a padded row: the transposed reads hit every bank once
var<workgroup> nt_ta: array<NtElem, NT_T * NT_TP>;
var<workgroup> nt_tb: array<NtElem, NT_T * NT_TP>;

@compute @workgroup_size(NTT_WG)
fn ntt_bitrev_tiles(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
	let tile = wid.x + wid.y * nwg.x;
	if (tile >= nt.units) {
		return;
	}
	let mid_log = nt.log_n - 2u * NT_TL;
	let mid = tile & ((1u << mid_log) - 1u);
	let row = (tile >> mid_log) << nt.log_n;
	let rmid = select(0u, reverseBits(mid) >> (32u - mid_log), mid_log > 0u);
	if (mid > rmid) {
		return;
	}
	let hs = nt.log_n - NT_TL; // h's shift
	for (var t = tid; t < NT_T * NT_T; t += NTT_WG) {
		let h = t >> NT_TL;
		let l = t & (NT_T - 1u);
		nt_ta[h * NT_TP + l] = ne_data(row + (h << hs) + mid * NT_T + l);
		nt_tb[h * NT_TP + l] = ne_data(row + (h << hs) + rmid * NT_T + l);
	}
	workgroupBarrier();
	for (var t = tid; t < NT_T * NT_T; t += NTT_WG) {
		let h = t >> NT_TL;
		let l = t & (NT_T - 1u);
		// Destination (h, l) of tile rmid holds source (rev(l), rev(h)) of
		// tile mid, and the other way round.
		let src = (reverseBits(l) >> (32u - NT_TL)) * NT_TP + (reverseBits(h) >> (32u - NT_TL));
		ne_set(row + (h << hs) + rmid * NT_T + l, nt_ta[src]);
		ne_set(row + (h << hs) + mid * NT_T + l, nt_tb[src]);
	}
}

// ntt_table writes table entry tw_a + t = scale·base^t for t < units: a
// table of powers, in kernel form (params: tw_a, units, base_*, scale_*),
// into nt_data (the table buffer, which the passes then bind at nt_tab).
@compute @workgroup_size(NTT_WG)
fn ntt_table(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let t = gid.x + gid.y * nwg.x * NTT_WG;
	if (t >= nt.units) {
		return;
	}
	var r = ne_of(nt.scale_lo, nt.scale_hi);
	var x = ne_of(nt.base_lo, nt.base_hi);
	var e = t;
	while (e != 0u) {
		if ((e & 1u) != 0u) {
			r = ne_mul(r, x);
		}
		x = ne_mul(x, x);
		e >>= 1u;
	}
	ne_set(nt.tw_a + t, r);
}
