package hashtest

import (
	"testing"

	"github.com/wgcompute/wgcompute/wgpu"
)

// API is a family package's batch functions with their own types: V its
// Variant, O its Options, B its *Batcher. Family fills a Family's function
// fields with them.
type API[V interface {
	~int
	String() string
}, O any, B Batcher] struct {
	// Options returns the Options of variant v reporting to t.
	Options      func(v V, t *wgpu.Timing) O
	ParseVariant func(s string) (V, error)
	NewBatcher   func(ctx *wgpu.Context, opts O) (B, error)

	MergeMany        func(ctx *wgpu.Context, dst [][4]uint64, pairs [][8]uint64, opts O) error
	HashElementsMany func(ctx *wgpu.Context, dst [][4]uint64, inputs []uint64, m int, opts O) error
	PermuteMany      func(ctx *wgpu.Context, states [][12]uint64, opts O) error

	MergeManyOn        func(g *wgpu.Group, dst [][4]uint64, pairs [][8]uint64, opts O) error
	HashElementsManyOn func(g *wgpu.Group, dst [][4]uint64, inputs []uint64, m int, opts O) error
	PermuteManyOn      func(g *wgpu.Group, states [][12]uint64, opts O) error
}

// Family returns f with its variant and batch functions set from a.
func (a API[V, O, B]) Family(f Family) *Family {
	o := func(v int, t *wgpu.Timing) O { return a.Options(V(v), t) }
	f.ParseVariant = func(s string) (int, error) {
		v, err := a.ParseVariant(s)
		return int(v), err
	}
	f.VariantString = func(v int) string { return V(v).String() }
	f.NewBatcher = func(ctx *wgpu.Context, v int, t *wgpu.Timing) (Batcher, error) {
		b, err := a.NewBatcher(ctx, o(v, t))
		if err != nil {
			return nil, err
		}
		return b, nil
	}
	f.MergeMany = func(ctx *wgpu.Context, dst [][4]uint64, pairs [][8]uint64, v int, t *wgpu.Timing) error {
		return a.MergeMany(ctx, dst, pairs, o(v, t))
	}
	f.HashElementsMany = func(ctx *wgpu.Context, dst [][4]uint64, inputs []uint64, m int, v int, t *wgpu.Timing) error {
		return a.HashElementsMany(ctx, dst, inputs, m, o(v, t))
	}
	f.PermuteMany = func(ctx *wgpu.Context, states [][12]uint64, v int, t *wgpu.Timing) error {
		return a.PermuteMany(ctx, states, o(v, t))
	}
	f.MergeManyOn = func(g *wgpu.Group, dst [][4]uint64, pairs [][8]uint64, v int, t *wgpu.Timing) error {
		return a.MergeManyOn(g, dst, pairs, o(v, t))
	}
	f.HashElementsManyOn = func(g *wgpu.Group, dst [][4]uint64, inputs []uint64, m int, v int, t *wgpu.Timing) error {
		return a.HashElementsManyOn(g, dst, inputs, m, o(v, t))
	}
	f.PermuteManyOn = func(g *wgpu.Group, states [][12]uint64, v int, t *wgpu.Timing) error {
		return a.PermuteManyOn(g, states, o(v, t))
	}
	return &f
}

// Run runs every shared test of f as a subtest named after its function:
// Guard, MergeManyLarge, BatcherReuse, Timing, BadInput,
// TooLargeForLimits, ParseVariant, GroupSplits, NoLeaks.
func Run(t *testing.T, f *Family) {
	for _, c := range []struct {
		name string
		test func(*testing.T, *Family)
	}{
		{"Guard", Guard}, {"MergeManyLarge", MergeManyLarge}, {"BatcherReuse", BatcherReuse},
		{"Timing", Timing}, {"BadInput", BadInput}, {"TooLargeForLimits", TooLargeForLimits},
		{"ParseVariant", ParseVariant}, {"GroupSplits", GroupSplits}, {"NoLeaks", NoLeaks},
	} {
		t.Run(c.name, func(t *testing.T) { c.test(t, f) })
	}
}
