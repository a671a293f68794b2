//!include monty31.wgsl
// Vortex's Merkle proofs on the device (Go: package algos/vortex,
// ProverState.OpenColumns): the tree stays on the device, one buffer a
// level of canonical digests, and an opening reads back only the
// siblings on the selected columns' paths, as Montgomery forms
// (gnark-crypto's koalabear.Element in memory).
//
// Plain-Go meaning, one dispatch a level (or a piece of one, nodes
// node_lo .. node_lo + nodes): for i < count { node = (sel[i] >> shift) ^ 1;
// if node_lo <= node < node_lo + nodes { for w < 8 { out[(i*depth + pos)*8
// + w] = enter(level[(node - node_lo)*8 + w]) } } }, enter(v) the
// Montgomery form v·2^32 mod p of the canonical v.
//
// The prelude defines the field's constants (monty31.wgsl).

@group(0) @binding(0) var<storage, read> vp_level: array<u32>;
@group(0) @binding(1) var<storage, read_write> vp_out: array<u32>;
@group(0) @binding(2) var<storage, read> vp_sel: array<u32>;

struct VpParams {
	count: u32,
	shift: u32,
	depth: u32,
	pos: u32,
	node_lo: u32,
	nodes: u32,
}
@group(0) @binding(3) var<uniform> vp_params: VpParams;

@compute @workgroup_size(64)
fn vortex_path(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let t = gid.x + gid.y * nwg.x * 64u;
	let i = t >> 3u;
	let w = t & 7u;
	if (i >= vp_params.count) {
		return;
	}
	let node = (vp_sel[i] >> vp_params.shift) ^ 1u;
	if ((node < vp_params.node_lo) | (node - vp_params.node_lo >= vp_params.nodes)) {
		return;
	}
	vp_out[(i * vp_params.depth + vp_params.pos) * 8u + w] = monty31_enter(vp_level[(node - vp_params.node_lo) * 8u + w]);
}
