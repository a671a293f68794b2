package selftest

import (
	"bytes"
	"encoding/hex"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/vortex"
	"github.com/wgcompute/wgcompute/internal/gputest"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgsl"
)

var update = flag.Bool("update", false, "regenerate testdata/golden.json from the CPU reference")

func TestMain(m *testing.M) {
	flag.Parse()
	if *update {
		if err := writeGolden(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	os.Exit(gputest.Main(m))
}

func writeGolden() error {
	g, err := MakeGolden(Families())
	if err != nil {
		return err
	}
	b, err := MarshalGolden(g)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join("testdata", "golden.json"), b, 0o644)
}

// The CPU reference reproduces the golden file exactly, and the file is
// what MarshalGolden writes (run with -update after changing a family).
func TestGoldenReproduced(t *testing.T) {
	g, err := MakeGolden(Families())
	require.NoError(t, err)
	b, err := MarshalGolden(g)
	require.NoError(t, err)
	if !bytes.Equal(b, goldenJSON) {
		loaded, err := LoadGolden()
		require.NoError(t, err)
		for fam, cases := range g {
			for c, w := range cases {
				require.Truef(t, sameWant(w, loaded[fam][c]), "%s %s: the CPU reference gives %+v, the golden file %+v", fam, c, w, loaded[fam][c])
			}
		}
		t.Fatal("testdata/golden.json differs from what the CPU reference generates: go test ./cmd/internal/selftest -update")
	}
}

// The BLAKE3 digests in the golden file are those of the incremental
// Hasher, which follows the specification's reference implementation: the
// golden file does not merely repeat the CPU backend.
func TestGoldenBLAKE3IsTheSpecReference(t *testing.T) {
	g, err := LoadGolden()
	require.NoError(t, err)
	data := randomBytes(newRand(1), b3Lengths[len(b3Lengths)-1])
	n := 0
	for _, m := range b3Modes() {
		for _, l := range m.lengths {
			var h *blake3.Hasher
			switch {
			case m.opts.Key != nil:
				h, err = blake3.NewKeyed(m.opts.Key)
				require.NoError(t, err)
			case m.opts.DeriveKey:
				h = blake3.NewDeriveKey(m.opts.Context)
			default:
				h = blake3.New()
			}
			h.Write(data[:l])
			out := make([]byte, max(m.opts.Length, 32))
			h.XOF(out)
			c := fmt.Sprintf("%s/len=%d", m.name, l)
			require.Equal(t, Digest(out), g["blake3"][c].Digest, c)
			n++
		}
	}
	require.Equal(t, n+1, len(g["blake3"]), "every case but the merge")
}

// The CPU backend passes its own self-test.
func TestCPU(t *testing.T) {
	g, err := LoadGolden()
	require.NoError(t, err)
	rep := Run(nil, Families(), g, func(r Result) { t.Log(r.Line(wgpu.CPUInfo)) })
	requirePass(t, rep)
}

func requirePass(t *testing.T, rep Report) {
	t.Helper()
	for _, r := range rep.Results {
		require.Truef(t, r.Pass, "%s: %s", r.Family, strings.Join(r.Failures, "; "))
	}
	require.True(t, rep.Pass)
	require.Len(t, rep.Results, len(Families()))
}

// Every family passes on every backend, with every variant, and frees
// every buffer it made.
func TestGPU(t *testing.T) {
	g, err := LoadGolden()
	require.NoError(t, err)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		before := ctx.LiveBuffers()
		rep := Run(ctx, Families(), g, func(r Result) { t.Log(r.Line(ctx.Info())) })
		requirePass(t, rep)
		require.Equal(t, before, ctx.LiveBuffers(), "buffers left alive")
		for _, r := range rep.Results {
			require.Greater(t, len(r.Variants), 0)
			if r.Family == "eigen" {
				require.Len(t, r.Variants, 9, "3 variants, each implicit, explicit and unfused")
			}
		}
	})
}

// The self-test passes on the smallest conformant GPU: lavapipe with the
// limits WebGPU guarantees.
func TestWebGPULimits(t *testing.T) {
	g, err := LoadGolden()
	require.NoError(t, err)
	ctx := gputest.Limited(t, gputest.Backends()[0], wgpu.WebGPULimits)
	require.Equal(t, "webgpu", LimitsString(ctx.Info().Limits))
	rep := Run(ctx, Families(), g, func(r Result) { t.Log(r.Line(ctx.Info())) })
	requirePass(t, rep)
}

// wrongAdd is a deliberately wrong kernel: the Goldilocks addition without
// its reduction mod p (a 64-bit add with carry), what a broken compiler or
// a bad edit of goldilocks.wgsl could produce.
type wrongAdd struct{}

func (wrongAdd) ID() string { return "selftest_wrong_add" }

func (wrongAdd) Source() (string, error) {
	lib, err := wgsl.Source("goldilocks.wgsl")
	if err != nil {
		return "", err
	}
	return lib + `
@group(0) @binding(0) var<storage, read> a: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read> b: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec2<u32>>;
struct Params { n: u32 }
@group(0) @binding(3) var<uniform> params: Params;

@compute @workgroup_size(64)
fn k_add(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = gid.x + gid.y * nwg.x * 64u;
	if (i >= params.n) { return; }
	let lo = a[i].x + b[i].x;
	dst[i] = vec2<u32>(lo, a[i].y + b[i].y + select(0u, 1u, lo < a[i].x));
}
`, nil
}

// withWrongAdd returns the families with u64emu's add case computed by
// wrongAdd on the GPU.
func withWrongAdd(t *testing.T) []Family {
	fams := Families()
	for i, f := range fams {
		if f.Name != "u64emu" {
			continue
		}
		run := f.Run
		fams[i].Run = func(ctx *wgpu.Context) ([]Output, error) {
			outs, err := run(ctx)
			if err != nil {
				return nil, err
			}
			k, err := ctx.Kernel(wgpu.KernelSpec{Label: "wrong add", Module: wrongAdd{}, Entry: "k_add", Storage: 3, Uniform: true, ReadOnly: []bool{true, true, false}})
			require.NoError(t, err)
			a, b := u64Inputs()
			dst := make([]uint64, len(a))
			_, err = ctx.RunBatch(wgpu.Batch{
				Label:  "wrong add",
				Count:  len(dst),
				Inputs: []wgpu.BatchInput{{Data: wgpu.Bytes(a), ItemBytes: 8}, {Data: wgpu.Bytes(b), ItemBytes: 8}},
				Output: wgpu.BatchOutput{Data: wgpu.Bytes(dst), ItemBytes: 8},
				Dispatches: func(n int, bind []wgpu.Binding) []wgpu.Dispatch {
					return []wgpu.Dispatch{{Kernel: k, Bindings: bind, Params: []uint32{uint32(n)}, Groups: ctx.Grid(uint64(n), 64)}}
				},
			})
			require.NoError(t, err)
			for j := range outs {
				if outs[j].Case == "add" {
					outs[j].Digest = Digest(wgpu.Bytes(dst))
				}
			}
			return outs, nil
		}
	}
	return fams
}

// A wrong kernel makes the self-test fail, naming the case; the other
// families still pass.
func TestWrongKernelFails(t *testing.T) {
	g, err := LoadGolden()
	require.NoError(t, err)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		var u64 []Family
		for _, f := range withWrongAdd(t) {
			if f.Name == "u64emu" || f.Name == "blake3" {
				u64 = append(u64, f)
			}
		}
		rep := Run(ctx, u64, g, nil)
		require.False(t, rep.Pass)
		require.True(t, rep.Results[0].Pass, "blake3 is untouched")
		r := rep.Results[1]
		require.False(t, r.Pass)
		require.Len(t, r.Failures, 1)
		require.Contains(t, r.Failures[0], "wgsl add: digest")
		require.True(t, strings.HasPrefix(r.Line(ctx.Info()), "FAIL  u64emu "), r.Line(ctx.Info()))
	})
}

// Whatever goes wrong in a family is a failure of that family, never a
// pass and never a crash: a corrupt digest, a value out of tolerance, an
// error, a panic, a case missing from the golden file, or a golden case
// not run. A kernel that produced nothing (an error, a panic) is
// StatusError, with its first error, and its line says the kernels cannot
// compile or run; an output that differs is StatusMismatch, even beside
// such an error.
func TestFailures(t *testing.T) {
	golden := Golden{
		"ints":   {"a": {Digest: Digest([]byte("a"))}, "b": {Digest: Digest([]byte("b"))}},
		"floats": {"x": {Values: []float64{1, 0.5}}},
	}
	ok := func(outs ...Output) func(*wgpu.Context) ([]Output, error) {
		return func(*wgpu.Context) ([]Output, error) { return outs, nil }
	}
	a := Output{Variant: "v", Case: "a", Digest: Digest([]byte("a"))}
	b := Output{Variant: "v", Case: "b", Digest: Digest([]byte("b"))}
	corrupt := Output{Variant: "v", Case: "b", Digest: Digest([]byte("c"))}
	pipeline := fmt.Errorf("Validation Error\n\nCaused by:\n    In wgpuDeviceCreateComputePipeline")
	for _, tc := range []struct {
		name   string
		f      Family
		want   string // "" passes
		status string
		err    string // Result.Error
	}{
		{"pass", Family{Name: "ints", Run: ok(a, b)}, "", StatusPass, ""},
		{"corrupt", Family{Name: "ints", Run: ok(a, corrupt)}, "v b: digest", StatusMismatch, ""},
		{"error", Family{Name: "ints", Run: ok(a, b, Output{Variant: "w", Case: "a", Err: fmt.Errorf("device lost")})}, "w a: device lost", StatusError, "w a: device lost"},
		{"multi-line error", Family{Name: "ints", Run: ok(a, b, Output{Variant: "w", Case: "a", Err: pipeline}, Output{Variant: "w", Case: "b", Err: fmt.Errorf("second")})},
			"w a: Validation Error Caused by: In wgpuDeviceCreateComputePipeline", StatusError, "w a: Validation Error Caused by: In wgpuDeviceCreateComputePipeline"},
		{"error and corrupt", Family{Name: "ints", Run: ok(Output{Variant: "w", Case: "a", Err: pipeline}, a, corrupt)}, "v b: digest", StatusMismatch, "w a: Validation Error Caused by: In wgpuDeviceCreateComputePipeline"},
		{"family error", Family{Name: "ints", Run: func(*wgpu.Context) ([]Output, error) { return nil, fmt.Errorf("no kernel") }}, "no kernel", StatusError, "no kernel"},
		{"panic", Family{Name: "ints", Run: func(*wgpu.Context) ([]Output, error) { panic("index out of range") }}, "panic: index out of range", StatusError, "panic: index out of range"},
		{"unknown case", Family{Name: "ints", Run: ok(a, b, Output{Variant: "v", Case: "z", Digest: "00"})}, "v z: no golden result", StatusMismatch, ""},
		{"case not run", Family{Name: "ints", Run: ok(a)}, "1 golden cases were not run (b, …)", StatusMismatch, ""},
		{"nothing run", Family{Name: "ints", Run: ok()}, "2 golden cases were not run", StatusMismatch, ""},
		{"no golden", Family{Name: "other", Run: ok(a)}, `no golden results for family "other"`, StatusMismatch, ""},
		{"within", Family{Name: "floats", Tolerance: 1e-5, Run: ok(Output{Variant: "v", Case: "x", Values: []float64{1 + 5e-6, 0.5}})}, "", StatusPass, ""},
		{"outside", Family{Name: "floats", Tolerance: 1e-5, Run: ok(Output{Variant: "v", Case: "x", Values: []float64{1, 0.5 + 2e-5}})}, "v x: value 1 is 0.50002", StatusMismatch, ""},
		{"NaN", Family{Name: "floats", Tolerance: 1e-5, Run: ok(Output{Variant: "v", Case: "x", Values: []float64{math.NaN(), 0.5}})}, "value 0 is NaN", StatusMismatch, ""},
		{"length", Family{Name: "floats", Tolerance: 1e-5, Run: ok(Output{Variant: "v", Case: "x", Values: []float64{1}})}, "1 values, want 2", StatusMismatch, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Check(nil, tc.f, golden)
			require.Equal(t, tc.status, r.Status)
			require.Equal(t, tc.err, r.Error)
			line := r.Line(wgpu.CPUInfo)
			if tc.want == "" {
				require.True(t, r.Pass, r.Failures)
				require.True(t, strings.HasPrefix(line, "PASS"), line)
				return
			}
			require.False(t, r.Pass)
			require.Contains(t, strings.Join(r.Failures, "\n"), tc.want)
			require.True(t, strings.HasPrefix(line, "FAIL"), line)
			require.Equal(t, tc.status == StatusError, strings.Contains(line, "cannot compile or run kernels on this adapter: "+tc.err), line)
			rep := Run(nil, []Family{{Name: "ints", Run: ok(a, b)}, tc.f}, golden, nil)
			require.Equal(t, tc.status, rep.Status)
			fam, err := rep.FirstError()
			require.Equal(t, tc.err, err)
			require.Equal(t, tc.err != "", fam == tc.f.Name, fam)
		})
	}
}

func TestAgreeingBits(t *testing.T) {
	for _, tc := range []struct {
		got, want float64
		bits      int
	}{
		{1, 1, 53},
		{1 + 0x1p-20, 1, 20},
		{1 + 0x1p-24, 1, 24},
		{1 - 0x1p-24, 1, 24},
		{0.75, 1, 2},
		{2, 1, 0},
		{math.NaN(), 1, 0},
		{1, 0, 0},
	} {
		require.Equal(t, tc.bits, agreeingBits(tc.got, tc.want), "%v vs %v", tc.got, tc.want)
	}
	bits, msg := within([]float64{1 + 0x1p-20, 0.5}, []float64{1, 0.5}, 1e-5)
	require.Equal(t, 20, bits)
	require.Empty(t, msg)
}

func TestLimitsString(t *testing.T) {
	require.Equal(t, "webgpu", LimitsString(wgpu.WebGPULimits))
	require.Equal(t, "none", LimitsString(wgpu.Limits{}))
	require.Equal(t, "binding 2 GiB, buffer 1.5 GiB, workgroup 48 KiB × 1024 invocations",
		LimitsString(wgpu.Limits{MaxStorageBindingSize: 2 << 30, MaxBufferSize: 3 << 29, MaxWorkgroupStorage: 48 << 10, MaxInvocationsPerWorkgroup: 1024}))
}

func TestDigest(t *testing.T) {
	// BLAKE3 of the empty input.
	require.Equal(t, "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262", Digest(nil))
	_, err := hex.DecodeString(Digest([]byte("x")))
	require.NoError(t, err)
}

// The linea family's vectors are copies of the repository's
// testdata/linea, which Linea's own code wrote (tools/lineagen), byte for
// byte, and every embedded file is run.
func TestLineaVectorsAreLineas(t *testing.T) {
	ents, err := lineaFS.ReadDir("testdata/linea")
	require.NoError(t, err)
	var embedded []string
	for _, e := range ents {
		embedded = append(embedded, e.Name())
	}
	require.ElementsMatch(t, lineaFiles, embedded, "embedded vectors and lineaFiles")
	for _, f := range lineaFiles {
		b, err := lineaFS.ReadFile("testdata/linea/" + f)
		require.NoError(t, err)
		want, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "linea", f))
		require.NoError(t, err)
		require.True(t, bytes.Equal(want, b), "testdata/linea/%s differs from the repository's testdata/linea/%s: copy it again", f, f)
	}
}

// A result of the linea family that is not Linea's fails it: one
// constant row's value changed in a vector's input.
func TestLineaWrongFails(t *testing.T) {
	g, err := LoadGolden()
	require.NoError(t, err)
	v, err := readLinea("commit_nosis_rate16_5x16.json")
	require.NoError(t, err)
	p, err := lineaParams(v)
	require.NoError(t, err)
	c, err := vortex.NewLineaCommitter(nil, p)
	require.NoError(t, err)
	defer c.Release()
	for i := range v.Rows {
		if v.Rows[i].Constant != nil {
			*v.Rows[i].Constant++
			break
		}
	}
	outs := lineaCommitOutputs(c, v)
	require.Len(t, outs, 3)
	for _, o := range outs {
		require.NoError(t, o.err)
		require.NotEqual(t, g["linea"][lineaCase("commit_nosis_rate16_5x16.json", o.what)].Digest, digest32(o.v), o.what)
	}
}
