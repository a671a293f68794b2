// Binary Merkle tree kernels, one family for every hash.
//
// Plain-Go meaning: for i := n-1; i >= 1; i-- { node[i] = merge(node[2i], node[2i+1]) },
// where node n+j is leaf j (the leaves sit in their own buffer) and node 1 is
// the root. A dispatch sees one subtree of n leaves: mk_leaves holds them,
// mk_nodes its n nodes in heap order (node 0 unused).
//
// merge_node(a, b) comes from the hash's module, compiled in front of this
// file (merkle_blake3.wgsl, merkle_rescue.wgsl, or any module that defines
// it; its identifiers must not start with mk_ or MK_). The prelude defines
// MK_SH, the vec4 slots of workgroup memory: 4 * the workgroup size (two
// vec4 for each of 2 * size digests).
//
// naga 0.13 (wgpu 0.17, which this was written for) took only integer
// literals in @workgroup_size and evaluated no const expressions in array
// sizes, so each kernel has one entry
// point per workgroup size, kernel_N with @workgroup_size(N) (see the end of
// the file), and the module is built per size for mk_sh's length; a module's
// entry points of other sizes are never dispatched.
//
// Every kernel computes `levels` levels above an input level of in_w nodes:
// level s (1..levels) has in_w >> s nodes, at mk_nodes[(in_w >> s) + p].

@group(0) @binding(0) var<storage, read> mk_leaves: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> mk_nodes: array<vec4<u32>>;

struct MkParams {
	in_w: u32,        // nodes in the input level
	levels: u32,      // levels this dispatch computes
	regs: u32,        // mk_subtree: levels each invocation merges in registers (0..2)
	from_leaves: u32, // 1: the input level is mk_leaves, 0: it is mk_nodes[in_w..2*in_w)
	groups: u32,      // workgroups with work; the grid may round up
}
@group(0) @binding(2) var<uniform> mk: MkParams;

// mk_load returns input node k (a leaf, or node in_w + k).
fn mk_load(k: u32) -> array<u32, 8> {
	var i = 2u * k;
	var v0: vec4<u32>;
	var v1: vec4<u32>;
	if (mk.from_leaves != 0u) {
		v0 = mk_leaves[i];
		v1 = mk_leaves[i + 1u];
	} else {
		i = 2u * (mk.in_w + k);
		v0 = mk_nodes[i];
		v1 = mk_nodes[i + 1u];
	}
	return array<u32, 8>(v0.x, v0.y, v0.z, v0.w, v1.x, v1.y, v1.z, v1.w);
}

fn mk_node(i: u32) -> array<u32, 8> {
	let v0 = mk_nodes[2u * i];
	let v1 = mk_nodes[2u * i + 1u];
	return array<u32, 8>(v0.x, v0.y, v0.z, v0.w, v1.x, v1.y, v1.z, v1.w);
}

fn mk_store(i: u32, h: array<u32, 8>) {
	mk_nodes[2u * i] = vec4<u32>(h[0], h[1], h[2], h[3]);
	mk_nodes[2u * i + 1u] = vec4<u32>(h[4], h[5], h[6], h[7]);
}

// MkIds and MkGroup are the builtins every entry point hands its kernel:
// MkIds the invocation's own, MkGroup those its whole workgroup shares.
// Tint's uniformity analysis takes a struct as non-uniform where any member
// is, so a workgroup's early exit, which the barriers after it need to be
// uniform, is computed from MkGroup alone.
struct MkIds {
	@builtin(global_invocation_id) gid: vec3<u32>,
	@builtin(local_invocation_index) t: u32,
}

struct MkGroup {
	@builtin(workgroup_id) wid: vec3<u32>,
	@builtin(num_workgroups) nwg: vec3<u32>,
}

// mk_level: one level per dispatch (approach 1); one invocation per node.
// wg is the entry point's workgroup size.
fn mk_level(id: MkIds, grp: MkGroup, wg: u32) {
	let t = id.gid.x + id.gid.y * grp.nwg.x * wg;
	let w = mk.in_w >> 1u;
	if (t >= w) {
		return;
	}
	mk_store(w + t, merge_node(mk_load(2u * t), mk_load(2u * t + 1u)));
}

// mk_levels: the articles' workgroup variant (approach 2). A workgroup owns
// 2^levels input nodes and walks up its subtree through global memory, with
// a storage barrier between levels; each level halves the busy invocations.
fn mk_levels(id: MkIds, grp: MkGroup) {
	let t = id.t;
	let g = grp.wid.x + grp.wid.y * grp.nwg.x;
	if (g >= mk.groups) {
		return;
	}
	var a = 1u << mk.levels;
	for (var s = 1u; s <= mk.levels; s++) {
		a = a >> 1u;
		if (t < a) {
			let p = g * a + t;
			var l: array<u32, 8>;
			var r: array<u32, 8>;
			if (s == 1u) {
				l = mk_load(2u * p);
				r = mk_load(2u * p + 1u);
			} else {
				let c = (mk.in_w >> (s - 1u)) + 2u * p;
				l = mk_node(c);
				r = mk_node(c + 1u);
			}
			mk_store((mk.in_w >> s) + p, merge_node(l, r));
		}
		storageBarrier();
	}
}

// Two vec4 per digest: llvmpipe's GL compiler took seconds per shader on an
// array of array<u32, 8>.
var<workgroup> mk_sh: array<vec4<u32>, MK_SH>;

fn mk_sh_load(k: u32) -> array<u32, 8> {
	let v0 = mk_sh[2u * k];
	let v1 = mk_sh[2u * k + 1u];
	return array<u32, 8>(v0.x, v0.y, v0.z, v0.w, v1.x, v1.y, v1.z, v1.w);
}

fn mk_sh_store(k: u32, h: array<u32, 8>) {
	mk_sh[2u * k] = vec4<u32>(h[0], h[1], h[2], h[3]);
	mk_sh[2u * k + 1u] = vec4<u32>(h[4], h[5], h[6], h[7]);
}

// mk_subtree: ours (approach 3). A workgroup owns 2^levels input nodes. Each
// busy invocation first merges 2^regs of them in registers (every lane
// busy), then the workgroup finishes its subtree in workgroup memory, laid
// out as a heap so that every slot is written once and one barrier per
// level suffices. Every node is also written to mk_nodes, as the tree keeps
// all of them; nothing is read back from global memory.
//
// All merges go through the one merge_node call at the loop's end: a Rescue
// merge is large, and four inlined copies took llvmpipe's GL compiler many
// seconds (bench/results/HISTORY.md, "Figures moved from code comments").
fn mk_subtree(id: MkIds, grp: MkGroup) {
	let t = id.t;
	let g = grp.wid.x + grp.wid.y * grp.nwg.x;
	if (g >= mk.groups) {
		return;
	}
	let d = mk.levels;
	let r = mk.regs;
	let busy = 1u << (d - r);
	let base = (g << d) + (t << r);
	let nreg = (1u << r) - 1u; // register merges per invocation: 0, 1 or 3
	var h: array<u32, 8>;      // the last merge's result
	var p: array<u32, 8>;      // the first register merge's result
	if (r == 0u && t < busy) {
		h = mk_load(base);
	}
	var a = busy;
	for (var j = 0u; j < nreg + d - r; j++) {
		var x: array<u32, 8>;
		var y: array<u32, 8>;
		var dst = 0u;
		var act = t < busy;
		if (j < nreg) {
			// Register merges: (in0, in1), then (in2, in3), then their parent.
			if (act) {
				if (j == 0u) {
					x = mk_load(base);
					y = mk_load(base + 1u);
					dst = (mk.in_w >> 1u) + (base >> 1u);
				} else if (j == 1u) {
					p = h;
					x = mk_load(base + 2u);
					y = mk_load(base + 3u);
					dst = (mk.in_w >> 1u) + (base >> 1u) + 1u;
				} else {
					x = p;
					y = h;
					dst = (mk.in_w >> 2u) + (base >> 2u);
				}
			}
		} else {
			if (j == nreg && act) {
				mk_sh_store(busy + t, h);
			}
			workgroupBarrier();
			a = a >> 1u;
			act = t < a;
			if (act) {
				x = mk_sh_load(2u * (a + t));
				y = mk_sh_load(2u * (a + t) + 1u);
				dst = (mk.in_w >> (r + 1u + j - nreg)) + g * a + t;
			}
		}
		if (act) {
			h = merge_node(x, y);
			mk_store(dst, h);
			if (j >= nreg) {
				mk_sh_store(a + t, h);
			}
		}
	}
}

// The entry points: kernel_N runs kernel with N invocations per workgroup.
@compute @workgroup_size(2) fn mk_level_2(id: MkIds, grp: MkGroup) { mk_level(id, grp, 2u); }
@compute @workgroup_size(4) fn mk_level_4(id: MkIds, grp: MkGroup) { mk_level(id, grp, 4u); }
@compute @workgroup_size(8) fn mk_level_8(id: MkIds, grp: MkGroup) { mk_level(id, grp, 8u); }
@compute @workgroup_size(16) fn mk_level_16(id: MkIds, grp: MkGroup) { mk_level(id, grp, 16u); }
@compute @workgroup_size(32) fn mk_level_32(id: MkIds, grp: MkGroup) { mk_level(id, grp, 32u); }
@compute @workgroup_size(64) fn mk_level_64(id: MkIds, grp: MkGroup) { mk_level(id, grp, 64u); }
@compute @workgroup_size(128) fn mk_level_128(id: MkIds, grp: MkGroup) { mk_level(id, grp, 128u); }
@compute @workgroup_size(256) fn mk_level_256(id: MkIds, grp: MkGroup) { mk_level(id, grp, 256u); }
@compute @workgroup_size(2) fn mk_levels_2(id: MkIds, grp: MkGroup) { mk_levels(id, grp); }
@compute @workgroup_size(4) fn mk_levels_4(id: MkIds, grp: MkGroup) { mk_levels(id, grp); }
@compute @workgroup_size(8) fn mk_levels_8(id: MkIds, grp: MkGroup) { mk_levels(id, grp); }
@compute @workgroup_size(16) fn mk_levels_16(id: MkIds, grp: MkGroup) { mk_levels(id, grp); }
@compute @workgroup_size(32) fn mk_levels_32(id: MkIds, grp: MkGroup) { mk_levels(id, grp); }
@compute @workgroup_size(64) fn mk_levels_64(id: MkIds, grp: MkGroup) { mk_levels(id, grp); }
@compute @workgroup_size(128) fn mk_levels_128(id: MkIds, grp: MkGroup) { mk_levels(id, grp); }
@compute @workgroup_size(256) fn mk_levels_256(id: MkIds, grp: MkGroup) { mk_levels(id, grp); }
@compute @workgroup_size(2) fn mk_subtree_2(id: MkIds, grp: MkGroup) { mk_subtree(id, grp); }
@compute @workgroup_size(4) fn mk_subtree_4(id: MkIds, grp: MkGroup) { mk_subtree(id, grp); }
@compute @workgroup_size(8) fn mk_subtree_8(id: MkIds, grp: MkGroup) { mk_subtree(id, grp); }
@compute @workgroup_size(16) fn mk_subtree_16(id: MkIds, grp: MkGroup) { mk_subtree(id, grp); }
@compute @workgroup_size(32) fn mk_subtree_32(id: MkIds, grp: MkGroup) { mk_subtree(id, grp); }
@compute @workgroup_size(64) fn mk_subtree_64(id: MkIds, grp: MkGroup) { mk_subtree(id, grp); }
@compute @workgroup_size(128) fn mk_subtree_128(id: MkIds, grp: MkGroup) { mk_subtree(id, grp); }
@compute @workgroup_size(256) fn mk_subtree_256(id: MkIds, grp: MkGroup) { mk_subtree(id, grp); }
