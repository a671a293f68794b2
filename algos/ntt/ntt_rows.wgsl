// ntt.wgsl's output as whole rows (Go: every pass but a tiled output's
// last): nt_put writes element i of the output, r·2^out_log + c for
// column c of row r, at nt_data[i].

fn nt_put(i: u32, slot: u32, v: NtElem) {
	ne_set(i, v);
}
