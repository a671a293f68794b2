package wgpu

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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
		{"WGCOMPUTE_BACKEND", "Vulkan", Env{Options: Options{Backend: "Vulkan"}}},
		{"WGCOMPUTE_BACKEND", "cpu", Env{Options: Options{Backend: "cpu"}}},
		{"WGCOMPUTE_ADAPTER", "H100", Env{Options: Options{Adapter: "H100"}}},
		{"WGCOMPUTE_DEVICES", "0,1", Env{Options: Options{Devices: "0,1"}}},
		{"WGCOMPUTE_LIMITS", "WebGPU", Env{Options: Options{Limits: WebGPULimits}}},
		{"WGCOMPUTE_WAIT_LIMIT", "30s", Env{Options: Options{WaitLimit: 30 * time.Second}}},
		{"WGCOMPUTE_SHADER_INT64", "off", Env{Options: Options{NoShaderInt64: true}}},
		{"WGCOMPUTE_SHADER_INT64", "on", Env{}},
		{"WGCOMPUTE_SUBGROUPS", "OFF", Env{Options: Options{NoSubgroups: true}}},
		{"WGCOMPUTE_SHADER_CHECKS", "all", Env{Options: Options{ShaderChecks: ChecksAll}}},
		{"WGCOMPUTE_SHADER_CHECKS", "bounds", Env{Options: Options{ShaderChecks: ChecksBounds}}},
		{"WGCOMPUTE_SHADER_CHECKS", "loops", Env{Options: Options{ShaderChecks: ChecksLoops}}},
		{"WGCOMPUTE_SHADER_CHECKS", "none", Env{}},
		{"WGCOMPUTE_UPLOAD_STAGING", "map-write", Env{Options: Options{Transfer: TransferOptions{MapWriteUploads: true}}}},
		{"WGCOMPUTE_UPLOAD_STAGING", "host", Env{}},
		{"WGCOMPUTE_COPY_WORKERS", "32", Env{Options: Options{Transfer: TransferOptions{Workers: 32}}}},
		{"WGCOMPUTE_STAGING_MIB", "64", Env{Options: Options{Transfer: TransferOptions{SlotBytes: 64 << 20}}}},
		{"WGCOMPUTE_STAGING_SLOTS", "4", Env{Options: Options{Transfer: TransferOptions{Slots: 4}}}},
		{"WGCOMPUTE_BATCH_BUFFERS", "host", Env{Options: Options{Transfer: TransferOptions{Batches: BatchHost}}}},
		{"WGCOMPUTE_BATCH_BUFFERS", "device", Env{Options: Options{Transfer: TransferOptions{Batches: BatchDevice}}}},
		{"WGCOMPUTE_BATCH_BUFFERS", "auto", Env{}},
		{"WGCOMPUTE_GLES_MINOR", "auto", Env{Options: Options{GLESMinor: "auto"}}},
		{"WGCOMPUTE_GLES_MINOR", "2", Env{Options: Options{GLESMinor: "2"}}},
		{"WGCOMPUTE_LOG", "Debug", Env{LogLevel: "debug"}},
		{"WGCOMPUTE_TRACE", "1", Env{Trace: true}},
		{"WGCOMPUTE_TRACE", "0", Env{}},
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
		{"WGCOMPUTE_STAGING_MIB", "-1", "accepted is a size in MiB"},
		{"WGCOMPUTE_STAGING_MIB", "999999999", "accepted is a size in MiB from 1 to 4096"},
		{"WGCOMPUTE_STAGING_SLOTS", "65", "accepted is a count from 1 to 64"},
		{"WGCOMPUTE_BATCH_BUFFERS", "staged", "accepted are auto"},
		{"WGCOMPUTE_GLES_MINOR", "7", "accepted are 0, 1, 2 and auto"},
		{"WGCOMPUTE_LOG", "loud", "accepted are error, warn, info, debug"},
	} {
		_, err := FromEnv(lookup(map[string]string{c.name: c.value, "WGCOMPUTE_ADAPTER": "0"}))
		require.ErrorContains(t, err, "wgpu: "+c.name+`="`+c.value+`": `, c.name)
		require.ErrorContains(t, err, c.accepted, c.name)
	}
}

// EnvVars lists every variable FromEnv reads, and FromEnv reads no other
// variable: a lookup that records what it is asked for sees exactly them.
func TestEnvVars(t *testing.T) {
	var asked []string
	_, err := FromEnv(func(name string) (string, bool) {
		asked = append(asked, name)
		return "", false
	})
	require.NoError(t, err)
	require.Equal(t, EnvVars(), asked)
	for _, name := range asked {
		require.True(t, strings.HasPrefix(name, "WGCOMPUTE_"), name)
	}
}

// Env.Apply turns the trace on where it is asked for, and sets the log
// level.
func TestEnvApply(t *testing.T) {
	defer EnableTrace(false)
	defer SetLogLevel("")
	EnableTrace(false)
	require.NoError(t, Env{}.Apply())
	require.False(t, Tracing())
	require.NoError(t, Env{Trace: true, LogLevel: "warn"}.Apply())
	require.True(t, Tracing())
	require.Equal(t, logLevelOf("warn"), logLevel.Load())
	require.Error(t, Env{LogLevel: "loud"}.Apply())
}

func logLevelOf(s string) any {
	l, _ := parseLogLevel(s)
	return l
}
