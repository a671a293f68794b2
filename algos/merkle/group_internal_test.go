package merkle

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/internal/gputest"
	"github.com/wgcompute/wgcompute/wgpu"
)

// TestGroupRanges: alike devices, a power of two of them, take one range
// each; others about four a device; never fewer than two leaves a range.
func TestGroupRanges(t *testing.T) {
	for _, c := range []struct {
		n, k  int
		alike bool
		want  int
	}{
		{1 << 24, 1, true, 1}, {1 << 24, 2, true, 2}, {1 << 24, 4, true, 4}, {1 << 24, 8, true, 8},
		{1 << 24, 3, true, 16}, {1 << 24, 2, false, 8}, {1 << 24, 3, false, 16}, {1 << 24, 1, false, 4},
		{4, 4, false, 2}, {2, 2, true, 1}, {1, 2, true, 1},
	} {
		if got := groupRanges(c.n, c.k, c.alike); got != c.want {
			t.Errorf("groupRanges(%d, %d, %v) = %d, want %d", c.n, c.k, c.alike, got, c.want)
		}
	}
}

// TestSplitDecision: a commitment goes to several devices only where the
// model predicts it faster by wgpu.SplitMargin, from the upload rates measured
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

// TestLearnKernel: a commitment's measured kernel time, per permutation
// on one device, is what the next decision on the same first device
// reads; an unmeasured timing or another hash teaches nothing.
func TestLearnKernel(t *testing.T) {
	ctx := gputest.Context(t, gputest.Backends()[0])
	one, err := wgpu.NewGroup(ctx)
	require.NoError(t, err)
	two, err := wgpu.NewGroup(ctx, ctx)
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
