package gputest

import (
	"errors"
	"strings"
	"testing"

	"github.com/wgcompute/wgcompute/wgpu"
)

// The machines the suite runs on: Mesa's software drivers (CI), and a host
// with two NVIDIA GPUs whose GL adapter has no compute shaders.
var (
	mesa = []wgpu.AdapterInfo{
		{Index: 0, Name: "llvmpipe (LLVM 15.0.6, 256 bits)", Backend: "vulkan", Type: "cpu"},
		{Index: 1, Name: "llvmpipe (LLVM 15.0.6, 256 bits)", Backend: "gl", Type: "cpu"},
	}
	nvidia = []wgpu.AdapterInfo{
		{Index: 0, Name: "NVIDIA H100 80GB HBM3", Backend: "vulkan", Type: "discrete"},
		{Index: 1, Name: "NVIDIA H100 80GB HBM3", Backend: "vulkan", Type: "discrete"},
		{Index: 2, Name: "NVIDIA H100 80GB HBM3/PCIe/SSE2", Backend: "gl", Type: "discrete",
			Unusable: "its OpenGL 3.3 context has no compute shaders"},
	}
)

func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		name          string
		infos         []wgpu.AdapterInfo
		listErr       error
		only, require string
		backends      string
		notes, err    []string // substrings of the joined notes and of the error
	}{
		{name: "mesa", infos: mesa, require: "vulkan,gl", backends: "vulkan,gl"},
		{name: "nvidia", infos: nvidia, backends: "vulkan",
			notes: []string{"gl adapter 2, NVIDIA H100 80GB HBM3/PCIe/SSE2: its OpenGL 3.3 context has no compute shaders", "vulkan: 2 usable adapters"}},
		{name: "nvidia requiring vulkan", infos: nvidia, require: "vulkan", backends: "vulkan"},
		{name: "nvidia requiring gl", infos: nvidia, require: "vulkan, GL", backends: "vulkan",
			err: []string{"WGCOMPUTE_REQUIRE_BACKENDS=vulkan, GL", "no compute shaders"}},
		{name: "gl missing", infos: mesa[:1], require: "vulkan,gl", backends: "vulkan", err: []string{"gl: no adapter found"}},
		{name: "narrowed", infos: mesa[:1], only: "vulkan", require: "vulkan,gl", backends: "vulkan",
			notes: []string{"WGCOMPUTE_BACKEND=vulkan: every other backend is left out"}},
		{name: "narrowed to a missing one", only: "vulkan", require: "vulkan,gl",
			err: []string{"vulkan: no adapter found"}},
		{name: "unknown required", infos: mesa, require: "vulkan,cuda", backends: "vulkan,gl", err: []string{`unknown backend "cuda"; accepted are vulkan, gl`}},
		{name: "none", err: []string{"no adapter here can run compute kernels", "0 adapters listed"}},
		{name: "only unusable", infos: nvidia[2:], backends: "", err: []string{"no adapter here", "no compute shaders"}},
		{name: "cpu", only: "cpu", err: []string{"WGCOMPUTE_BACKEND=cpu: the GPU tests need a GPU backend"}},
		{name: "listing fails", listErr: errors.New("no EGL"), require: "gl", err: []string{"gl: no EGL"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := decide(tc.infos, tc.listErr, tc.only, tc.require)
			if got := strings.Join(c.backends, ","); got != tc.backends {
				t.Errorf("backends %q, want %q", got, tc.backends)
			}
			notes := strings.Join(c.notes, "\n")
			for _, want := range tc.notes {
				if !strings.Contains(notes, want) {
					t.Errorf("notes %q lack %q", notes, want)
				}
			}
			if (c.err != nil) != (len(tc.err) > 0) {
				t.Fatalf("error %v, want one containing %q", c.err, tc.err)
			}
			for _, want := range tc.err {
				if !strings.Contains(c.err.Error(), want) {
					t.Errorf("error %q lacks %q", c.err, want)
				}
			}
		})
	}
}
