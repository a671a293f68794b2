package wgpu_test

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/internal/base/trace"
	"github.com/wgcompute/wgcompute/internal/gputest"
	"github.com/wgcompute/wgcompute/wgpu"
)

// addPairs writes dst[i] = (a[2i] + a[2i+1], b[i]) for items of two words
// in a and one in b: two inputs of different item sizes.
const addPairs = `
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> b: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
struct Params { count: u32 }
@group(0) @binding(3) var<uniform> params: Params;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = gid.x + gid.y * nwg.x * 64u;
	if (i >= params.count) { return; }
	dst[2u * i] = a[2u * i] + a[2u * i + 1u];
	dst[2u * i + 1u] = b[i];
}
`

func addPairsBatch(t *testing.T, ctx *wgpu.Context, n int, gather bool) ([]uint32, []uint32, wgpu.Batch) {
	k, err := ctx.Kernel(wgpu.KernelSpec{Label: "addpairs", Module: text{"addPairs", addPairs}, Entry: "main", Storage: 3, Uniform: true, ReadOnly: []bool{true, true}})
	require.NoError(t, err)
	a := make([]uint32, 2*n)
	b := make([]uint32, n)
	for i := range a {
		a[i] = rand.Uint32()
	}
	for i := range b {
		b[i] = rand.Uint32()
	}
	want := make([]uint32, 2*n)
	for i := 0; i < n; i++ {
		want[2*i], want[2*i+1] = a[2*i]+a[2*i+1], b[i]
	}
	got := make([]uint32, 2*n)
	job := wgpu.Batch{
		Label: "addpairs", Count: n, Guard: true,
		Inputs: []wgpu.BatchInput{{Data: wgpu.Bytes(a), ItemBytes: 8}, {Data: wgpu.Bytes(b), ItemBytes: 4}},
		Output: wgpu.BatchOutput{Data: wgpu.Bytes(got), ItemBytes: 8},
		Dispatches: func(m int, bind []wgpu.Binding) []wgpu.Dispatch {
			return []wgpu.Dispatch{{Kernel: k, Bindings: bind, Params: []uint32{uint32(m)}, Groups: ctx.Grid(uint64(m), 64)}}
		},
	}
	if gather {
		job.Output.Data = nil
		job.Output.Gather = func(lo, m int, raw []byte) {
			for i := 0; i < 2*m; i++ {
				got[2*lo+i] = binary.LittleEndian.Uint32(raw[4*i:])
			}
		}
	}
	return want, got, job
}

// A batch larger than one piece under small limits is split, pipelined and
// reassembled in order; the guard item catches no overrun.
func TestRunBatchPieces(t *testing.T) {
	gputest.ForEachSmall(t, func(t *testing.T, ctx *wgpu.Context) {
		per := wgpu.PieceItems(ctx.Limits(), 8, 4, 8)
		require.Equal(t, int(gputest.SmallLimits.MaxStorageBindingSize/8), per)
		for _, n := range []int{1, 63, per - 1, per, 3*per + 17} {
			for _, gather := range []bool{false, true} {
				want, got, job := addPairsBatch(t, ctx, n, gather)
				before := ctx.LiveBuffers()
				_, err := ctx.RunBatch(job)
				require.NoError(t, err, "n=%d", n)
				require.Equal(t, want, got, "n=%d gather=%v", n, gather)
				require.Equal(t, before, ctx.LiveBuffers())
			}
		}
		// A resident Batcher keeps its buffers between runs.
		r := ctx.NewBatcher()
		for _, n := range []int{100, 5000, 10} {
			want, got, job := addPairsBatch(t, ctx, n, false)
			_, err := r.Run(job)
			require.NoError(t, err)
			require.Equal(t, want, got)
		}
		require.Positive(t, ctx.LiveBuffers())
		r.Release()
		require.Zero(t, ctx.LiveBuffers())
	})
}

// Pieces fit the staging ring, and so do the buffers of both of a
// Batcher's sets: the first set is not sized for pieces it never runs.
func TestBatcherBuffersFitTheRing(t *testing.T) {
	const slot, slots = 64 << 10, 2
	for _, backend := range gputest.Backends() {
		t.Run(backend, func(t *testing.T) {
			o := gputest.Options(t, backend)
			o.Transfer = wgpu.TransferOptions{SlotBytes: slot, Slots: slots}
			ctx, err := wgpu.Open(o)
			require.NoError(t, err)
			defer ctx.Close()
			n := 4 * slots * slot / 8 // the 8-byte input alone fills the ring four times
			require.Less(t, slots*slot, wgpu.PieceItems(ctx.Limits(), 8, 4, 8)*8, "the limits alone would allow larger pieces")
			want, got, job := addPairsBatch(t, ctx, n, false)
			r := ctx.NewBatcher()
			defer r.Release()
			_, err = r.Run(job)
			require.NoError(t, err)
			require.Equal(t, want, got)
			sizes := r.BufferSizes()
			require.Len(t, sizes, 6, "two sets of three bindings")
			for _, size := range sizes {
				require.LessOrEqual(t, size, uint64(slots*slot))
			}
		})
	}
}

func TestRunBatchErrors(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		_, _, job := addPairsBatch(t, ctx, 10, false)
		job.Inputs[1].Data = job.Inputs[1].Data[:8]
		_, err := ctx.RunBatch(job)
		require.ErrorContains(t, err, "input 1 has 8 bytes for 10 items of 4 bytes")
		_, _, job = addPairsBatch(t, ctx, 10, false)
		job.Output.Data = nil
		_, err = ctx.RunBatch(job)
		require.ErrorContains(t, err, "output has 0 bytes")
		_, _, job = addPairsBatch(t, ctx, 10, false)
		job.Dispatches = nil
		_, err = ctx.RunBatch(job)
		require.ErrorContains(t, err, "no Dispatches")
		_, _, job = addPairsBatch(t, ctx, 10, false)
		job.Inputs[0].ItemBytes = int(ctx.Limits().MaxStorageBindingSize) + 4
		job.Inputs[0].Data = make([]byte, 10*job.Inputs[0].ItemBytes)
		_, err = ctx.RunBatch(job)
		require.ErrorContains(t, err, "does not fit")
		require.Zero(t, ctx.LiveBuffers())
	})
	var nilCtx *wgpu.Context
	_, err := nilCtx.RunBatch(wgpu.Batch{Label: "x", Count: 1})
	require.ErrorContains(t, err, "nil Context")
}

// The limits knob caps what the device grants, and wgpu enforces it.
func TestLimitsCap(t *testing.T) {
	for _, b := range gputest.Backends() {
		ctx := gputest.Limited(t, b, wgpu.WebGPULimits)
		l := ctx.Limits()
		require.LessOrEqual(t, l.MaxStorageBindingSize, wgpu.WebGPULimits.MaxStorageBindingSize)
		require.LessOrEqual(t, l.MaxBufferSize, wgpu.WebGPULimits.MaxBufferSize)
		require.LessOrEqual(t, l.MaxWorkgroupStorage, wgpu.WebGPULimits.MaxWorkgroupStorage)
		require.LessOrEqual(t, l.MaxWorkgroupsPerDimension, wgpu.WebGPULimits.MaxWorkgroupsPerDimension)
		_, err := ctx.NewBuffer("too large", wgpu.WebGPULimits.MaxBufferSize+4)
		require.ErrorContains(t, err, "exceeds")

		small := gputest.Limited(t, b, gputest.SmallLimits)
		require.Equal(t, gputest.SmallLimits.MaxStorageBindingSize, small.Limits().MaxStorageBindingSize)
		buf, err := small.NewBuffer("b", 128<<10)
		require.NoError(t, err)
		k, err := small.Kernel(wgpu.KernelSpec{Label: "addone", Module: text{"addOne", addOne}, Entry: "main", Storage: 2, Uniform: true, ReadOnly: []bool{true}})
		require.NoError(t, err)
		_, err = small.Run(wgpu.Dispatch{Kernel: k, Bindings: []wgpu.Binding{wgpu.Bind(buf), {Buffer: buf, Size: 16}}, Params: []uint32{1}, Groups: [3]uint32{1, 1, 1}})
		require.ErrorContains(t, err, "storage binding limit")
		buf.Release()
	}
	// The profile from the environment caps the tests' small limits too.
	t.Setenv("WGCOMPUTE_LIMITS", "webgpu")
	both := gputest.Limited(t, gputest.Backends()[0], gputest.SmallLimits)
	require.Equal(t, gputest.SmallLimits.MaxStorageBindingSize, both.Limits().MaxStorageBindingSize)
	require.LessOrEqual(t, both.Limits().MaxWorkgroupStorage, wgpu.WebGPULimits.MaxWorkgroupStorage)
}

func TestLimitsMin(t *testing.T) {
	a := wgpu.Limits{MaxBufferSize: 100, MaxWorkgroupStorage: 7}
	b := wgpu.Limits{MaxBufferSize: 50, MaxStorageBindingSize: 9}
	require.Equal(t, wgpu.Limits{MaxBufferSize: 50, MaxStorageBindingSize: 9, MaxWorkgroupStorage: 7}, a.Min(b))
	require.Equal(t, a.Min(b), b.Min(a))
	require.Equal(t, wgpu.WebGPULimits, wgpu.Limits{}.Min(wgpu.WebGPULimits))
	require.Equal(t, uint64(128<<20), wgpu.WebGPULimits.Binding())
	require.Equal(t, uint64(50), wgpu.Limits{MaxBufferSize: 50, MaxStorageBindingSize: 90}.Binding())
}

func TestTiming(t *testing.T) {
	var sum wgpu.Timing
	sum = sum.Add(wgpu.Timing{Kernel: 2, Measured: true, Wall: 5})
	sum = sum.Add(wgpu.Timing{Kernel: 3, Measured: true, Wall: 7})
	require.Equal(t, wgpu.Timing{Kernel: 5, Measured: true, Wall: 12}, sum)
	require.Equal(t, time.Duration(5), sum.Elapsed())
	sum = sum.Add(wgpu.Timing{Wall: 1})
	require.False(t, sum.Measured)
	require.Equal(t, time.Duration(13), sum.Elapsed())

	// The zero Timing is no work on either side: a device that ran
	// nothing leaves its neighbours' timing measured.
	m := wgpu.Timing{Kernel: 4, Measured: true, Wall: 6}
	require.Equal(t, m, m.Add(wgpu.Timing{}))
	require.Equal(t, m, m.Parallel(wgpu.Timing{}))
	require.Equal(t, m, wgpu.Timing{}.Parallel(m))
	require.Equal(t, wgpu.Timing{Kernel: 4, Measured: true, Wall: 9}, m.Parallel(wgpu.Timing{Kernel: 1, Measured: true, Wall: 9}))
}

// Ranges near 2^64 are rejected, not wrapped; a nil Context is an error.
func TestRangeOverflowAndNil(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		b, err := ctx.NewBuffer("small", 16)
		require.NoError(t, err)
		defer b.Release()
		require.ErrorContains(t, ctx.Upload(b, ^uint64(0)-3, make([]byte, 8)), "do not fit")
		require.ErrorContains(t, ctx.Download(make([]byte, 8), b, ^uint64(0)-3), "do not fit")
		require.ErrorContains(t, ctx.Clear(b, ^uint64(0)-3, 8), "offset 18446744073709551612 is out of range: the buffer holds 16 bytes")
		require.ErrorContains(t, ctx.Clear(b, 8, 16), "16 bytes from offset 8 are out of range: the buffer holds 16 bytes")
		require.ErrorContains(t, ctx.Clear(b, 4, ^uint64(0)-3), "from offset 4 are out of range")
		require.ErrorContains(t, ctx.Clear(b, 2, 4), "offset 2 and size 4 must be multiples of 4")
		_, err = ctx.NewBuffer("wrap", ^uint64(0))
		require.ErrorContains(t, err, "exceeds")
	})
	var c *wgpu.Context
	_, err := c.NewBuffer("x", 4)
	require.ErrorContains(t, err, "nil Context")
	require.ErrorContains(t, c.Upload(nil, 0, nil), "nil Context")
	_, err = c.Run()
	require.ErrorContains(t, err, "nil Context")
	require.NoError(t, c.Close())
	require.Equal(t, "cpu", c.Info().Backend)
}

func TestNextPiece(t *testing.T) {
	const limit = 1 << 26
	// A fast first piece grows in proportion, at most 256 times at once.
	require.Equal(t, 1<<24, wgpu.NextPiece(1<<16, 1<<16, time.Microsecond, limit))
	require.Equal(t, limit, wgpu.NextPiece(1<<24, 1<<24, time.Microsecond, limit))
	// 12.5 ms of a 125 ms aim: ten times larger.
	require.Equal(t, 10<<16, wgpu.NextPiece(1<<16, 1<<16, 12500*time.Microsecond, limit))
	// Too slow: shrunk to aim at half the target.
	require.Equal(t, 1<<14, wgpu.NextPiece(1<<16, 1<<16, time.Second/2, limit))
	// In between, or a last short piece: unchanged.
	require.Equal(t, 1<<16, wgpu.NextPiece(1<<16, 1<<16, 200*time.Millisecond, limit))
	require.Equal(t, 1<<16, wgpu.NextPiece(1<<16, 100, time.Microsecond, limit))
}

// batchModes opens backend with small limits twice: with the Batcher's
// pieces in host memory where the device allows it
// (BatchHost), and in device memory (BatchDevice).
func batchModes(t *testing.T, fn func(t *testing.T, ctx *wgpu.Context)) {
	for _, backend := range gputest.Backends() {
		for _, device := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/device-batches=%v", backend, device), func(t *testing.T) {
				o := gputest.Options(t, backend)
				o.Limits = gputest.SmallLimits.Min(o.Limits)
				o.Batcher.Memory = wgpu.BatchHost
				if device {
					o.Batcher.Memory = wgpu.BatchDevice
				}
				ctx, err := wgpu.Open(o)
				require.NoError(t, err)
				defer ctx.Close()
				// Every Vulkan adapter wgpu opens has mappable primary
				// buffers (lavapipe too); other backends keep pieces on
				// the device.
				require.Equal(t, backend == "vulkan" && !device, ctx.HostBatches())
				fn(t, ctx)
			})
		}
	}
}

// Both modes give the reference's outputs for batches of one piece and of
// many (MaxItems forces small ones), with the guard on, into Data and
// through Gather, and release what they allocate.
func TestBatchModes(t *testing.T) {
	batchModes(t, func(t *testing.T, ctx *wgpu.Context) {
		r := ctx.NewBatcher()
		for _, maxItems := range []int{0, 100, 1000} {
			for _, n := range []int{1, 99, 100, 101, 2500, 10007} {
				for _, gather := range []bool{false, true} {
					want, got, job := addPairsBatch(t, ctx, n, gather)
					job.MaxItems = maxItems
					before := ctx.LiveBuffers()
					_, err := ctx.RunBatch(job)
					require.NoError(t, err, "n=%d max=%d", n, maxItems)
					require.Equal(t, want, got, "n=%d max=%d gather=%v", n, maxItems, gather)
					require.Equal(t, before, ctx.LiveBuffers())
					// A resident Batcher across calls of every size.
					clear(got)
					_, err = r.Run(job)
					require.NoError(t, err, "n=%d max=%d", n, maxItems)
					require.Equal(t, want, got, "n=%d max=%d gather=%v", n, maxItems, gather)
				}
			}
		}
		r.Release()
		require.Zero(t, ctx.LiveBuffers())
	})
}

// A kernel that writes past its piece trips the guard in both modes; a
// failed submission in the middle of a batch ends it with an error, leaves
// no buffer mapped, and the Batcher runs the next batch and releases all.
func TestBatchModesErrors(t *testing.T) {
	batchModes(t, func(t *testing.T, ctx *wgpu.Context) {
		r := ctx.NewBatcher()
		_, _, job := addPairsBatch(t, ctx, 1000, false)
		job.MaxItems = 300
		inner := job.Dispatches
		job.Dispatches = func(m int, bind []wgpu.Binding) []wgpu.Dispatch {
			d := inner(m, bind)
			// One item more, into the guard item past the output.
			d[0].Bindings[2].Size += 8
			d[0].Params = []uint32{uint32(m + 1)}
			d[0].Groups = ctx.Grid(uint64(m+1), 64)
			return d
		}
		_, err := r.Run(job)
		require.ErrorContains(t, err, "a kernel wrote past the 300 items of its piece")
		require.Zero(t, r.MappedHostBuffers())

		want, got, job := addPairsBatch(t, ctx, 1000, true)
		job.MaxItems = 300
		inner = job.Dispatches
		pieces := 0
		job.Dispatches = func(m int, bind []wgpu.Binding) []wgpu.Dispatch {
			pieces++
			if pieces == 3 {
				// A binding past its buffer: Submit refuses it.
				bind[0].Size = bind[0].Buffer.Size() + 8
			}
			return inner(m, bind)
		}
		_, err = r.Run(job)
		require.ErrorContains(t, err, "items 600..900")
		require.Zero(t, r.MappedHostBuffers())

		_, err = r.Run(wgpu.Batch{Label: job.Label, Count: job.Count, Inputs: job.Inputs, Output: job.Output, MaxItems: 300, Guard: true, Dispatches: inner})
		require.NoError(t, err)
		require.Equal(t, want, got)
		r.Release()
		require.Zero(t, ctx.LiveBuffers())
	})
}

// One-shot batches reuse the host memory of the last one's pieces, which
// costs far more to create than to use; FreeUnused frees it.
func TestBatchModesReuseHostMemory(t *testing.T) {
	trace.Enable(true)
	defer trace.Enable(false)
	created := func() int {
		for _, r := range trace.Rows() {
			if r.Phase == "create host buffers" {
				return r.Count
			}
		}
		return 0
	}
	batchModes(t, func(t *testing.T, ctx *wgpu.Context) {
		if !ctx.HostBatches() {
			t.Skip("the pieces are in device memory")
		}
		run := func() {
			want, got, job := addPairsBatch(t, ctx, 5000, false)
			job.MaxItems = 1000
			_, err := ctx.RunBatch(job)
			require.NoError(t, err)
			require.Equal(t, want, got)
		}
		run()
		before := created()
		require.Positive(t, before)
		run()
		require.Equal(t, before, created(), "the second batch created host buffers")
		ctx.FreeUnused()
		run()
		require.Greater(t, created(), before, "FreeUnused kept the host buffers")
		require.Zero(t, ctx.LiveBuffers())
	})
}

// TestBatchMemoryDefault: by default a Batcher's pieces are in host memory
// where the adapter's memory is the host's (software and integrated
// adapters, on Vulkan) and in device memory on a discrete GPU; a value
// outside the three is refused before anything opens.
func TestBatchMemoryDefault(t *testing.T) {
	for _, backend := range gputest.Backends() {
		ctx := gputest.Context(t, backend)
		typ := ctx.Info().Type
		want := backend == "vulkan" && (typ == "cpu" || typ == "integrated")
		require.Equal(t, want, ctx.HostBatches(), "%s adapter of type %s", backend, typ)
	}
	for _, m := range []wgpu.BatchMemory{wgpu.BatchAuto, wgpu.BatchDevice, wgpu.BatchHost} {
		got, err := wgpu.ParseBatchMemory(strings.ToUpper(m.String()))
		require.NoError(t, err)
		require.Equal(t, m, got)
	}
	_, err := wgpu.Open(wgpu.Options{Batcher: wgpu.BatcherOptions{Memory: wgpu.BatchHost + 1}})
	require.ErrorContains(t, err, "Options.Batcher.Memory 3: accepted are BatchAuto, BatchDevice and BatchHost")
}
