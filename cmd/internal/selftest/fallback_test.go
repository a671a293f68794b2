package selftest

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
)

// TestFallbackNote: the self-test says once when it ran on a software
// renderer, or on OpenGL because Vulkan was missing, and what to install;
// nothing for a GPU on Vulkan, a backend the user chose, or the CPU
// backend.
func TestFallbackNote(t *testing.T) {
	lavapipe := wgpu.AdapterInfo{Name: "llvmpipe (LLVM 15.0.6, 256 bits)", Backend: "vulkan", Type: "cpu"}
	llvmpipeGL := wgpu.AdapterInfo{Name: "llvmpipe (LLVM 15.0.6, 256 bits)", Backend: "gl", Type: "cpu"}
	gpu := wgpu.AdapterInfo{Name: "NVIDIA H100", Backend: "vulkan", Type: "discrete"}
	gpuGL := wgpu.AdapterInfo{Name: "NVIDIA H100", Backend: "gl", Type: "discrete"}

	note := FallbackNote([]wgpu.AdapterInfo{llvmpipeGL}, false)
	require.Contains(t, note, "no Vulkan adapter was found, so this ran on OpenGL: llvmpipe")
	require.Contains(t, note, "software renderer")
	require.Contains(t, note, "'make setup'")
	require.Contains(t, note, "mesa-vulkan-drivers")

	note = FallbackNote([]wgpu.AdapterInfo{gpuGL}, false)
	require.Contains(t, note, "no Vulkan adapter was found")
	require.NotContains(t, note, "software renderer")

	note = FallbackNote([]wgpu.AdapterInfo{lavapipe}, false)
	require.Contains(t, note, "llvmpipe (LLVM 15.0.6, 256 bits) (vulkan) is a software renderer")
	require.Contains(t, note, "Vulkan driver")
	require.Equal(t, note, FallbackNote([]wgpu.AdapterInfo{lavapipe}, true), "chosen or not, software is software")

	require.Contains(t, FallbackNote([]wgpu.AdapterInfo{llvmpipeGL}, true), "is a software renderer", "GL chosen: no fallback, still software")
	require.Empty(t, FallbackNote([]wgpu.AdapterInfo{gpu}, false))
	require.Empty(t, FallbackNote([]wgpu.AdapterInfo{gpuGL}, true), "GL chosen on a GPU")
	require.Empty(t, FallbackNote([]wgpu.AdapterInfo{gpu, lavapipe}, false), "a GPU was checked")
	require.Empty(t, FallbackNote([]wgpu.AdapterInfo{{Name: "CPU", Backend: "cpu"}}, false))
	require.Empty(t, FallbackNote(nil, false))
}
