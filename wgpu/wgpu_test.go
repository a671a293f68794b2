package wgpu_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/internal/base/trace"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

func TestMain(m *testing.M) {
	if os.Getenv(memoryChild) == "1" {
		memoryChildMain()
		os.Exit(0)
	}
	wgpu.TestBackends = gputest.Backends
	wgpu.TestOptions = gputest.Options
	os.Exit(gputest.Main(m))
}

// memoryChild marks the test binary run by TestNoAdapterUnderMemoryLimit.
const memoryChild = "WGCOMPUTE_TEST_MEMORY_CHILD"

// memoryChildMain is the test binary run by TestNoAdapterUnderMemoryLimit,
// before TestMain lists adapters: it opens a device and prints "opened"
// or the error.
func memoryChildMain() {
	ctx, err := wgpu.Open(wgpu.Options{})
	if err == nil {
		ctx.Close()
		os.Stdout.WriteString("opened\n")
		return
	}
	os.Stdout.WriteString("error: " + err.Error() + "\n")
}

// text is a module given as WGSL text, for shaders that exist only to test
// this layer.
type text struct{ id, src string }

func (t text) ID() string              { return "test:" + t.id }
func (t text) Source() (string, error) { return t.src, nil }

const addOne = `
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
struct Params { count: u32 }
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = gid.x + gid.y * nwg.x * 64u;
	if (i >= params.count) { return; }
	dst[i] = src[i] + 1u + i;
}
`

func TestGrid(t *testing.T) {
	for _, tc := range []struct {
		n    uint64
		wg   uint32
		want [3]uint32
	}{
		{0, 64, [3]uint32{0, 1, 1}},
		{1, 64, [3]uint32{1, 1, 1}},
		{64, 64, [3]uint32{1, 1, 1}},
		{65, 64, [3]uint32{2, 1, 1}},
		{65535 * 64, 64, [3]uint32{65535, 1, 1}},
		{65535*64 + 1, 64, [3]uint32{32768, 2, 1}},
	} {
		got := wgpu.Grid(tc.n, tc.wg, 65535)
		require.Equal(t, tc.want, got, "n=%d", tc.n)
		require.GreaterOrEqual(t, uint64(got[0])*uint64(got[1])*uint64(tc.wg), tc.n)
	}
}

func TestDispatchAndTransfers(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		k, err := ctx.Kernel(wgpu.KernelSpec{Label: "addone", Module: text{"addOne", addOne}, Entry: "main", Storage: 2, Uniform: true, ReadOnly: []bool{true}})
		require.NoError(t, err)
		// Sizes straddle the small-transfer cut and a staging slot.
		for _, n := range []int{1, 1000, 300_001, 17_000_001} {
			src := make([]uint32, n)
			for i := range src {
				src[i] = rand.Uint32()
			}
			in, err := ctx.NewBuffer("in", uint64(4*n))
			require.NoError(t, err)
			out, err := ctx.NewBuffer("out", uint64(4*n))
			require.NoError(t, err)
			require.NoError(t, ctx.Upload(in, 0, wgpu.Bytes(src)))
			tm, err := ctx.Run(wgpu.Dispatch{Kernel: k, Bindings: []wgpu.Binding{wgpu.Bind(in), wgpu.Bind(out)}, Params: []uint32{uint32(n)}, Groups: ctx.Grid(uint64(n), 64)})
			require.NoError(t, err)
			require.Equal(t, ctx.Info().Timestamps, tm.Measured)
			got := make([]uint32, n)
			require.NoError(t, ctx.Download(wgpu.Bytes(got), out, 0))
			for i := range got {
				if got[i] != src[i]+1+uint32(i) {
					t.Fatalf("n=%d: element %d = %d, want %d", n, i, got[i], src[i]+1+uint32(i))
				}
			}
			in.Release()
			out.Release()
		}
	})
}

func TestUploadUnalignedAndFrom(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, n := range []int{3, 1<<20 + 1, 70<<20 + 3} {
			data := make([]byte, n)
			for i := range data {
				data[i] = byte(i*7 + i>>11)
			}
			b, err := ctx.NewBuffer("raw", uint64(n))
			require.NoError(t, err)
			require.NoError(t, ctx.Upload(b, 0, data))
			got := make([]byte, n)
			require.NoError(t, ctx.Download(got, b, 0))
			require.True(t, bytes.Equal(got, data), "n=%d round trip", n)

			f, err := os.CreateTemp(t.TempDir(), "up")
			require.NoError(t, err)
			_, err = f.Write(data)
			require.NoError(t, err)
			_, err = f.Seek(0, 0)
			require.NoError(t, err)
			require.NoError(t, ctx.Clear(b, 0, 0))
			require.NoError(t, ctx.UploadFrom(b, 0, f, int64(n)))
			clear(got)
			require.NoError(t, ctx.Download(got, b, 0))
			require.True(t, bytes.Equal(got, data), "n=%d from file", n)
			// A plain reader (no ReaderAt) and a short one.
			require.NoError(t, ctx.UploadFrom(b, 0, bytes.NewBufferString(string(data)), int64(n)))
			err = ctx.UploadFrom(b, 0, strings.NewReader(string(data[:n/2])), int64(n))
			require.Error(t, err)
			f.Close()
			b.Release()
		}
	})
}

// TestGrow keeps a large enough buffer, replaces a smaller one, and on
// a size the device refuses leaves none behind.
func TestGrow(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		before := ctx.LiveBuffers()
		var b *wgpu.Buffer
		require.NoError(t, ctx.Grow(&b, "scratch", 100))
		first := b
		require.NoError(t, ctx.Grow(&b, "scratch", 64))
		require.Same(t, first, b)
		require.NoError(t, ctx.Grow(&b, "scratch", 1000))
		require.NotSame(t, first, b)
		require.GreaterOrEqual(t, b.Size(), uint64(1000))
		require.Equal(t, before+1, ctx.LiveBuffers())
		require.Error(t, ctx.Grow(&b, "scratch", ctx.Limits().MaxBufferSize+1))
		require.Nil(t, b)
		require.Equal(t, before, ctx.LiveBuffers())
	})
}

// TestGrowStaging moves data through a ring made of small slots, then
// grown past the default slot (to a size that is no power of two), then
// asked to shrink (it does not): every round trip is exact.
func TestGrowStaging(t *testing.T) {
	require.Error(t, (*wgpu.Context)(nil).GrowStaging(1<<20))
	for _, backend := range gputest.Backends() {
		t.Run(backend, func(t *testing.T) {
			o := gputest.Options(t, backend)
			o.Transfer.SlotBytes = 1 << 20
			ctx, err := wgpu.Open(o)
			require.NoError(t, err)
			defer ctx.Close()
			n := 70<<20 + 3
			data := make([]byte, n)
			for i := range data {
				data[i] = byte(i*13 + i>>9)
			}
			b, err := ctx.NewBuffer("raw", uint64(n))
			require.NoError(t, err)
			defer b.Release()
			for _, slot := range []uint64{0, 48 << 20, 1 << 10} {
				if slot != 0 {
					require.NoError(t, ctx.GrowStaging(slot))
				}
				require.NoError(t, ctx.Clear(b, 0, 0))
				require.NoError(t, ctx.Upload(b, 0, data))
				got := make([]byte, n)
				require.NoError(t, ctx.Download(got, b, 0))
				require.True(t, bytes.Equal(got, data), "slots grown to %d", slot)
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	_, err := wgpu.Open(wgpu.Options{Backend: "nope"})
	require.ErrorContains(t, err, "accepted are vulkan, gl")
	_, err = wgpu.Open(wgpu.Options{Backend: gputest.Backends()[0], Adapter: "no such adapter"})
	require.ErrorIs(t, err, wgpu.ErrNoAdapter)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		_, err := ctx.Kernel(wgpu.KernelSpec{Label: "broken", Module: text{"broken", "fn main( {"}, Entry: "main"})
		require.ErrorContains(t, err, "broken")
		require.NotContains(t, err.Error(), "nil pointer")
		require.ErrorContains(t, err, "CreateShaderModule")
		b, err := ctx.NewBuffer("small", 16)
		require.NoError(t, err)
		defer b.Release()
		require.ErrorContains(t, ctx.Upload(b, 0, make([]byte, 17)), "do not fit")
		require.ErrorContains(t, ctx.Download(make([]byte, 4), b, 2), "multiple of 4")
		k, err := ctx.Kernel(wgpu.KernelSpec{Label: "addone", Module: text{"addOne", addOne}, Entry: "main", Storage: 2, Uniform: true, ReadOnly: []bool{true}})
		require.NoError(t, err)
		_, err = ctx.Run(wgpu.Dispatch{Kernel: k, Bindings: []wgpu.Binding{wgpu.Bind(b)}, Params: []uint32{1}, Groups: [3]uint32{1, 1, 1}})
		require.ErrorContains(t, err, "1 buffers bound, the kernel takes 2")
		_, err = ctx.NewBuffer("huge", ctx.Limits().MaxBufferSize+4)
		require.ErrorContains(t, err, "exceeds")
		var le [4]byte
		binary.LittleEndian.PutUint32(le[:], 1)
		_ = le
	})
}

func TestAdapters(t *testing.T) {
	for _, b := range gputest.Backends() {
		infos, err := wgpu.Adapters(wgpu.Options{Backend: b})
		require.NoError(t, err)
		require.NotEmpty(t, infos, "backend %s", b)
		for _, in := range infos {
			require.Equal(t, b, in.Backend)
			require.NotZero(t, in.Limits.MaxStorageBindingSize)
			require.Less(t, in.Limits.MaxBufferSize, uint64(1)<<63)
		}
	}
}

func TestSubmitOverlapsUpload(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		k, err := ctx.Kernel(wgpu.KernelSpec{Label: "addone", Module: text{"addOne", addOne}, Entry: "main", Storage: 2, Uniform: true, ReadOnly: []bool{true}})
		require.NoError(t, err)
		const n = 3<<20 + 5
		a := make([]uint32, n)
		b := make([]uint32, n)
		for i := range a {
			a[i], b[i] = uint32(i), uint32(3*i)
		}
		in, err := ctx.NewBuffer("in", 4*n)
		require.NoError(t, err)
		defer in.Release()
		out, err := ctx.NewBuffer("out", 4*n)
		require.NoError(t, err)
		defer out.Release()
		require.NoError(t, ctx.Upload(in, 0, wgpu.Bytes(a)))
		d := wgpu.Dispatch{Kernel: k, Bindings: []wgpu.Binding{wgpu.Bind(in), wgpu.Bind(out)}, Params: []uint32{n}, Groups: ctx.Grid(n, 64)}
		p, err := ctx.Submit(d)
		require.NoError(t, err)
		// Overwriting the input while the kernel may still run must not
		// change what the kernel read: queue order puts the copy after it.
		require.NoError(t, ctx.Upload(in, 0, wgpu.Bytes(b)))
		_, err = p.Wait()
		require.NoError(t, err)
		_, err = p.Wait()
		require.ErrorContains(t, err, "already waited")
		got := make([]uint32, n)
		require.NoError(t, ctx.Download(wgpu.Bytes(got), out, 0))
		for i := range got {
			if got[i] != a[i]+1+uint32(i) {
				t.Fatalf("element %d = %d, want %d", i, got[i], a[i]+1+uint32(i))
			}
		}
	})
}

func TestNoLeaks(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		k, err := ctx.Kernel(wgpu.KernelSpec{Label: "addone", Module: text{"addOne", addOne}, Entry: "main", Storage: 2, Uniform: true, ReadOnly: []bool{true}})
		require.NoError(t, err)
		gputest.NoLeaks(t, ctx, func() error {
			const n = 3<<20 + 1
			in, err := ctx.NewBuffer("in", 4*n)
			if err != nil {
				return err
			}
			defer in.Release()
			out, err := ctx.NewBuffer("out", 4*n)
			if err != nil {
				return err
			}
			defer out.Release()
			if err := ctx.Upload(in, 0, make([]byte, 4*n)); err != nil {
				return err
			}
			if _, err := ctx.Run(wgpu.Dispatch{Kernel: k, Bindings: []wgpu.Binding{wgpu.Bind(in), wgpu.Bind(out)}, Params: []uint32{n}, Groups: ctx.Grid(n, 64)}); err != nil {
				return err
			}
			return ctx.Download(make([]byte, 4*n), out, 0)
		})
		// A leak must be seen: a buffer kept alive is counted.
		before := ctx.LiveBuffers()
		kept, err := ctx.NewBuffer("kept", 16)
		require.NoError(t, err)
		require.Equal(t, before+1, ctx.LiveBuffers())
		kept.Release()
		kept.Release()
		require.Equal(t, before, ctx.LiveBuffers())
	})
}

// TestConcurrentUse shares one Context between goroutines that each upload,
// run and download their own data.
func TestConcurrentUse(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		k, err := ctx.Kernel(wgpu.KernelSpec{Label: "addone", Module: text{"addOne", addOne}, Entry: "main", Storage: 2, Uniform: true, ReadOnly: []bool{true}})
		require.NoError(t, err)
		const workers, n = 6, 1<<18 + 3
		errs := make(chan error, workers)
		for w := 0; w < workers; w++ {
			go func(w int) {
				errs <- func() error {
					src := make([]uint32, n)
					for i := range src {
						src[i] = uint32(w<<24 + i)
					}
					in, err := ctx.NewBuffer("in", 4*n)
					if err != nil {
						return err
					}
					defer in.Release()
					out, err := ctx.NewBuffer("out", 4*n)
					if err != nil {
						return err
					}
					defer out.Release()
					for r := 0; r < 3; r++ {
						if err := ctx.Upload(in, 0, wgpu.Bytes(src)); err != nil {
							return err
						}
						if _, err := ctx.Run(wgpu.Dispatch{Kernel: k, Bindings: []wgpu.Binding{wgpu.Bind(in), wgpu.Bind(out)}, Params: []uint32{n}, Groups: ctx.Grid(n, 64)}); err != nil {
							return err
						}
						got := make([]uint32, n)
						if err := ctx.Download(wgpu.Bytes(got), out, 0); err != nil {
							return err
						}
						for i := range got {
							if got[i] != src[i]+1+uint32(i) {
								return fmt.Errorf("worker %d round %d: element %d = %d, want %d", w, r, i, got[i], src[i]+1+uint32(i))
							}
						}
					}
					return nil
				}()
			}(w)
		}
		for w := 0; w < workers; w++ {
			require.NoError(t, <-errs)
		}
	})
}

// A released buffer is handed out again by the next NewBuffer of its size
// class, and reads as zeros, as a new one does.
func TestPooledBufferReadsZeros(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		const n = 3 << 20 // over the small-transfer size, so the staging ring is used
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i*7 + 1)
		}
		wasOn := trace.On()
		trace.Enable(true)
		defer trace.Enable(wasOn)
		reused := func() int {
			for _, r := range trace.Rows() {
				if r.Phase == "reuse a pooled buffer" {
					return r.Count
				}
			}
			return 0
		}
		before := reused()
		for round := 0; round < 3; round++ {
			b, err := ctx.NewBuffer("pooled", n-4*uint64(round))
			require.NoError(t, err)
			got := make([]byte, b.Size())
			require.NoError(t, ctx.Download(got, b, 0))
			require.Equal(t, make([]byte, len(got)), got, "round %d: a new buffer must read as zeros", round)
			require.NoError(t, ctx.Upload(b, 0, data[:b.Size()]))
			b.Release()
		}
		require.GreaterOrEqual(t, reused()-before, 2, "rounds 2 and 3 should reuse round 1's buffer")
		require.Zero(t, ctx.LiveBuffers())
		// FreeUnused empties the pool: the next buffer is a new one.
		ctx.FreeUnused()
		before = reused()
		b, err := ctx.NewBuffer("after free", n)
		require.NoError(t, err)
		b.Release()
		require.Equal(t, before, reused())
	})
}

// Wait returns once queued uploads are done, and errs on nil or closed
// Contexts instead of panicking.
func TestWait(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		b, err := ctx.NewBuffer("wait", 4<<20)
		require.NoError(t, err)
		defer b.Release()
		require.NoError(t, ctx.Upload(b, 0, make([]byte, 4<<20)))
		require.NoError(t, ctx.Wait())
	})
	var nilCtx *wgpu.Context
	require.ErrorContains(t, nilCtx.Wait(), "nil Context")
	c, err := wgpu.Open(gputest.Options(t, gputest.Backends()[0]))
	require.NoError(t, err)
	require.NoError(t, c.Close())
	require.ErrorContains(t, c.Wait(), "closed")
}
