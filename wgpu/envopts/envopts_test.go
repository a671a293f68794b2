package envopts

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/internal/base/trace"
	"github.com/wgcompute/wgcompute/wgpu"
)

// lookup is os.LookupEnv over vars.
func lookup(vars map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

// Each variable sets its field, with today's values and meanings; unset
// and empty set nothing.
func TestFromEnv(t *testing.T) {
	for _, c := range []struct {
		name, value string
		want        Env
	}{
		{"WGCOMPUTE_BACKEND", "Vulkan", Env{Options: wgpu.Options{Backend: "Vulkan"}}},
		{"WGCOMPUTE_BACKEND", "cpu", Env{Options: wgpu.Options{Backend: "cpu"}}},
		{"WGCOMPUTE_ADAPTER", "H100", Env{Options: wgpu.Options{Adapter: "H100"}}},
		{"WGCOMPUTE_DEVICES", "0,1", Env{Options: wgpu.Options{Devices: "0,1"}}},
		{"WGCOMPUTE_LIMITS", "WebGPU", Env{Options: wgpu.Options{Limits: wgpu.WebGPULimits}}},
		{"WGCOMPUTE_WAIT_LIMIT", "30s", Env{Options: wgpu.Options{WaitLimit: 30 * time.Second, WaitLimitName: "WGCOMPUTE_WAIT_LIMIT"}}},
		{"WGCOMPUTE_SHADER_INT64", "off", Env{Options: wgpu.Options{NoShaderInt64: true}}},
		{"WGCOMPUTE_SHADER_INT64", "on", Env{}},
		{"WGCOMPUTE_SUBGROUPS", "OFF", Env{Options: wgpu.Options{NoSubgroups: true}}},
		{"WGCOMPUTE_SHADER_CHECKS", "all", Env{Options: wgpu.Options{ShaderChecks: wgpu.ChecksAll}}},
		{"WGCOMPUTE_SHADER_CHECKS", "bounds", Env{Options: wgpu.Options{ShaderChecks: wgpu.ChecksBounds}}},
		{"WGCOMPUTE_SHADER_CHECKS", "loops", Env{Options: wgpu.Options{ShaderChecks: wgpu.ChecksLoops}}},
		{"WGCOMPUTE_SHADER_CHECKS", "none", Env{}},
		{"WGCOMPUTE_UPLOAD_STAGING", "map-write", Env{Options: wgpu.Options{Transfer: wgpu.TransferOptions{MapWriteUploads: true}}}},
		{"WGCOMPUTE_UPLOAD_STAGING", "host", Env{}},
		{"WGCOMPUTE_COPY_WORKERS", "32", Env{Options: wgpu.Options{Transfer: wgpu.TransferOptions{Workers: 32}}}},
		{"WGCOMPUTE_STAGING_MIB", "64", Env{Options: wgpu.Options{Transfer: wgpu.TransferOptions{SlotBytes: 64 << 20}}}},
		{"WGCOMPUTE_STAGING_SLOTS", "4", Env{Options: wgpu.Options{Transfer: wgpu.TransferOptions{Slots: 4}}}},
		{"WGCOMPUTE_BATCH_BUFFERS", "host", Env{Options: wgpu.Options{Runner: wgpu.RunnerOptions{Memory: wgpu.PiecesInHost}}}},
		{"WGCOMPUTE_BATCH_BUFFERS", "device", Env{Options: wgpu.Options{Runner: wgpu.RunnerOptions{Memory: wgpu.PiecesInDevice}}}},
		{"WGCOMPUTE_BATCH_BUFFERS", "auto", Env{}},
		{"WGCOMPUTE_GLES_MINOR", "auto", Env{Options: wgpu.Options{GLESMinor: "auto"}}},
		{"WGCOMPUTE_GLES_MINOR", "2", Env{Options: wgpu.Options{GLESMinor: "2"}}},
		{"WGCOMPUTE_LOG", "Debug", Env{LogLevel: "debug"}},
		{"WGCOMPUTE_TRACE", "1", Env{Trace: true}},
		{"WGCOMPUTE_TRACE", "on", Env{Trace: true}},
		{"WGCOMPUTE_TRACE", "True", Env{Trace: true}},
		{"WGCOMPUTE_TRACE", "yes", Env{Trace: true}},
		{"WGCOMPUTE_TRACE", "0", Env{}},
		{"WGCOMPUTE_TRACE", "off", Env{}},
		{"WGCOMPUTE_TRACE", "false", Env{}},
		{"WGCOMPUTE_TRACE", "NO", Env{}},
	} {
		e, err := FromEnv(lookup(map[string]string{c.name: c.value}))
		require.NoError(t, err, "%s=%s", c.name, c.value)
		require.Equal(t, c.want, e, "%s=%s", c.name, c.value)
		e, err = FromEnv(lookup(map[string]string{c.name: ""}))
		require.NoError(t, err)
		require.Equal(t, Env{}, e, "%s empty sets nothing", c.name)
	}
	e, err := FromEnv(lookup(nil))
	require.NoError(t, err)
	require.Equal(t, Env{}, e)
}

// A value a variable does not accept is an error that names the variable,
// the value and what is accepted.
func TestFromEnvRefuses(t *testing.T) {
	for _, c := range []struct{ name, value, accepted string }{
		{"WGCOMPUTE_BACKEND", "bogus", "accepted are vulkan, gl, metal, dx12, and cpu"},
		{"WGCOMPUTE_DEVICES", "0,0", `adapter 0 is named twice; accepted: "all", a count N`},
		{"WGCOMPUTE_DEVICES", "0", "a count must be at least 1"},
		{"WGCOMPUTE_LIMITS", "tiny", "accepted is webgpu"},
		{"WGCOMPUTE_WAIT_LIMIT", "soon", "accepted is a duration"},
		{"WGCOMPUTE_SHADER_INT64", "no", "accepted are off, and on"},
		{"WGCOMPUTE_SUBGROUPS", "0", "accepted are off, and on"},
		{"WGCOMPUTE_SHADER_CHECKS", "some", "accepted are none (the default), bounds, loops and all"},
		{"WGCOMPUTE_UPLOAD_STAGING", "device", "accepted are host"},
		{"WGCOMPUTE_COPY_WORKERS", "0", "accepted is a count of goroutines"},
		{"WGCOMPUTE_STAGING_MIB", "-1", "accepted is a size in MiB from 1 to 65536"},
		{"WGCOMPUTE_STAGING_MIB", "0", "accepted is a size in MiB"},
		{"WGCOMPUTE_STAGING_MIB", "65537", "accepted is a size in MiB"},
		{"WGCOMPUTE_STAGING_MIB", "17592186044417", "accepted is a size in MiB"},
		{"WGCOMPUTE_STAGING_SLOTS", "65", "accepted is a count from 1 to 64"},
		{"WGCOMPUTE_STAGING_SLOTS", "0", "accepted is a count from 1 to 64"},
		{"WGCOMPUTE_COPY_WORKERS", "-1", "accepted is a count of goroutines"},
		{"WGCOMPUTE_TRACE", "maybe", "accepted are 1, on, true and yes for the trace, and 0, off, false and no"},
		{"WGCOMPUTE_TRACE", "/tmp/trace", "accepted are 1, on"},
		{"WGCOMPUTE_BATCH_BUFFERS", "staged", "accepted are auto"},
		{"WGCOMPUTE_GLES_MINOR", "7", "accepted are 0, 1, 2 and auto"},
		{"WGCOMPUTE_LOG", "loud", "accepted are error, warn, info, debug"},
	} {
		_, err := FromEnv(lookup(map[string]string{c.name: c.value, "WGCOMPUTE_ADAPTER": "0"}))
		require.ErrorContains(t, err, "wgpu: "+c.name+`="`+c.value+`": `, c.name)
		require.ErrorContains(t, err, c.accepted, c.name)
	}
}

// Vars lists every variable FromEnv reads, and FromEnv reads no other
// variable: a lookup that records what it is asked for sees exactly them.
func TestEnvVars(t *testing.T) {
	var asked []string
	_, err := FromEnv(func(name string) (string, bool) {
		asked = append(asked, name)
		return "", false
	})
	require.NoError(t, err)
	require.Equal(t, Vars(), asked)
	for _, name := range asked {
		require.True(t, strings.HasPrefix(name, "WGCOMPUTE_"), name)
	}
}

// Env.Apply turns the trace on where it is asked for, and sets the log
// level.
func TestEnvApply(t *testing.T) {
	defer trace.Enable(false)
	defer wgpu.SetLogLevel("")
	trace.Enable(false)
	require.NoError(t, Env{}.Apply())
	require.False(t, trace.On())
	require.NoError(t, Env{Trace: true, LogLevel: "warn"}.Apply())
	require.True(t, trace.On())
	require.Error(t, Env{LogLevel: "loud"}.Apply())
}

// WGCOMPUTE_WAIT_LIMIT sets Options.WaitLimit, and names itself in the
// Options (WaitLimitName) for the errors of a wait that gives up;
// anything but a duration of zero or more is refused, saying what is
// accepted.
func TestWaitLimitSettings(t *testing.T) {
	for v, want := range map[string]time.Duration{"": 0, "0": 0, "90s": 90 * time.Second, "10m": 10 * time.Minute} {
		e, err := FromEnv(lookup(map[string]string{"WGCOMPUTE_WAIT_LIMIT": v}))
		require.NoError(t, err, v)
		require.Equal(t, want, e.Options.WaitLimit, v)
		if v != "" {
			require.Equal(t, "WGCOMPUTE_WAIT_LIMIT", e.Options.WaitLimitName, v)
		}
	}
	for _, v := range []string{"90", "-1s", "soon"} {
		_, err := FromEnv(lookup(map[string]string{"WGCOMPUTE_WAIT_LIMIT": v}))
		require.ErrorContains(t, err, "WGCOMPUTE_WAIT_LIMIT", v)
		require.ErrorContains(t, err, "accepted is a duration", v)
	}
}

// Load translates the process's variables and refuses a bad one.
func TestLoad(t *testing.T) {
	t.Setenv("WGCOMPUTE_ADAPTER", "H100")
	env, err := Load()
	require.NoError(t, err)
	require.Equal(t, "H100", env.Options.Adapter)
	t.Setenv("WGCOMPUTE_SUBGROUPS", "maybe")
	_, err = Load()
	require.ErrorContains(t, err, `WGCOMPUTE_SUBGROUPS="maybe"`)
}
