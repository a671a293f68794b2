// Warm-up: busy arithmetic that wakes an idle GPU's clocks before timed
// work (wgpu's Group.Warm). Nothing reads the result; it is written only
// so that the loop is not optimised away.
//
// Plain-Go meaning: for i < len(out) { x := i; repeat rounds times { x = x*1664525 + 1013904223; x ^= x >> 13 }; out[i] = x }

@group(0) @binding(0) var<storage, read_write> warm_out: array<u32>;

struct WarmParams {
	rounds: u32, // iterations of the loop per invocation
}
@group(0) @binding(1) var<uniform> warm_p: WarmParams;

@compute @workgroup_size(64)
fn warm(@builtin(global_invocation_id) gid: vec3<u32>) {
	let i = gid.x;
	if (i >= arrayLength(&warm_out)) {
		return;
	}
	var x = i;
	for (var r = 0u; r < warm_p.rounds; r++) {
		x = x * 1664525u + 1013904223u;
		x = x ^ (x >> 13u);
	}
	warm_out[i] = x;
}
