package selftestcmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/field/u64emu"
	"github.com/wgcompute/wgcompute/cmd/internal/selftest"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// runSelftest runs 'wgbench args...' with the selftest command checking
// fams, and returns stdout and RunE's error.
func runSelftest(t *testing.T, fams []selftest.Family, args ...string) (string, error) {
	t.Helper()
	out, _, err := runSelftestStderr(t, fams, args...)
	return out, err
}

// runSelftestStderr is runSelftest, returning stderr too.
func runSelftestStderr(t *testing.T, fams []selftest.Family, args ...string) (string, string, error) {
	t.Helper()
	g := &cli.Globals{Args: args}
	root := cli.NewRoot(g)
	root.AddCommand(selftestCmd(g, fams))
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), errOut.String(), err
}

// requireLines checks that out has one line per family and adapter, each
// PASS, and returns them.
func requireLines(t *testing.T, out string, adapters int) []string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, adapters*len(selftest.Families()), out)
	for _, l := range lines {
		require.True(t, strings.HasPrefix(l, "PASS  "), l)
	}
	return lines
}

// Every adapter that can run compute passes, each other one is listed as
// not checked, with the reason, and the report says so: one JSON object
// per adapter checked, with its limits and every family's result. A
// machine may have several adapters of a backend (two GPUs), and every
// backend the tests cover has at least one.
func TestSelftestAll(t *testing.T) {
	listed, err := wgpu.Adapters(gputest.Options(t, ""))
	require.NoError(t, err)
	var infos, unusable []wgpu.AdapterInfo
	backends := map[string]bool{}
	for _, in := range listed {
		if in.Unusable != "" {
			unusable = append(unusable, in)
			continue
		}
		infos = append(infos, in)
		backends[in.Backend] = true
	}
	for _, b := range gputest.Backends() {
		require.True(t, backends[b], "no usable %s adapter among %+v", b, listed)
	}
	path := filepath.Join(t.TempDir(), "report.json")
	var out, errOut bytes.Buffer
	code := run([]string{"selftest", "--all", "--json", path}, strings.NewReader(""), &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	rest := out.String()
	for _, in := range unusable {
		line := fmt.Sprintf("adapter %d: %s (%s): not checked: %s\n", in.Index, in.Name, in.Backend, in.Unusable)
		var ok bool
		rest, ok = strings.CutPrefix(rest, line)
		require.True(t, ok, "want %q first in %q", line, rest)
	}
	lines := requireLines(t, rest, len(infos))
	for i, in := range infos {
		require.Contains(t, lines[i*len(selftest.Families())], "["+in.Backend+": "+in.Name)
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var rep selftest.File
	require.NoError(t, json.Unmarshal(b, &rep))
	require.True(t, rep.Pass)
	require.NotEmpty(t, rep.Build.Go)
	require.Len(t, rep.Adapters, len(infos))
	for i, a := range rep.Adapters {
		require.Equal(t, infos[i].Name, a.Adapter.Name)
		require.NotZero(t, a.Adapter.Limits.MaxStorageBindingSize)
		require.Len(t, a.Results, len(selftest.Families()))
		for _, r := range a.Results {
			require.True(t, r.Pass, r.Family)
			require.NotZero(t, r.Cases, r.Family)
		}
	}
}

// Under the limits WebGPU guarantees, every family still passes, and the
// lines say which limits they ran with.
func TestSelftestWebGPULimits(t *testing.T) {
	out, err := runSelftest(t, selftest.Families(), "--backend", gputest.Backends()[0], "selftest", "--limits", "webgpu")
	require.NoError(t, err)
	for _, l := range requireLines(t, out, 1) {
		require.Contains(t, l, ", limits webgpu]")
	}
}

// The CPU backend checks the reference itself against the built-in
// digests.
func TestSelftestCPU(t *testing.T) {
	out, err := runSelftest(t, selftest.Families(), "--backend", "cpu", "selftest", "--all")
	require.NoError(t, err)
	for _, l := range requireLines(t, out, 1) {
		require.Contains(t, l, "[cpu: ")
	}
}

// A family whose kernel computes something else fails: its line says
// FAIL and names the case, the others still pass, the report records it,
// and wgbench exits with status 1.
func TestSelftestWrongKernel(t *testing.T) {
	var fams []selftest.Family // u64emu, wrong, and eigen, right
	for _, f := range selftest.Families() {
		switch f.Name {
		case "eigen":
			fams = append(fams, f)
		case "u64emu":
			run := f.Run
			f.Run = func(ctx *wgpu.Context) ([]selftest.Output, error) {
				outs, err := run(ctx)
				// mul's result replaced by another product from
				// the GPU: a kernel that computes something else.
				a := []uint64{2, u64emu.P - 1}
				dst := make([]uint64, len(a))
				if err := u64emu.MulTo(ctx, dst, a, a); err != nil {
					return nil, err
				}
				for j := range outs {
					if outs[j].Case == "mul" {
						outs[j].Digest = selftest.Digest(wgpu.Bytes(dst))
					}
				}
				return outs, err
			}
			fams = append(fams, f)
		}
	}
	for _, backend := range gputest.Backends() {
		t.Run(backend, func(t *testing.T) { requireWrongKernelFails(t, fams, backend) })
	}
}

func requireWrongKernelFails(t *testing.T, fams []selftest.Family, backend string) {
	path := filepath.Join(t.TempDir(), "report.json")
	out, err := runSelftest(t, fams, "--backend", backend, "selftest", "--json", path)
	require.Equal(t, cli.ExitError{Code: 1}, err)
	var fails []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(l, "PASS") {
			fails = append(fails, l)
		}
	}
	require.Len(t, fails, 2, out)
	require.True(t, strings.HasPrefix(fails[0], "FAIL  u64emu "), fails[0])
	require.Contains(t, fails[1], "wgsl mul: digest")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var rep selftest.File
	require.NoError(t, json.Unmarshal(b, &rep))
	require.False(t, rep.Pass)
	require.False(t, rep.Adapters[0].Pass)
	require.Equal(t, selftest.StatusMismatch, rep.Adapters[0].Status)
	require.Len(t, rep.Adapters[0].Results, 2)
	for _, r := range rep.Adapters[0].Results {
		require.Equal(t, r.Family != "u64emu", r.Pass, r.Family)
	}
}

// brokenShader is a module naga refuses, as an adapter's shader compiler
// refuses every kernel (D3D12 through Wine's FXC: "Not implemented").
type brokenShader struct{}

func (brokenShader) ID() string { return "test:broken" }
func (brokenShader) Source() (string, error) {
	return "@compute @workgroup_size(1) fn main() { let x: u32 = ; }", nil
}

// A family whose kernels cannot be compiled fails as such: its line, the
// message at the end and the report's status say that the kernels cannot
// compile or run on this adapter, with the first error, and never that the
// adapter computes results that differ; a family that computes a wrong
// result beside it is still a mismatch.
func TestSelftestKernelCannotCompile(t *testing.T) {
	var fams []selftest.Family // u64emu, not compiling, and eigen, right
	for _, f := range selftest.Families() {
		switch f.Name {
		case "eigen":
			fams = append(fams, f)
		case "u64emu":
			f.Run = func(ctx *wgpu.Context) ([]selftest.Output, error) {
				if _, err := ctx.Kernel(wgpu.KernelSpec{Label: "broken", Module: brokenShader{}, Entry: "main"}); err != nil {
					return nil, fmt.Errorf("u64emu: %w", err)
				}
				return nil, errors.New("the broken shader compiled")
			}
			fams = append(fams, f)
		}
	}
	for _, backend := range gputest.Backends() {
		t.Run(backend, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "report.json")
			out, stderr, err := runSelftestStderr(t, fams, "--backend", backend, "selftest", "--json", path)
			require.Equal(t, cli.ExitError{Code: 1}, err)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			require.True(t, strings.HasPrefix(lines[0], "FAIL  u64emu    cannot compile or run kernels on this adapter: u64emu: "), lines[0])
			require.Contains(t, lines[0], "broken")
			require.Len(t, lines, 2, "the error is not listed again under its line")
			require.Contains(t, stderr, "cannot compile or run kernels on this adapter: u64emu: ")
			require.Contains(t, stderr, "(family u64emu)")
			require.NotContains(t, stderr, "differ")
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			var rep selftest.File
			require.NoError(t, json.Unmarshal(b, &rep))
			require.False(t, rep.Pass)
			a := rep.Adapters[0]
			require.Equal(t, selftest.StatusError, a.Status)
			require.Equal(t, selftest.StatusError, a.Results[0].Status)
			require.Contains(t, a.Results[0].Error, "broken")
			require.Equal(t, selftest.StatusPass, a.Results[1].Status, "eigen")
		})
	}
}

func TestSelftestBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"selftest", "--limits", "tiny"}, `--limits "tiny": accepted is webgpu`},
		{[]string{"selftest", "extra"}, `unknown command "extra" for "wgbench selftest"`},
		{[]string{"--backend", gputest.Backends()[0], "--adapter", "no such adapter", "selftest"}, `no adapter matches "no such adapter"`},
		{[]string{"selftest", "--json", "/nonexistent/dir/report.json"}, "/nonexistent/dir/report.json"},
	} {
		var out, errOut bytes.Buffer
		code := run(tc.args, strings.NewReader(""), &out, &errOut)
		require.Equal(t, 2, code, tc.args)
		require.Contains(t, errOut.String(), tc.want, tc.args)
		require.Empty(t, out.String(), tc.args)
	}
}
