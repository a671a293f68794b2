package sched_test

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/internal/base/trace"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
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

func addPairsJob(t *testing.T, ctx *wgpu.Context, n int, gather bool) ([]uint32, []uint32, sched.Job) {
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
	job := sched.Job{
		Label: "addpairs", Count: n, Guard: true,
		Inputs: []sched.Input{{Data: wgpu.Bytes(a), ItemBytes: 8}, {Data: wgpu.Bytes(b), ItemBytes: 4}},
		Output: sched.Output{Data: wgpu.Bytes(got), ItemBytes: 8},
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
func TestRunPieces(t *testing.T) {
	gputest.ForEachSmall(t, func(t *testing.T, ctx *wgpu.Context) {
		per := sched.PieceItems(ctx.Limits(), 8, 4, 8)
		require.Equal(t, int(gputest.SmallLimits.MaxStorageBindingSize/8), per)
		for _, n := range []int{1, 63, per - 1, per, 3*per + 17} {
			for _, gather := range []bool{false, true} {
				want, got, job := addPairsJob(t, ctx, n, gather)
				before := ctx.LiveBuffers()
				_, err := sched.Run(ctx, job)
				require.NoError(t, err, "n=%d", n)
				require.Equal(t, want, got, "n=%d gather=%v", n, gather)
				require.Equal(t, before, ctx.LiveBuffers())
			}
		}
		// A resident Runner keeps its buffers between runs.
		r := sched.NewRunner(ctx)
		for _, n := range []int{100, 5000, 10} {
			want, got, job := addPairsJob(t, ctx, n, false)
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
// Runner's sets: the first set is not sized for pieces it never runs.
func TestRunnerBuffersFitTheRing(t *testing.T) {
	const slot, slots = 64 << 10, 2
	for _, backend := range gputest.Backends() {
		t.Run(backend, func(t *testing.T) {
			o := gputest.Options(t, backend)
			o.Transfer = wgpu.TransferOptions{SlotBytes: slot, Slots: slots}
			ctx, err := wgpu.Open(o)
			require.NoError(t, err)
			defer ctx.Close()
			n := 4 * slots * slot / 8 // the 8-byte input alone fills the ring four times
			require.Less(t, slots*slot, sched.PieceItems(ctx.Limits(), 8, 4, 8)*8, "the limits alone would allow larger pieces")
			want, got, job := addPairsJob(t, ctx, n, false)
			r := sched.NewRunner(ctx)
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

func TestRunErrors(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		_, _, job := addPairsJob(t, ctx, 10, false)
		job.Inputs[1].Data = job.Inputs[1].Data[:8]
		_, err := sched.Run(ctx, job)
		require.ErrorContains(t, err, "input 1 has 8 bytes for 10 items of 4 bytes")
		_, _, job = addPairsJob(t, ctx, 10, false)
		job.Output.Data = nil
		_, err = sched.Run(ctx, job)
		require.ErrorContains(t, err, "output has 0 bytes")
		_, _, job = addPairsJob(t, ctx, 10, false)
		job.Dispatches = nil
		_, err = sched.Run(ctx, job)
		require.ErrorContains(t, err, "no Dispatches")
		_, _, job = addPairsJob(t, ctx, 10, false)
		job.Inputs[0].ItemBytes = int(ctx.Limits().MaxStorageBindingSize) + 4
		job.Inputs[0].Data = make([]byte, 10*job.Inputs[0].ItemBytes)
		_, err = sched.Run(ctx, job)
		require.ErrorContains(t, err, "does not fit")
		require.Zero(t, ctx.LiveBuffers())
	})
	var nilCtx *wgpu.Context
	_, err := sched.Run(nilCtx, sched.Job{Label: "x", Count: 1})
	require.ErrorContains(t, err, "nil Context")
}

func TestNextPiece(t *testing.T) {
	const limit = 1 << 26
	// A fast first piece grows in proportion, at most 256 times at once.
	require.Equal(t, 1<<24, sched.NextPiece(1<<16, 1<<16, time.Microsecond, limit))
	require.Equal(t, limit, sched.NextPiece(1<<24, 1<<24, time.Microsecond, limit))
	// 12.5 ms of a 125 ms aim: ten times larger.
	require.Equal(t, 10<<16, sched.NextPiece(1<<16, 1<<16, 12500*time.Microsecond, limit))
	// Too slow: shrunk to aim at half the target.
	require.Equal(t, 1<<14, sched.NextPiece(1<<16, 1<<16, time.Second/2, limit))
	// In between, or a last short piece: unchanged.
	require.Equal(t, 1<<16, sched.NextPiece(1<<16, 1<<16, 200*time.Millisecond, limit))
	require.Equal(t, 1<<16, sched.NextPiece(1<<16, 100, time.Microsecond, limit))
}

// pieceModes opens backend with small limits twice: with the Runner's
// pieces in host memory where the device allows it
// (PiecesInHost), and in device memory (PiecesInDevice).
func pieceModes(t *testing.T, fn func(t *testing.T, ctx *wgpu.Context)) {
	for _, backend := range gputest.Backends() {
		for _, device := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/device-batches=%v", backend, device), func(t *testing.T) {
				o := gputest.Options(t, backend)
				o.Limits = gputest.SmallLimits.Min(o.Limits)
				o.Runner.Memory = wgpu.PiecesInHost
				if device {
					o.Runner.Memory = wgpu.PiecesInDevice
				}
				ctx, err := wgpu.Open(o)
				require.NoError(t, err)
				defer ctx.Close()
				// Every Vulkan adapter wgpu opens has mappable primary
				// buffers (lavapipe too); other backends keep pieces on
				// the device.
				require.Equal(t, backend == "vulkan" && !device, ctx.HostPieces())
				fn(t, ctx)
			})
		}
	}
}

// Both modes give the reference's outputs for batches of one piece and of
// many (MaxItems forces small ones), with the guard on, into Data and
// through Gather, and release what they allocate.
func TestPieceModes(t *testing.T) {
	pieceModes(t, func(t *testing.T, ctx *wgpu.Context) {
		r := sched.NewRunner(ctx)
		for _, maxItems := range []int{0, 100, 1000} {
			for _, n := range []int{1, 99, 100, 101, 2500, 10007} {
				for _, gather := range []bool{false, true} {
					want, got, job := addPairsJob(t, ctx, n, gather)
					job.MaxItems = maxItems
					before := ctx.LiveBuffers()
					_, err := sched.Run(ctx, job)
					require.NoError(t, err, "n=%d max=%d", n, maxItems)
					require.Equal(t, want, got, "n=%d max=%d gather=%v", n, maxItems, gather)
					require.Equal(t, before, ctx.LiveBuffers())
					// A resident Runner across calls of every size.
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
// no buffer mapped, and the Runner runs the next job and releases all.
func TestPieceModesErrors(t *testing.T) {
	pieceModes(t, func(t *testing.T, ctx *wgpu.Context) {
		r := sched.NewRunner(ctx)
		_, _, job := addPairsJob(t, ctx, 1000, false)
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

		want, got, job := addPairsJob(t, ctx, 1000, true)
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

		_, err = r.Run(sched.Job{Label: job.Label, Count: job.Count, Inputs: job.Inputs, Output: job.Output, MaxItems: 300, Guard: true, Dispatches: inner})
		require.NoError(t, err)
		require.Equal(t, want, got)
		r.Release()
		require.Zero(t, ctx.LiveBuffers())
	})
}

// One-shot batches reuse the host memory of the last one's pieces, which
// costs far more to create than to use; FreeUnused frees it.
func TestPieceModesReuseHostMemory(t *testing.T) {
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
	pieceModes(t, func(t *testing.T, ctx *wgpu.Context) {
		if !ctx.HostPieces() {
			t.Skip("the pieces are in device memory")
		}
		run := func() {
			want, got, job := addPairsJob(t, ctx, 5000, false)
			job.MaxItems = 1000
			_, err := sched.Run(ctx, job)
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

// TestPieceMemoryDefault: by default a Runner's pieces are in host memory
// where the adapter's memory is the host's (software and integrated
// adapters, on Vulkan) and in device memory on a discrete GPU; a value
// outside the three is refused before anything opens.
func TestPieceMemoryDefault(t *testing.T) {
	for _, backend := range gputest.Backends() {
		ctx := gputest.Context(t, backend)
		typ := ctx.Info().Type
		want := backend == "vulkan" && (typ == "cpu" || typ == "integrated")
		require.Equal(t, want, ctx.HostPieces(), "%s adapter of type %s", backend, typ)
	}
	for _, m := range []wgpu.PieceMemory{wgpu.PiecesAuto, wgpu.PiecesInDevice, wgpu.PiecesInHost} {
		got, err := wgpu.ParsePieceMemory(strings.ToUpper(m.String()))
		require.NoError(t, err)
		require.Equal(t, m, got)
	}
	_, err := wgpu.Open(wgpu.Options{Runner: wgpu.RunnerOptions{Memory: wgpu.PiecesInHost + 1}})
	require.ErrorContains(t, err, "Options.Runner.Memory 3: accepted are PiecesAuto, PiecesInDevice and PiecesInHost")
}
