package sched

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/wgcompute/wgcompute/wgpu"
)

// Group is several devices used at once: one Context per GPU of a host,
// each driven from its own goroutine. A *Group is a wgpu.Target (through
// the wgpu.GroupTarget it embeds): algorithms (merkle.Build,
// rescue.Batch.MergeMany) split their work over its members and give the
// same result as on one device.
//
// A member may be nil, the CPU backend, and a Context may be a member more
// than once (several devices on one adapter): tests force splits of 2, 3
// and 7 pieces that way on a machine with one software adapter.
type Group struct {
	wgpu.GroupTarget
	members []*wgpu.Context
	owned   bool // OpenGroup opened the members: Close closes them
	// splitAll: Fit gives all members any work (SplitAll).
	splitAll bool
}

// OpenGroup opens one device on each adapter that opts.Devices chooses
// among the adapters of one backend (wgpu.Options.Devices says how):
// every GPU by default. opts.Adapter is ignored. The CPU backend (Backend
// "cpu") is a Group of one nil member. OpenGroup is wgpu.Choose with
// Devices "all" where it is empty, then Open.
func OpenGroup(opts wgpu.Options) (*Group, error) {
	if opts.Devices == "" {
		opts.Devices = "all"
	}
	ch, err := wgpu.Choose(opts)
	if err != nil {
		return nil, err
	}
	return Open(ch)
}

// Open opens the devices of ch (wgpu.Choice.OpenDevices) as a Group whose
// Close closes them: a Group of one nil member for the CPU backend, of one
// Context for one adapter.
func Open(ch wgpu.Choice) (*Group, error) {
	ctxs, err := ch.OpenDevices()
	if err != nil {
		return nil, err
	}
	return &Group{members: ctxs, owned: true}, nil
}

// NewGroup returns a Group of the given members, which stay the caller's
// to close (Group.Close leaves them open). A nil member is the CPU
// backend.
func NewGroup(members ...*wgpu.Context) (*Group, error) {
	if len(members) == 0 {
		return nil, errors.New("sched: a Group needs at least one member")
	}
	return &Group{members: append([]*wgpu.Context(nil), members...)}, nil
}

// Len is the number of members (0 for a nil Group, the CPU's in a
// Target).
func (g *Group) Len() int {
	if g == nil {
		return 0
	}
	return len(g.members)
}

// Contexts returns the members, in order.
func (g *Group) Contexts() []*wgpu.Context { return append([]*wgpu.Context(nil), g.members...) }

// Close closes the members OpenGroup opened (members given to NewGroup
// are left open) and reports what their Close reported.
func (g *Group) Close() error {
	if g == nil || !g.owned {
		return nil
	}
	var errs []error
	for _, c := range g.members {
		if c != nil {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}

// Fit returns the Group that n items of work should run on when each
// member must get at least minPerMember of them to pay for its share of
// the fixed costs (a submission, a wait, a read-back per member): g
// itself when all members do, else a Group of g's first members, as many
// as get that many, and at least one. The smaller Group closes nothing:
// g still owns its members.
func (g *Group) Fit(n, minPerMember int) *Group {
	k := len(g.members)
	if minPerMember > 0 && !g.splitAll {
		k = min(k, max(1, n/minPerMember))
	}
	if k == len(g.members) {
		return g
	}
	return &Group{members: g.members[:k:k]}
}

// FitFor is Fit with the minimum per member taken from what the members
// measured, where they have: work of the kind key (any comparable value
// naming it, such as the calling family) that Learn saw take r of kernel
// time per item on the slowest member, on members whose submissions cost
// at least o beyond their kernels (the slowest member's shortest round
// trip, learnt from every wait), gives each member at least
// shareRoundTrips × o / r items, so that a share's kernels outlast its
// fixed costs several times; that minimum is held within a factor of
// fitClamp of minPerMember, the prior (measured on one machine) that
// decides alone until both are known. A SplitAll Group keeps every
// member, as Fit does.
func (g *Group) FitFor(key any, n, minPerMember int) *Group {
	var perItem, roundTrip time.Duration
	for _, c := range g.members {
		if c == nil {
			return g.Fit(n, minPerMember)
		}
		v, ok := learntOf(c).Load(key)
		if !ok {
			return g.Fit(n, minPerMember)
		}
		perItem = max(perItem, v.(time.Duration))
		roundTrip = max(roundTrip, c.RoundTrip())
	}
	return g.Fit(n, learntMinimum(minPerMember, perItem, roundTrip))
}

// shareRoundTrips is how many submission round trips a member's share
// must run kernels for to be given (FitFor): a judgment, not a
// measurement; a share of eight spends at most about a ninth of its time
// on the costs a member adds.
const shareRoundTrips = 8

// fitClamp bounds how far a learnt minimum may stray from the prior
// (FitFor): a measurement that is off (a first call's compilation in its
// kernel time, a wait that found the work done) moves the decision by a
// factor of 16 at most.
const fitClamp = 16

// learntMinimum is FitFor's minimum per member: prior where perItem or
// roundTrip is unknown (0), else shareRoundTrips round trips' worth of
// items, within a factor of fitClamp of prior.
func learntMinimum(prior int, perItem, roundTrip time.Duration) int {
	if prior <= 0 || perItem <= 0 || roundTrip <= 0 {
		return prior
	}
	items := (shareRoundTrips*roundTrip + perItem - 1) / perItem
	return int(min(max(items, time.Duration(max(prior/fitClamp, 1))), time.Duration(prior)*fitClamp))
}

// Learn records that member's share of items items of the work key took
// t (its Timing): the kernel time per item FitFor weighs against the
// members' round trips. The latest share on a device is what it
// remembers; an unmeasured Timing or an empty share teaches nothing.
func (g *Group) Learn(key any, member, items int, t wgpu.Timing) {
	if member < 0 || member >= len(g.members) || g.members[member] == nil || items <= 0 || !t.Measured || t.Kernel <= 0 {
		return
	}
	learntOf(g.members[member]).Store(key, max(t.Kernel/time.Duration(items), 1))
}

// learnt holds what Learn recorded, per device: a weak pointer to the
// Context -> *sync.Map of key -> kernel time per item. A device's entry
// goes when its Context is collected.
var learnt sync.Map

// learntOf returns c's map of what Learn recorded, making it on first use.
func learntOf(c *wgpu.Context) *sync.Map {
	w := weak.Make(c)
	if m, ok := learnt.Load(w); ok {
		return m.(*sync.Map)
	}
	m, loaded := learnt.LoadOrStore(w, new(sync.Map))
	if !loaded {
		runtime.AddCleanup(c, func(w weak.Pointer[wgpu.Context]) { learnt.Delete(w) }, w)
	}
	return m.(*sync.Map)
}

// SplitAll returns a Group of g's members (owning none) whose Fit keeps
// every member for any amount of work: for a caller whose devices are
// idle and set up, and for tests that split small inputs on purpose.
func (g *Group) SplitAll() *Group {
	return &Group{members: g.members, splitAll: true}
}

// Ranges splits [0, n) into one contiguous range per member, as even as
// align allows: every boundary is a multiple of align (at least 1), so a
// range may be empty when n is small. Range i is [b[i], b[i+1]).
func (g *Group) Ranges(n, align int) []int {
	align = max(align, 1)
	units := (n + align - 1) / align
	k := len(g.members)
	b := make([]int, k+1)
	for i := 1; i <= k; i++ {
		b[i] = min(n, units*i/k*align)
	}
	return b
}

// Split runs fn for each member on its own goroutine, member i (its
// index, for per-member state) over the range i of Ranges(n, align),
// skipping empty ranges, and returns the members' errors joined, each
// naming its device.
func (g *Group) Split(n, align int, fn func(member int, ctx *wgpu.Context, lo, hi int) error) error {
	b := g.Ranges(n, align)
	return g.run(func(i int, ctx *wgpu.Context) error {
		if b[i] == b[i+1] {
			return nil
		}
		return fn(i, ctx, b[i], b[i+1])
	})
}

// Each runs fn(member, ctx, task) for tasks 0..tasks-1, each member taking
// the next task as soon as it is free, so a faster device takes more; a
// member runs its tasks one after another. After an error no new task is
// started; the errors are returned joined, each naming its device.
func (g *Group) Each(tasks int, fn func(member int, ctx *wgpu.Context, task int) error) error {
	var next atomic.Int64
	var failed atomic.Bool
	return g.run(func(i int, ctx *wgpu.Context) error {
		for !failed.Load() {
			t := int(next.Add(1) - 1)
			if t >= tasks {
				return nil
			}
			if err := fn(i, ctx, t); err != nil {
				failed.Store(true)
				return err
			}
		}
		return nil
	})
}

// Deal runs fn(member, ctx, task) for tasks 0..tasks-1 as Each does,
// except that members that are alike (Alike) take equal contiguous shares
// of the tasks, in order, rather than the next free task: a dynamic take
// lets the member that starts first take more, and among equal devices
// that is imbalance, not speed (a Rescue Merkle tree of 2^24 leaves in 8
// ranges on two H200s split 5 to 3, 1.57 times one GPU's kernel time
// where Split's even halves of MergeMany on a Group gave 2.0, BENCHMARKS.md
// 2026-11-26). Members that differ take tasks as Each hands them out.
func (g *Group) Deal(tasks int, fn func(member int, ctx *wgpu.Context, task int) error) error {
	if !g.Alike() {
		return g.Each(tasks, fn)
	}
	var failed atomic.Bool
	return g.Split(tasks, 1, func(member int, ctx *wgpu.Context, lo, hi int) error {
		for t := lo; t < hi && !failed.Load(); t++ {
			if err := fn(member, ctx, t); err != nil {
				failed.Store(true)
				return err
			}
		}
		return nil
	})
}

// Alike reports whether the members are the same kind of device (one
// adapter model, backend and driver, or all the CPU backend), expected to
// run equal work in equal time.
func (g *Group) Alike() bool {
	first := g.members[0]
	for _, c := range g.members[1:] {
		if (c == nil) != (first == nil) {
			return false
		}
		if c == nil || c == first {
			continue
		}
		a, b := c.Info(), first.Info()
		if a.Name != b.Name || a.Backend != b.Backend || a.Driver != b.Driver {
			return false
		}
	}
	return true
}

// Setup runs fn once for each member, all members at once, each on its own
// goroutine, and returns their errors joined, each naming its device: the
// set-up of work to be timed or repeated (compiling its kernels, uploading
// its constants, creating its resident objects) done on every device in
// parallel and before the work, rather than by each device inside its
// share, where the first call's slowest set-up would pace the split.
func (g *Group) Setup(fn func(member int, ctx *wgpu.Context) error) error {
	return g.run(fn)
}

// KernelTimes returns, for each member in order, the kernel time measured
// on its Context so far: the timestamp-query time of every submission
// waited for, summed (0 for the CPU backend and for adapters without
// timestamp queries). The difference of two calls is each device's kernel
// time in between, whatever the algorithms run, so that a split whose
// shares take unequal time, or more than one device's time over the
// count, shows per device. A Context that is a member twice reports its
// total in both places.
func (g *Group) KernelTimes() []time.Duration {
	ts := make([]time.Duration, len(g.members))
	for i, c := range g.members {
		ts[i] = c.KernelTime()
	}
	return ts
}

// run runs fn once per member, each on its own goroutine.
func (g *Group) run(fn func(i int, ctx *wgpu.Context) error) error {
	errs := make([]error, len(g.members))
	var wg sync.WaitGroup
	for i, ctx := range g.members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					errs[i] = fmt.Errorf("device %d: panic: %v", i, r)
				}
			}()
			if err := fn(i, ctx); err != nil {
				errs[i] = fmt.Errorf("device %d (%s): %w", i, ctx.Info().Name, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
