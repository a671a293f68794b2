// Package envopts is where wgcompute's programs and test helpers read the
// environment: the library reads no variable (wgpu.FromEnv translates
// the WGCOMPUTE_* variables from a lookup function it is given), so the
// commands, the benchmarks and the test helpers call Load, in one place
// each.
package envopts

import (
	"os"

	"github.com/wgcompute/wgcompute/wgpu"
)

// Load translates the process's WGCOMPUTE_* variables (wgpu.FromEnv) and
// applies what they ask of the process (the trace, the log level). It
// also sets XDG_RUNTIME_DIR to the temporary directory where it is unset
// (containers, CI): without it Mesa's EGL and wgpu's GL backend print
// warnings on standard error for every process that opens GL.
func Load() (wgpu.Env, error) {
	if os.Getenv("XDG_RUNTIME_DIR") == "" {
		os.Setenv("XDG_RUNTIME_DIR", os.TempDir())
	}
	env, err := wgpu.FromEnv(os.LookupEnv)
	if err != nil {
		return wgpu.Env{}, err
	}
	return env, env.Apply()
}
