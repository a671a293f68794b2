package hashtest

import (
	"fmt"
	"testing"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/internal/base/impl"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// Of returns f with its name, variants and batch functions set from h and the
// variants h registered: variant v is the v-th of them, and a value out of
// range reaches the registry as its decimal name, which it rejects.
func Of(f Family, h *batch.Goldilocks) *Family {
	f.Name, f.Variants = h.Name(), impl.List(h.Name())
	family := func(v int) (*batch.Goldilocks, error) {
		name := fmt.Sprint(v)
		if v >= 0 && v < len(f.Variants) {
			name = f.Variants[v]
		}
		return impl.Select[*batch.Goldilocks](h.Name(), name)
	}
	o := func(t *wgpu.Timing) batch.Options { return batch.Options{Timing: t} }
	f.Select = func(name string) error {
		_, err := impl.Select[*batch.Goldilocks](h.Name(), name)
		return err
	}
	f.NewBatcher = func(ctx *wgpu.Context, v int, t *wgpu.Timing) (Batcher, error) {
		h, err := family(v)
		if err != nil {
			return nil, err
		}
		b, err := h.NewBatcher(ctx, o(t))
		if err != nil {
			return nil, err
		}
		return b, nil
	}
	// run runs fn with variant v's Family.
	run := func(v int, fn func(h *batch.Goldilocks) error) error {
		h, err := family(v)
		if err != nil {
			return err
		}
		return fn(h)
	}
	f.MergeMany = func(ctx *wgpu.Context, dst [][4]uint64, pairs [][8]uint64, v int, t *wgpu.Timing) error {
		return run(v, func(h *batch.Goldilocks) error { return h.MergeMany(ctx, dst, pairs, o(t)) })
	}
	f.HashElementsMany = func(ctx *wgpu.Context, dst [][4]uint64, inputs []uint64, m int, v int, t *wgpu.Timing) error {
		return run(v, func(h *batch.Goldilocks) error { return h.HashElementsMany(ctx, dst, inputs, m, o(t)) })
	}
	f.PermuteMany = func(ctx *wgpu.Context, states [][12]uint64, v int, t *wgpu.Timing) error {
		return run(v, func(h *batch.Goldilocks) error { return h.PermuteMany(ctx, states, o(t)) })
	}
	f.MergeManyOn = func(g *sched.Group, dst [][4]uint64, pairs [][8]uint64, v int, t *wgpu.Timing) error {
		return run(v, func(h *batch.Goldilocks) error { return h.MergeMany(g, dst, pairs, o(t)) })
	}
	f.HashElementsManyOn = func(g *sched.Group, dst [][4]uint64, inputs []uint64, m int, v int, t *wgpu.Timing) error {
		return run(v, func(h *batch.Goldilocks) error { return h.HashElementsMany(g, dst, inputs, m, o(t)) })
	}
	f.PermuteManyOn = func(g *sched.Group, states [][12]uint64, v int, t *wgpu.Timing) error {
		return run(v, func(h *batch.Goldilocks) error { return h.PermuteMany(g, states, o(t)) })
	}
	f.Guard = func(b Batcher) { b.(*batch.Batcher[uint64, [4]uint64, [8]uint64, [12]uint64]).Guard = true }
	return &f
}

// Run runs every shared test of f as a subtest named after its function:
// Guard, MergeManyLarge, BatcherReuse, Timing, BadInput,
// TooLargeForLimits, Variants, GroupSplits, NoLeaks.
func Run(t *testing.T, f *Family) {
	for _, c := range []struct {
		name string
		test func(*testing.T, *Family)
	}{
		{"Guard", Guard}, {"MergeManyLarge", MergeManyLarge}, {"BatcherReuse", BatcherReuse},
		{"Timing", Timing}, {"BadInput", BadInput}, {"TooLargeForLimits", TooLargeForLimits},
		{"Variants", Variants}, {"GroupSplits", GroupSplits}, {"NoLeaks", NoLeaks},
	} {
		t.Run(c.name, func(t *testing.T) { c.test(t, f) })
	}
}
