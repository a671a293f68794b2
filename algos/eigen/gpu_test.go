package eigen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

func TestMain(m *testing.M) { os.Exit(gputest.Main(m)) }

// requireMatches holds a result to the float64 reference: eigenvalue
// within 1e-4 relative, vector within 1e-3, the same iteration count.
func requireMatches(t *testing.T, want, got Result, what string) {
	t.Helper()
	requireNear(t, want, got, 0, what)
}

// requireNear is requireMatches allowing the iteration counts to differ by
// slack: on fresh random matrices a float32 run and the float64 reference
// can meet the stop criterion one round apart when a difference of row sums
// sits right at eps (seen: n = 7, seed 15322215104368966399, 7 rounds in
// float64 and 8 in float32).
func requireNear(t *testing.T, want, got Result, slack int, what string) {
	t.Helper()
	require.Equal(t, want.Converged, got.Converged, "%s: converged", what)
	require.LessOrEqual(t, abs(want.Iterations-got.Iterations), slack, "%s: iterations %d, want %d", what, got.Iterations, want.Iterations)
	require.InEpsilon(t, want.Value, got.Value, 1e-4, "%s: eigenvalue", what)
	require.Len(t, got.Vector, len(want.Vector))
	for i := range want.Vector {
		if math.Abs(want.Vector[i]-got.Vector[i]) > 1e-3 {
			t.Fatalf("%s: vector[%d] = %v, want %v within 1e-3", what, i, got.Vector[i], want.Vector[i])
		}
	}
}

// config is one backend of the method: the CPU (a nil Context) or the GPU
// with a variant and a transform.
type config struct {
	name string
	cpu  bool
	opts Options
}

func (c config) ctx(gpu *wgpu.Context) *wgpu.Context {
	if c.cpu {
		return nil
	}
	return gpu
}

// configs are every backend the method runs on: the CPU, and each variant
// with the implicit, the explicit and the unfused explicit transform.
func configs() []config {
	cs := []config{{name: "cpu", cpu: true}}
	for _, v := range Variants {
		cs = append(cs,
			config{name: v.String(), opts: Options{Variant: v}},
			config{name: v.String() + "-explicit", opts: Options{Variant: v, Explicit: true}},
			config{name: v.String() + "-explicit-unfused", opts: Options{Variant: v, Explicit: true, Unfused: true}})
	}
	return cs
}

// forEach runs fn on every backend with the device's limits and with
// gputest.SmallLimits, which bind M in row blocks from n = 65 on.
func forEach(t *testing.T, fn func(t *testing.T, ctx *wgpu.Context)) {
	gputest.ForEach(t, fn)
	gputest.ForEachSmall(t, fn)
}

// solve runs c on a, checking that the run reports its timing.
func solve(t *testing.T, ctx *wgpu.Context, c config, a []float32, n int, opts Options) Result {
	t.Helper()
	var tm wgpu.Timing
	o := c.opts
	o.Eps, o.MaxIter, o.Batch, o.target, o.Timing = opts.Eps, opts.MaxIter, opts.Batch, opts.target, &tm
	got, err := MaxEigen(c.ctx(ctx), a, n, o)
	require.NoError(t, err, c.name)
	require.Positive(t, tm.Wall, "%s: timing reported", c.name)
	require.Equal(t, !c.cpu && ctx.Info().Timestamps, tm.Measured, c.name)
	if c.cpu {
		require.Zero(t, got.Submissions+got.Blocks, c.name)
	} else {
		require.Positive(t, got.Submissions, c.name)
		require.Positive(t, got.Blocks, c.name)
	}
	return got
}

func TestKnown3x3(t *testing.T) {
	forEach(t, func(t *testing.T, ctx *wgpu.Context) {
		want, err := Reference64(known3, 3, Options{})
		require.NoError(t, err)
		for _, c := range configs() {
			got := solve(t, ctx, c, known3, 3, Options{})
			require.InDelta(t, 7.531, got.Value, 1e-3)
			requireMatches(t, want, got, c.name)
		}
	})
}

func TestHilbert(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, n := range []int{128, 256, 512, 200} {
			h := Hilbert(n)
			want, err := Reference64(h, n, Options{})
			require.NoError(t, err)
			for _, c := range configs()[:2] { // the CPU and the default kernels
				got := solve(t, ctx, c, h, n, Options{})
				requireMatches(t, want, got, fmt.Sprintf("hilbert %d %s", n, c.name))
				if count, ok := hilbertCounts[n]; ok {
					require.Equal(t, count, got.Iterations, "published count, n=%d %s", n, c.name)
				}
			}
		}
	})
	// Every backend on sizes that are not powers of two, in row blocks under
	// the small limits (n = 129 is 3 blocks there, 200 is 4).
	forEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, n := range []int{129, 200} {
			h := Hilbert(n)
			want, err := Reference64(h, n, Options{})
			require.NoError(t, err)
			for _, c := range configs() {
				requireMatches(t, want, solve(t, ctx, c, h, n, Options{}), fmt.Sprintf("hilbert %d %s", n, c.name))
			}
		}
	})
}

func TestRandom(t *testing.T) {
	forEach(t, func(t *testing.T, ctx *wgpu.Context) {
		seed := rand.Uint64()
		cs := configs()
		for i, n := range []int{1, 2, 7, 64, 100, 256, 257, 333} {
			if n*n*4 > int(min(ctx.Limits().MaxBufferSize, 1<<30)) {
				continue // past the small limits: TestErrors checks the error
			}
			a := Random(n, seed+uint64(i))
			opts := Options{Eps: 1e-5}
			want, err := Reference64(a, n, opts)
			require.NoError(t, err)
			for j := 0; j < 3; j++ {
				c := cs[(3*i+j)%len(cs)]
				requireNear(t, want, solve(t, ctx, c, a, n, opts), 1, fmt.Sprintf("random %d seed %d %s", n, seed+uint64(i), c.name))
			}
		}
	})
}

// TestBlocks: under the small limits (64 KiB bindings) M is bound in blocks
// of 64 rows, the last one short, and every block gives the same bits as
// one whole binding.
func TestBlocks(t *testing.T) {
	a := Random(200, 7)
	for _, b := range gputest.Backends() {
		whole, small := gputest.Context(t, b), gputest.Limited(t, b, gputest.SmallLimits)
		for _, c := range configs()[1:] {
			want := solve(t, whole, c, a, 200, Options{Eps: 1e-5})
			got := solve(t, small, c, a, 200, Options{Eps: 1e-5})
			require.Equal(t, 1, want.Blocks, c.name)
			require.Equal(t, 4, got.Blocks, c.name)
			require.Equal(t, want.Iterations, got.Iterations, c.name)
			require.Equal(t, want.Value, got.Value, "%s %s: blocks change no bits", b, c.name)
			require.Equal(t, want.Vector, got.Vector, "%s %s: blocks change no bits", b, c.name)
		}
	}
}

func TestNotConverged(t *testing.T) {
	forEach(t, func(t *testing.T, ctx *wgpu.Context) {
		h := Hilbert(128)
		for _, k := range []int{1, 3, 8} {
			opts := Options{MaxIter: k, Batch: 4}
			want, err := Reference64(h, 128, opts)
			require.NoError(t, err)
			for _, c := range configs()[:3] {
				got := solve(t, ctx, c, h, 128, opts)
				require.False(t, got.Converged)
				requireMatches(t, want, got, fmt.Sprintf("max-iter %d %s", k, c.name))
			}
		}
	})
}

// TestVectorUnderflow: a matrix whose eigenvector has components below
// float32's range (row 0 is 4e37, every other entry 1e-30: the components
// are about 2.5e-68) gives every backend the CPU's eigenvalue, finite.
// The implicit form divided by the components, which underflowed to 0,
// and answered NaN after 1000 rounds.
func TestVectorUnderflow(t *testing.T) {
	a := make([]float32, 16)
	for i := range a {
		a[i] = 1e-30
		if i < 4 {
			a[i] = 4e37
		}
	}
	want, err := Reference32(a, 4, Options{})
	require.NoError(t, err)
	require.InEpsilon(t, 4e37, want.Value, 1e-6)
	forEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, c := range configs() {
			got := solve(t, ctx, c, a, 4, Options{})
			requireMatches(t, want, got, c.name)
		}
	})
}

// TestDeterministic: the same input gives the same bits, run after run and
// however the rounds are split into submissions.
func TestDeterministic(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		n := 300
		a := Random(n, 11)
		for _, c := range configs() {
			first := solve(t, ctx, c, a, n, Options{Eps: 1e-6})
			for _, batch := range []int{1, 3} {
				again := solve(t, ctx, c, a, n, Options{Eps: 1e-6, Batch: batch})
				require.Equal(t, math.Float64bits(first.Value), math.Float64bits(again.Value), c.name)
				require.Equal(t, first.Vector, again.Vector, c.name)
			}
		}
	})
}

// TestSubmissionsAdapt holds the rounds per submission to the measured
// time (issue 14: a submission of --batch 1000 rounds ran past lavapipe's
// 5 s and crashed it). A job whose whole solve takes over 10 s on lavapipe
// is too slow for CI, so a tiny time target stands in for a slow device:
// every submission then holds one round, whatever Batch asks.
func TestSubmissionsAdapt(t *testing.T) {
	forEach(t, func(t *testing.T, ctx *wgpu.Context) {
		h := Hilbert(64)
		opts := Options{Eps: 1e-30, MaxIter: 10, Batch: 1000}
		free := solve(t, ctx, configs()[1], h, 64, opts)
		require.False(t, free.Converged)
		require.Equal(t, 10, free.Iterations)
		// Unconverged, the method runs again on A + σI (Result.Shift):
		// 11 rounds on each.
		require.Less(t, free.Submissions, 22, "fast rounds share a submission")
		opts.target = time.Nanosecond
		for _, c := range configs()[1:] {
			got := solve(t, ctx, c, h, 64, opts)
			require.Equal(t, 22, got.Submissions, "%s: one round per submission", c.name)
			if c.name == configs()[1].name {
				require.Equal(t, free.Value, got.Value, "the split changes no bits")
				require.Equal(t, free.Vector, got.Vector, "the split changes no bits")
			}
		}
	})
}

func TestRoundsFor(t *testing.T) {
	const target = 250 * time.Millisecond
	for _, tc := range []struct {
		perRound   time.Duration
		limit, out int
	}{
		{0, 16, 1},                    // no time: one round
		{time.Millisecond, 16, 16},    // fast: the limit
		{time.Millisecond, 1000, 250}, // as many as fit the target
		{25 * time.Millisecond, 1000, 10},
		{200 * time.Millisecond, 1000, 1},
		{5 * time.Second, 16, 1}, // too slow: one round, the least
		{time.Nanosecond, math.MaxInt, 250_000_000},
		{time.Nanosecond, 3, 3},
	} {
		require.Equal(t, tc.out, roundsFor(tc.perRound, target, tc.limit), "%+v", tc)
	}
	// The first guess: a whole Batch for small matrices, one round for
	// large ones.
	require.Equal(t, 16, roundsFor(guessRoundTime(512), target, 16))
	require.Equal(t, 5, roundsFor(guessRoundTime(1024), target, 1000))
	require.Equal(t, 1, roundsFor(guessRoundTime(2500), target, 16))
}

// TestNilContext: a nil Context is the CPU backend, Reference32 exactly.
func TestNilContext(t *testing.T) {
	a := Random(50, 3)
	want, err := Reference32(a, 50, Options{})
	require.NoError(t, err)
	got, err := MaxEigen(nil, a, 50, Options{Variant: V1, Explicit: true})
	require.NoError(t, err)
	require.Equal(t, want, got)
	s, err := NewSolver(nil, 50, Options{})
	require.NoError(t, err)
	defer s.Release()
	_, err = s.Solve()
	require.ErrorContains(t, err, "no matrix loaded")
	b := append([]float32(nil), a...)
	require.NoError(t, s.Load(b))
	b[0] = 1e9 // Load copied the matrix
	for i := 0; i < 2; i++ {
		got, err := s.Solve()
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	require.NoError(t, CheckSize(nil, 1<<20))
	_, err = NewKernels(nil, Options{})
	require.ErrorContains(t, err, "nil Context")
}

// TestErrors: every backend rejects the same inputs with the same words.
func TestErrors(t *testing.T) {
	forEach(t, func(t *testing.T, gpu *wgpu.Context) {
		for _, ctx := range []*wgpu.Context{nil, gpu} {
			_, err := MaxEigen(ctx, []float32{1, 2, 3}, 2, Options{})
			require.ErrorContains(t, err, "3 entries for n = 2")
			_, err = MaxEigen(ctx, nil, 0, Options{})
			require.ErrorContains(t, err, "n = 0: the size must be at least 1")
			_, err = MaxEigen(ctx, []float32{1, 2, 3, -4}, 2, Options{})
			require.ErrorContains(t, err, "row 1, column 1 is negative")
			_, err = MaxEigen(ctx, []float32{1, 0, 3, 4}, 2, Options{})
			require.ErrorContains(t, err, "row 0, column 1 is zero")
			_, err = MaxEigen(ctx, []float32{1, 2, float32(math.Inf(1)), 4}, 2, Options{})
			require.ErrorContains(t, err, "row 1, column 0 is infinite")
			_, err = MaxEigen(ctx, []float32{float32(math.NaN()), 2, 3, 4}, 2, Options{})
			require.ErrorContains(t, err, "row 0, column 0 is NaN")
			_, err = MaxEigen(ctx, known3, 3, Options{Unfused: true})
			require.ErrorContains(t, err, "unfused needs the explicit")
			_, err = MaxEigen(ctx, known3, 3, Options{Variant: 7})
			require.ErrorContains(t, err, "unknown variant 7")
			_, err = MaxEigen(ctx, known3, 3, Options{Batch: -1})
			require.ErrorContains(t, err, "batch -1")
			// Issue 14: row sums past float32 gave NaN after 1000 rounds.
			big := make([]float32, 16)
			for i := range big {
				big[i] = 1e38
			}
			_, err = MaxEigen(ctx, big, 4, Options{})
			require.ErrorIs(t, err, ErrInput)
			require.ErrorContains(t, err, "row 0 sums to 4e+38, over the largest row sum accepted, 2^127 ≈ 1.701e+38")
		}
		lim := gpu.Limits().MaxBufferSize
		big := int(math.Sqrt(float64(lim/4))) + 1
		_, err := NewSolver(gpu, big, Options{})
		require.ErrorContains(t, err, "largest buffer")
		s, err := NewSolver(gpu, 3, Options{})
		require.NoError(t, err)
		defer s.Release()
		_, err = s.Solve()
		require.ErrorContains(t, err, "no matrix loaded")
		require.ErrorContains(t, s.Load(known3[:8]), "8 entries")
	})
}

// TestCheckSize: the size check a caller runs before building a matrix
// names the device's limit and the bytes needed (issue 14: --random 262144
// built 256 GiB before the limit was checked).
func TestCheckSize(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		lim := ctx.Limits().MaxBufferSize
		top := int(math.Sqrt(float64(lim / 4)))
		require.NoError(t, CheckSize(ctx, 1))
		require.NoError(t, CheckSize(ctx, top))
		err := CheckSize(ctx, 262144)
		require.ErrorContains(t, err, "n = 262144: the matrix takes 274877906944 bytes (256.0 GiB), over the device's largest buffer of")
		require.ErrorContains(t, err, fmt.Sprintf("n ≤ %d on this device", top))
		require.ErrorContains(t, CheckSize(ctx, 0), "n = 0")
		require.ErrorContains(t, CheckSize(ctx, -3), "n = -3")
		require.ErrorContains(t, CheckSize(nil, 1<<33), "overflow")
	})
	gputest.ForEachSmall(t, func(t *testing.T, ctx *wgpu.Context) {
		require.NoError(t, CheckSize(ctx, 256))
		require.ErrorContains(t, CheckSize(ctx, 257), "n ≤ 256 on this device")
	})
}

// TestSolverResident runs twice on one loaded matrix: the loaded matrix must
// survive a run in both transform modes, and each run reports its timing.
func TestSolverResident(t *testing.T) {
	forEach(t, func(t *testing.T, gpu *wgpu.Context) {
		n := 150
		h := Hilbert(n)
		want, err := Reference64(h, n, Options{})
		require.NoError(t, err)
		for _, c := range configs()[:3] {
			var tm wgpu.Timing
			opts := c.opts
			opts.Timing = &tm
			s, err := NewSolver(c.ctx(gpu), n, opts)
			require.NoError(t, err)
			require.NoError(t, s.Load(h))
			for i := 0; i < 2; i++ {
				tm = wgpu.Timing{}
				got, err := s.Solve()
				require.NoError(t, err)
				requireMatches(t, want, got, fmt.Sprintf("resident %s run %d", c.name, i))
				require.Positive(t, tm.Wall)
				require.Equal(t, !c.cpu && gpu.Info().Timestamps, tm.Measured)
			}
			// A matrix that fails Load's check unloads the one before:
			// on the GPU it was partly overwritten while being checked.
			bad := slices.Clone(h)
			bad[n*n-1] = -1
			require.ErrorIs(t, s.Load(bad), ErrInput)
			_, err = s.Solve()
			require.ErrorContains(t, err, "no matrix loaded", c.name)
			s.Release()
		}
		// A Solver sizes its submissions from the time its rounds took,
		// and remembers it from one Solve to the next.
		s, err := NewSolver(gpu, n, Options{})
		require.NoError(t, err)
		defer s.Release()
		require.NoError(t, s.Load(h))
		s.roundTime = time.Hour // as if a round had taken an hour
		first, err := s.Solve()
		require.NoError(t, err)
		require.GreaterOrEqual(t, first.Submissions, 2, "a first submission of one round")
		require.Less(t, s.roundTime, time.Hour, "the rounds' time measured")
		again, err := s.Solve()
		require.NoError(t, err)
		require.Equal(t, first.Vector, again.Vector)
	})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// TestRowOK compares rowOK's four-lane check with scanRow's left-to-right
// one, on rows of every kind of bad entry and on sums around MaxRowSum.
func TestRowOK(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for k := 0; k < 2000; k++ {
		n := 1 + rng.IntN(70)
		row := make([]float32, n)
		for i := range row {
			row[i] = rng.Float32() + 0x1p-20
		}
		switch k % 6 {
		case 1:
			row[rng.IntN(n)] = []float32{0, -1, float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}[rng.IntN(5)]
		case 2, 3:
			// Sums at the bound: entries of MaxRowSum/n, nudged.
			for i := range row {
				row[i] = float32(MaxRowSum / float64(n) * (1 + (rng.Float64()-0.5)*1e-6))
			}
		case 4:
			row[rng.IntN(n)] = math.MaxFloat32
		}
		c, sum := scanRow(row)
		want := c < 0 && sum <= MaxRowSum
		require.Equal(t, want, rowOK(row), "row %v", row)
	}
}

// TestLoadRejects loads bad matrices on every GPU backend, with small
// limits too (the matrix in several row blocks): whatever is wrong and
// wherever it is, Load fails as Check does and loads nothing; a row sum
// between 2^126 and 2^127, which the GPU flags, is accepted as Check
// accepts it.
func TestLoadRejects(t *testing.T) {
	forEach(t, func(t *testing.T, gpu *wgpu.Context) {
		if gpu == nil {
			return
		}
		rng := rand.New(rand.NewPCG(9, 9))
		const n = 199
		h := Hilbert(n)
		s, err := NewSolver(gpu, n, Options{})
		require.NoError(t, err)
		defer s.Release()
		bads := []float32{-2, 0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0x1.8p127, math.MaxFloat32}
		for k := 0; k < 24; k++ {
			r, c := rng.IntN(n), rng.IntN(n)
			bad := slices.Clone(h)
			bad[r*n+c] = bads[k%len(bads)]
			err := s.Load(bad)
			require.ErrorIs(t, err, ErrInput, "entry (%d, %d) = %v", r, c, bad[r*n+c])
			require.Equal(t, Check(bad, n), err)
			_, err = s.Solve()
			require.ErrorContains(t, err, "no matrix loaded")
		}
		near := slices.Clone(h)
		near[7*n+3] = 0x1.4p126 // the row sums to about 1.25·2^126: flagged, then accepted
		require.NoError(t, Check(near, n))
		require.NoError(t, s.Load(near))
		require.NoError(t, s.Load(h))
		got, err := s.Solve()
		require.NoError(t, err)
		want, err := Reference64(h, n, Options{})
		require.NoError(t, err)
		requireMatches(t, want, got, "after the rejected loads")
	})
}

// TestSubgroupsSameBits: on a device with subgroup operations (lavapipe's
// Vulkan, NVIDIA's; the first backend tested whose adapter has them) the
// reductions finish inside subgroups
// (eigen_reduce.subgroups.wgsl), and every variant and configuration gives
// the same bits as the workgroup-memory reductions (Options.NoSubgroups)
// on the same adapter.
func TestSubgroupsSameBits(t *testing.T) {
	n := 300
	a := Random(n, 13)
	h := Hilbert(97)
	type out struct {
		results []Result
	}
	backend := gputest.Feature(t, "subgroups")
	run := func(env string) (out, []string) {
		opts := gputest.Options(t, backend)
		opts.NoSubgroups = env == "off"
		ctx, err := wgpu.Open(opts)
		require.NoError(t, err)
		defer ctx.Close()
		var o out
		for _, c := range configs() {
			o.results = append(o.results, solve(t, ctx, c, a, n, Options{Eps: 1e-6}), solve(t, ctx, c, h, 97, Options{Eps: 1e-6}))
		}
		return o, ctx.ShaderFeatures()
	}
	with, features := run("")
	require.Contains(t, features, "subgroups", "%s's adapter lists subgroups: this test must run them", backend)
	without, features := run("off")
	require.NotContains(t, features, "subgroups")
	require.Equal(t, len(without.results), len(with.results))
	for i := range with.results {
		require.Equal(t, math.Float64bits(without.results[i].Value), math.Float64bits(with.results[i].Value), "result %d", i)
		require.Equal(t, without.results[i].Vector, with.results[i].Vector, "result %d", i)
		require.Equal(t, without.results[i].Iterations, with.results[i].Iterations, "result %d", i)
	}
}

// requireSameBits holds got to want bit for bit: value, spread, every
// component of the vector, and the counts.
func requireSameBits(t *testing.T, want, got Result, what string) {
	t.Helper()
	require.Equal(t, math.Float64bits(want.Value), math.Float64bits(got.Value), "%s: value %v, want %v", what, got.Value, want.Value)
	require.Equal(t, math.Float64bits(want.Spread), math.Float64bits(got.Spread), "%s: spread %v, want %v", what, got.Spread, want.Spread)
	require.Equal(t, want.Iterations, got.Iterations, "%s: iterations", what)
	require.Equal(t, want.Converged, got.Converged, "%s: converged", what)
	require.Equal(t, want.Submissions, got.Submissions, "%s: submissions", what)
	require.Equal(t, want.Blocks, got.Blocks, "%s: blocks", what)
	require.Len(t, got.Vector, len(want.Vector), what)
	for i := range want.Vector {
		require.Equal(t, math.Float64bits(want.Vector[i]), math.Float64bits(got.Vector[i]), "%s: vector[%d] = %v, want %v", what, i, got.Vector[i], want.Vector[i])
	}
}

// TestFoldedSameBits holds the method as it runs (each round's stop test
// made by the next round's row sums, the vector scaled as they read it) to
// the unfolded method (a single-workgroup finish kernel after each round's
// row sums) bit for bit, in every GPU configuration, on random and Hilbert
// matrices of odd sizes, whole and in row blocks (the small limits), and on
// a matrix whose implicit run is solved again in the explicit form. Each
// is solved with the stop in the middle of a submission (the next round's
// kernels find it), at a submission's last round (the stop test queued
// after the rounds finds it), with one round per submission, and stopped
// unconverged at MaxIter.
func TestFoldedSameBits(t *testing.T) {
	underflow := make([]float32, 16) // TestVectorUnderflow's matrix
	for i := range underflow {
		underflow[i] = 1e-30
		if i < 4 {
			underflow[i] = 4e37
		}
	}
	inputs := []struct {
		name string
		a    []float32
		n    int
		eps  float64
	}{
		{"random 1", Random(1, 5), 1, 1e-5},
		{"random 7", Random(7, 21), 7, 1e-6},
		{"random 131", Random(131, 23), 131, 1e-6},
		{"hilbert 65", Hilbert(65), 65, 1e-3},
		{"hilbert 201", Hilbert(201), 201, 1e-5},
		{"underflow 4", underflow, 4, 1e-3},
	}
	forEach(t, func(t *testing.T, ctx *wgpu.Context) {
		run := func(c config, a []float32, n int, opts Options, unfolded bool) Result {
			t.Helper()
			o := c.opts
			o.Eps, o.MaxIter, o.Batch, o.unfolded = opts.Eps, opts.MaxIter, opts.Batch, unfolded
			// Submissions of Batch rounds, whatever the rounds measured:
			// the cases below place the stop by Batch, and the two
			// methods' submissions must not differ by how long their
			// rounds took on a loaded machine (TestSubmissionsAdapt
			// tests the split by time).
			o.target = time.Hour
			r, err := MaxEigen(ctx, a, n, o)
			require.NoError(t, err)
			return r
		}
		var mid, last, maxIter int
		for _, in := range inputs {
			for _, c := range configs()[1:] {
				base := Options{Eps: in.eps}
				its := run(c, in.a, in.n, base, true).Iterations
				cases := []Options{
					{Eps: in.eps, Batch: its + 2},                           // round its + 1 finds the stop
					{Eps: in.eps, Batch: its + 1},                           // the stop test after the rounds finds it
					{Eps: in.eps, Batch: 1},                                 // every round its own submission
					{Eps: in.eps},                                           // the default batch
					{Eps: in.eps, MaxIter: max(1, its/2), Batch: its/4 + 1}, // stopped unconverged
				}
				for _, opts := range cases {
					what := fmt.Sprintf("%s %s eps %g batch %d max-iter %d", in.name, c.name, opts.Eps, opts.Batch, opts.MaxIter)
					want := run(c, in.a, in.n, opts, true)
					got := run(c, in.a, in.n, opts, false)
					requireSameBits(t, want, got, what)
					switch rounds := got.Iterations + 1; {
					case !got.Converged && got.Iterations == opts.MaxIter:
						maxIter++
					case opts.Batch > 0 && rounds%opts.Batch == 0:
						last++
					case opts.Batch > 0:
						mid++
					}
				}
			}
		}
		require.Positive(t, mid, "stops in the middle of a submission")
		require.Positive(t, last, "stops at a submission's last round")
		require.Positive(t, maxIter, "stops at MaxIter")
	})
}
