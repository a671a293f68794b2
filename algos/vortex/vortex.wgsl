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
// The prelude defines the field's constants (monty31.wgsl) and VX_RUN.

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

// VX_RUN (prelude, from Go's copyRun) is the words of a row one
// workgroup copies: VX_PER an invocation, each of an invocation's loads
// and stores one of a warp's runs of consecutive words.
const VX_PER: u32 = VX_RUN / VX_WG;

// vortex_copy: workgroup g copies run g mod runs of row g / runs (runs =
// ceil(width / VX_RUN), one division a workgroup rather than one a
// word), VX_PER loads in flight an invocation.
@compute @workgroup_size(256)
fn vortex_copy(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
	let g = wid.x + wid.y * nwg.x;
	let runs = (vx_params.width + VX_RUN - 1u) / VX_RUN;
	let r = g / runs;
	if (r >= vx_params.rows) {
		return;
	}
	let j0 = (g - r * runs) * VX_RUN + tid;
	let src = vx_params.src_off + r * vx_params.src_stride;
	let dst = vx_params.dst_off + r * vx_params.dst_stride;
	var v: array<u32, VX_PER>;
	for (var x = 0u; x < VX_PER; x++) {
		let j = j0 + x * VX_WG;
		if (j < vx_params.width) {
			v[x] = vx_src[src + j];
		}
	}
	for (var x = 0u; x < VX_PER; x++) {
		let j = j0 + x * VX_WG;
		if (j < vx_params.width) {
			var w = v[x];
			if (vx_params.leave != 0u) {
				w = monty31_leave(w);
			}
			vx_dst[dst + j] = w;
		}
	}
}
