// Package envopts translates the WGCOMPUTE_* environment variables into
// wgpu.Options, for programs and tests: it is the one place that reads
// the environment. The library reads no variable and takes every setting
// from its Options; a program (wgbench, a benchmark, a service built on
// the library) or a test helper (package gputest) calls Load once, which
// reads the variables (FromEnv), refuses a value with the variable's name
// and what it accepts, and applies what they ask of the process (its
// trace, wgpu-native's log level). Vars lists the variables it knows.
package envopts

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wgcompute/wgcompute/internal/base/trace"
	"github.com/wgcompute/wgcompute/wgpu"
)

// Env is what the WGCOMPUTE_* environment variables ask for, as FromEnv
// translates them: the Options of every device, and the process's trace
// and log level.
type Env struct {
	// Options hold the variables' device settings; the fields no variable
	// sets are zero.
	Options wgpu.Options
	// Trace asks for the process trace (trace.Enable).
	Trace bool
	// LogLevel is wgpu-native's log level (wgpu.SetLogLevel).
	LogLevel string
}

// Apply does what e asks of the process: the trace on, and the log
// level, where they are asked for.
func (e Env) Apply() error {
	if e.Trace {
		trace.Enable(true)
	}
	if e.LogLevel == "" {
		return nil
	}
	return wgpu.SetLogLevel(e.LogLevel)
}

// Load translates the process's WGCOMPUTE_* variables (FromEnv) and
// applies what they ask of the process (the trace, the log level).
func Load() (Env, error) {
	env, err := FromEnv(os.LookupEnv)
	if err != nil {
		return Env{}, err
	}
	return env, env.Apply()
}

// envVar is one variable FromEnv translates: set applies a value (never
// empty) to e, or says what is accepted.
type envVar struct {
	name string
	set  func(e *Env, v string) error
}

// checked applies the settings set makes to a zero Options, and refuses
// them where wgpu.Options.Check does, saying what is accepted.
func checked(set func(o *wgpu.Options), accepted string) error {
	var o wgpu.Options
	set(&o)
	if o.Check() != nil {
		return fmt.Errorf("%s", accepted)
	}
	return nil
}

// envVars are the variables FromEnv reads; README.md lists them (a test
// checks the two lists are the same).
var envVars = []envVar{
	{"WGCOMPUTE_BACKEND", func(e *Env, v string) error {
		if err := checked(func(o *wgpu.Options) { o.Backend = v }, fmt.Sprintf("accepted are %s, and cpu for the CPU backend", strings.Join(wgpu.Backends, ", "))); err != nil {
			return err
		}
		e.Options.Backend = v
		return nil
	}},
	{"WGCOMPUTE_ADAPTER", func(e *Env, v string) error { e.Options.Adapter = v; return nil }},
	{"WGCOMPUTE_DEVICES", func(e *Env, v string) error {
		if err := (wgpu.Options{Devices: v}).Check(); err != nil {
			return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), fmt.Sprintf("wgpu: devices %q: ", v)))
		}
		e.Options.Devices = v
		return nil
	}},
	{"WGCOMPUTE_LIMITS", func(e *Env, v string) error {
		lim, ok := wgpu.LimitProfiles[strings.ToLower(v)]
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
		// The errors of a wait that gives up name the variable, which is
		// what the user set.
		e.Options.WaitLimit, e.Options.WaitLimitName = d, "WGCOMPUTE_WAIT_LIMIT"
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
		c, ok := map[string]wgpu.ShaderChecks{"none": 0, "bounds": wgpu.ChecksBounds, "loops": wgpu.ChecksLoops, "all": wgpu.ChecksAll}[strings.ToLower(v)]
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
		if err != nil || n < 1 || wgpu.CheckTransferOptions(wgpu.TransferOptions{Workers: n}) != nil {
			return fmt.Errorf("accepted is a count of goroutines, 1 or more")
		}
		e.Options.Transfer.Workers = n
		return nil
	}},
	{"WGCOMPUTE_STAGING_MIB", func(e *Env, v string) error {
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil || n < 1 || wgpu.CheckTransferOptions(wgpu.TransferOptions{SlotBytes: n << 20}) != nil {
			return fmt.Errorf("accepted is a size in MiB from 1 to %d", wgpu.MaxSlotBytes>>20)
		}
		e.Options.Transfer.SlotBytes = n << 20
		return nil
	}},
	{"WGCOMPUTE_STAGING_SLOTS", func(e *Env, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || wgpu.CheckTransferOptions(wgpu.TransferOptions{Slots: n}) != nil {
			return fmt.Errorf("accepted is a count from 1 to %d", wgpu.MaxSlots)
		}
		e.Options.Transfer.Slots = n
		return nil
	}},
	{"WGCOMPUTE_BATCH_BUFFERS", func(e *Env, v string) error {
		m, err := wgpu.ParsePieceMemory(v)
		e.Options.Runner.Memory = m
		return err
	}},
	{"WGCOMPUTE_GLES_MINOR", func(e *Env, v string) error {
		if err := checked(func(o *wgpu.Options) { o.GLESMinor = v }, "accepted are 0, 1, 2 and auto"); err != nil {
			return err
		}
		e.Options.GLESMinor = v
		return nil
	}},
	{"WGCOMPUTE_LOG", func(e *Env, v string) error {
		if !slices.Contains(wgpu.LogLevels, strings.ToLower(v)) {
			return fmt.Errorf("accepted are %s", strings.Join(wgpu.LogLevels, ", "))
		}
		e.LogLevel = strings.ToLower(v)
		return nil
	}},
	{"WGCOMPUTE_TRACE", func(e *Env, v string) error {
		switch strings.ToLower(v) {
		case "1", "on", "true", "yes":
			e.Trace = true
		case "0", "off", "false", "no":
			e.Trace = false
		default:
			return fmt.Errorf("accepted are 1, on, true and yes for the trace, and 0, off, false and no (the default) for none")
		}
		return nil
	}},
}

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

// Vars lists the environment variables FromEnv translates.
func Vars() []string {
	names := make([]string, len(envVars))
	for i, v := range envVars {
		names[i] = v.name
	}
	return names
}

// FromEnv translates the WGCOMPUTE_* environment variables, as lookup
// (os.LookupEnv) finds them, into settings; a variable unset or empty
// sets nothing. The library itself reads no variable: a program that
// offers them calls Load once, in main, and gives the Options to
// wgpu.Open (after its flags, which take precedence). The variables are
//
//   - WGCOMPUTE_BACKEND, WGCOMPUTE_ADAPTER, WGCOMPUTE_DEVICES:
//     Options.Backend, Adapter and Devices;
//   - WGCOMPUTE_LIMITS=webgpu: Options.Limits = wgpu.WebGPULimits;
//   - WGCOMPUTE_WAIT_LIMIT (a Go duration: "30s"): Options.WaitLimit,
//     with WaitLimitName naming the variable;
//   - WGCOMPUTE_SHADER_INT64=off, WGCOMPUTE_SUBGROUPS=off:
//     Options.NoShaderInt64 and NoSubgroups;
//   - WGCOMPUTE_SHADER_CHECKS=none|bounds|loops|all: Options.ShaderChecks;
//   - WGCOMPUTE_UPLOAD_STAGING=host|map-write:
//     Options.Transfer.MapWriteUploads;
//   - WGCOMPUTE_COPY_WORKERS=N, WGCOMPUTE_STAGING_MIB=N,
//     WGCOMPUTE_STAGING_SLOTS=N: Options.Transfer's Workers, SlotBytes
//     and Slots, within wgpu.CheckTransferOptions' ranges;
//   - WGCOMPUTE_BATCH_BUFFERS=auto|device|host: Options.Runner.Memory;
//   - WGCOMPUTE_GLES_MINOR=0|1|2|auto: Options.GLESMinor;
//   - WGCOMPUTE_LOG=error|warn|info|debug: Env.LogLevel;
//   - WGCOMPUTE_TRACE=1|on|true|yes (or 0|off|false|no): Env.Trace.
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
