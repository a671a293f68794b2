package wgpu

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGLDevicesShareALock: Contexts on one GL adapter hold one lock for
// their device calls (deviceLock), so that none waits on wgpu-hal's GL
// context lock, which aborts the process after a second; a Context on
// another backend holds its own. A reused device keeps its adapter's.
func TestGLDevicesShareALock(t *testing.T) {
	for _, backend := range []string{"gl", "vulkan"} {
		a, err := Open(Options{Backend: backend})
		if err != nil {
			t.Logf("%s: %v", backend, err)
			continue
		}
		b, err := Open(Options{Backend: backend})
		require.NoError(t, err)
		if backend == "gl" {
			require.NotNil(t, a.mu.shared, "gl")
			require.Same(t, a.mu.shared, b.mu.shared, "gl")
		} else {
			require.Nil(t, a.mu.shared, backend)
			require.Nil(t, b.mu.shared, backend)
		}
		shared := a.mu.shared
		a.Close()
		c, err := Open(Options{Backend: backend})
		require.NoError(t, err)
		require.Same(t, shared, c.mu.shared, "%s: a reused device", backend)
		b.Close()
		c.Close()
	}
}
