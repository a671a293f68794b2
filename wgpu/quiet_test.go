//go:build unix

package wgpu_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
)

// quietChild marks the test binary run by TestQuietWithoutRuntimeDir.
const quietChild = "WGCOMPUTE_TEST_QUIET_CHILD"

// A library program prints nothing on standard error, even where
// XDG_RUNTIME_DIR is unset (Mesa's EGL complains about it): this test runs
// its own binary without the variable, listing every backend's adapters
// (GL's initialises EGL) and opening a device on each usable one, and
// expects an empty standard error, and the variable set to a directory of
// the user's, mode 0700.
func TestQuietWithoutRuntimeDir(t *testing.T) {
	if os.Getenv(quietChild) == "1" {
		infos, err := wgpu.Adapters(wgpu.Options{})
		require.NoError(t, err)
		seen := map[string]bool{}
		for _, in := range infos {
			if in.Unusable != "" || seen[in.Backend] {
				continue
			}
			seen[in.Backend] = true
			ctx, err := wgpu.Open(wgpu.Options{Backend: in.Backend})
			require.NoError(t, err, in.Backend)
			require.NoError(t, ctx.Close())
		}
		dir := os.Getenv("XDG_RUNTIME_DIR")
		require.NotEmpty(t, dir, "Open left XDG_RUNTIME_DIR unset")
		fi, err := os.Lstat(dir)
		require.NoError(t, err)
		require.True(t, fi.IsDir(), dir)
		require.Equal(t, os.FileMode(0o700), fi.Mode().Perm(), dir)
		return
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	// TMPDIR as it is, and naming a directory that does not exist: the
	// runtime directory could not be made there, and Mesa printed
	// "error: XDG_RUNTIME_DIR is invalid" once per display it probed.
	for _, tmpdir := range []string{os.Getenv("TMPDIR"), filepath.Join(t.TempDir(), "missing")} {
		cmd := exec.Command(exe, "-test.run=^TestQuietWithoutRuntimeDir$", "-test.count=1")
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "XDG_RUNTIME_DIR=") && !strings.HasPrefix(kv, "TMPDIR=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		if tmpdir != "" {
			cmd.Env = append(cmd.Env, "TMPDIR="+tmpdir)
		}
		cmd.Env = append(cmd.Env, quietChild+"=1")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Run(), "TMPDIR=%s: stdout:\n%s\nstderr:\n%s", tmpdir, stdout.String(), stderr.String())
		require.Empty(t, stderr.String(), "TMPDIR=%s: the library printed on standard error", tmpdir)
	}
}

// TestNoAdapterUnderMemoryLimit opens a device in processes whose address
// space is limited (ulimit -v) to less than the drivers need and more
// than the Go runtime does: where Open finds no adapter, its error names
// the limit (it asked for a GPU driver, which was installed). Limits at
// which the drivers start, or the runtime aborts, say nothing of this.
func TestNoAdapterUnderMemoryLimit(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	seen := false
	for _, kb := range []string{"1400000", "1600000", "1800000"} {
		cmd := exec.Command("/bin/sh", "-c", `ulimit -v `+kb+` && exec "$0"`, exe)
		cmd.Env = append(os.Environ(), memoryChild+"=1")
		out, _ := cmd.Output()
		_, msg, ok := strings.Cut(string(out), "error: ")
		if !ok || !strings.Contains(msg, "no GPU adapter found") {
			continue
		}
		seen = true
		require.Contains(t, msg, "address space is limited to", "ulimit -v %s", kb)
	}
	if !seen {
		t.Skip("no limit tried left the runtime running and the drivers without memory")
	}
}
