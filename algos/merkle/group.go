package merkle

import (
	"fmt"
	"math/bits"
	"time"

	"github.com/wgcompute/wgcompute/internal/base/split"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// minGroupLeaves is the fewest leaves a member of a Group is given
// (Group.Fit): each member's tree ends in levels too narrow to fill its
// GPU, whose cost does not shrink with the member's share (rangePlan),
// and the top over the members' roots is one more submission. Split over
// two alike devices (bench/e2e -what ladder), Rescue trees were no faster
// than on one up to 2^18 leaves and little faster at 2^19, BLAKE3's
// slower at 2^19, and both gained at 2^20 (bench/results/HISTORY.md,
// "Several GPUs, one instance, eigen's folded rounds, batches and files",
// its Merkle on two GPUs; the times in "Figures moved from code
// comments"). So a member gets 2^19 leaves at least: 2^20 is the smallest
// tree split in two.
const minGroupLeaves = 1 << 19

// rootOn returns the root of the tree of leaves, as Root does on one
// device, built on the devices of g (Root on a Group): the tree splits into ranges (subtrees: one per device
// where the devices are alike and their count a power of two, a few per
// device of different sizes for even shares where it is not, about four
// equal ones per device taken by the next free device where they differ:
// rangePlan), each range's root is built on its device (rangeRoot), and
// the levels over the range roots on the group's first device (combine)
// or, over ranges of different sizes, on the host. The root equals
// Root's; a Group of one builds as Root does, and so does any Group given
// fewer than 2^19 leaves a device (Group.Fit, minGroupLeaves).
// opts.Timing receives the slowest device's range time plus the top's. A
// count that is not a power of two is built as its perfect parts, one
// after another, each over the whole group.
func rootOn(g *sched.Group, leaves [][32]byte, hash Hash, opts Options) ([32]byte, error) {
	if g != nil {
		g = g.Fit(len(leaves), minGroupLeaves)
	}
	if g != nil && g.Len() == 1 {
		return Root(g.Contexts()[0], leaves, hash, opts)
	}
	if !perfect(len(leaves)) {
		return rootOnParts(g, leaves, hash, opts)
	}
	var root [32]byte
	err := onGroup(g, leaves, hash, opts, func(_ int, b *builder, _ split.Range, part [][32]byte) ([32]byte, error) {
		return b.Root(part)
	}, func(ctx *wgpu.Context, p rangePlan, roots [][32]byte, o Options) error {
		if !p.regular() {
			start := time.Now()
			root = p.topRoot(hash, roots)
			if o.Timing != nil {
				*o.Timing = wgpu.Timing{Wall: time.Since(start)}
			}
			return nil
		}
		var err error
		root, err = combine(ctx, roots, hash, o)
		return err
	})
	return root, err
}

// buildOn builds the tree of leaves, as Build does on one device, on the
// devices of g (Build on a Group):
// each range's subtree on the device that takes it, its nodes copied into
// place on the host by that device's goroutine, and the top levels on the
// group's first device. The nodes equal Build's. A count that is not a
// power of two is built as rootOn builds it. It does not take
// opts.CapHeight: a capped tree is built on one device with Build.
func buildOn(g *sched.Group, leaves [][32]byte, hash Hash, opts Options) (*Tree, error) {
	if opts.CapHeight != 0 {
		return nil, fmt.Errorf("merkle: CapHeight %d on a Group: a capped tree is built on one device (a Context), or the whole tree on the group with CapHeight 0)", opts.CapHeight)
	}
	if g != nil {
		g = g.Fit(len(leaves), minGroupLeaves)
	}
	if g != nil && g.Len() == 1 {
		return Build(g.Contexts()[0], leaves, hash, opts)
	}
	if !perfect(len(leaves)) {
		return buildOnParts(g, leaves, hash, opts)
	}
	n := len(leaves)
	var nodes [][32]byte
	var scratch []*Tree // each member's range tree, its memory reused from range to range
	if checkSize(n) == nil && g != nil {
		nodes = make([][32]byte, n)
		scratch = make([]*Tree, g.Len())
	}
	err := onGroup(g, leaves, hash, opts, func(member int, b *builder, r split.Range, part [][32]byte) ([32]byte, error) {
		t, err := b.BuildInto(scratch[member], part)
		if err != nil {
			return [32]byte{}, err
		}
		scratch[member] = t
		placeSubtree(nodes, t.nodes, r.Index, r.Count)
		return t.Root(), nil
	}, func(ctx *wgpu.Context, p rangePlan, _ [][32]byte, o Options) error {
		if p.base == 1 {
			return nil // the one range was the whole tree: its nodes are in place
		}
		// Every range's nodes are in place, the finest ranges' roots
		// among them: the top is the tree over those.
		roots := nodes[p.base : 2*p.base]
		t, err := Build(ctx, roots, hash, o)
		if err != nil {
			return err
		}
		copy(nodes[:p.base], t.nodes)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Tree{hash: hash, leaves: leaves, nodes: nodes}, nil
}

// checkOn returns an error unless g is a Group, n a tree size and hash
// given: what rootOn and buildOn check first, for any count.
func checkOn(g *sched.Group, n int, hash Hash) error {
	if g == nil {
		return fmt.Errorf("merkle: no Group given: open one with sched.OpenGroup or sched.NewGroup")
	}
	if err := checkSize(n); err != nil {
		return err
	}
	if hash == nil {
		return errNoHash
	}
	return nil
}

// onGroup checks the tree, splits it into ranges over g's devices
// (planRanges), runs rangeFn on each with its member's Builder (one per
// member, kept from range to range, told that the leaves are checked),
// then topFn on the first device with the plan, the range roots in the
// plan's order and options with their own Timing.
func onGroup(g *sched.Group, leaves [][32]byte, hash Hash, opts Options,
	rangeFn func(member int, b *builder, r split.Range, part [][32]byte) ([32]byte, error),
	topFn func(ctx *wgpu.Context, p rangePlan, roots [][32]byte, o Options) error) error {
	n := len(leaves)
	if err := checkOn(g, n, hash); err != nil {
		return err
	}
	if _, _, err := settings(hash, opts, n); err != nil {
		return err
	}
	if err := checkLeaves(hash, leaves); err != nil {
		return err
	}
	p := planRanges(n, g.Len(), g.Alike())
	roots := make([][32]byte, len(p.ranges))
	// A member runs its ranges one after another on its own goroutine, so
	// its slots below are its own: its Builder, the timing that Builder
	// reports a range's build to, and its ranges' times summed.
	builders := make([]*builder, g.Len())
	last := make([]wgpu.Timing, g.Len())
	times := make([]wgpu.Timing, g.Len())
	report := newReporter(opts.Progress, n)
	err := p.run(g, func(member int, ctx *wgpu.Context, i int) error {
		b := builders[member]
		if b == nil {
			o := opts
			o.Timing = &last[member]
			o.Progress = nil // the ranges report, below
			var err error
			if b, err = newBuilder(ctx, hash, o); err != nil {
				return err
			}
			b.leavesChecked = true
			builders[member] = b
		}
		r := p.ranges[i]
		lo, hi, err := r.Bounds(len(leaves))
		if err != nil {
			return err
		}
		part := leaves[lo:hi:hi]
		last[member] = wgpu.Timing{}
		roots[i], err = rangeFn(member, b, r, part)
		times[member] = times[member].Add(last[member])
		if err != nil {
			return fmt.Errorf("range %s: %w", r.String(), err)
		}
		return report.add(len(part) - 1)
	})
	for _, b := range builders {
		if b != nil {
			b.Release()
		}
	}
	if err != nil {
		return fmt.Errorf("merkle: %w", err)
	}
	var total, top wgpu.Timing
	for _, t := range times {
		total = total.Parallel(t) // a member that took no range is the zero Timing: no work
	}
	o := opts
	o.Timing = &top
	if err := topFn(g.Contexts()[0], p, roots, o); err != nil {
		return fmt.Errorf("merkle: the top %d levels: %w", bits.Len(uint(p.base))-1, err)
	}
	if opts.Timing != nil {
		*opts.Timing = total.Add(top)
	}
	return nil
}
