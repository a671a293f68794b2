//!include eigen_reduce.wgsl
// Dominant eigenpair of a positive matrix by iterative similarity
// transformation (package algos/eigen). One round of the method is
//
//   s = row sums of M; m = max(s); v *= s / m; stop if every
//   |s[i] - s[(i+1) mod n]| < eps; else M[r][c] *= s[c] / s[r]
//
// spread over the kernels below. Every kernel shares one binding layout so
// that the Go side can chain them freely; a kernel ignores the bindings it
// does not use. Sums are never atomic (WGSL has no float atomics): each is a
// fixed sequence of adds followed by a fixed tree, so a given input gives the
// same bits on a given device, run after run. Maxima of row sums, which are
// positive floats, are taken on their u32 bit patterns, whose order is the
// floats' order; atomicMax on them is order-independent and so deterministic.
//
// The method runs folded (P.gated == GATE_FOLD): a round is one row-sum
// dispatch per block of M, with no kernel between rounds. Each row's
// workgroup (invocation in rowsum_v0) folds its sum into the round's max
// and spread as it stores it; round k + 1 then reads round k's max and
// spread, makes round k's stop test, and scales the vector of round k as
// it reads it (v_{k+1} = v_k * s_k / m_k, the vector double-buffered in
// v's two halves), writing v_{k+1}[r] for its own rows. Every float
// operation that reaches the result is the one the unfolded form
// (GATE_FLAG: the row sums, then finish in one workgroup) makes, on the
// same operands, so both give the same bits.

// M, or the block of its rows [row0, row0 + rows), row-major.
@group(0) @binding(0) var<storage, read_write> mat: array<f32>;
// The previous round's row sums, all n of them: the similarity transform's
// diagonal. copy_rows reads its source rows here instead.
@group(0) @binding(1) var<storage, read_write> s_in: array<f32>;
// This round's row sums (all n); the vector the max kernels reduce.
@group(0) @binding(2) var<storage, read_write> s_out: array<f32>;
// The eigenvector estimate in two halves of n: round k's vector v_k is in
// half k % 2 when folded (half 0 unfolded); max_v2_partial writes its
// partial maxima here.
@group(0) @binding(3) var<storage, read_write> v: array<f32>;
// Iteration state, a ring of per-round records (see ST_* and HIST), then
// the folded method's n spread pairs (PAIR_BASE).
@group(0) @binding(4) var<storage, read_write> st: array<atomic<u32>>;

struct Params {
	n: u32,        // matrix order, or vector length for the max kernels
	row0: u32,     // first row of the block bound as mat
	rows: u32,     // rows in the block; partial count for max_v2_final
	mode: u32,     // row-sum element: MODE_PLAIN, MODE_TRANSFORM, MODE_WEIGHTED, MODE_SCALED
	round: u32,    // round index k: k updates of M precede it
	max_iter: u32, // stop unconverged once round == max_iter
	eps: u32,      // f32 bits of eps
	gated: u32,    // GATE_NONE, GATE_FLAG or GATE_FOLD
}
@group(0) @binding(5) var<uniform> P: Params;

const WG: u32 = 256u;
const SLICE: u32 = 64u; // lanes per row in rowsum_v1, a stand-in for a subgroup

// Row-sum element of M[r][c]:
const MODE_PLAIN: u32 = 0u;     // M[r][c]
const MODE_TRANSFORM: u32 = 1u; // M[r][c] = M[r][c] / s_in[r] * s_in[c], stored back, then summed
const MODE_WEIGHTED: u32 = 2u;  // A[r][c] * v[c], the sum divided by v[r]: the row sums of V⁻¹AV without writing it
const MODE_SCALED: u32 = 3u;    // MODE_WEIGHTED on v_k = v_{k-1} * s_in / m, made as it is read (folded only)

// What a kernel does with the iteration's state:
const GATE_NONE: u32 = 0u; // nothing: the kernels measured on their own, validate
const GATE_FLAG: u32 = 1u; // do nothing once st[ST_STOPPED] is set (unfolded: finish decides)
const GATE_FOLD: u32 = 2u; // the folded method: the row sums make the previous round's stop test

const ST_STOPPED: u32 = 0u; // nonzero once stopped; folded, the first round that does nothing
const ST_CONVERGED: u32 = 1u;
const ST_UPDATES: u32 = 2u;
const ST_VALUE: u32 = 3u;  // f32 bits of s[0] in the last finished round
const ST_SPREAD: u32 = 4u; // f32 bits of max |s[i] - s[i+1]| in that round
const ST_ROUNDS: u32 = 5u; // rounds finished
const ST_SUSPECT: u32 = 6u; // validate: nonzero if a row may fail the host's check
const HIST_BASE: u32 = 8u;
const HIST: u32 = 256u; // ring of per-round records, 4 words each: max bits, spread bits, s[0] bits, 0
// Spread pair p, folded: 0, or the coded bits of whichever of s[p] and
// s[(p+1) mod n] was stored first (see pair_spread).
const PAIR_BASE: u32 = HIST_BASE + 4u * HIST;

fn hist(round: u32) -> u32 { return HIST_BASE + 4u * (round % HIST); }

// div_wide is a / b for a divisor b up to float32's largest. A GPU may
// divide as a * (1 / b), and 1 / b is below float32's normal range once
// b passes 2^126, where NVIDIA flushes it to 0 (a row sum of 1.6e38 gave
// NaN); there both are scaled by 1/4 first, exactly. Below 2^126 it is
// the plain quotient, the same bits as before.
fn div_wide(a: f32, b: f32) -> f32 {
	let big = b >= bitcast<f32>(0x7e800000u); // 2^126
	return select(a, a * 0.25, big) / select(b, b * 0.25, big);
}

var<workgroup> sh: array<u32, WG>;
var<workgroup> sh_f: array<f32, WG>;
var<workgroup> wg_flag: u32;
var<workgroup> wg_max: f32;

// stopped reports, uniformly across the workgroup, whether a gated kernel
// should do nothing because an earlier round stopped the iteration.
fn stopped(lid: u32) -> bool {
	if (lid == 0u) {
		wg_flag = select(0u, atomicLoad(&st[ST_STOPPED]), P.gated != 0u);
	}
	return workgroupUniformLoad(&wg_flag) != 0u;
}

// skipped reports whether a kernel of round P.round does nothing because
// the iteration stopped before that round.
fn skipped() -> bool {
	let stop = atomicLoad(&st[ST_STOPPED]);
	return P.gated != GATE_NONE && stop != 0u && (P.gated == GATE_FLAG || stop <= P.round);
}

// What a round's row-sum kernel does, from round_start:
const ACT_RUN: u32 = 0u;  // sum the rows
const ACT_STOP: u32 = 1u; // the previous round ended the iteration: write its vector, sum nothing
const ACT_SKIP: u32 = 2u; // an earlier round's kernels stopped it: touch nothing

// ends is the stop test of round k with spread bits d: stop converged
// if the spread is below eps, stop unconverged if k == max_iter or the
// spread is not finite (a row sum is infinite or NaN: no later round
// recovers, and the host then solves again in the explicit form). The
// spread is taken on bit patterns, so a NaN (whose bits exceed every
// finite float's) makes the round unconverged.
fn ends(k: u32, d: u32) -> bool {
	return d < P.eps || k >= P.max_iter || d >= 0x7f800000u;
}

// round_start is what round P.round's row-sum kernels do (an ACT_*) and
// the bits of the previous round's max row sum m, which a folded round
// k >= 1 scales the vector by (1 otherwise, unused). Folded, the previous
// round's max and spread are whole once its dispatches are done, so every
// invocation of every block of this round reads the same words and
// decides alike; the one that writes the state (record_stop) sets
// ST_STOPPED to the round after this one, so that this round's other
// invocations still write their part of the vector. The words are all
// loaded before any is used: one wait for the memory, not three.
fn round_start() -> vec2<u32> {
	let one = 0x3f800000u;
	if (P.gated == GATE_NONE) {
		return vec2<u32>(ACT_RUN, one);
	}
	let k = P.round - 1u; // at round 0, a record nothing reads then
	let stop = atomicLoad(&st[ST_STOPPED]);
	let m = atomicLoad(&st[hist(k)]);
	let d = atomicLoad(&st[hist(k) + 1u]);
	if (P.gated == GATE_FLAG) {
		return vec2<u32>(select(ACT_RUN, ACT_SKIP, stop != 0u), one);
	}
	if (stop != 0u && stop <= P.round) {
		return vec2<u32>(ACT_SKIP, one);
	}
	if (P.round == 0u) {
		return vec2<u32>(ACT_RUN, one);
	}
	return vec2<u32>(select(ACT_RUN, ACT_STOP, ends(k, d)), m);
}

// workgroup_action is round_start's action for a workgroup, uniform; wg_max
// holds m once it returns.
fn workgroup_action(lid: u32) -> u32 {
	if (lid == 0u) {
		let start = round_start();
		wg_flag = start.x;
		wg_max = bitcast<f32>(start.y);
	}
	return workgroupUniformLoad(&wg_flag);
}

// half is the offset in v of round k's vector, folded.
fn half(k: u32) -> u32 { return (k % 2u) * P.n; }

// scaled is v_k[c] for round k = P.round >= 1, folded: finish's update of
// the previous round's vector, v_{k-1}[c] * div_wide(s_{k-1}[c], m).
fn scaled(c: u32, m: f32) -> f32 {
	return v[half(P.round + 1u) + c] * div_wide(s_in[c], m);
}

// record_stop writes the state of a stop at round P.round - 1, as finish
// did at the end of that round.
fn record_stop() {
	let k = P.round - 1u;
	let d = atomicLoad(&st[hist(k) + 1u]);
	atomicStore(&st[ST_VALUE], bitcast<u32>(s_in[0]));
	atomicStore(&st[ST_SPREAD], d);
	atomicStore(&st[ST_ROUNDS], k + 1u);
	atomicStore(&st[ST_UPDATES], k);
	atomicStore(&st[ST_CONVERGED], select(0u, 1u, d < P.eps));
	atomicStore(&st[ST_STOPPED], P.round + 1u);
}

// stop_row is ACT_STOP for row r: the stopped round's vector at r, and
// the state once.
fn stop_row(r: u32, m: f32) {
	v[half(P.round) + r] = scaled(r, m);
	if (r == 0u) {
		record_stop();
	}
}

// pair_spread takes row x = s[r]'s part in spread pair p, the pair
// (s[p], s[(p+1) mod n]), as its left (r = p) or right member. Whichever
// member comes second, in the order of the atomic exchanges on the pair's
// word, finds the other's bits there, adds |left - right| to the round's
// spread as finish took it, and clears the word for the next round; the
// first finds 0. A row sum of +0 is stored as -0, whose differences with
// every value have the same magnitude, so that no row sum reads as 0.
fn pair_spread(slot: u32, other: u32, x: f32, left: bool, p: u32) {
	if (other == 0u) {
		return;
	}
	atomicStore(&st[PAIR_BASE + p], 0u);
	let y = bitcast<f32>(other);
	let d = select(y - x, x - y, left);
	atomicMax(&st[slot + 1u], bitcast<u32>(d) & 0x7fffffffu);
}

// fold adds row r's sum x to round P.round's max and spread; row 0 also
// clears the next round's record, which no kernel of this round reads.
fn fold(r: u32, x: f32) {
	let slot = hist(P.round);
	let b = bitcast<u32>(x);
	atomicMax(&st[slot], b);
	let code = select(b, 0x80000000u, b == 0u);
	let pl = r;
	let pr = select(r - 1u, P.n - 1u, r == 0u);
	// Both exchanges before either result is used: one wait, not two. At
	// n = 1 both are on pair 0, in this order, and the second finds the
	// first's bits.
	let o_left = atomicExchange(&st[PAIR_BASE + pl], code);
	let o_right = atomicExchange(&st[PAIR_BASE + pr], code);
	pair_spread(slot, o_left, x, true, pl);
	pair_spread(slot, o_right, x, false, pr);
	if (r == 0u) {
		let next = hist(P.round + 1u);
		atomicStore(&st[next], 0u);
		atomicStore(&st[next + 1u], 0u);
	}
}

fn lin(wid: vec3<u32>, nwg: vec3<u32>) -> u32 { return wid.x + wid.y * nwg.x; }

// row_partial sums the row-sum elements of row r at columns lane,
// lane + stride, ... in that order; m is the previous round's max (see round_start).
fn row_partial(r: u32, lane: u32, stride: u32, m: f32) -> f32 {
	let n = P.n;
	let base = (r - P.row0) * n;
	var acc = 0.0;
	switch P.mode {
		case 1u: {
			let sr = s_in[r];
			for (var c = lane; c < n; c += stride) {
				let x = div_wide(mat[base + c], sr) * s_in[c]; // x/sr ≤ 1 first: x*s_in[c] could overflow
				mat[base + c] = x;
				acc += x;
			}
		}
		case 2u: {
			for (var c = lane; c < n; c += stride) {
				acc += mat[base + c] * v[c];
			}
		}
		case 3u: {
			let prev = half(P.round + 1u);
			for (var c = lane; c < n; c += stride) {
				acc += mat[base + c] * (v[prev + c] * div_wide(s_in[c], m));
			}
		}
		default: {
			for (var c = lane; c < n; c += stride) {
				acc += mat[base + c];
			}
		}
	}
	return acc;
}

// row_end stores row r's sum from the total of its elements; folded, it
// also writes v_k[r] (which MODE_SCALED divides by) and folds the sum into
// the round's max and spread.
fn row_end(r: u32, total: f32, m: f32) {
	if (P.gated != GATE_FOLD) {
		var x = total;
		if (P.mode == MODE_WEIGHTED) { // not select: v may be a placeholder, shorter than r
			x = total / v[r];
		}
		s_out[r] = x;
		return;
	}
	var x = total;
	if (P.round > 0u) {
		let w = scaled(r, m);
		v[half(P.round) + r] = w;
		if (P.mode == MODE_SCALED) {
			x = total / w;
		}
	}
	s_out[r] = x;
	fold(r, x);
}

// rowsum_v0: s_out[r] = Σ_c elem(r, c), one invocation per row adding its
// row left to right. Sums cannot be atomics, so "global" here means no
// workgroup cooperation at all; the loads of neighbouring invocations are a
// row apart. Folded, each row's sum goes to the max by its own atomicMax.
@compute @workgroup_size(256)
fn rowsum_v0(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let start = round_start();
	let act = start.x;
	let m = bitcast<f32>(start.y);
	let i = gid.x + gid.y * nwg.x * WG;
	if (act == ACT_SKIP || i >= P.rows) {
		return;
	}
	let r = P.row0 + i;
	if (act == ACT_STOP) {
		stop_row(r, m);
		return;
	}
	row_end(r, row_partial(r, 0u, 1u, m), m);
}

// rowsum_v1: s_out[r] = Σ_c elem(r, c), four rows per workgroup, a 64-lane
// slice per row (a slice of the workgroup stands in for a subgroup, so
// that it runs on adapters without subgroup operations), each lane a strided partial sum, then a
// tree within the slice; one store per row. Folded, each slice's row sum
// goes to the max by its own atomicMax.
@compute @workgroup_size(256)
fn rowsum_v1(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let act = workgroup_action(lid);
	if (act == ACT_SKIP) {
		return;
	}
	let m = wg_max;
	let slice = lid / SLICE;
	let lane = lid % SLICE;
	let i = lin(wid, nwg) * (WG / SLICE) + slice;
	let r = P.row0 + i;
	if (act == ACT_STOP) {
		if (lane == 0u && i < P.rows) {
			stop_row(r, m);
		}
		return;
	}
	var acc = 0.0;
	if (i < P.rows) {
		acc = row_partial(r, lane, SLICE, m);
	}
	sh_f[lid] = acc;
	workgroupBarrier();
	for (var k = SLICE / 2u; k > 0u; k >>= 1u) {
		if (lane < k) {
			sh_f[lid] += sh_f[lid + k];
		}
		workgroupBarrier();
	}
	if (lane == 0u && i < P.rows) {
		row_end(r, sh_f[lid], m);
	}
}

// rowsum_v2: s_out[r] = Σ_c elem(r, c), one workgroup per row, each
// invocation a strided partial sum, then a 256-wide tree in workgroup
// memory; one store per row. Folded, the row sum goes to the max by one
// atomicMax per workgroup.
@compute @workgroup_size(256)
fn rowsum_v2(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let act = workgroup_action(lid);
	if (act == ACT_SKIP) {
		return;
	}
	let m = wg_max;
	let i = lin(wid, nwg);
	let r = P.row0 + i;
	if (act == ACT_STOP) {
		if (lid == 0u && i < P.rows) {
			stop_row(r, m);
		}
		return;
	}
	var acc = 0.0;
	if (i < P.rows) {
		acc = row_partial(r, lid, WG, m);
	}
	let total = sum_tree(lid, acc);
	if (lid == 0u && i < P.rows) {
		row_end(r, total, m);
	}
}

// stop_test is round P.round's stop test alone, one invocation per row:
// what the host queues after a submission's last round, so that a stop in
// that round is seen without another submission.
@compute @workgroup_size(256)
fn stop_test(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = gid.x + gid.y * nwg.x * WG;
	if (i >= P.n) {
		return;
	}
	let start = round_start();
	if (start.x == ACT_STOP) {
		stop_row(i, bitcast<f32>(start.y));
	}
}

// validate flags, in st[ST_SUSPECT], a block whose matrix the host must
// check (eigen.Check) before it is solved: an entry that is not a
// positive finite float, found on its bits (a shader compiler may assume
// floats are never NaN or infinite, so comparisons would not do), or a
// row whose float32 sum is not below 2^126 (bits 0x7e800000), half the host's bound of 2^127
// on the float64 sum, far more than float32 rounding can move a sum of
// positive entries. One workgroup per row, as rowsum_v2. A matrix that
// passes here passes the host's check, which then never reads it.
@compute @workgroup_size(256)
fn validate(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = lin(wid, nwg);
	var acc = 0.0;
	var bad = 0u;
	if (i < P.rows) {
		let base = i * P.n;
		for (var c = lid; c < P.n; c += WG) {
			let x = mat[base + c];
			let b = bitcast<u32>(x);
			// Zero, the sign bit, or an exponent of all ones (inf, NaN).
			bad |= select(0u, 1u, b == 0u || b >= 0x7f800000u);
			acc += x;
		}
	}
	let total = sum_tree(lid, acc);
	let any_bad = max_tree(lid, bad);
	if (lid == 0u && i < P.rows && (any_bad != 0u || !(total < bitcast<f32>(0x7e800000u)))) {
		atomicOr(&st[ST_SUSPECT], 1u);
	}
}

// transform: M[r][c] *= s_in[c] / s_in[r] for the block's rows, one
// invocation per entry. The unfused form, kept to measure what fusing it
// into the next round's row sums saves. Folded, it leaves the stop test
// to the row sums after it (one word read per entry, not the test's
// two): in the round that finds the previous one stopped it transforms
// M once more, which nothing reads.
@compute @workgroup_size(256)
fn transform(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	if (skipped()) {
		return;
	}
	let i = gid.x + gid.y * nwg.x * WG;
	if (i >= P.rows * P.n) {
		return;
	}
	let r = P.row0 + i / P.n;
	let c = i % P.n;
	mat[i] = div_wide(mat[i], s_in[r]) * s_in[c];
}

// copy_rows: mat[i] = s_in[i] for the block's rows * n entries (s_in's slot
// holds the pristine matrix block here).
@compute @workgroup_size(256)
fn copy_rows(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = gid.x + gid.y * nwg.x * WG;
	if (i < P.rows * P.n) {
		mat[i] = s_in[i];
	}
}

// max_v0: st[hist(round)] = max over i < n of bits(s_out[i]), one atomicMax
// per element. The max kernels serve Kernels.Max and the unfolded method;
// the folded method's row sums take the max as they store.
@compute @workgroup_size(256)
fn max_v0(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	if (P.gated != 0u && atomicLoad(&st[ST_STOPPED]) != 0u) {
		return;
	}
	let i = gid.x + gid.y * nwg.x * WG;
	if (i < P.n) {
		atomicMax(&st[hist(P.round)], bitcast<u32>(s_out[i]));
	}
}

const ITEMS: u32 = 4u; // elements per invocation in max_v1 and max_v2_partial

// group_max is the max of the bits of the workgroup's WG * ITEMS elements of
// s_out, each invocation reading at a stride of WG (coalesced).
fn group_max(lid: u32, g: u32) -> u32 {
	let base = g * WG * ITEMS;
	var m = 0u;
	for (var j = 0u; j < ITEMS; j++) {
		let i = base + j * WG + lid;
		if (i < P.n) {
			m = max(m, bitcast<u32>(s_out[i]));
		}
	}
	return max_tree(lid, m);
}

// max_v1: st[hist(round)] = max over i < n of bits(s_out[i]): a tree per
// workgroup, then one atomicMax per workgroup.
@compute @workgroup_size(256)
fn max_v1(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	if (stopped(lid)) {
		return;
	}
	let m = group_max(lid, lin(wid, nwg));
	if (lid == 0u) {
		atomicMax(&st[hist(P.round)], m);
	}
}

// max_v2_partial: v[g] = bitcast<f32>(max of group g's elements of s_out),
// no atomics; max_v2_final reduces the partials.
@compute @workgroup_size(256)
fn max_v2_partial(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let g = lin(wid, nwg);
	let m = group_max(lid, g);
	if (lid == 0u && g * WG * ITEMS < P.n) {
		v[g] = bitcast<f32>(m);
	}
}

// max_v2_final: st[hist(round)] = max of the bits of v[0..rows), one
// workgroup.
@compute @workgroup_size(256)
fn max_v2_final(@builtin(local_invocation_index) lid: u32) {
	var m = 0u;
	for (var i = lid; i < P.rows; i += WG) {
		m = max(m, bitcast<u32>(v[i]));
	}
	let total = max_tree(lid, m);
	if (lid == 0u) {
		atomicStore(&st[hist(P.round)], total);
	}
}

// finish, one workgroup, the end of a round in the unfolded method (which
// the tests hold the folded one to): m = max(s_out) (computed here when
// P.mode is 0, else read from st[hist(round)] where max_v0/max_v1 left
// it); v *= s_out/m; spread = max |s_out[i] - s_out[(i+1) mod n]|; then
// the stop decision (ends), else count one more update.
@compute @workgroup_size(256)
fn finish(@builtin(local_invocation_index) lid: u32) {
	if (stopped(lid)) {
		return;
	}
	let n = P.n;
	let slot = hist(P.round);
	var m_bits = 0u;
	var d_bits = 0u;
	for (var i = lid; i < n; i += WG) {
		let x = s_out[i];
		var j = i + 1u;
		if (j == n) {
			j = 0u;
		}
		m_bits = max(m_bits, bitcast<u32>(x));
		d_bits = max(d_bits, bitcast<u32>(x - s_out[j]) & 0x7fffffffu);
	}
	d_bits = max_tree(lid, d_bits);
	if (P.mode == 0u) {
		m_bits = max_tree(lid, m_bits);
	} else {
		m_bits = atomicLoad(&st[slot]);
	}
	let m = bitcast<f32>(m_bits);
	for (var i = lid; i < n; i += WG) {
		v[i] = v[i] * div_wide(s_out[i], m);
	}
	if (lid == 0u) {
		let k = P.round;
		atomicStore(&st[slot], m_bits);
		atomicStore(&st[slot + 1u], d_bits);
		atomicStore(&st[slot + 2u], bitcast<u32>(s_out[0]));
		atomicStore(&st[hist(k + 1u)], 0u);
		atomicStore(&st[ST_VALUE], bitcast<u32>(s_out[0]));
		atomicStore(&st[ST_SPREAD], d_bits);
		atomicStore(&st[ST_ROUNDS], k + 1u);
		atomicStore(&st[ST_UPDATES], k);
		if (ends(k, d_bits)) {
			atomicStore(&st[ST_CONVERGED], select(0u, 1u, d_bits < P.eps));
			atomicStore(&st[ST_STOPPED], 1u);
		}
	}
}
