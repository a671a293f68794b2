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

// TestNoAdapterMemoryLimit: under an address-space limit the error names
// the limit first, as the likely cause (drivers that cannot allocate list
// no adapter, and the error asked for a driver), and keeps the advice for
// a system without one.
func TestNoAdapterMemoryLimit(t *testing.T) {
	for _, backend := range []string{"", "vulkan"} {
		err := noAdapterFor(backend, "linux")
		require.Equal(t, err, withMemoryLimit(err, 0, false))
		limited := withMemoryLimit(err, 1536<<20, true)
		require.ErrorIs(t, limited, ErrNoAdapter)
		require.Contains(t, limited.Error(), "address space is limited to 1.5 GiB (ulimit -v)")
		require.Contains(t, limited.Error(), "where no driver is installed, ")
		require.Contains(t, limited.Error(), "mesa-vulkan-drivers")
		if backend != "" {
			require.Contains(t, limited.Error(), "no GPU adapter found for backend vulkan: this process's address space")
		}
	}
}
