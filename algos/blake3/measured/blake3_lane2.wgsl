//!include blake3_lanes.wgsl
// blake3_lane2.wgsl: the BLAKE3 kernels with two chunks side by side in the
// lanes of a vec2<u32> (variant lanes2).
alias lane = vec2<u32>;
const LANE_W = 2u;
fn to_lane(v: vec4<u32>) -> lane { return v.xy; }
fn lane_x4(v: lane) -> vec4<u32> { return vec4<u32>(v, 0u, 0u); }
