//go:build !js

package wgpu

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNoAdapterSaysWhy checks that the error for a backend with no adapter
// says what was tried and why it cannot work on the system, and asks for
// drivers only where drivers would help.
func TestNoAdapterSaysWhy(t *testing.T) {
	for _, tc := range []struct {
		backend, goos string
		want          []string
		not           []string
	}{
		{"metal", "linux", []string{"backend metal", "Metal exists only on macOS", "vulkan"}, []string{"Mesa", "install"}},
		{"metal", "windows", []string{"Metal exists only on macOS", "dx12"}, []string{"Mesa", "install"}},
		{"dx12", "linux", []string{"backend dx12", "D3D12 exists only on Windows", "vulkan"}, []string{"Mesa", "install"}},
		{"d3d12", "darwin", []string{"D3D12 exists only on Windows", "metal"}, []string{"Mesa", "install"}},
		{"vulkan", "linux", []string{"backend vulkan", "no Vulkan driver", "mesa-vulkan-drivers"}, []string{"libegl"}},
		{"gl", "linux", []string{"backend gl", "no OpenGL or OpenGL ES driver", "libegl-mesa0"}, []string{"mesa-vulkan"}},
		{"vulkan", "darwin", []string{"no Vulkan driver", "metal"}, []string{"Mesa", "apt-get"}},
		{"", "linux", []string{"no GPU adapter found", "mesa-vulkan-drivers", "libegl-mesa0"}, nil},
		{"metal", "darwin", []string{"backend metal", "no Metal device"}, []string{"Mesa"}},
		{"dx12", "windows", []string{"backend dx12", "no D3D12 device"}, []string{"Mesa"}},
	} {
		err := noAdapterFor(tc.backend, tc.goos)
		require.True(t, errors.Is(err, ErrNoAdapter), "%s on %s: %v", tc.backend, tc.goos, err)
		for _, w := range tc.want {
			require.Contains(t, err.Error(), w, "%s on %s", tc.backend, tc.goos)
		}
		for _, w := range tc.not {
			require.NotContains(t, err.Error(), w, "%s on %s", tc.backend, tc.goos)
		}
	}
}
