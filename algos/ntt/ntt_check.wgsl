// ntt.wgsl's loads checked (Go: the first pass of a checked transform,
// Extender.CheckedDispatches): the smallest index, check_base + g, of an
// element of the input that is not a reduced one (ne_reduced) goes into
// nt_first[check_slot] where smaller (atomicMin; the caller fills the
// slot with 0xffffffff). The pass reads every element of its rows once,
// so the check costs no read of its own. An invocation keeps the
// smallest g it found in a register, behind a branch that no reduced
// word takes, and makes one atomic at the pass's end (nt_checked), which
// adds check_base: with an atomic beside each load the pass ran slower,
// and a select of check_base + g at each load a little slower than the
// branch (BENCHMARKS.md, "The rows' check in the encoding's first pass"
// and "The fused pass's scales and low stages"). The module's uniform
// follows the five storage bindings (NT_PARAMS_AT = 5).

@group(0) @binding(4) var<storage, read_write> nt_first: array<atomic<u32>>;

var<private> nt_bad: u32 = 0xffffffffu;

fn nt_check(g: u32, v: NtElem) {
	if (!ne_reduced(v)) {
		nt_bad = min(nt_bad, g);
	}
}

fn nt_checked() {
	if (nt_bad != 0xffffffffu) {
		atomicMin(&nt_first[nt.check_slot], nt.check_base + nt_bad);
	}
}
