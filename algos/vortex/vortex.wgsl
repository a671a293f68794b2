//!include monty31.wgsl
// Vortex's data movement on the device (Go: package algos/vortex): the
// codewords of a piece of rows copied into their column tiles, the
// selected columns gathered for an opening, and the leaves taken from
// Montgomery forms to canonical values for the Merkle tree's merges.
//
// Plain-Go meaning: for r < rows, j < width { v := src[src_off + r*src_stride
// + j]; if leave != 0 { v = leave(v) }; dst[dst_off + r*dst_stride + j] = v },
// leave(v) the canonical value of the Montgomery form v (v·2^-32 mod p).
//
// The prelude defines the field's constants (monty31.wgsl).

@group(0) @binding(0) var<storage, read> vx_src: array<u32>;
@group(0) @binding(1) var<storage, read_write> vx_dst: array<u32>;

struct VxParams {
	rows: u32,
	width: u32,
	src_off: u32,
	src_stride: u32,
	dst_off: u32,
	dst_stride: u32,
	leave: u32,
}
@group(0) @binding(2) var<uniform> vx_params: VxParams;

const VX_WG: u32 = 256u;

@compute @workgroup_size(256)
fn vortex_copy(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = gid.x + gid.y * nwg.x * VX_WG;
	if (i >= vx_params.rows * vx_params.width) {
		return;
	}
	let r = i / vx_params.width;
	let j = i - r * vx_params.width;
	var v = vx_src[vx_params.src_off + r * vx_params.src_stride + j];
	if (vx_params.leave != 0u) {
		v = monty31_leave(v);
	}
	vx_dst[vx_params.dst_off + r * vx_params.dst_stride + j] = v;
}
