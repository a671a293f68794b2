package wgpu

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Group is several devices used at once: one Context per GPU of a host,
// each driven from its own goroutine. A Group is a Target: algorithms
// (merkle.Build, rescue.Batch.MergeMany) split their work over its members
// and give the same result as on one device.
//
// A member may be nil, the CPU backend, and a Context may be a member more
// than once (several devices on one adapter): tests force splits of 2, 3
// and 7 pieces that way on a machine with one software adapter.
type Group struct {
	members []*Context
	owned   bool // OpenGroup opened the members: Close closes them
	// splitAll: Fit gives all members any work (SplitAll).
	splitAll bool
}

// OpenGroup opens one device on each adapter that opts.Devices chooses
// among the adapters of one backend: opts.Backend, or the default
// adapter's backend when that is empty, so that a GPU is never opened
// twice through its Vulkan and GL twins. opts.Devices is
//
//   - "" or "all": every adapter that is not a CPU (software) adapter; a
//     machine whose only adapter is a CPU one gets that one alone;
//   - a count "N": the first N of those, an error if there are fewer;
//   - a list of adapter indices "0,1", as Adapters lists them for the
//     backend (the list may name a CPU adapter, but an index only once:
//     "0,0" is an error, most likely a typing mistake; NewGroup builds a
//     Group with a Context twice, for tests).
//
// opts.Adapter is ignored. The CPU backend (Backend "cpu") is a Group of
// one nil member. OpenGroup is Choose with Devices "all" where it is
// empty, then Choice.Open.
func OpenGroup(opts Options) (*Group, error) {
	if opts.Devices == "" {
		opts.Devices = "all"
	}
	ch, err := Choose(opts)
	if err != nil {
		return nil, err
	}
	return ch.Open()
}

// WantsGroup reports whether o asks for several devices (Devices is
// set): a program then opens a Group (OpenGroup) where it would open a
// Context. Choose makes the same decision.
func (o Options) WantsGroup() bool { return o.Devices != "" }

// deviceSpec is a parsed Options.Devices: every GPU (all), the first
// count of them, or the adapters of indices.
type deviceSpec struct {
	all     bool
	count   int
	indices []int
}

// parseDevices reads an Options.Devices value (see OpenGroup) as far as
// it can be checked without the adapters; accepted says what it may be,
// for errors.
func parseDevices(spec, accepted string) (deviceSpec, error) {
	s := strings.TrimSpace(strings.ToLower(spec))
	switch {
	case s == "" || s == "all":
		return deviceSpec{all: true}, nil
	case !strings.Contains(s, ","):
		if n, err := strconv.Atoi(s); err == nil {
			if n < 1 {
				return deviceSpec{}, fmt.Errorf("wgpu: devices %q: a count must be at least 1; %s", spec, accepted)
			}
			return deviceSpec{count: n}, nil
		}
	}
	var d deviceSpec
	for _, f := range strings.Split(s, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || i < 0 {
			return deviceSpec{}, fmt.Errorf("wgpu: devices %q: %q is not an adapter index; %s", spec, f, accepted)
		}
		if slices.Contains(d.indices, i) {
			return deviceSpec{}, fmt.Errorf("wgpu: devices %q: adapter %d is named twice; %s", spec, i, accepted)
		}
		d.indices = append(d.indices, i)
	}
	return d, nil
}

// acceptedDevices is what parseDevices accepts, for errors where the
// adapters are not known.
const acceptedDevices = `accepted: "all", a count N, or distinct adapter indices separated by commas ("0,1")`

// pickDevices returns the adapter indices spec chooses among infos (see
// OpenGroup).
func pickDevices(spec string, infos []AdapterInfo) ([]int, error) {
	var gpus []int
	for _, info := range infos {
		if info.Type != "cpu" && info.Unusable == "" {
			gpus = append(gpus, info.Index)
		}
	}
	accepted := fmt.Sprintf(`accepted: "all", a count from 1 to %d, or distinct adapter indices from 0 to %d separated by commas ("0,1")`, max(len(gpus), 1), len(infos)-1)
	d, err := parseDevices(spec, accepted)
	switch {
	case err != nil:
		return nil, err
	case d.all:
		if len(gpus) == 0 {
			return []int{infos[0].Index}, nil
		}
		return gpus, nil
	case d.count > 0 && len(gpus) == 0:
		// Only software adapters: one device is the first of them, as
		// "all" is; more is not there.
		if d.count == 1 {
			return []int{infos[0].Index}, nil
		}
		return nil, fmt.Errorf("wgpu: devices %q: %d GPUs asked, but the %s backend has no GPU, only the software adapter %s; accepted: 1 or \"all\" for it, or adapter indices from 0 to %d separated by commas (\"0,1\")",
			spec, d.count, infos[0].Backend, infos[0].Name, len(infos)-1)
	case d.count > 0:
		if d.count > len(gpus) {
			return nil, fmt.Errorf("wgpu: devices %q: %d GPUs asked, %d found on the %s backend; %s", spec, d.count, len(gpus), infos[0].Backend, accepted)
		}
		return gpus[:d.count], nil
	}
	for _, i := range d.indices {
		if i >= len(infos) {
			return nil, fmt.Errorf("wgpu: devices %q: %q is not an adapter index; %s", spec, strconv.Itoa(i), accepted)
		}
	}
	return d.indices, nil
}

// Check returns the error Open or OpenGroup would return for o's settings
// before they look at an adapter: an unknown backend, a malformed Devices
// (a count below 1, an index that is not a number, or one named twice), a
// field of a value it does not accept (Transfer: CheckTransferOptions). A program checks them with it up
// front, so that a command that opens no device refuses them as one that
// does; where an adapter index exists is known only once the adapters are
// listed, by Open.
func (o Options) Check() error {
	if err := o.check(); err != nil {
		return err
	}
	if !o.CPU() {
		if _, err := instanceBackends(o.Backend); err != nil {
			return err
		}
	}
	_, err := parseDevices(o.Devices, acceptedDevices)
	return err
}

// NewGroup returns a Group of the given members, which stay the caller's
// to close (Group.Close leaves them open). A nil member is the CPU
// backend.
func NewGroup(members ...*Context) (*Group, error) {
	if len(members) == 0 {
		return nil, errors.New("wgpu: a Group needs at least one member")
	}
	return &Group{members: append([]*Context(nil), members...)}, nil
}

// Len is the number of members.
func (g *Group) Len() int { return len(g.members) }

// Contexts returns the members, in order.
func (g *Group) Contexts() []*Context { return append([]*Context(nil), g.members...) }

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
		v, ok := c.perItem.Load(key)
		if !ok {
			return g.Fit(n, minPerMember)
		}
		perItem = max(perItem, v.(time.Duration))
		roundTrip = max(roundTrip, time.Duration(c.roundTrip.Load()))
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
func (g *Group) Learn(key any, member, items int, t Timing) {
	if member < 0 || member >= len(g.members) || g.members[member] == nil || items <= 0 || !t.Measured || t.Kernel <= 0 {
		return
	}
	g.members[member].perItem.Store(key, max(t.Kernel/time.Duration(items), 1))
}

// noteRoundTrip records a submission's host time beyond its kernels, of
// which c keeps the shortest (FitFor).
func (c *Context) noteRoundTrip(d time.Duration) {
	if d <= 0 {
		return
	}
	for {
		cur := c.roundTrip.Load()
		if cur != 0 && cur <= int64(d) {
			return
		}
		if c.roundTrip.CompareAndSwap(cur, int64(d)) {
			return
		}
	}
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
func (g *Group) Split(n, align int, fn func(member int, ctx *Context, lo, hi int) error) error {
	b := g.Ranges(n, align)
	return g.run(func(i int, ctx *Context) error {
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
func (g *Group) Each(tasks int, fn func(member int, ctx *Context, task int) error) error {
	var next atomic.Int64
	var failed atomic.Bool
	return g.run(func(i int, ctx *Context) error {
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
func (g *Group) Deal(tasks int, fn func(member int, ctx *Context, task int) error) error {
	if !g.Alike() {
		return g.Each(tasks, fn)
	}
	var failed atomic.Bool
	return g.Split(tasks, 1, func(member int, ctx *Context, lo, hi int) error {
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
func (g *Group) Setup(fn func(member int, ctx *Context) error) error {
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
		if c != nil {
			ts[i] = time.Duration(c.kernelTime.Load())
		}
	}
	return ts
}

// run runs fn once per member, each on its own goroutine.
func (g *Group) run(fn func(i int, ctx *Context) error) error {
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
