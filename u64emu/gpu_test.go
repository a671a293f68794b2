package u64emu

import (
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/internal/gputest"
	"github.com/wgcompute/wgcompute/wgpu"
)

func TestMain(m *testing.M) { os.Exit(gputest.Main(m)) }

// gpuInputs returns n canonical inputs: every pair of edge values first,
// then random elements (half of them built from special words).
func gpuInputs(r *rand.Rand, n int) (a, b []uint64) {
	a = make([]uint64, 0, n)
	b = make([]uint64, 0, n)
	for _, x := range edgeValues {
		for _, y := range edgeValues {
			a, b = append(a, x), append(b, y)
		}
	}
	for len(a) < n {
		a, b = append(a, randElem(r)), append(b, randElem(r))
	}
	return a[:n], b[:n]
}

type gpuOp struct {
	op     op
	native func(a, b uint64) uint64
}

var gpuOps = []gpuOp{
	{opAdd, Add},
	{opSub, Sub},
	{opMul, Mul},
	{opPow7, func(a, _ uint64) uint64 { return Pow7(a) }},
	{opInvPow7, func(a, _ uint64) uint64 { return InvPow7(a) }},
}

func run(ctx *wgpu.Context, o op, dst, a, b []uint64, limit int) error {
	if o.unary {
		b = nil
	}
	_, err := batch(ctx, o, dst, a, b, limit)
	return err
}

// TestGPUMatchesNative runs each batch operation on 2^20+3 inputs and
// compares every output with the native reference.
func TestGPUMatchesNative(t *testing.T) {
	n := 1<<20 + 3
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		r := rand.New(rand.NewPCG(5, uint64(len(t.Name()))))
		for _, g := range gpuOps {
			a, b := gpuInputs(r, n)
			dst := make([]uint64, n)
			start := time.Now()
			require.NoError(t, run(ctx, g.op, dst, a, b, 0), g.op.name)
			t.Logf("%s: %d elements in %v", g.op.name, n, time.Since(start))
			for i := range dst {
				if want := g.native(a[i], b[i]); dst[i] != want {
					t.Fatalf("%s: element %d of %d: a=%#x b=%#x: GPU %#x, native %#x", g.op.name, i, n, a[i], b[i], dst[i], want)
				}
			}
		}
	})
}

// TestGPUPieces forces pieces much smaller than a storage binding, at odd
// sizes, so that the piecewise path and its boundaries are exercised.
func TestGPUPieces(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		r := rand.New(rand.NewPCG(6, 7))
		for _, tc := range []struct{ n, limit int }{{1, 1}, {5, 2}, {1000, 256}, {2049, 1000}, {4097, 4097}, {300, 1 << 20}} {
			for _, g := range gpuOps {
				a, b := gpuInputs(r, tc.n)
				r.Shuffle(tc.n, func(i, j int) { a[i], a[j] = a[j], a[i] })
				dst := make([]uint64, tc.n)
				require.NoError(t, run(ctx, g.op, dst, a, b, tc.limit))
				for i := range dst {
					if want := g.native(a[i], b[i]); dst[i] != want {
						t.Fatalf("%s n=%d piece=%d: element %d: GPU %#x, native %#x", g.op.name, tc.n, tc.limit, i, dst[i], want)
					}
				}
			}
		}
		// The exported entry points, at an odd size.
		a, b := gpuInputs(r, 777)
		dst := make([]uint64, len(a))
		for _, f := range []struct {
			name string
			run  func() error
			want func(i int) uint64
		}{
			{"AddTo", func() error { return AddTo(ctx, dst, a, b) }, func(i int) uint64 { return Add(a[i], b[i]) }},
			{"SubTo", func() error { return SubTo(ctx, dst, a, b) }, func(i int) uint64 { return Sub(a[i], b[i]) }},
			{"MulTo", func() error { return MulTo(ctx, dst, a, b) }, func(i int) uint64 { return Mul(a[i], b[i]) }},
			{"Pow7To", func() error { return Pow7To(ctx, dst, a) }, func(i int) uint64 { return Pow7(a[i]) }},
			{"InvPow7To", func() error { return InvPow7To(ctx, dst, a) }, func(i int) uint64 { return InvPow7(a[i]) }},
		} {
			require.NoError(t, f.run(), f.name)
			for i := range dst {
				require.Equal(t, f.want(i), dst[i], "%s element %d", f.name, i)
			}
		}
	})
}

func TestPieceElems(t *testing.T) {
	l := wgpu.Limits{MaxStorageBindingSize: 128 << 20, MaxBufferSize: 1 << 31}
	require.Equal(t, 16<<20, pieceElems(l, 100<<20, 0))
	require.Equal(t, 10, pieceElems(l, 10, 0))
	require.Equal(t, 7, pieceElems(l, 100, 7))
	l.MaxBufferSize = 8 << 20
	require.Equal(t, 1<<20, pieceElems(l, 100<<20, 0))
	l = wgpu.Limits{MaxStorageBindingSize: 1 << 40, MaxBufferSize: 1 << 40}
	require.Equal(t, 1<<31, pieceElems(l, 1<<33, 0))
}

func TestBadInputs(t *testing.T) {
	ctx := gputest.Context(t, gputest.Backends()[0])
	ok := []uint64{1, 2, 3}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"short b", MulTo(ctx, make([]uint64, 3), ok, ok[:2]), "len(dst) = 3, len(a) = 3, len(b) = 2: the lengths must be equal"},
		{"short dst", AddTo(ctx, make([]uint64, 2), ok, ok), "AddTo: len(dst) = 2"},
		{"unary", Pow7To(ctx, make([]uint64, 4), ok), "Pow7To: len(dst) = 4, len(a) = 3: the lengths must be equal"},
		{"a >= p", SubTo(ctx, make([]uint64, 3), []uint64{0, P, 1}, ok), "SubTo: a[1] = 0xffffffff00000001 is not a canonical field element: inputs must be < p"},
		{"b >= p", MulTo(ctx, make([]uint64, 3), ok, []uint64{0, 1, 1<<64 - 1}), "b[2] = 0xffffffffffffffff is not a canonical"},
		{"inv", InvPow7To(ctx, make([]uint64, 1), []uint64{P + 5}), "InvPow7To: a[0] = 0xffffffff00000006"},
		{"nil ctx", MulTo(nil, make([]uint64, 3), ok, ok), "no GPU context"},
	} {
		require.ErrorContains(t, tc.err, tc.want, tc.name)
	}
	require.NoError(t, MulTo(ctx, nil, nil, nil), "empty input")
}

// TestGPUGuard dispatches the mul kernel on a binding that sits between
// sentinel words and checks that only the bound elements were written.
func TestGPUGuard(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		const n, guard = 1001, 32 // 32 elements = 256 bytes, the binding offset alignment
		r := rand.New(rand.NewPCG(8, 9))
		a, b := gpuInputs(r, n)
		k, err := kernel(ctx, opMul.entry)
		require.NoError(t, err)
		ba, err := ctx.NewBuffer("a", n*elemBytes)
		require.NoError(t, err)
		defer ba.Release()
		bb, err := ctx.NewBuffer("b", n*elemBytes)
		require.NoError(t, err)
		defer bb.Release()
		total := guard + n + guard
		bd, err := ctx.NewBuffer("dst", uint64(total)*elemBytes)
		require.NoError(t, err)
		defer bd.Release()
		const sentinel = 0xDEAD_BEEF_CAFE_F00D
		init := make([]uint64, total)
		for i := range init {
			init[i] = sentinel
		}
		require.NoError(t, ctx.Upload(ba, 0, wgpu.Bytes(a)))
		require.NoError(t, ctx.Upload(bb, 0, wgpu.Bytes(b)))
		require.NoError(t, ctx.Upload(bd, 0, wgpu.Bytes(init)))
		_, err = ctx.Run(wgpu.Dispatch{
			Kernel:   k,
			Bindings: []wgpu.Binding{wgpu.Bind(ba), wgpu.Bind(bb), {Buffer: bd, Offset: guard * elemBytes, Size: n * elemBytes}},
			Params:   []uint32{n - 1, 0}, // one element short: the last stays a sentinel
			Groups:   ctx.Grid(n, workgroupSize),
		})
		require.NoError(t, err)
		got := make([]uint64, total)
		require.NoError(t, ctx.Download(wgpu.Bytes(got), bd, 0))
		for i, v := range got {
			j := i - guard
			if j >= 0 && j < n-1 {
				require.Equal(t, Mul(a[j], b[j]), v, "element %d", j)
			} else {
				require.Equal(t, uint64(sentinel), v, "guard word %d (element %d)", i, j)
			}
		}
	})
}

// TestMulThroughputKernel checks both throughput kernels against
// MulThroughputRef, so that the benchmark measures correct arithmetic.
func TestMulThroughputKernel(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		const n, steps = 2000 + 17, 7
		r := rand.New(rand.NewPCG(10, 11))
		a, b := gpuInputs(r, n)
		ba, err := ctx.NewBuffer("a", n*elemBytes)
		require.NoError(t, err)
		defer ba.Release()
		bb, err := ctx.NewBuffer("b", n*elemBytes)
		require.NoError(t, err)
		defer bb.Release()
		bd, err := ctx.NewBuffer("dst", n*elemBytes)
		require.NoError(t, err)
		defer bd.Release()
		require.NoError(t, ctx.Upload(ba, 0, wgpu.Bytes(a)))
		require.NoError(t, ctx.Upload(bb, 0, wgpu.Bytes(b)))
		for _, sb := range []bool{false, true} {
			require.NoError(t, ctx.Clear(bd, 0, 0))
			_, err := MulThroughput(ctx, bd, ba, bb, n, steps, sb)
			require.NoError(t, err)
			got := make([]uint64, n)
			require.NoError(t, ctx.Download(wgpu.Bytes(got), bd, 0))
			for i := range got {
				require.Equal(t, MulThroughputRef(a[i], b[i], steps), got[i], "schoolbook=%v element %d", sb, i)
			}
		}
	})
}

// TestGPULibrary runs the library functions that the batch operations do
// not expose (gl_canon on any 64-bit value, gl_neg, gl_square,
// gl_mul_small, gl_reduce96, gl_reduce128) through the k_lib kernel.
func TestGPULibrary(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		const n = 100_003
		r := rand.New(rand.NewPCG(16, 17))
		a, b := gpuInputs(r, n)
		raw := make([]uint64, n) // any 64-bit values, many of them >= p
		for i := range raw {
			raw[i] = a[i] ^ b[i]<<1
			if i%3 == 0 {
				raw[i] = P + uint64(r.Uint32())
			}
		}
		k, err := kernel(ctx, "k_lib")
		require.NoError(t, err)
		bufs := make([]*wgpu.Buffer, 3)
		for i := range bufs {
			bufs[i], err = ctx.NewBuffer("lib", n*elemBytes)
			require.NoError(t, err)
			defer bufs[i].Release()
		}
		for which, tc := range []struct {
			name string
			in   []uint64
			want func(x, y uint64) uint64
		}{
			{"gl_canon", raw, func(x, _ uint64) uint64 { return Canon(x) }},
			{"gl_neg", a, func(x, _ uint64) uint64 { return Neg(x) }},
			{"gl_square", a, func(x, _ uint64) uint64 { return Square(x) }},
			{"gl_mul_small", a, func(x, y uint64) uint64 { return MulSmall(x, uint32(y)) }},
			{"gl_reduce96", raw, func(x, y uint64) uint64 { return Reduce96(uint32(x), uint32(x>>32), uint32(y)) }},
			{"gl_reduce128", raw, func(x, y uint64) uint64 { return reduce128(y, x) }},
		} {
			require.NoError(t, ctx.Upload(bufs[0], 0, wgpu.Bytes(tc.in)))
			require.NoError(t, ctx.Upload(bufs[1], 0, wgpu.Bytes(b)))
			_, err := ctx.Run(wgpu.Dispatch{
				Kernel:   k,
				Bindings: []wgpu.Binding{wgpu.Bind(bufs[0]), wgpu.Bind(bufs[1]), wgpu.Bind(bufs[2])},
				Params:   []uint32{n, uint32(which)},
				Groups:   ctx.Grid(n, workgroupSize),
			})
			require.NoError(t, err)
			got := make([]uint64, n)
			require.NoError(t, ctx.Download(wgpu.Bytes(got), bufs[2], 0))
			for i := range got {
				if want := tc.want(tc.in[i], b[i]); got[i] != want {
					t.Fatalf("%s: element %d (x=%#x, y=%#x): GPU %#x, native %#x", tc.name, i, tc.in[i], b[i], got[i], want)
				}
			}
		}
	})
}

func TestMulThroughputBadBuffers(t *testing.T) {
	ctx := gputest.Context(t, gputest.Backends()[0])
	small, err := ctx.NewBuffer("small", 8)
	require.NoError(t, err)
	defer small.Release()
	_, err = MulThroughput(ctx, small, small, small, 2, 1, false)
	require.ErrorContains(t, err, "every buffer must hold count = 2 elements")
}
