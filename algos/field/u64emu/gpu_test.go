package u64emu

import (
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
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

// batchOps are the exported batch functions with their native meaning.
var batchOps = []struct {
	name   string
	run    func(t wgpu.Target, dst, a, b []uint64) error
	native func(a, b uint64) uint64
}{
	{"AddTo", AddTo, Add},
	{"SubTo", SubTo, Sub},
	{"MulTo", MulTo, Mul},
	{"Pow7To", func(t wgpu.Target, dst, a, _ []uint64) error { return Pow7To(t, dst, a) }, func(a, _ uint64) uint64 { return Pow7(a) }},
	{"InvPow7To", func(t wgpu.Target, dst, a, _ []uint64) error { return InvPow7To(t, dst, a) }, func(a, _ uint64) uint64 { return InvPow7(a) }},
}

// forEachImpl runs fn on the CPU backend (a nil Context) and on every GPU
// backend, with the device's limits and with gputest.SmallLimits (8192
// elements a piece).
func forEachImpl(t *testing.T, fn func(t *testing.T, ctx *wgpu.Context)) {
	t.Run("cpu", func(t *testing.T) { fn(t, nil) })
	gputest.ForEach(t, fn)
	gputest.ForEachSmall(t, fn)
}

// TestBatchMatchesNative runs every batch operation at odd sizes around
// the small limits' piece of 8192 elements and at 2^20+3, and compares
// every output with the native reference.
func TestBatchMatchesNative(t *testing.T) {
	forEachImpl(t, func(t *testing.T, ctx *wgpu.Context) {
		r := rand.New(rand.NewPCG(5, uint64(len(t.Name()))))
		for _, n := range []int{1, 5, 777, 8191, 8193, 3*8192 + 1, 1<<20 + 3} {
			for _, g := range batchOps {
				a, b := gpuInputs(r, n)
				r.Shuffle(n, func(i, j int) { a[i], a[j] = a[j], a[i] })
				dst := make([]uint64, n)
				start := time.Now()
				require.NoError(t, g.run(ctx, dst, a, b), g.name)
				if n > 1<<20 {
					t.Logf("%s: %d elements in %v", g.name, n, time.Since(start))
				}
				for i := range dst {
					if want := g.native(a[i], b[i]); dst[i] != want {
						t.Fatalf("%s: element %d of %d: a=%#x b=%#x: got %#x, native %#x", g.name, i, n, a[i], b[i], dst[i], want)
					}
				}
			}
		}
	})
}

func TestBadInputs(t *testing.T) {
	t.Run("cpu", func(t *testing.T) { testBadInputs(t, nil) })
	gputest.ForEach(t, testBadInputs)
}

func testBadInputs(t *testing.T, ctx *wgpu.Context) {
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
		k, err := kernel(ctx, opMul.entry, false)
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

// TestMulThroughputKernel checks every throughput kernel against
// mulThroughputRef, so that the benchmark measures correct arithmetic.
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
		for _, entry := range throughputKernels {
			require.NoError(t, ctx.Clear(bd, 0, 0))
			_, err := mulThroughput(ctx, bd, ba, bb, n, steps, entry)
			require.NoError(t, err)
			got := make([]uint64, n)
			require.NoError(t, ctx.Download(wgpu.Bytes(got), bd, 0))
			for i := range got {
				require.Equal(t, mulThroughputRef(a[i], b[i], steps), got[i], "%s element %d", entry, i)
			}
		}
	})
}

// TestGPULibrary runs the library functions that the batch operations do
// not expose (goldilocks_canon on any 64-bit value, goldilocks_neg, goldilocks_square,
// goldilocks_mul_small, goldilocks_reduce96, goldilocks_reduce128, the products on any 64-bit
// values, the lazy products) through the k_lib kernel. A lazy product
// only has to be congruent to the product: the two libraries may return
// different values >= p.
func TestGPULibrary(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		const n = 100_003
		r := rand.New(rand.NewPCG(16, 17))
		a, b := gpuInputs(r, n)
		raw := make([]uint64, n) // any 64-bit values, many of them >= p
		raw2 := make([]uint64, n)
		for i := range raw {
			raw[i] = a[i] ^ b[i]<<1
			raw2[i] = b[i] ^ a[i]<<3
			if i%3 == 0 {
				raw[i] = P + uint64(r.Uint32())
			}
			if i%5 == 0 {
				raw2[i] = P + uint64(r.Uint32())
			}
		}
		k, err := kernel(ctx, "k_lib", false)
		require.NoError(t, err)
		bufs := make([]*wgpu.Buffer, 3)
		for i := range bufs {
			bufs[i], err = ctx.NewBuffer("lib", n*elemBytes)
			require.NoError(t, err)
			defer bufs[i].Release()
		}
		for which, tc := range []struct {
			name      string
			in, in2   []uint64 // in2: b when nil
			want      func(x, y uint64) uint64
			congruent bool // compare Canon of the GPU's value
		}{
			{name: "goldilocks_canon", in: raw, want: func(x, _ uint64) uint64 { return Canon(x) }},
			{name: "goldilocks_neg", in: a, want: func(x, _ uint64) uint64 { return Neg(x) }},
			{name: "goldilocks_square", in: raw, want: func(x, _ uint64) uint64 { return Square(Canon(x)) }},
			{name: "goldilocks_mul_small", in: a, want: func(x, y uint64) uint64 { return MulSmall(x, uint32(y)) }},
			{name: "goldilocks_reduce96", in: raw, want: func(x, y uint64) uint64 { return Reduce96(uint32(x), uint32(x>>32), uint32(y)) }},
			{name: "goldilocks_reduce128", in: raw, want: func(x, y uint64) uint64 { return reduce128(y, x) }},
			{name: "goldilocks_mul", in: raw, in2: raw2, want: mulAny},
			{name: "goldilocks_mul_lazy", in: raw, in2: raw2, want: mulAny, congruent: true},
			{name: "goldilocks_square_lazy", in: raw, want: func(x, _ uint64) uint64 { return Square(Canon(x)) }, congruent: true},
		} {
			in2 := tc.in2
			if in2 == nil {
				in2 = b
			}
			require.NoError(t, ctx.Upload(bufs[0], 0, wgpu.Bytes(tc.in)))
			require.NoError(t, ctx.Upload(bufs[1], 0, wgpu.Bytes(in2)))
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
				g := got[i]
				if tc.congruent {
					g = Canon(g)
				}
				if want := tc.want(tc.in[i], in2[i]); g != want {
					t.Fatalf("%s: element %d (x=%#x, y=%#x): GPU %#x, native %#x", tc.name, i, tc.in[i], in2[i], got[i], want)
				}
			}
		}
	})
}

// mulAny is the product of any two 64-bit values mod P.
func mulAny(x, y uint64) uint64 { return Mul(Canon(x), Canon(y)) }

func TestMulThroughputBadBuffers(t *testing.T) {
	ctx := gputest.Context(t, gputest.Backends()[0])
	small, err := ctx.NewBuffer("small", 8)
	require.NoError(t, err)
	defer small.Release()
	_, err = mulThroughput(ctx, small, small, small, 2, 1, throughputKernels[0])
	require.ErrorContains(t, err, "every buffer must hold count = 2 elements")
}

// FuzzGPUFieldPaths checks the two Goldilocks libraries against the
// native reference on fuzzed inputs, on every backend tested: an adapter
// with 64-bit integers (lavapipe's Vulkan, NVIDIA's) runs
// goldilocks.shader-int64.wgsl (native u64), and the same adapter with
// Options.NoShaderInt64 and one without (llvmpipe's GL) run
// goldilocks.wgsl (u32 pairs). Each input seeds a batch of 67 elements,
// half of them built from special words, beside the seeds themselves
// reduced mod P.
func FuzzGPUFieldPaths(f *testing.F) {
	open := func(backend, int64 string) *wgpu.Context {
		o := gputest.Options(f, backend)
		o.NoShaderInt64 = int64 == "off"
		ctx, err := wgpu.Open(o)
		if err != nil {
			f.Fatal(err)
		}
		f.Cleanup(func() { ctx.Close() })
		return ctx
	}
	var contexts []*wgpu.Context
	native := false
	for _, b := range gputest.Backends() {
		ctx := open(b, "")
		info := ctx.Info()
		if b == "vulkan" && strings.HasPrefix(info.Name, "llvmpipe") && !slices.Contains(ctx.ShaderFeatures(), "shader-int64") {
			f.Fatal("lavapipe's Vulkan has 64-bit integers: the u64 library must run here")
		}
		contexts = append(contexts, ctx)
		if slices.Contains(ctx.ShaderFeatures(), "shader-int64") {
			native = true
			contexts = append(contexts, open(b, "off"))
		}
	}
	if !native {
		f.Log("no adapter tested here has 64-bit integers: goldilocks.shader-int64.wgsl is not checked")
	}
	f.Add(uint64(0), uint64(0))
	f.Add(P-1, P-1)
	f.Add(uint64(1)<<32, uint64(0xffffffff))
	f.Fuzz(func(t *testing.T, x, y uint64) {
		r := rand.New(rand.NewPCG(x, y))
		a, b := []uint64{x % P, y % P}, []uint64{y % P, x % P}
		for len(a) < 67 {
			a, b = append(a, randElem(r)), append(b, randElem(r))
		}
		for _, op := range batchOps {
			want := make([]uint64, len(a))
			for i := range a {
				want[i] = op.native(a[i], b[i])
			}
			for k, ctx := range contexts {
				got := make([]uint64, len(a))
				require.NoError(t, op.run(ctx, got, a, b), "%s context %d", op.name, k)
				require.Equal(t, want, got, "%s on context %d (%v)", op.name, k, ctx.ShaderFeatures())
			}
		}
	})
}

// TestBatchTarget: the batch functions run on a Group of one as on its
// member, and refuse a Group of several, naming its size.
func TestBatchTarget(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		a, b := []uint64{1, P - 1, 5}, []uint64{2, 3, P - 2}
		one, err := sched.NewGroup(ctx)
		require.NoError(t, err)
		got := make([]uint64, 3)
		require.NoError(t, MulTo(one, got, a, b))
		require.Equal(t, []uint64{Mul(1, 2), Mul(P-1, 3), Mul(5, P-2)}, got)
		two, err := sched.NewGroup(ctx, ctx)
		require.NoError(t, err)
		require.EqualError(t, AddTo(two, got, a, b), "u64emu: AddTo runs on one device: give a Context, a Group of one or nil (the CPU), not a Group of 2")
	})
}
