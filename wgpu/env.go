package wgpu

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Env is what the WGCOMPUTE_* environment variables ask for, as FromEnv
// translates them: the Options of every device, and the process's trace
// and log level.
type Env struct {
	// Options hold the variables' device settings; the fields no variable
	// sets are zero.
	Options Options
	// Trace asks for the process trace (EnableTrace).
	Trace bool
	// LogLevel is wgpu-native's log level (SetLogLevel).
	LogLevel string
}

// Apply does what e asks of the process: the trace on, and the log
// level, where they are asked for.
func (e Env) Apply() error {
	if e.Trace {
		EnableTrace(true)
	}
	if e.LogLevel == "" {
		return nil
	}
	return SetLogLevel(e.LogLevel)
}

// envVar is one variable FromEnv translates: set applies a value (never
// empty) to e, or says what is accepted.
type envVar struct {
	name string
	set  func(e *Env, v string) error
}

// envVars are the variables FromEnv reads; README.md lists them (a test
// checks the two lists are the same).
var envVars = []envVar{
	{"WGCOMPUTE_BACKEND", func(e *Env, v string) error {
		if !strings.EqualFold(v, "cpu") {
			if _, err := instanceBackends(v); err != nil {
				return fmt.Errorf("accepted are %s, and cpu for the CPU backend", strings.Join(Backends, ", "))
			}
		}
		e.Options.Backend = v
		return nil
	}},
	{"WGCOMPUTE_ADAPTER", func(e *Env, v string) error { e.Options.Adapter = v; return nil }},
	{"WGCOMPUTE_DEVICES", func(e *Env, v string) error {
		if _, err := parseDevices(v, acceptedDevices); err != nil {
			return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), fmt.Sprintf("wgpu: devices %q: ", v)))
		}
		e.Options.Devices = v
		return nil
	}},
	{"WGCOMPUTE_LIMITS", func(e *Env, v string) error {
		lim, ok := LimitProfiles[strings.ToLower(v)]
		if !ok {
			return fmt.Errorf("accepted is webgpu (or unset for the adapter's own limits)")
		}
		e.Options.Limits = lim
		return nil
	}},
	{"WGCOMPUTE_WAIT_LIMIT", func(e *Env, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("accepted is a duration of 0 (no limit, the default) or more, such as 90s or 10m")
		}
		e.Options.WaitLimit = d
		return nil
	}},
	{"WGCOMPUTE_SHADER_INT64", func(e *Env, v string) (err error) {
		e.Options.NoShaderInt64, err = off(v)
		return err
	}},
	{"WGCOMPUTE_SUBGROUPS", func(e *Env, v string) (err error) {
		e.Options.NoSubgroups, err = off(v)
		return err
	}},
	{"WGCOMPUTE_SHADER_CHECKS", func(e *Env, v string) error {
		c, ok := map[string]ShaderChecks{"none": 0, "bounds": ChecksBounds, "loops": ChecksLoops, "all": ChecksAll}[strings.ToLower(v)]
		if !ok {
			return fmt.Errorf("accepted are none (the default), bounds, loops and all")
		}
		e.Options.ShaderChecks = c
		return nil
	}},
	{"WGCOMPUTE_UPLOAD_STAGING", func(e *Env, v string) error {
		switch strings.ToLower(v) {
		case "host":
		case "map-write":
			e.Options.Transfer.MapWriteUploads = true
		default:
			return fmt.Errorf("accepted are host (the default: host memory where the device allows it) and map-write (MAP_WRITE staging)")
		}
		return nil
	}},
	{"WGCOMPUTE_COPY_WORKERS", func(e *Env, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("accepted is a count of goroutines, 1 or more")
		}
		e.Options.Transfer.Workers = n
		return nil
	}},
	{"WGCOMPUTE_STAGING_MIB", func(e *Env, v string) error {
		// A staging buffer is one mapped buffer, and transfers move
		// pieces far smaller than 4 GiB; a larger value was clamped to
		// the device's MaxBufferSize without a word.
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil || n < 1 || n > maxStagingMiB {
			return fmt.Errorf("accepted is a size in MiB from 1 to %d", maxStagingMiB)
		}
		e.Options.Transfer.SlotBytes = n << 20
		return nil
	}},
	{"WGCOMPUTE_STAGING_SLOTS", func(e *Env, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 64 {
			return fmt.Errorf("accepted is a count from 1 to 64")
		}
		e.Options.Transfer.Slots = n
		return nil
	}},
	{"WGCOMPUTE_BATCH_BUFFERS", func(e *Env, v string) error {
		m, err := ParseBatchMemory(v)
		e.Options.Transfer.Batches = m
		return err
	}},
	{"WGCOMPUTE_GLES_MINOR", func(e *Env, v string) error {
		if _, err := glesMinor(v); err != nil {
			return fmt.Errorf("accepted are 0, 1, 2 and auto")
		}
		e.Options.GLESMinor = v
		return nil
	}},
	{"WGCOMPUTE_LOG", func(e *Env, v string) error {
		if _, err := parseLogLevel(v); err != nil {
			return fmt.Errorf("accepted are %s", strings.Join(LogLevels, ", "))
		}
		e.LogLevel = strings.ToLower(v)
		return nil
	}},
	{"WGCOMPUTE_TRACE", func(e *Env, v string) error {
		e.Trace = v != "0"
		return nil
	}},
}

// maxStagingMiB bounds WGCOMPUTE_STAGING_MIB.
const maxStagingMiB = 4096

// off reads a variable that turns an optional feature off: "off", or "on"
// for on.
func off(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "on":
		return false, nil
	case "off":
		return true, nil
	}
	return false, fmt.Errorf("accepted are off, and on (the default)")
}

// EnvVars lists the environment variables FromEnv translates.
func EnvVars() []string {
	names := make([]string, len(envVars))
	for i, v := range envVars {
		names[i] = v.name
	}
	return names
}

// FromEnv translates the WGCOMPUTE_* environment variables, as lookup
// (os.LookupEnv) finds them, into settings; a variable unset or empty
// sets nothing. The library itself reads no variable: a program that
// offers them calls FromEnv once, in main, and gives the Options to Open
// (after its flags, which take precedence) and applies the rest
// (Env.Apply). The variables are
//
//   - WGCOMPUTE_BACKEND, WGCOMPUTE_ADAPTER, WGCOMPUTE_DEVICES:
//     Options.Backend, Adapter and Devices;
//   - WGCOMPUTE_LIMITS=webgpu: Options.Limits = WebGPULimits;
//   - WGCOMPUTE_WAIT_LIMIT (a Go duration: "30s"): Options.WaitLimit;
//   - WGCOMPUTE_SHADER_INT64=off, WGCOMPUTE_SUBGROUPS=off:
//     Options.NoShaderInt64 and NoSubgroups;
//   - WGCOMPUTE_SHADER_CHECKS=none|bounds|loops|all: Options.ShaderChecks;
//   - WGCOMPUTE_UPLOAD_STAGING=host|map-write:
//     Options.Transfer.MapWriteUploads;
//   - WGCOMPUTE_COPY_WORKERS=N, WGCOMPUTE_STAGING_MIB=N,
//     WGCOMPUTE_STAGING_SLOTS=N: Options.Transfer's Workers, SlotBytes
//     and Slots;
//   - WGCOMPUTE_BATCH_BUFFERS=auto|device|host: Options.Transfer.Batches;
//   - WGCOMPUTE_GLES_MINOR=0|1|2|auto: Options.GLESMinor;
//   - WGCOMPUTE_LOG=error|warn|info|debug: Env.LogLevel;
//   - WGCOMPUTE_TRACE (any value but 0): Env.Trace.
//
// A value a variable does not accept is an error naming the variable and
// what it accepts.
func FromEnv(lookup func(string) (string, bool)) (Env, error) {
	var e Env
	for _, ev := range envVars {
		v, _ := lookup(ev.name)
		if v == "" {
			continue
		}
		if err := ev.set(&e, v); err != nil {
			return Env{}, fmt.Errorf("wgpu: %s=%q: %w", ev.name, v, err)
		}
	}
	return e, nil
}
