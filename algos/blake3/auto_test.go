package blake3

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

func newAuto(t testing.TB, opts AutoOptions) *Auto {
	t.Helper()
	a, err := NewAuto(opts)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, a.Close()) })
	return a
}

// autoOn is an Auto whose GPU is ctx, already open, of any type.
func autoOn(t testing.TB, ctx *wgpu.Context, opts AutoOptions) *Auto {
	t.Helper()
	a := newAuto(t, opts)
	inner := opts.Options
	inner.Timing = nil
	e, err := NewEngine(ctx, inner)
	require.NoError(t, err)
	a.gpu.started, a.gpu.ctx, a.gpu.eng, a.software = true, ctx, e, true
	close(a.gpu.ready)
	return a
}

// stream hides every method of a reader but Read.
type stream struct{ r io.Reader }

func (s stream) Read(p []byte) (int, error) { return s.r.Read(p) }

func TestDeviceNames(t *testing.T) {
	for _, d := range Devices {
		got, err := ParseDevice(d.String())
		require.NoError(t, err)
		require.Equal(t, d, got)
	}
	require.Equal(t, DeviceAuto, Device(0))
	_, err := ParseDevice("tpu")
	require.ErrorContains(t, err, `unknown device "tpu": accepted are [auto cpu gpu]`)
	_, err = NewAuto(AutoOptions{Device: 7})
	require.ErrorContains(t, err, "unknown device 7")
	_, err = NewAuto(AutoOptions{Options: Options{Threads: -1}})
	require.ErrorContains(t, err, "-1 threads")
	_, err = NewAuto(AutoOptions{Options: Options{Key: []byte("short")}})
	require.ErrorContains(t, err, "32-byte key")
}

// TestAutoEveryLength checks Auto.Sum and Auto.SumReader of a stream
// against the reference Hasher on every length 0..8192 in all modes: the
// reference is written one byte at a time, and its output read at each
// length (XOF leaves its state unchanged).
func TestAutoEveryLength(t *testing.T) {
	const maxLen = 8192
	data := randomBytes(31, maxLen)
	for _, m := range cpuModes(t, cpuTestKey, cpuTestContext) {
		t.Run(m.name, func(t *testing.T) {
			opts := AutoOptions{Device: DeviceCPU, Options: Options{Length: 41}}
			switch m.name {
			case "keyed_hash":
				opts.Key = cpuTestKey
			case "derive_key":
				opts.DeriveKey, opts.Context = true, cpuTestContext
			}
			a := newAuto(t, opts)
			h := m.ref()
			want := make([]byte, 41)
			for n := 0; n <= maxLen; n++ {
				if n > 0 {
					h.Write(data[n-1 : n])
				}
				h.XOF(want)
				got, err := a.Sum(data[:n])
				require.NoError(t, err)
				require.Equal(t, want, got, "Sum of %d bytes", n)
				got, err = a.SumReader(stream{bytes.NewReader(data[:n])})
				require.NoError(t, err)
				require.Equal(t, want, got, "SumReader of a %d-byte stream", n)
			}
		})
	}
}

// autoLengths are lengths around the CPU's task and stream buffer sizes,
// the mapping threshold and subtree boundaries.
func autoLengths() []int {
	ns := []int{0, 1, 1023, 1024, 1025, 16 << 10, 16<<10 + 1, 16<<10 - 1, 100_000}
	for _, k := range []int{cpuPiece, 2 * cpuPiece, 3 * cpuPiece} {
		ns = append(ns, k-ChunkSize, k-1, k, k+1, k+ChunkSize+1)
	}
	return append(ns, 9<<20+333)
}

// TestAutoSources hashes every kind of input an Auto reads (memory, a
// file from the middle, a ReaderAt, a stream, a reader that returns one
// byte at a time), in all modes, and reads the output both whole and
// through Output in odd pieces.
func TestAutoSources(t *testing.T) {
	lengths := autoLengths()
	data := randomBytes(32, lengths[len(lengths)-1]+100)
	dir := t.TempDir()
	for _, mode := range testModes {
		t.Run(fmt.Sprintf("key=%t/derive=%t", mode.Key != nil, mode.DeriveKey), func(t *testing.T) {
			a := newAuto(t, AutoOptions{Options: mode})
			for _, n := range lengths {
				in := data[:n]
				want := refSum(t, in, mode)
				got, err := a.Sum(in)
				require.NoError(t, err)
				require.Equal(t, want, got, "Sum of %d bytes", n)

				path := filepath.Join(dir, fmt.Sprintf("in%d", n))
				require.NoError(t, os.WriteFile(path, append([]byte("0123456789"), in...), 0o644))
				f, err := os.Open(path)
				require.NoError(t, err)
				_, err = f.Seek(10, io.SeekStart)
				require.NoError(t, err)
				got, err = a.SumReader(f)
				require.NoError(t, err)
				require.Equal(t, want, got, "SumReader of a %d-byte file from byte 10", n)
				pos, err := f.Seek(0, io.SeekCurrent)
				require.NoError(t, err)
				require.Equal(t, int64(n+10), pos, "the file is left at its end")
				_, err = f.Seek(10, io.SeekStart)
				require.NoError(t, err)
				out, err := a.Output(f)
				require.NoError(t, err)
				long := make([]byte, 3000)
				for k := 0; k < len(long); {
					step := min(len(long)-k, 1+k%1500) // reads of odd lengths, some over 1 KiB
					_, err := out.Read(long[k : k+step])
					require.NoError(t, err)
					k += step
				}
				require.Equal(t, refSum(t, in, Options{Key: mode.Key, DeriveKey: mode.DeriveKey, Context: mode.Context, Length: len(long)}), long,
					"Output of a %d-byte file", n)
				require.NoError(t, f.Close())

				for name, r := range map[string]io.Reader{"ReaderAt": bytes.NewReader(in), "stream": stream{bytes.NewReader(in)}} {
					got, err = a.SumReader(r)
					require.NoError(t, err)
					require.Equal(t, want, got, "SumReader of a %d-byte %s", n, name)
				}
				if n < 100_000 {
					got, err = a.SumReader(iotest.OneByteReader(bytes.NewReader(in)))
					require.NoError(t, err)
					require.Equal(t, want, got, "SumReader of %d bytes one at a time", n)
				}
			}
		})
	}
}

// TestAutoThreads checks that Threads bounds the CPU's goroutines.
func TestAutoThreads(t *testing.T) {
	data := randomBytes(33, 16<<20)
	want := Sum256(data)
	for _, threads := range []int{1, 2, 3} {
		a := newAuto(t, AutoOptions{Options: Options{Threads: threads}})
		got, err := a.Sum(data)
		require.NoError(t, err)
		require.Equal(t, want[:], got)
		got, err = a.SumReader(stream{bytes.NewReader(data)})
		require.NoError(t, err)
		require.Equal(t, want[:], got)
	}
	require.Equal(t, 1, cpuThreads(1))
	require.Equal(t, runtime.GOMAXPROCS(0), cpuThreads(0))
}

// TestAutoNeverOpensSmall checks that DeviceAuto opens no GPU below the
// crossover, and that where every adapter is a software renderer (CI:
// lavapipe and llvmpipe) it uses none above it either.
func TestAutoNeverOpensSmall(t *testing.T) {
	data := randomBytes(34, 3<<20+5)
	want := Sum256(data)
	a := newAuto(t, AutoOptions{})
	got, err := a.Sum(data)
	require.NoError(t, err)
	require.Equal(t, want[:], got)
	require.False(t, a.gpu.started, "a %d-byte input opened the GPU", len(data))

	a.hybridMin = 1 << 20
	got, err = a.Sum(data)
	require.NoError(t, err)
	require.Equal(t, want[:], got)
	require.True(t, a.gpu.started)
	<-a.gpu.ready
	infos, err := wgpu.Adapters(wgpu.Options{})
	require.NoError(t, err)
	hardware := false
	for _, info := range infos {
		hardware = hardware || info.Type != "cpu"
	}
	if !hardware {
		require.Nil(t, a.gpu.eng, "DeviceAuto opened %v", a.gpu.ctx.Info())
		require.ErrorIs(t, a.gpu.err, errSoftwareGPU)
	}
}

// TestAutoCPUBackend checks that the CPU backend (GPU.Backend "cpu")
// keeps every device on the CPU, DeviceGPU included.
func TestAutoCPUBackend(t *testing.T) {
	cpu := wgpu.Options{Backend: "cpu"}
	data := randomBytes(35, 70_000)
	want := Sum256(data)
	for _, d := range Devices {
		var timing wgpu.Timing
		a := newAuto(t, AutoOptions{Device: d, Options: Options{Timing: &timing}, GPU: cpu})
		a.hybridMin = 0
		got, err := a.Sum(data)
		require.NoError(t, err)
		require.Equal(t, want[:], got, "%v", d)
		require.Nil(t, a.gpu.eng)
		require.Positive(t, timing.Wall)
	}
	// Several devices asked for: the Group the CPU backend opens (one nil
	// member) is closed and forgotten, and the CPU hashes.
	a := newAuto(t, AutoOptions{Device: DeviceGPU, GPU: wgpu.Options{Backend: "cpu", Devices: "all"}})
	got, err := a.Sum(data)
	require.NoError(t, err)
	require.Equal(t, want[:], got)
	require.Nil(t, a.gpu.eng)
	require.Nil(t, a.gpu.group)
	require.Nil(t, a.gpu.ctx)
	require.ErrorIs(t, a.gpu.err, wgpu.ErrCPUBackend)
}

// TestAutoGPU checks DeviceGPU on every backend: the whole input on the
// GPU, files included, in all modes.
func TestAutoGPU(t *testing.T) {
	data := randomBytes(36, 200_000)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, mode := range testModes {
			var timing wgpu.Timing
			mode.Timing = &timing
			a := autoOn(t, ctx, AutoOptions{Device: DeviceGPU, Options: mode})
			for _, n := range []int{0, 1, 5000, len(data)} {
				want := refSum(t, data[:n], mode)
				got, err := a.Sum(data[:n])
				require.NoError(t, err)
				require.Equal(t, want, got, "%d bytes", n)
				require.Positive(t, timing.Wall, "the GPU's timing")
				got, err = a.SumReader(stream{bytes.NewReader(data[:n])})
				require.NoError(t, err)
				require.Equal(t, want, got, "%d bytes", n)
			}
		}
	})
}

// TestAutoNoLeaks makes 10,000 small calls on the CPU and on the GPU
// (DeviceGPU) and checks that they leave no device buffers, goroutines or
// growing heap behind.
func TestAutoNoLeaks(t *testing.T) {
	data := randomBytes(37, 3000)
	check := func(t *testing.T, ctx *wgpu.Context, a *Auto, calls int) {
		run := func(k int) {
			for i := range k {
				n := i % len(data)
				got, err := a.Sum(data[:n])
				require.NoError(t, err)
				if i%997 == 0 {
					want := Sum256(data[:n])
					require.Equal(t, want[:], got)
				}
			}
		}
		run(100) // pools and caches reach their size
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		goroutines, buffers := runtime.NumGoroutine(), ctx.LiveBuffers()
		run(calls)
		runtime.GC()
		runtime.ReadMemStats(&after)
		require.Equal(t, buffers, ctx.LiveBuffers(), "device buffers")
		require.LessOrEqual(t, runtime.NumGoroutine(), goroutines, "goroutines")
		require.Less(t, int64(after.HeapInuse)-int64(before.HeapInuse), int64(4<<20), "heap growth")
	}
	t.Run("cpu", func(t *testing.T) {
		for range 100 { // Autos made and closed
			a, err := NewAuto(AutoOptions{})
			require.NoError(t, err)
			_, err = a.Sum(data)
			require.NoError(t, err)
			require.NoError(t, a.Close())
		}
		check(t, nil, newAuto(t, AutoOptions{}), 10_000)
	})
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		check(t, ctx, autoOn(t, ctx, AutoOptions{Device: DeviceGPU}), 10_000)
	})
}

// TestAutoDevices hashes with an Auto on several devices: a file and a
// bytes.Reader go through sumOn on all of them, a reader without ReadAt
// through the first; every output equals the reference. The devices are
// one device three times (sched.NewGroup), as the Auto keeps them once it
// has opened AutoOptions.GPU.Devices, which names each adapter once; that
// opening is tested with "all".
func TestAutoDevices(t *testing.T) {
	data := randomBytes(61, 3<<20+777)
	path := filepath.Join(t.TempDir(), "in")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	for _, b := range gputest.Backends() {
		a, err := NewAuto(AutoOptions{Device: DeviceGPU, GPU: wgpu.Options{Backend: b, Devices: "all"}})
		require.NoError(t, err)
		got, err := a.Sum(data)
		require.NoError(t, err)
		require.Equal(t, refSum(t, data, Options{}), got, b)
		require.GreaterOrEqual(t, a.gpu.group.Len(), 1) // every GPU, or the one software adapter
		require.NoError(t, a.Close())
	}
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		b := ctx.Info().Backend
		g, err := sched.NewGroup(ctx, ctx, ctx)
		require.NoError(t, err)
		for _, mode := range testModes {
			a, err := NewAuto(AutoOptions{Options: mode, Device: DeviceGPU, Group: g})
			require.NoError(t, err)
			want := refSum(t, data, mode)
			f, err := os.Open(path)
			require.NoError(t, err)
			got, err := a.SumReader(f)
			f.Close()
			require.NoError(t, err)
			require.Equal(t, want, got, b)
			require.Equal(t, 3, a.gpu.group.Len())
			got, err = a.SumReader(bytes.NewReader(data))
			require.NoError(t, err)
			require.Equal(t, want, got, b)
			if mode.Key == nil && !mode.DeriveKey { // from a position, left at the end
				f := fileAt(t, data, 7)
				got, err = a.SumReader(f)
				require.NoError(t, err)
				require.Equal(t, refSum(t, data, mode), got, b)
				pos, err := f.Seek(0, io.SeekCurrent)
				require.NoError(t, err)
				require.EqualValues(t, 7+len(data), pos, b)
			}
			got, err = a.SumReader(io.MultiReader(bytes.NewReader(data[:5]), bytes.NewReader(data[5:])))
			require.NoError(t, err)
			require.Equal(t, want, got, b)
			require.NoError(t, a.Close())
		}
		// The Auto left the Group's device open: it is the caller's.
		buf, err := ctx.NewBuffer("after", 4)
		require.NoError(t, err)
		buf.Release()
	})
}
