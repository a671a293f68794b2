// blake3_parents.wgsl: the parents kernel of blake3.wgsl (see there) on
// workgroup memory: what every adapter runs. Where the device has subgroup
// operations, blake3_parents.subgroups.wgsl replaces this file
// (wgsl.Module.Features) with the same kernel, the same nodes merged in the
// same tree. Library only: params, data, cvs, parent_cv and parent_record
// are blake3.wgsl's.

var<workgroup> nodes: array<vec4<u32>, 512>;

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
