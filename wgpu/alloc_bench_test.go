package wgpu_test

import (
	"slices"
	"testing"
	"time"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

const readAll = `
@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
struct Params { count: u32, stride: u32 }
@group(0) @binding(2) var<uniform> params: Params;

// Each invocation xors 16 vec4s: consecutive ones (stride 1, coalesced) or
// 64 vec4s apart (stride 64: each invocation walks its own 1 KiB, as the
// BLAKE3 chunk kernel does).
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = gid.x + gid.y * nwg.x * 256u;
	if (i >= params.count) { return; }
	var acc = vec4<u32>(0u);
	for (var k = 0u; k < 16u; k++) {
		var j: u32;
		if (params.stride == 1u) { j = (i / 256u) * 4096u + k * 256u + i % 256u; } else { j = i * 16u + k; }
		acc ^= src[j];
	}
	if (acc.x == 0x12345678u) { dst[i % 1024u] = acc.y; }
}
`

// BenchmarkAllocHistory reads a 1 GiB buffer allocated at different points
// of a context's life, to see whether allocation history changes how fast
// the GPU reads it (seen on an H200: a 1 GiB buffer allocated after others
// were released read 2-3x slower).
func BenchmarkAllocHistory(b *testing.B) {
	ctx := gputest.Context(b, gputest.Backends()[0])
	if !ctx.Info().Timestamps {
		b.Skip("needs timestamp queries")
	}
	k, err := ctx.Kernel(wgpu.KernelSpec{Label: "readall", Module: text{"readAll", readAll}, Entry: "main", Storage: 2, Uniform: true, ReadOnly: []bool{true}})
	if err != nil {
		b.Fatal(err)
	}
	dst, err := ctx.NewBuffer("dst", 4096)
	if err != nil {
		b.Fatal(err)
	}
	defer dst.Release()
	size := uint64(1 << 30)
	for size > ctx.Limits().MaxStorageBindingSize {
		size /= 2 // software adapters: 128 MiB bindings
	}
	read := func(buf *wgpu.Buffer, stride uint32) time.Duration {
		n := size / 256 // invocations: 16 vec4 = 256 bytes each
		d := wgpu.Dispatch{Kernel: k, Bindings: []wgpu.Binding{{Buffer: buf, Size: size}, wgpu.Bind(dst)}, Params: []uint32{uint32(n), stride}, Groups: ctx.Grid(n, 256)}
		var ts []time.Duration
		for r := 0; r < 7; r++ {
			tm, err := ctx.Run(d)
			if err != nil {
				b.Fatal(err)
			}
			ts = append(ts, tm.Kernel)
		}
		slices.Sort(ts)
		return ts[3]
	}
	alloc := func(label string, n uint64) *wgpu.Buffer {
		buf, err := ctx.NewBuffer(label, n)
		if err != nil {
			b.Fatal(err)
		}
		if err := ctx.Clear(buf, 0, 0); err != nil {
			b.Fatal(err)
		}
		return buf
	}
	report := func(what string, buf *wgpu.Buffer) {
		c, s := read(buf, 1), read(buf, 64)
		b.Logf("%-44s coalesced %6.3f ms (%4.0f GB/s)   1 KiB per invocation %6.3f ms (%4.0f GB/s)", what,
			float64(c)/1e6, float64(size)/c.Seconds()/1e9, float64(s)/1e6, float64(size)/s.Seconds()/1e9)
	}
	for i := 0; i < b.N; i++ {
		first := alloc("first", size)
		report("first buffer of the context", first)
		second := alloc("second", size)
		report("second buffer (first still held)", second)
		report("first again", first)
		first.Release()
		second.Release()
		for _, n := range []uint64{64 << 20, 128 << 20, 256 << 20, 512 << 20} {
			alloc("churn", n).Release()
		}
		third := alloc("third", size)
		report("after releases and 64-512 MiB churn", third)
		third.Release()
		big := alloc("big", 2*size)
		report("buffer twice the size (first half read)", big)
		big.Release()
	}
}
