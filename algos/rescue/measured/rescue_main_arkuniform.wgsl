//!include rescue_entry_ark.wgsl
// Rescue kernel, variant arkuniform (Go: rescue.ArkUniform): the round
// constants follow the four parameter words in the uniform at binding 2
// (Go: arkWords), two elements per vec4 since uniform arrays have a
// 16-byte stride.

struct ParamsArk {
	count: u32,
	m: u32,
	op: u32,
	j: u32,
	ark: array<vec4<u32>, RP_ARK_LEN_VEC4>,
}

@group(0) @binding(2) var<uniform> params: ParamsArk;

fn rp_ark_at(i: u32) -> vec2<u32> {
	let v = params.ark[i >> 1u];
	return select(v.xy, v.zw, (i & 1u) == 1u);
}
