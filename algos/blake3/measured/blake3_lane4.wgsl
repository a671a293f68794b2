//!include blake3_lanes.wgsl
// blake3_lane4.wgsl: the BLAKE3 kernels with four chunks side by side in
// the lanes of a vec4<u32> (variants lanes4, lanes8 and lanes16; the
// prelude's GROUPS says how many vectors one invocation hashes).
alias lane = vec4<u32>;
const LANE_W = 4u;
fn to_lane(v: vec4<u32>) -> lane { return v; }
fn lane_x4(v: lane) -> vec4<u32> { return v; }
