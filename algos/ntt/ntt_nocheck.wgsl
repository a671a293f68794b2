// ntt.wgsl's loads unchecked: every pass but a checked transform's first
// (ntt_check.wgsl). The module's uniform follows ntt.wgsl's four storage
// bindings (NT_PARAMS_AT = 4).

fn nt_check(g: u32, v: NtElem) {}

fn nt_checked() {}
