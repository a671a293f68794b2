//!include rescue_entry_ark.wgsl
// Rescue kernel, variant arkstorage (Go: rescue.ArkStorage): the round
// constants read from the storage buffer at binding 2 (Go: arkWords), the
// parameters' uniform at binding 3.

@group(0) @binding(2) var<storage, read> rp_ark: array<vec2<u32>, RP_ARK_LEN>;
@group(0) @binding(3) var<uniform> params: Params;

fn rp_ark_at(i: u32) -> vec2<u32> {
	return rp_ark[i];
}
