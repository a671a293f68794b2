//go:build !js

package wgpu

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// firstBackend is the first backend the tests cover.
func firstBackend() string { return TestBackends()[0] }

func openForTest(t *testing.T, backend string) *Context {
	t.Helper()
	ctx, err := Open(TestOptions(t, backend))
	require.NoError(t, err)
	return ctx
}

// The handles read out of the binding's structs must be the objects
// themselves: the wrapped device answers as the one requested.
func TestNativeHandles(t *testing.T) {
	for _, backend := range TestBackends() {
		t.Run(backend, func(t *testing.T) {
			ctx := openForTest(t, backend)
			defer ctx.Close()
			require.NotNil(t, deviceRef(ctx.device))
			require.NotNil(t, ref(ctx.queue))
			lim := ctx.device.GetLimits()
			require.Equal(t, ctx.Limits().MaxBufferSize, lim.MaxBufferSize)
			require.Greater(t, ctx.Info().TimestampPeriod, 0.0, "timestamp period")
		})
	}
}

// An error no scope captures (fatal by default since wgpu-native 27) is
// returned by the next call, and the device goes on working.
func TestUncapturedErrorIsReturned(t *testing.T) {
	for _, backend := range TestBackends() {
		t.Run(backend, func(t *testing.T) {
			ctx := openForTest(t, backend)
			defer ctx.Close()
			ctx.mu.Lock()
			ctx.badBufferForTest()
			err := ctx.native.takeError()
			ctx.mu.Unlock()
			require.Error(t, err)
			require.Contains(t, err.Error(), "validation error")
			require.NoError(t, ctx.native.takeError(), "taken once")
			b, err := ctx.NewBuffer("after", 64)
			require.NoError(t, err)
			b.Release()
		})
	}
}

// A lost device makes every later call an ErrDeviceLost error, not a hang
// or a crash, and Close still works.
func TestDeviceLost(t *testing.T) {
	for _, backend := range TestBackends() {
		t.Run(backend, func(t *testing.T) {
			ctx := openForTest(t, backend)
			b, err := ctx.NewBuffer("kept", 64)
			require.NoError(t, err)
			ctx.destroyForTest()
			_, err = ctx.NewBuffer("after loss", 64)
			require.Error(t, err)
			require.True(t, errors.Is(err, ErrDeviceLost), "%v", err)
			require.ErrorIs(t, ctx.Upload(b, 0, []byte{1, 2, 3, 4}), ErrDeviceLost)
			require.ErrorIs(t, ctx.Download(make([]byte, 4), b, 0), ErrDeviceLost)
			b.Release()
			require.NoError(t, ctx.Close())
			// The lost device is not parked for reuse.
			ctx2 := openForTest(t, backend)
			defer ctx2.Close()
			b2, err := ctx2.NewBuffer("fresh", 64)
			require.NoError(t, err)
			b2.Release()
		})
	}
}

// lostFrom reads a loss from the text of a failed call: that error
// becomes ErrDeviceLost with the call's message, and the device stays lost
// for every later call (the first message kept); other errors pass
// through until then, and a Context without a native device passes all
// through.
func TestLostFrom(t *testing.T) {
	ctx := openForTest(t, firstBackend())
	require.NoError(t, ctx.lostFrom(nil))
	other := errors.New("validation error: binding too large")
	require.Equal(t, other, ctx.lostFrom(other))
	require.NoError(t, ctx.native.lostError(), "an unrelated error is no loss")

	lost := errors.New("wgpu.(*Device).TryCreateBuffer: Validation Error\n\nCaused by:\n  Parent Device is lost\n")
	err := ctx.lostFrom(lost)
	require.ErrorIs(t, err, ErrDeviceLost)
	require.Contains(t, err.Error(), "Parent Device is lost")
	require.Contains(t, err.Error(), "unknown reason")
	require.ErrorIs(t, ctx.native.lostError(), ErrDeviceLost, "marked for later calls")
	require.ErrorIs(t, ctx.lostFrom(other), ErrDeviceLost, "once lost, every failure is the loss")
	require.NotContains(t, ctx.lostFrom(errors.New("device is lost, again")).Error(), "again", "the first message is kept")
	_, err = ctx.NewBuffer("after loss", 64)
	require.ErrorIs(t, err, ErrDeviceLost)
	require.NoError(t, ctx.Close())

	var bare Context
	require.Equal(t, lost, bare.lostFrom(lost))
}

func TestShaderCompileErrorIsReturned(t *testing.T) {
	ctx := openForTest(t, firstBackend())
	defer ctx.Close()
	_, err := ctx.Kernel(KernelSpec{Label: "broken", Module: rawModule{"broken", "@compute @workgroup_size(1) fn main() { let x: u32 = ; }"}, Entry: "main"})
	require.Error(t, err)
	require.Contains(t, err.Error(), "broken")
}

type rawModule struct{ id, src string }

func (m rawModule) ID() string              { return "test:" + m.id }
func (m rawModule) Source() (string, error) { return m.src, nil }

// Open refuses settings it does not accept, naming the field and what
// it accepts, before it opens anything.
func TestOptionsRefused(t *testing.T) {
	for o, want := range map[Options]string{
		{ShaderChecks: 4}:                "Options.ShaderChecks 4: accepted are 0 (none), ChecksBounds, ChecksLoops and ChecksAll",
		{GLESMinor: "7"}:                 `Options.GLESMinor "7": accepted are 0, 1, 2, auto, and empty for 1`,
		{WaitLimit: -time.Second}:        "Options.WaitLimit -1s: accepted is 0 (no limit) or a positive duration",
		{Backend: "cpu", GLESMinor: "3"}: "Options.GLESMinor",
	} {
		_, err := Open(o)
		require.ErrorContains(t, err, want, "%+v", o)
		require.ErrorContains(t, o.Check(), want, "%+v", o)
		_, err = Choose(o)
		require.ErrorContains(t, err, want, "%+v", o)
	}
	// A backend no other test opens: instances are made once per process.
	_, err := Adapters(Options{Backend: "metal", GLESMinor: "x"})
	require.ErrorContains(t, err, "Options.GLESMinor")
	require.ErrorContains(t, SetLogLevel("loud"), `log level "loud": accepted are error, warn, info, debug`)
}

// Options.ShaderChecks reach the device's kernels: they are part of what
// a closed device is kept by, so a device opened with other checks is
// another device.
func TestShaderChecksOption(t *testing.T) {
	b := TestBackends()[0]
	o := TestOptions(t, b)
	o.ShaderChecks = ChecksAll
	ctx, err := Open(o)
	require.NoError(t, err)
	defer ctx.Close()
	require.Equal(t, ChecksAll, ctx.key.checks)
	plain := openForTest(t, b)
	defer plain.Close()
	require.Equal(t, ShaderChecks(0), plain.key.checks)
	_, err = ctx.Kernel(KernelSpec{Label: "checked", Module: featureText{}, Entry: "main", Storage: 1})
	require.NoError(t, err, "a kernel compiles with the checks")
}

// Options.GLESMinor reaches the instance: the GL backend's adapters are
// listed, and devices opened, through an instance made with it, another
// than the default's.
func TestGLESMinorOption(t *testing.T) {
	if !slices.Contains(TestBackends(), "gl") {
		t.Skip("no GL adapter tested here")
	}
	def, err := adaptersOf(Options{Backend: "gl"})
	require.NoError(t, err)
	auto, err := adaptersOf(Options{Backend: "gl", GLESMinor: "auto"})
	require.NoError(t, err)
	require.NotSame(t, def, auto)
	same, err := adaptersOf(Options{Backend: "gl", GLESMinor: "1"})
	require.NoError(t, err)
	require.Same(t, def, same, `"1" is the default, 3.1`)
	o := TestOptions(t, "gl")
	o.GLESMinor = "auto"
	ctx, err := Open(o)
	require.NoError(t, err)
	require.NoError(t, ctx.Close())
}

func TestUnusableGL(t *testing.T) {
	for version, unusable := range map[string]bool{
		"3.3.0 NVIDIA 580.159.04":        true,
		"4.1 Metal - 89.3":               true,
		"4.3.0 NVIDIA":                   false,
		"4.5 (Core Profile) Mesa 22.3.6": false,
		"OpenGL ES 3.2 NVIDIA 580":       false,
		"":                               false,
	} {
		why := unusableGL(version)
		require.Equal(t, unusable, why != "", version)
		if unusable {
			require.True(t, strings.Contains(why, "compute shaders"), why)
		}
	}
}

// featureText is a module whose text depends on the device's features.
type featureText struct{}

func (featureText) ID() string { return "test:feature" }
func (featureText) Source() (string, error) {
	return "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n@compute @workgroup_size(1) fn main() { out[0] = 1u; }", nil
}
func (m featureText) ForFeatures(f []string) (string, string, error) {
	if !slices.Contains(f, "shader-int64") {
		src, err := m.Source()
		return m.ID(), src, err
	}
	return "test:feature+int64", "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n@compute @workgroup_size(1) fn main() { let x: u64 = 1lu << 33u; out[0] = u32(x >> 32u); }", nil
}

// A FeatureModule is compiled for the device's features: on an adapter
// with 64-bit integers (lavapipe's Vulkan, NVIDIA's) the u64 variant runs,
// on one without (llvmpipe's GL) the portable text, and
// Options.NoShaderInt64 turns the variant off.
func TestShaderFeatures(t *testing.T) {
	for _, backend := range TestBackends() {
		for _, env := range []string{"", "off"} {
			t.Run(backend+env, func(t *testing.T) {
				o := TestOptions(t, backend)
				o.NoShaderInt64 = env == "off"
				ctx, err := Open(o)
				require.NoError(t, err)
				defer ctx.Close()
				info := ctx.Info()
				if strings.HasPrefix(info.Name, "llvmpipe") {
					// Mesa's software drivers, where CI runs: a feature
					// list read wrong must not pass as a device without it.
					require.Equal(t, backend == "vulkan", info.HasFeature("shader-int64"), "%s (%s): %v", info.Name, backend, info.Features)
				}
				want := uint32(1)
				if info.HasFeature("shader-int64") && env == "" {
					want = 2
				}
				require.Equal(t, want == 2, slices.Contains(ctx.ShaderFeatures(), "shader-int64"), "%v %v", info.Features, ctx.ShaderFeatures())
				k, err := ctx.Kernel(KernelSpec{Label: "feature", Module: featureText{}, Entry: "main", Storage: 1})
				require.NoError(t, err)
				b, err := ctx.NewBuffer("out", 4)
				require.NoError(t, err)
				defer b.Release()
				_, err = ctx.Run(Dispatch{Kernel: k, Bindings: []Binding{{Buffer: b}}, Groups: [3]uint32{1, 1, 1}})
				require.NoError(t, err)
				got := make([]byte, 4)
				require.NoError(t, ctx.Download(got, b, 0))
				require.Equal(t, want, uint32(got[0]))
			})
		}
	}
}

// Upload staging in host memory, written through a read mapping (the
// default on Vulkan: every Vulkan adapter wgpu opens has mappable primary
// buffers), and MAP_WRITE staging (TransferOptions.MapWriteUploads, and
// always on other backends) move the same bytes, through several slots
// and their reuse.
func TestHostUploads(t *testing.T) {
	for _, backend := range TestBackends() {
		for _, mapWrite := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/map-write=%v", backend, mapWrite), func(t *testing.T) {
				o := TestOptions(t, backend)
				o.Transfer = TransferOptions{MapWriteUploads: mapWrite, SlotBytes: 1 << 20}
				ctx, err := Open(o)
				require.NoError(t, err)
				defer ctx.Close()
				require.Equal(t, backend == "vulkan" && !mapWrite, ctx.staging.hostUploads)
				src := make([]byte, 3<<20+12)
				for i := range src {
					src[i] = byte(i*7 + i>>9)
				}
				b, err := ctx.NewBuffer("host uploads", uint64(len(src)))
				require.NoError(t, err)
				defer b.Release()
				require.NoError(t, ctx.Upload(b, 0, src))
				got := make([]byte, len(src))
				require.NoError(t, ctx.Download(got, b, 0))
				require.Equal(t, src, got)
			})
		}
	}
}
