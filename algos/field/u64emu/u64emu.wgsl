//!include goldilocks.wgsl
// Batch kernels over Goldilocks elements.
//
// k_add:      for i := range dst { dst[i] = a[i] + b[i] mod p }
// k_sub:      for i := range dst { dst[i] = a[i] - b[i] mod p }
// k_mul:      for i := range dst { dst[i] = a[i] * b[i] mod p }
// k_pow7:     for i := range dst { dst[i] = a[i]^7 mod p }
// k_inv_pow7: for i := range dst { dst[i] = a[i]^(1/7) mod p }
//
// Elements are little-endian u64 seen as vec2<u32>; inputs are canonical
// (the Go side checks). The binary kernels bind a, b, dst and params at
// 0..3; the unary ones bind a, then their output u_dst at 1 and u_params
// at 2, where the binary kernels have b and dst: a binding number may be
// shared by variables that no one entry point uses together.
//
// The throughput kernels measure raw mulmod rate: each invocation runs four
// independent accumulators through `steps` multiplications each.

@group(0) @binding(0) var<storage, read> a: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read> b: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec2<u32>>;

struct Params {
    count: u32,
    steps: u32,
}
@group(0) @binding(3) var<uniform> params: Params;

@group(0) @binding(1) var<storage, read_write> u_dst: array<vec2<u32>>;
@group(0) @binding(2) var<uniform> u_params: Params;

const WG: u32 = 256u;

fn elem_index(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * WG;
}

@compute @workgroup_size(256)
fn k_add(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = elem_index(gid, nwg);
    if (i >= params.count) { return; }
    dst[i] = goldilocks_add(a[i], b[i]);
}

@compute @workgroup_size(256)
fn k_sub(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = elem_index(gid, nwg);
    if (i >= params.count) { return; }
    dst[i] = goldilocks_sub(a[i], b[i]);
}

@compute @workgroup_size(256)
fn k_mul(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = elem_index(gid, nwg);
    if (i >= params.count) { return; }
    dst[i] = goldilocks_mul(a[i], b[i]);
}

@compute @workgroup_size(256)
fn k_pow7(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = elem_index(gid, nwg);
    if (i >= u_params.count) { return; }
    u_dst[i] = goldilocks_pow7(a[i]);
}

@compute @workgroup_size(256)
fn k_inv_pow7(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = elem_index(gid, nwg);
    if (i >= u_params.count) { return; }
    u_dst[i] = goldilocks_inv_pow7(a[i]);
}

// sb_mul is the straightforward multiplication kept to compare against
// goldilocks_mul in the throughput benchmark: all sixteen 16x16 partial products,
// their halves summed into 16-bit columns, one carry pass, goldilocks_reduce128.
fn sb_mul(x: vec2<u32>, y: vec2<u32>) -> vec2<u32> {
    var xs = array<u32, 4>(x.x & 0xffffu, x.x >> 16u, x.y & 0xffffu, x.y >> 16u);
    var ys = array<u32, 4>(y.x & 0xffffu, y.x >> 16u, y.y & 0xffffu, y.y >> 16u);
    var col = array<u32, 8>(0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
    for (var i = 0u; i < 4u; i++) {
        for (var j = 0u; j < 4u; j++) {
            let p = xs[i] * ys[j];
            col[i + j] += p & 0xffffu;
            col[i + j + 1u] += p >> 16u;
        }
    }
    var carry = 0u;
    for (var k = 0u; k < 8u; k++) {
        let s = col[k] + carry;
        col[k] = s & 0xffffu;
        carry = s >> 16u;
    }
    return goldilocks_reduce128(col[0] | (col[1] << 16u), col[2] | (col[3] << 16u),
                        col[4] | (col[5] << 16u), col[6] | (col[7] << 16u));
}

// The throughput kernels: a[i] and b[i] seed four accumulators and four
// multipliers; dst[i] is the sum of the accumulators after params.steps
// rounds. The Go test recomputes dst with native arithmetic.
fn seeds(i: u32) -> array<vec2<u32>, 8> {
    let x = a[i];
    let y = b[i];
    return array<vec2<u32>, 8>(x, y, goldilocks_add(x, y), goldilocks_sub(x, y),
                               y, goldilocks_neg(x), goldilocks_sub(y, x), goldilocks_add(y, y));
}

// Each throughput kernel is the same loop over one multiplication; WGSL has
// no function parameters of function type, so the loop is written per
// multiplication, in three lines.
fn throughput_out(i: u32, acc: array<vec2<u32>, 4>) {
    dst[i] = goldilocks_add(goldilocks_add(goldilocks_canon(acc[0]), goldilocks_canon(acc[1])), goldilocks_add(goldilocks_canon(acc[2]), goldilocks_canon(acc[3])));
}

@compute @workgroup_size(256)
fn mul_throughput_gl_mul(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = elem_index(gid, nwg);
    if (i >= params.count) { return; }
    let s = seeds(i);
    var acc = array<vec2<u32>, 4>(s[0], s[1], s[2], s[3]);
    for (var k = 0u; k < params.steps; k++) {
        acc = array<vec2<u32>, 4>(goldilocks_mul(acc[0], s[4]), goldilocks_mul(acc[1], s[5]), goldilocks_mul(acc[2], s[6]), goldilocks_mul(acc[3], s[7]));
    }
    throughput_out(i, acc);
}

// mul_throughput_gl_mul_lazy: the accumulators stay below 2^64, reduced to
// [0, p) once at the end (goldilocks_canon in throughput_out).
@compute @workgroup_size(256)
fn mul_throughput_gl_mul_lazy(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = elem_index(gid, nwg);
    if (i >= params.count) { return; }
    let s = seeds(i);
    var acc = array<vec2<u32>, 4>(s[0], s[1], s[2], s[3]);
    for (var k = 0u; k < params.steps; k++) {
        acc = array<vec2<u32>, 4>(goldilocks_mul_lazy(acc[0], s[4]), goldilocks_mul_lazy(acc[1], s[5]), goldilocks_mul_lazy(acc[2], s[6]), goldilocks_mul_lazy(acc[3], s[7]));
    }
    throughput_out(i, acc);
}

@compute @workgroup_size(256)
fn mul_throughput_schoolbook(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = elem_index(gid, nwg);
    if (i >= params.count) { return; }
    let s = seeds(i);
    var acc = array<vec2<u32>, 4>(s[0], s[1], s[2], s[3]);
    for (var k = 0u; k < params.steps; k++) {
        acc = array<vec2<u32>, 4>(sb_mul(acc[0], s[4]), sb_mul(acc[1], s[5]), sb_mul(acc[2], s[6]), sb_mul(acc[3], s[7]));
    }
    throughput_out(i, acc);
}

// Coverage kernels: the library functions that no batch operation above
// exposes on its own, run by the Go tests against the native reference.
// k_lib computes, by params.steps: 0 goldilocks_canon(a) (any 64-bit a),
// 1 goldilocks_neg(a), 2 goldilocks_square(a), 3 goldilocks_mul_small(a, b.x),
// 4 goldilocks_reduce96(a.x, a.y, b.x), 5 goldilocks_reduce128(a.x, a.y, b.x, b.y),
// 6 goldilocks_mul(a, b), 7 goldilocks_mul_lazy(a, b), 8 goldilocks_square_lazy(a) (the last
// three on any 64-bit a and b).
@compute @workgroup_size(256)
fn k_lib(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = elem_index(gid, nwg);
    if (i >= params.count) { return; }
    let x = a[i];
    let y = b[i];
    var r = vec2<u32>(0u, 0u);
    switch (params.steps) {
        case 0u: { r = goldilocks_canon(x); }
        case 1u: { r = goldilocks_neg(x); }
        case 2u: { r = goldilocks_square(x); }
        case 3u: { r = goldilocks_mul_small(x, y.x); }
        case 4u: { r = goldilocks_reduce96(x.x, x.y, y.x); }
        case 5u: { r = goldilocks_reduce128(x.x, x.y, y.x, y.y); }
        case 6u: { r = goldilocks_mul(x, y); }
        case 7u: { r = goldilocks_mul_lazy(x, y); }
        default: { r = goldilocks_square_lazy(x); }
    }
    dst[i] = r;
}
