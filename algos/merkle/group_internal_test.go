package merkle

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// TestPlanRanges: alike devices, a power of two of them, take one range
// each; any other count of alike devices takes at most three ranges a
// device (subtrees of sizes that are the binary digits of its share) with
// shares within 10% of each other wherever the tree has enough leaves
// (within 5% where it has 512 or more); devices that differ take equal
// ranges, about four a device; every plan covers every leaf once with
// subtrees (aligned ranges of a power of two of leaves), never of fewer
// than two leaves.
func TestPlanRanges(t *testing.T) {
	for _, c := range []struct {
		n, k        int
		alike       bool
		base, most  int // most: the most ranges a member builds
		spreadUnder float64
	}{
		{1 << 24, 1, true, 1, 1, 0}, {1 << 24, 2, true, 2, 1, 0}, {1 << 24, 4, true, 4, 1, 0},
		{1 << 24, 8, true, 8, 1, 0}, {1 << 24, 16, true, 16, 1, 0},
		{1 << 20, 3, true, 64, 3, 0.05}, {1 << 24, 3, true, 64, 3, 0.05}, {1 << 12, 3, true, 64, 3, 0.05},
		{1 << 20, 5, true, 128, 3, 0.05}, {1 << 9, 5, true, 128, 3, 0.05},
		{1 << 20, 6, true, 128, 3, 0.05}, {1 << 30, 6, true, 128, 3, 0.05},
		{1 << 20, 7, true, 256, 3, 0.05}, {1 << 10, 7, true, 256, 3, 0.05}, {1 << 9, 7, true, 256, 3, 0.05},
		{1 << 8, 7, true, 128, 3, 0.10}, // too few leaves for 5%: the finest ranges allowed
		{1 << 24, 2, false, 8, 4, 0}, {1 << 24, 3, false, 16, 6, 0.2}, {1 << 24, 1, false, 1, 1, 0},
		{4, 4, false, 2, 1, 0}, {2, 2, true, 1, 1, 0}, {1, 2, true, 1, 1, 0}, {4, 3, true, 2, 1, 0},
	} {
		what := fmt.Sprintf("%d leaves on %d devices (alike %v)", c.n, c.k, c.alike)
		p := planRanges(c.n, c.k, c.alike)
		require.Equal(t, c.base, p.base, what)
		requireCovers(t, p, c.n, c.k, what)
		ranges, shares := p.perMember(c.k)
		require.Equal(t, c.most, slices.Max(ranges), "%s: ranges by member %v", what, ranges)
		if lo := slices.Min(shares); lo > 0 {
			spread := float64(slices.Max(shares))/float64(lo) - 1
			require.LessOrEqual(t, spread, c.spreadUnder, "%s: shares %v of %d", what, shares, p.base)
		}
	}
}

// TestPlanShares: for 3, 5, 6 and 7 alike devices (and 9 to 12) over
// trees of 2^9 to 2^40 leaves, each device's share of the leaves is
// within 10% of every other's, at most four ranges a device (three up to
// seven devices), the first device (which also builds the top) has the
// least, and the plan covers the tree.
func TestPlanShares(t *testing.T) {
	for _, k := range []int{3, 5, 6, 7, 9, 10, 11, 12} {
		for lg := 9; lg <= 40; lg++ {
			n := 1 << lg
			what := fmt.Sprintf("2^%d leaves on %d devices", lg, k)
			p := planRanges(n, k, true)
			requireCovers(t, p, n, k, what)
			ranges, shares := p.perMember(k)
			spread := float64(slices.Max(shares))/float64(slices.Min(shares)) - 1
			require.LessOrEqual(t, spread, 0.10, "%s: shares %v of %d", what, shares, p.base)
			most := 3
			if k > 7 {
				most = 4
			}
			require.LessOrEqual(t, slices.Max(ranges), most, "%s: ranges by member %v", what, ranges)
			require.Equal(t, slices.Min(shares), shares[0], "%s: shares %v", what, shares)
		}
	}
}

// requireCovers fails unless p's ranges are ranges of a tree of n leaves
// of at least two leaves each (or the whole tree), no finer than p.base,
// that hold every leaf once, each owned by one of k members.
func requireCovers(t *testing.T, p rangePlan, n, k int, what string) {
	t.Helper()
	type span struct{ lo, hi int }
	var spans []span
	for i, r := range p.ranges {
		lo, hi, err := r.Bounds(n)
		require.NoError(t, err, what)
		require.True(t, hi-lo >= 2 || n < 2, "%s: range %s of one leaf", what, r.String())
		require.LessOrEqual(t, r.Count, p.base, "%s: range %s finer than the base %d", what, r.String(), p.base)
		spans = append(spans, span{lo, hi})
		if p.owner != nil {
			require.Less(t, p.owner[i], k, what)
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return a.lo - b.lo })
	at := 0
	for _, s := range spans {
		require.Equal(t, at, s.lo, "%s: leaves %d to %d in no range or in two", what, min(at, s.lo), max(at, s.lo))
		at = s.hi
	}
	require.Equal(t, n, at, "%s: leaves from %d in no range", what, at)
}

// TestSplitDecision: a commitment goes to several devices only where the
// model predicts it faster by sched.SplitMargin, from the upload rates measured
// into one device and into all at once and, where earlier commitments
// taught it, the kernels' time. The rows are the shapes of bench/e2e
// -what scaling (1 GiB of Goldilocks and 512 MiB of BabyBear elements,
// 2^20 x 128) with the kernel times it reported and the upload rates its
// end-to-end times imply on each host (two H100s: a split measured slower
// for Goldilocks; two H200s: faster for Goldilocks, slower for BabyBear),
// then edges.
func TestSplitDecision(t *testing.T) {
	const gib = 1 << 30
	h100 := map[int]float64{1: 14e9, 2: 12e9}   // two H100s: no faster into two than into one
	h200 := map[int]float64{1: 40e9, 2: 75e9}   // two H200s: nearly twice
	h200x4 := map[int]float64{1: 40e9, 4: 60e9} // four H200s: the host's bound
	scales := map[int]float64{1: 25e9, 2: 50e9, 4: 100e9, 8: 200e9}
	for _, c := range []struct {
		name   string
		bytes  float64
		kernel time.Duration
		rate   map[int]float64
		k      int
		want   int
	}{
		{"H100 Goldilocks 2^20 x 128", gib, 27200 * time.Microsecond, h100, 2, 1},
		{"H100 BabyBear 2^20 x 128", gib / 2, 7600 * time.Microsecond, h100, 2, 1},
		{"H100 Goldilocks, kernels unknown", gib, 0, h100, 2, 1},
		{"H200 Goldilocks 2^20 x 128", gib, 27600 * time.Microsecond, h200, 2, 2},
		{"H200 BabyBear 2^20 x 128", gib / 2, 7600 * time.Microsecond, h200, 2, 1},
		{"H200 Goldilocks 2^22 x 128", 4 * gib, 110 * time.Millisecond, h200, 2, 2},
		{"H200 Goldilocks, kernels unknown", gib, 0, h200, 2, 2},
		{"four H200s Goldilocks 2^20 x 128", gib, 27600 * time.Microsecond, h200x4, 4, 1},
		{"four H200s Goldilocks 2^22 x 128", 4 * gib, 110 * time.Millisecond, h200x4, 4, 4},
		{"kernel-bound, the host no faster", gib, 500 * time.Millisecond, h100, 2, 2},
		{"small: the members' fixed costs", 8 << 20, time.Millisecond, scales, 8, 1},
		{"scaling host, large", 4 * gib, 0, scales, 8, 8},
		{"rate into all unknown", gib, time.Second, map[int]float64{1: 25e9}, 2, 1},
		{"rate into one unknown", gib, time.Second, map[int]float64{2: 25e9}, 2, 1},
		{"one device", gib, time.Second, scales, 1, 1},
	} {
		s := splitModel{bytes: c.bytes, kernel: c.kernel, rate: c.rate, member: memberCost}
		if got := s.devices(c.k); got != c.want {
			t.Errorf("%s on %d devices: %d devices (predicted %v on one, %v on %d), want %d", c.name, c.k, got, s.time(1), s.time(c.k), c.k, c.want)
		}
	}
}

// TestSplitDecisionThree: on three devices the model weighs the deal
// (planRanges: the busiest device's share and its ranges, each past its
// first costing rangeCost) and the power of two below, two devices of one
// range each. The rates are those bench/e2e -what scaling measured into
// one, two and three H200s of a four-GPU host, the kernels one device's
// there (BENCHMARKS.md, "Four GPUs"): the Goldilocks commitment of 2^20
// x 128 goes to two devices (where it measured fastest, three slower
// than one), BabyBear's stays on one (faster than three, and two were
// faster than one by less than sched.SplitMargin), and one of 2^22 rows,
// four times the work, also goes to two, the host's upload its bound.
func TestSplitDecisionThree(t *testing.T) {
	const gib = 1 << 30
	rate := map[int]float64{1: 41.9e9, 2: 61.5e9, 3: 66.3e9}
	kernelBound := map[int]float64{1: 40e9, 2: 80e9, 3: 120e9}
	for _, c := range []struct {
		name   string
		rows   int
		bytes  float64
		kernel time.Duration
		rate   map[int]float64
		want   int
	}{
		{"Goldilocks 2^20 x 128", 1 << 20, gib, 27300 * time.Microsecond, rate, 2},
		{"BabyBear 2^20 x 128", 1 << 20, gib / 2, 7560 * time.Microsecond, rate, 1},
		{"Goldilocks 2^22 x 128", 1 << 22, 4 * gib, 109 * time.Millisecond, rate, 2},
		{"kernel-bound, a host that feeds three", 1 << 22, gib, 400 * time.Millisecond, kernelBound, 3},
		{"kernel-bound, the rate into two unknown", 1 << 22, gib, 400 * time.Millisecond, map[int]float64{1: 40e9, 3: 120e9}, 3},
	} {
		s := splitModel{bytes: c.bytes, kernel: c.kernel, rate: c.rate, member: memberCost, rng: rangeCost,
			plan: func(k int) (float64, int) { return planRanges(c.rows, k, true).busiest(k) }}
		got := s.devices(3)
		require.Equal(t, c.want, got, "%s: predicted %v on one, %v on two, %v on three", c.name, s.time(1), s.time(2), s.time(3))
	}
}

// TestSplitNeverSlower: over random shapes, kernel times, rates and
// counts of alike devices, the decision never picks a count of devices
// predicted slower than one device or than another count it weighs, and
// picks a split only where it is predicted faster than one device by
// sched.SplitMargin.
func TestSplitNeverSlower(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		k := 2 + r.IntN(7)
		rows := 1 << (10 + r.IntN(15))
		rate := map[int]float64{1: 5e9 + r.Float64()*50e9}
		for _, j := range sched.SplitCounts(k) {
			if r.IntN(8) != 0 {
				rate[j] = rate[1] * (0.5 + r.Float64()*float64(j))
			}
		}
		s := splitModel{bytes: float64(rows) * float64(1+r.IntN(256)) * 8, kernel: time.Duration(r.Int64N(int64(time.Second))),
			rate: rate, member: memberCost, rng: rangeCost,
			plan: func(k int) (float64, int) { return planRanges(rows, k, true).busiest(k) }}
		got := s.devices(k)
		if got == 1 {
			continue
		}
		require.True(t, sched.SplitPays(s.time(1), s.time(got)), "k %d rows %d: %d devices predicted %v, one %v", k, rows, got, s.time(got), s.time(1))
		for _, j := range sched.SplitCounts(k) {
			if rate[j] > 0 {
				require.LessOrEqual(t, s.time(got), s.time(j), "k %d rows %d: %d devices predicted %v, %d devices %v", k, rows, got, s.time(got), j, s.time(j))
			}
		}
	}
}

// TestLearnKernel: a commitment's measured kernel time, per permutation
// on one device, is what the next decision on the same first device
// reads; an unmeasured timing or another hash teaches nothing.
func TestLearnKernel(t *testing.T) {
	ctx := gputest.Context(t, gputest.Backends()[0])
	one, err := sched.NewGroup(ctx)
	require.NoError(t, err)
	two, err := sched.NewGroup(ctx, ctx)
	require.NoError(t, err)
	hash := learnHash{"learn-test"}
	require.Zero(t, kernelNanos(two, hash))
	learnKernel(one, hash, 1000, wgpu.Timing{Kernel: 8 * time.Microsecond})
	require.Zero(t, kernelNanos(two, hash), "not measured")
	learnKernel(one, hash, 1000, wgpu.Timing{Kernel: 8 * time.Microsecond, Measured: true})
	require.Equal(t, 8.0, kernelNanos(two, hash))
	learnKernel(two, hash, 1000, wgpu.Timing{Kernel: 5 * time.Microsecond, Measured: true}) // each member half
	require.Equal(t, 10.0, kernelNanos(one, hash))
	require.Zero(t, kernelNanos(one, learnHash{"other"}))
}

// learnHash is a Hash by name alone, for the decision's records.
type learnHash struct{ name string }

func (h learnHash) Name() string               { return h.name }
func (learnHash) Merge(a, b [32]byte) [32]byte { return a }
func (learnHash) CheckDigest([32]byte) error   { return nil }
func (learnHash) MergeModule() wgpu.Module     { return nil }
