package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/clitest"
	"github.com/wgcompute/wgcompute/internal/base/trace"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// wgbenchCLI is wgbench's whole command tree, as the tests run it.
var wgbenchCLI = clitest.Of(newRoot)

func TestMain(m *testing.M) {
	clitest.MainOf(m, func(args []string) int { return runProcess(args, os.Stdin, os.Stdout, os.Stderr) })
}

// How the tests run wgbench and check its files.
var (
	wgbench, wgbenchIn, wgbenchOn, wgbenchWith, runCLI   = wgbenchCLI.Run, wgbenchCLI.In, wgbenchCLI.On, wgbenchCLI.With, wgbenchCLI.Exit
	wgbenchProcess, mustRead, requireFile, requireNoTemp = clitest.Process, clitest.MustRead, clitest.RequireFile, clitest.RequireNoTemp
)

// TestTraceCommand: --trace prints, after a command's own output, where the
// time went: the device's set-up, the upload and the kernels, and leaves
// the output unchanged.
func TestTraceCommand(t *testing.T) {
	defer trace.Enable(false)
	file := filepath.Join(t.TempDir(), "data")
	data := make([]byte, 3<<20+5)
	for i := range data {
		data[i] = byte(i * 31)
	}
	require.NoError(t, os.WriteFile(file, data, 0o644))
	plain, _, err := wgbench(t, "b3sum", "--backend", "cpu", file)
	require.NoError(t, err)
	var out, errOut bytes.Buffer
	code := run([]string{"--trace", "--backend", gputest.Backends()[0], "b3sum", "--device", "gpu", file}, strings.NewReader(""), &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	require.Equal(t, plain, out.String())
	trace := errOut.String()
	for _, phase := range []string{"upload", "wait for kernels", "wall since process start", "unaccounted"} {
		require.Contains(t, trace, phase)
	}
	// A device of an earlier test in this process may be reused, with
	// its kernels compiled.
	require.True(t, strings.Contains(trace, "request device") || strings.Contains(trace, "reuse a closed device"), trace)
}

// TestTraceProcess: wgbench as a process accounts for its start-up and
// leaves its devices to the exit instead of closing them.
func TestTraceProcess(t *testing.T) {
	leaves := filepath.Join(t.TempDir(), "leaves")
	require.NoError(t, os.WriteFile(leaves, make([]byte, 64*32), 0o644))
	backend := gputest.Backends()[0]
	for _, args := range [][]string{
		{"merkle", "--hash", "blake3", "--in", leaves},
		{"b3sum", "--device", "gpu", "--no-names", leaves},
	} {
		cmd := wgbenchProcess(t, "", append([]string{"--trace", "--backend", backend}, args...)...)
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		out, err := cmd.Output()
		require.NoError(t, err, errOut.String())
		require.Len(t, strings.TrimSpace(string(out)), 64, args[0])
		trace := errOut.String()
		for _, phase := range []string{"start-up: initializers and flags", "request device", "close: left to the process exit", "unaccounted"} {
			require.Contains(t, trace, phase, args[0])
		}
		require.NotRegexp(t, `(?m)^\s*close\s+\d`, trace, "%s closed its device", args[0])
	}
}

// TestEnvChecked: every command refuses a bad WGCOMPUTE_* variable, or
// --devices naming an adapter twice, with the same message naming the
// variable and what it accepts, whether it opens a device or not (b3sum
// on the CPU took WGCOMPUTE_BACKEND=bogus silently), in its exit status
// for errors.
func TestEnvChecked(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(file, []byte("hello"), 0o644))
	commands := []struct {
		args []string
		code int
	}{
		{[]string{"b3sum", file}, 1},
		{[]string{"b3sum", "--device", "cpu", file}, 1},
		{[]string{"b3sum", "combine", file}, 1},
		{[]string{"devices"}, 2},
		{[]string{"rescue", "merge", "--in", file}, 2},
		{[]string{"merkle", "--hash", "blake3", "--in", file}, 2},
		{[]string{"eigen", "--hilbert", "4"}, 2},
	}
	for _, env := range []struct{ name, value, want string }{
		{"WGCOMPUTE_BACKEND", "bogus", `wgbench: wgpu: WGCOMPUTE_BACKEND="bogus": accepted are vulkan, gl, metal, dx12, and cpu for the CPU backend` + "\n"},
		{"WGCOMPUTE_DEVICES", "0,0", `wgbench: wgpu: WGCOMPUTE_DEVICES="0,0": adapter 0 is named twice; accepted: "all", a count N, or distinct adapter indices separated by commas ("0,1")` + "\n"},
		{"WGCOMPUTE_SHADER_INT64", "no", `wgbench: wgpu: WGCOMPUTE_SHADER_INT64="no": accepted are off, and on (the default)` + "\n"},
		{"WGCOMPUTE_LOG", "loud", `wgbench: wgpu: WGCOMPUTE_LOG="loud": accepted are error, warn, info, debug` + "\n"},
		{"WGCOMPUTE_LIMITS", "tiny", `wgbench: wgpu: WGCOMPUTE_LIMITS="tiny": accepted is webgpu (or unset for the adapter's own limits)` + "\n"},
	} {
		t.Run(env.name, func(t *testing.T) {
			t.Setenv(env.name, env.value)
			for _, c := range commands {
				code, out, stderr := runCLI("", c.args...)
				require.Equal(t, c.code, code, "%q: %s", c.args, stderr)
				require.Equal(t, env.want, stderr, "%q", c.args)
				require.Empty(t, out, "%q", c.args)
			}
		})
	}
	code, _, stderr := runCLI("", "--devices", "1,1", "b3sum", "--device", "cpu", file)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "adapter 1 is named twice")
}

// TestEnvSettings: the variables reach the Options every command opens
// with, and a flag wins over its variable.
func TestEnvSettings(t *testing.T) {
	// make test's second pass sets WGCOMPUTE_LIMITS=webgpu for every test.
	t.Setenv("WGCOMPUTE_LIMITS", "")
	t.Setenv("WGCOMPUTE_BACKEND", "gl")
	t.Setenv("WGCOMPUTE_ADAPTER", "3")
	t.Setenv("WGCOMPUTE_SHADER_CHECKS", "all")
	t.Setenv("WGCOMPUTE_UPLOAD_STAGING", "map-write")
	g := &cli.Globals{GPU: wgpu.Options{Backend: "cpu"}}
	require.NoError(t, g.FromEnv())
	require.Equal(t, wgpu.Options{Backend: "cpu", Adapter: "3", ShaderChecks: wgpu.ChecksAll,
		Transfer: wgpu.TransferOptions{MapWriteUploads: true}}, g.GPU)
	g = &cli.Globals{}
	require.NoError(t, g.FromEnv())
	require.Equal(t, "gl", g.GPU.Backend)
}
