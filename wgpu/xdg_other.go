//go:build !unix

package wgpu

// setRuntimeDir does nothing where there is no XDG_RUNTIME_DIR to miss
// (see xdg.go).
func setRuntimeDir() {}
