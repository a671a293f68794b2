package main

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDevicesMissingBackend checks that a backend this system does not have
// is named as such, by devices and by a command that opens a device, and
// not answered with advice to install drivers.
func TestDevicesMissingBackend(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the backends missing here are those of Linux")
	}
	dir := t.TempDir()
	leaves := filepath.Join(dir, "leaves.bin")
	require.NoError(t, os.WriteFile(leaves, make([]byte, 64), 0o644))
	for backend, want := range map[string]string{"metal": "Metal exists only on macOS", "dx12": "D3D12 exists only on Windows"} {
		for _, args := range [][]string{{"devices"}, {"merkle", "--hash", "blake3", "--in", leaves}} {
			args = append([]string{"--backend", backend}, args...)
			stdout, _, err := wgbench(t, args...)
			require.Error(t, err, "%q", args)
			require.Empty(t, stdout, "%q", args)
			require.ErrorContains(t, err, "backend "+backend, "%q", args)
			require.ErrorContains(t, err, want, "%q", args)
			require.NotContains(t, err.Error(), "Mesa", "%q", args)
		}
	}
}
