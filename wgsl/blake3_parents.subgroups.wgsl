// blake3_parents.wgsl on devices with subgroup operations (naga takes them
// without an enable directive where the device has the feature): the same
// parents kernel, the same nodes merged in the same tree, with the levels
// that fit in one subgroup merged in its registers, without barriers.
//
// As there, the level after one of c nodes is made by the invocations t
// with 2t < c, invocation t merging nodes 2t and 2t+1 with parent_cv (an
// odd last node carried up unchanged) and holding node t after it, so that
// the work of a level stays packed into the fewest subgroups. While a level
// has more nodes than one subgroup holds, its nodes go through workgroup
// memory, one barrier a level where the plain kernel has two (the levels
// alternate between two regions, 12 KiB in all, so that a level's stores
// never meet the loads of the level before). Once
// the nodes left fit in the subgroup of invocations 0..W-1, that subgroup
// makes the remaining levels alone: node j of the level with stride s is
// held by lane j*s, and lane 2j*s takes node 2j+1 from lane 2j*s + s by
// subgroupShuffleXor. W is the subgroup size (NVIDIA 32, AMD 64, lavapipe 4
// to 16), made workgroup-uniform through workgroup memory as the barriers
// need, where invocation 0's subgroup is invocations 0..W-1 in lane order
// and W is a power of two; else it is 1 and every level runs in workgroup
// memory, as in blake3_parents.wgsl. A subgroup larger than a level is
// simply more lanes than nodes: the lanes past them carry nothing read.
// parents_w reports W, for tests and benchmarks.
// Library only: params, data, cvs, parent_cv, parent_record and PARENT_WG
// are blake3.wgsl's.

var<workgroup> nodes: array<vec4<u32>, 768>; // a level of 256 nodes, then one of 128
var<workgroup> sub_w: u32;                   // W

// store_w stores W in sub_w; every invocation calls it, in uniform control
// flow. W comes from invocation 0's subgroup: every lane's invocation is its
// lane number, and the subgroup is whole.
fn store_w(t: u32, sg_size: u32, lane: u32) {
	let lanes = subgroupAdd(1u);
	let in_order = subgroupAll(lane == t);
	if (t == 0u) {
		let whole = in_order && lanes == sg_size && (sg_size & (sg_size - 1u)) == 0u;
		sub_w = select(1u, min(sg_size, PARENT_WG), whole);
	}
}

// parents_w writes W and the subgroup size to rec[0] and rec[1], from one
// workgroup: for tests and benchmarks, which check that the device merges
// levels in subgroups.
@compute @workgroup_size(256)
fn parents_w(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(subgroup_size) sg_size: u32,
	@builtin(subgroup_invocation_id) lane: u32) {
	store_w(lid.x, sg_size, lane);
	let w = workgroupUniformLoad(&sub_w);
	if (lid.x == 0u) {
		rec[0] = w;
		rec[1] = sg_size;
	}
}

// parents: 256 invocations reduce up to 512 nodes to one; params.count is
// the number of nodes in `data`.
@compute @workgroup_size(256)
fn parents(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
	@builtin(subgroup_size) sg_size: u32, @builtin(subgroup_invocation_id) lane: u32) {
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

	store_w(t, sg_size, lane);

	// The first level, from `data`.
	var n0 = vec4<u32>();
	var n1 = vec4<u32>();
	let l = 2u * (base + 2u * t);
	if (2u * t + 1u < c) {
		let p = parent_cv(data[l], data[l + 1u], data[l + 2u], data[l + 3u]);
		n0 = p[0];
		n1 = p[1];
	} else if (2u * t < c) {
		n0 = data[l];
		n1 = data[l + 1u];
	}
	c = (c + 1u) / 2u;
	if (t < c) {
		nodes[2u * t] = n0;
		nodes[2u * t + 1u] = n1;
	}
	let w = workgroupUniformLoad(&sub_w); // its barrier also publishes the level

	// The levels in workgroup memory, while more nodes than W are left.
	var off = 0u;
	loop {
		if (c <= w) {
			break;
		}
		if (top && c == 2u) {
			if (t == 0u) {
				parent_record(nodes[off], nodes[off + 1u], nodes[off + 2u], nodes[off + 3u]);
			}
			return;
		}
		let k = off + 4u * t;
		if (2u * t + 1u < c) {
			let p = parent_cv(nodes[k], nodes[k + 1u], nodes[k + 2u], nodes[k + 3u]);
			n0 = p[0];
			n1 = p[1];
		} else if (2u * t < c) {
			n0 = nodes[k];
			n1 = nodes[k + 1u];
		}
		c = (c + 1u) / 2u;
		if (c <= w) {
			break;
		}
		off = select(0u, 512u, off == 0u);
		if (t < c) {
			nodes[off + 2u * t] = n0;
			nodes[off + 2u * t + 1u] = n1;
		}
		workgroupBarrier();
	}

	// The levels in invocation 0's subgroup: nodes 0..c-1 in lanes 0..c-1.
	if (t < w) {
		for (var s = 1u; c > 1u; s <<= 1u) {
			let o0 = subgroupShuffleXor(n0, s);
			let o1 = subgroupShuffleXor(n1, s);
			if (top && c == 2u) {
				if (t == 0u) {
					parent_record(n0, n1, o0, o1);
				}
				return;
			}
			if (t % (2u * s) == 0u && t / s + 1u < c) {
				let p = parent_cv(n0, n1, o0, o1);
				n0 = p[0];
				n1 = p[1];
			}
			c = (c + 1u) / 2u;
		}
		if (t == 0u) {
			cvs[2u * g] = n0;
			cvs[2u * g + 1u] = n1;
		}
	}
}
