package wgpu

import (
	"encoding/binary"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Two packages' shader files of one name are two modules: the kernel cache
// keys modules by ID, and a wgsl.Module's ID names its library, so the
// second package's kernel is not the first's, compiled once and reused.
func TestLibrariesOfOneFileName(t *testing.T) {
	lib := func(name, value string) *wgsl.Library {
		return wgsl.NewLibrary(name, fstest.MapFS{"k.wgsl": {Data: []byte("//!include goldilocks.wgsl\n" +
			"@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n" +
			"@compute @workgroup_size(1) fn main() { out[0] = goldilocks_add(vec2<u32>(" + value + "u, 0u), vec2<u32>(1u, 0u)).x; }\n")}},
			wgsl.Shared)
	}
	a, b := lib("wgpu/test-a", "1"), lib("wgpu/test-b", "2")
	for _, backend := range TestBackends() {
		t.Run(backend, func(t *testing.T) {
			ctx, err := Open(TestOptions(t, backend))
			require.NoError(t, err)
			defer ctx.Close()
			out, err := ctx.NewBuffer("out", 4)
			require.NoError(t, err)
			defer out.Release()
			for want, l := range map[uint32]*wgsl.Library{2: a, 3: b} {
				k, err := ctx.Kernel(KernelSpec{Label: "k.wgsl:main", Module: wgsl.Module{Library: l, Files: []string{"k.wgsl"}}, Entry: "main", Storage: 1})
				require.NoError(t, err)
				_, err = ctx.Run(Dispatch{Kernel: k, Bindings: []Binding{{Buffer: out}}, Groups: [3]uint32{1, 1, 1}})
				require.NoError(t, err)
				got := make([]byte, 4)
				require.NoError(t, ctx.Download(got, out, 0))
				require.Equal(t, want, binary.LittleEndian.Uint32(got), "library %s", l)
			}
		})
	}
}
