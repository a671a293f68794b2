// The radix-16 rounds' arithmetic with no memory traffic and no barriers,
// for the ceiling benchmark (Go: algos/ntt's ceiling_test.go, whose
// ceilingRef is its plain-Go meaning). Measured only: no product path
// compiles it. The module is the field's file, ntt.wgsl (whose nt_radix16
// it runs) and this file; the prelude adds NT_CEIL_ROUNDS.
//
// Invocation i (of a dispatch of whole workgroups, one dimension) takes
// sixteen elements v[m] = nt_src[m] + nt_src[16 + i % 256] and the
// twiddle w = nt_tab[8 + i % 256], then runs NT_CEIL_ROUNDS DIF rounds
// nt_radix16(v, w, O) with O = nt_tab[0..8), each round followed by w =
// w·nt_tab[8 + 256], as a pass's round makes its twiddle with one
// product (nt_twiddle). It writes the sum of its sixteen elements to
// nt_data[i]. Elements are in the kernels' form throughout.

@compute @workgroup_size(NTT_WG)
fn ntt_ceiling(@builtin(global_invocation_id) gid: vec3<u32>) {
	let i = gid.x;
	let s = ne_src(16u + (i & 255u));
	var v: array<NtElem, 16>;
	for (var m = 0u; m < 16u; m++) {
		v[m] = ne_add(ne_src(m), s);
	}
	let o = array<NtElem, 8>(ne_tab(0u), ne_tab(1u), ne_tab(2u), ne_tab(3u), ne_tab(4u), ne_tab(5u), ne_tab(6u), ne_tab(7u));
	var w = ne_tab(8u + (i & 255u));
	let step = ne_tab(8u + 256u);
	for (var r = 0u; r < NT_CEIL_ROUNDS; r++) {
		nt_radix16(&v, false, w, o);
		w = ne_mul(w, step);
	}
	var sum = v[0];
	for (var m = 1u; m < 16u; m++) {
		sum = ne_add(sum, v[m]);
	}
	ne_set(i, sum);
}
