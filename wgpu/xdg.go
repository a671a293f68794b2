//go:build unix

package wgpu

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// setRuntimeDir sets XDG_RUNTIME_DIR for the process where it is unset,
// before the first instance is made: listing GL adapters initialises EGL,
// and Mesa's EGL, through libwayland, prints "error: XDG_RUNTIME_DIR is
// invalid or not set in the environment" on standard error for a process
// without it (containers, CI, services), once per display it probes. The
// library prints nothing of its own accord, so it gives the process what
// the XDG specification asks for: a directory of the user's, mode 0700.
// This is the one variable the library touches (internal/doccheck allows
// this file alone); a value the caller set is kept.
var setRuntimeDir = sync.OnceFunc(func() {
	if os.Getenv("XDG_RUNTIME_DIR") != "" {
		return
	}
	if dir, err := runtimeDir(); err == nil {
		os.Setenv("XDG_RUNTIME_DIR", dir)
	}
})

// runtimeDir returns a directory of the user's, mode 0700, under the
// temporary directory, or under /tmp where that cannot hold one (TMPDIR
// names a missing or read-only directory): wgcompute-runtime-UID, made if
// missing and reused if it is such a directory (not a link, not another
// user's, not open to others), else a new one of its own.
func runtimeDir() (string, error) {
	return runtimeDirIn(os.TempDir(), "/tmp")
}

// runtimeDirIn is runtimeDir under the first of parents that can hold
// one.
func runtimeDirIn(parents ...string) (string, error) {
	uid := os.Getuid()
	var first error
	for _, parent := range parents {
		dir := filepath.Join(parent, fmt.Sprintf("wgcompute-runtime-%d", uid))
		if err := os.Mkdir(dir, 0o700); err == nil || os.IsExist(err) {
			if fi, err := os.Lstat(dir); err == nil && fi.IsDir() && fi.Mode().Perm() == 0o700 {
				if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) == uid {
					return dir, nil
				}
			}
		}
		dir, err := os.MkdirTemp(parent, "wgcompute-runtime-")
		if err == nil {
			return dir, nil
		}
		if first == nil {
			first = err
		}
	}
	return "", first
}
