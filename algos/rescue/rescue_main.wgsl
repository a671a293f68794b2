//!include rescue_entry.wgsl
//!include rescue_lib.wgsl
// The bindings of the Rescue kernels whose round constants are literals
// (fast, densemds, libinv, vec4): storage bindings 0 and 1 as rescue.wgsl
// declares them, the parameters' uniform at binding 2. Each variant's file,
// rescue_main_<variant>.wgsl, includes this one and defines
// permute_variant.

@group(0) @binding(2) var<uniform> params: Params;
