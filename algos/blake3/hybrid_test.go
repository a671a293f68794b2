package blake3

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// hybridOn is an Auto that hashes every input with the CPU and ctx
// together, in tasks of task bytes, the GPU taking runs of task to most
// bytes (most: a power of two of tasks), and the CPU waiting for the GPU's
// first run.
func hybridOn(t testing.TB, ctx *wgpu.Context, opts Options, task, most uint64) *Auto {
	a := autoOn(t, ctx, AutoOptions{Options: opts})
	a.hybridMin, a.hybridTask, a.gpuMin, a.gpuMax, a.gpuFirst = 0, task, task, most, true
	return a
}

// hybridLengths are lengths around multiples of the task size, powers of
// two of tasks and the tail.
func hybridLengths(task int) []int {
	ns := []int{0, 1, ChunkSize, 16 * ChunkSize, 16*ChunkSize + 1}
	for _, k := range []int{1, 2, 3, 7, 8, 9, 31, 64, 65} {
		for _, d := range []int{-ChunkSize - 1, -1, 0, 1, 17*ChunkSize + 3} {
			if n := k*task + d; n >= 0 {
				ns = append(ns, n)
			}
		}
	}
	return ns
}

// TestHybrid checks the CPU and GPU together against the reference, in all
// modes with extended output, on every backend with the device's own
// limits and with small ones (which cap the GPU's runs at 64 KiB), with
// small tasks so that inputs of a few hundred KiB are split into many.
func TestHybrid(t *testing.T) {
	for _, task := range []int{ChunkSize, 16 * ChunkSize} {
		lengths := hybridLengths(task)
		data := randomBytes(40, lengths[len(lengths)-1])
		wants := make([][][]byte, len(testModes))
		for i, mode := range testModes {
			for _, n := range lengths {
				wants[i] = append(wants[i], refSum(t, data[:n], mode))
			}
		}
		test := func(t *testing.T, ctx *wgpu.Context) {
			for i, mode := range testModes {
				var timing wgpu.Timing
				mode.Timing = &timing
				a := hybridOn(t, ctx, mode, uint64(task), uint64(4*task))
				for k, n := range lengths {
					got, err := a.Sum(data[:n])
					require.NoError(t, err)
					require.Equal(t, wants[i][k], got, "%d bytes in tasks of %d", n, task)
					if n > 4*task+16*ChunkSize { // at least one aligned run of 4 tasks before the tail
						require.Positive(t, a.gpuBytes, "%d bytes: the GPU took no run", n)
						require.Positive(t, timing.Wall, "%d bytes: the GPU's timing", n)
					}
					if k%4 == 0 { // the file is mapped, from its position on
						f := fileAt(t, data[:n], 7)
						got, err := a.SumReader(f)
						require.NoError(t, err)
						require.Equal(t, wants[i][k], got, "a %d-byte file in tasks of %d", n, task)
					}
				}
			}
		}
		t.Run(fmt.Sprintf("task=%d", task), func(t *testing.T) {
			gputest.ForEach(t, test)
			gputest.ForEachSmall(t, test)
		})
	}
}

// fileAt is a file holding skip bytes and then data, open at data.
func fileAt(t *testing.T, data []byte, skip int64) *os.File {
	path := filepath.Join(t.TempDir(), "in")
	require.NoError(t, os.WriteFile(path, append(make([]byte, skip), data...), 0o644))
	f, err := os.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	_, err = f.Seek(skip, io.SeekStart)
	require.NoError(t, err)
	return f
}

// TestHybridReadErrors checks that a file that fails to read, or ends
// early, fails the hybrid hash, on the CPU's side or the GPU's (whose
// failed run the CPU reads again).
func TestHybridReadErrors(t *testing.T) {
	data := randomBytes(42, 200_000)
	gputest.ForEachSmall(t, func(t *testing.T, ctx *wgpu.Context) {
		a := hybridOn(t, ctx, Options{}, ChunkSize, 8*ChunkSize)
		for _, at := range []int64{0, 100_000, 199_000} {
			_, err := a.hybridRoot(hybridInput{at: failReaderAt{data, at}, n: uint64(len(data))})
			require.ErrorIs(t, err, errCPUTestRead, "failing at %d", at)
		}
		_, err := a.hybridRoot(hybridInput{at: eofReaderAt(data[:150_000]), n: uint64(len(data))})
		require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	})
}

// TestHybridQueue checks the runs the GPU takes: aligned powers of two,
// from the back, never below least, and the CPU's tasks: those after the
// last aligned run of the largest size first, then from the front.
func TestHybridQueue(t *testing.T) {
	q := newHybridQueue(13, 4) // [0, 12) for both, [12, 13) for the CPU
	for _, want := range []struct{ start, count uint64 }{{8, 4}, {4, 4}} {
		start, count, ok := q.gpuTake(1, 4)
		require.True(t, ok)
		require.Equal(t, []uint64{want.start, want.count}, []uint64{start, count})
	}
	for _, want := range []uint64{12, 0} {
		i, ok := q.cpuTake()
		require.True(t, ok)
		require.Equal(t, want, i)
	}
	_, _, ok := q.gpuTake(4, 4) // [1, 4) left: no aligned run of 4
	require.False(t, ok)
	start, count, ok := q.gpuTake(2, 4)
	require.True(t, ok)
	require.Equal(t, []uint64{2, 2}, []uint64{start, count})
	i, ok := q.cpuTake()
	require.True(t, ok)
	require.Equal(t, uint64(1), i)
	_, ok = q.cpuTake()
	require.False(t, ok)
	_, _, ok = q.gpuTake(1, 4)
	require.False(t, ok)
}

// TestHybridGPUFails checks that runs on a GPU that fails are hashed on
// the CPU, and that the Auto gives the GPU up.
func TestHybridGPUFails(t *testing.T) {
	for _, backend := range gputest.Backends() {
		t.Run(backend, func(t *testing.T) {
			o := gputest.Options(t, backend)
			o.Limits = gputest.SmallLimits.Min(o.Limits)
			ctx, err := wgpu.Open(o)
			require.NoError(t, err)
			a := hybridOn(t, ctx, Options{}, ChunkSize, 8*ChunkSize)
			require.NoError(t, ctx.Close()) // every upload now fails
			data := randomBytes(41, 300_000)
			want := Sum256(data)
			got, err := a.Sum(data)
			require.NoError(t, err)
			require.Equal(t, want[:], got)
			require.Nil(t, a.gpu.eng, "the GPU is given up")
			require.ErrorContains(t, a.gpu.err, "closed")
			got, err = a.Sum(data)
			require.NoError(t, err)
			require.Equal(t, want[:], got)
		})
	}
}
