package merkle

import (
	"fmt"
	"maps"
	"math/bits"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/internal/base/split"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// A matrix commitment splits over a Group as a tree does (rootOn): the
// tree's leaves fall into M equal ranges, M a power of two, each range's
// subtree is the commitment of the rows under it (row r of a matrix H>>j
// tall feeds node r of level j, so the rows of range i of every matrix at
// least M tall are the rows [i·H/M>>j, (i+1)·H/M>>j) of each, one
// contiguous slice), and the top log2(M) levels merge the M range roots
// with the rows of the matrices shorter than M. Each member hashes its
// ranges' rows and builds their subtrees on its device from host memory;
// the first builds the top. Over alike members whose count is not a power
// of two, a member's ranges are a few subtrees of different sizes, each a
// run of these M ranges (rangePlan): its rows are those of the M-ranges
// it holds, and it builds the levels above them too.

// commitOn is CommitMatrix and CommitMatrices on a Group of several
// devices, over the element's width: each range's rows uploaded, hashed
// and built into its subtree on one member's device, and the top levels
// over the range roots on the first member's; the tree (leaves, nodes,
// root, proofs) is the same bits as on one device. The commitment runs on
// as many members as it is predicted to be faster on, down to one
// (fastest: the upload rates measured on its devices, and Group.Fit). The
// elements are checked on their way up to each member, so a bad one is
// reported as on one device. opts.Timing receives the slowest member's
// ranges plus the top. For several matrices, each range's rows of every
// matrix at least as tall as the ranges are many go to the member that
// builds the range, and the rows of the shorter ones are merged into the
// top levels on the first member. ms is one matrix
// (single: CommitMatrix's checks and errors) or several (CommitMatrices').
func commitOn[E field.Element](g *sched.Group, ms []Matrix[E], single bool, rows rowsOf[E], opts Options) (*Tree, error) {
	if err := checkOn(g, 1, rows.hash); err != nil {
		return nil, err
	}
	g = g.Fit(commitWork(ms), minGroupPermutations)
	g = fastest(g, ms, rows.hash)
	// The commitment's kernel time is learnt for the next decision
	// (learnKernel), so the call's timing is taken whether or not the
	// caller asks for it.
	var tm wgpu.Timing
	caller := opts.Timing
	opts.Timing = &tm
	t, err := commitOnGroup(g, ms, single, rows, opts)
	if err == nil {
		learnKernel(g, rows.hash, commitWork(ms), tm)
		if caller != nil {
			*caller = tm
		}
	}
	return t, err
}

// commitOnGroup is commitOn on g as decided.
func commitOnGroup[E field.Element](g *sched.Group, ms []Matrix[E], single bool, rows rowsOf[E], opts Options) (*Tree, error) {
	oneDevice := func(ctx *wgpu.Context) (*Tree, error) {
		return commitOnce(ctx, rows.hash, opts, func(c *Committer) (*Tree, error) {
			if single {
				return commitMatrix(c, ms[0], rows)
			}
			return commitMatrices(c, ms, rows)
		})
	}
	if g.Len() == 1 {
		return oneDevice(g.Contexts()[0])
	}
	// The elements are checked on their way up to the devices
	// (field.CheckedReader), or up front for a CPU member, which uploads
	// nothing.
	elements := slices.Contains(g.Contexts(), nil)
	tall, err := checkCommit(ms, single, rows.field, elements)
	if err != nil {
		return nil, err
	}
	hs, err := Schedule{{Hash: rows.hash}}.Levels(tall)
	if err != nil {
		return nil, err
	}
	if _, _, err := settings(rows.hash, opts, tall); err != nil {
		return nil, err
	}
	// Ranges as a tree's (rootOn, rangePlan): as few a device as even
	// shares allow where the members are alike, else about four a device.
	p := planRanges(tall, g.Len(), g.Alike())
	if p.base == 1 {
		return oneDevice(g.Contexts()[0])
	}
	t, err := commitRangesOn(g, byLevel(ms, tall), tall, p, hs, rows, opts)
	if err != nil {
		return nil, elementError(err, func() error { _, err := checkCommit(ms, single, rows.field, true); return err })
	}
	return t, nil
}

// checkCommit returns the tallest height of ms, one matrix (single:
// checked as CommitMatrix checks it) or several (as CommitMatrices does),
// or the error that says what is wrong with them; without elements their
// shapes alone (checkMat).
func checkCommit[E field.Element](ms []Matrix[E], single bool, f fieldOf[E], elements bool) (int, error) {
	if single {
		return ms[0].Rows, checkMat(ms[0], f, elements)
	}
	return checkMatrices(ms, f, elements)
}

// minGroupPermutations is the fewest permutations (commitWork) a member
// of a Group is given for a commitment. Split over two alike devices
// (bench/e2e -what scaling-commit), a commitment of 2^12 rows of 128
// elements (69632 permutations) was slower than on one with BabyBear and
// no faster with Goldilocks Poseidon2, while 2^14 and 2^16 rows were
// faster: a second device pays from about 2^13 rows, 2^16 permutations
// each (bench/results/HISTORY.md, "Several GPUs, one instance, eigen's
// folded rounds, batches and files", its matrix commitments on two GPUs;
// this floor's own run in "Figures moved from code comments").
const minGroupPermutations = 1 << 16

// commitWork is a commitment's work in permutations, what Group.Fit
// shares out: a row absorbs 8 elements a permutation (the rate of every
// row hash here: the Goldilocks sponges of width 12, the 31-bit fields'
// of width 16), and each row is merged once, into the tree's levels or
// injected into one. Shapes that are not matrices count nothing: they
// are refused on one device.
func commitWork[E field.Element](ms []Matrix[E]) int {
	w := 0
	for _, m := range ms {
		if m.Rows < 1 || m.Cols < 1 || m.Rows > 1<<40 || m.Cols > 1<<20 {
			continue
		}
		w += m.Rows * ((m.Cols+7)/8 + 1)
	}
	return w
}

// rangeLevels returns the rows of matrices by level that range r of a
// tree feeds (slices of them, not copies): the matrices of the levels up
// to lg, the range's subtree's height, each cut to its r.Count-th part.
func rangeLevels[E field.Element](levels map[int]Matrix[E], r split.Range, lg int) map[int]Matrix[E] {
	out := make(map[int]Matrix[E], len(levels))
	for j, m := range levels {
		if j > lg {
			continue
		}
		h := m.Rows / r.Count
		out[j] = Matrix[E]{Rows: h, Cols: m.Cols, Data: m.Data[r.Index*h*m.Cols : (r.Index+1)*h*m.Cols], Form: m.Form}
	}
	return out
}

// commitRangesOn builds the commitment over checked matrices by level,
// tall leaves, in the ranges of the plan p over g, then the top levels
// over the p.base finest ranges' roots on the first member. A range
// coarser than the finest builds the levels of its subtree above them
// too, rows merged in as the top merges them; the top builds them again,
// to the same nodes.
func commitRangesOn[E field.Element](g *sched.Group, levels map[int]Matrix[E], tall int, p rangePlan, hs []Hash, rows rowsOf[E], opts Options) (*Tree, error) {
	m := p.base
	lg := bits.Len(uint(tall/m)) - 1
	t := &Tree{hash: rows.hash, leaves: make([][32]byte, tall), nodes: make([][32]byte, tall)}
	o := opts
	o.Timing, o.Progress = nil, nil // the members' timings are summed below
	// A member runs its ranges one after another on its own goroutine, so
	// its slots are its own: its Committer and its ranges' times summed.
	comms := make([]*Committer, g.Len())
	times := make([]wgpu.Timing, g.Len())
	defer func() {
		for _, c := range comms {
			if c != nil {
				c.Release()
			}
		}
	}()
	build := func(member int, ctx *wgpu.Context, i int) error {
		if comms[member] == nil {
			c, err := NewCommitter(ctx, Schedule{{Hash: rows.hash}}, o)
			if err != nil {
				return err
			}
			comms[member] = c
		}
		defer wgpu.Span("merkle commit a range")(0)
		r := p.ranges[i]
		size := tall / r.Count
		lr := bits.Len(uint(size)) - 1
		if err := commitLevels(comms[member], &times[member], t.leaves[r.Index*size:(r.Index+1)*size], t.nodes, hs[:lr], rangeLevels(levels, r, lr), rows, r); err != nil {
			return fmt.Errorf("range %s: %w", r.String(), err)
		}
		return nil
	}
	err := p.run(g, build)
	if err != nil {
		return nil, fmt.Errorf("merkle: %w", err)
	}
	var total, top wgpu.Timing
	for _, tm := range times {
		total = total.Parallel(tm) // a member that took no range is the zero Timing: no work
	}
	// Every range's nodes are in place, the finest ranges' roots among
	// them.
	roots := slices.Clone(t.nodes[m : 2*m])
	if err := commitTop(g.Contexts()[0], comms[0], &top, t.nodes[:m], roots, levels, lg, hs[lg:], rows, o); err != nil {
		return nil, fmt.Errorf("merkle: the top %d levels: %w", bits.Len(uint(m))-1, err)
	}
	if opts.Timing != nil {
		*opts.Timing = total.Add(top)
	}
	return t, nil
}

// commitTop builds the top levels of a commitment into nodes from the
// range roots, the leaves of level base, merging in the rows of the
// matrices by level above base, with c (a Committer on ctx, the first
// member's, or nil when it took no range) or on the CPU for a nil ctx.
func commitTop[E field.Element](ctx *wgpu.Context, c *Committer, total *wgpu.Timing, nodes, roots [][32]byte, levels map[int]Matrix[E], base int, hs []Hash, rows rowsOf[E], opts Options) error {
	defer wgpu.Span("merkle commit the top levels")(0)
	if ctx == nil {
		start := time.Now()
		mergeMatricesCPU(nodes, roots, levels, base, rows)
		*total = wgpu.Timing{Wall: time.Since(start)}
		return nil
	}
	if c == nil {
		var err error
		if c, err = NewCommitter(ctx, Schedule{{Hash: rows.hash}}, opts); err != nil {
			return err
		}
		defer c.Release()
	}
	inj, err := injectionsAbove(c, levels, base, rows)
	if err != nil {
		return err
	}
	return c.levels(total, nodes, roots, nil, hs, nil, base, inj, whole)
}

// A commitment is split over a Group only where the split is predicted
// faster than one device (fastest): a Group's devices may share what feeds
// them. A commitment of many columns is bound by its upload, and where the
// host cannot feed two devices faster than one (as on the two-H100 host of
// BENCHMARKS.md, where a split Goldilocks Poseidon2 commitment of 2^20 x
// 128 measured slower than one device) the second only adds its fixed
// costs. So the decision reads what it measures where it runs: the upload
// rates into one device and into all at once (Group.UploadRates), and the kernel
// time of a permutation in the hash's earlier commitments on these
// devices (learnKernel). Before any, the prediction rests on the upload
// alone, which keeps a commitment bound by its kernels on one device where
// the host cannot feed several faster: not split where the host is the
// bound, at worst a gain missed.

// kernels holds learnKernel's measurements: a permutation's kernel time
// on one device, in nanoseconds, by hash and the Group's first device.
var kernels sync.Map // kernelKey -> float64

type kernelKey struct {
	hash string
	ctx  *wgpu.Context
}

// learnKernel records the kernel time of one permutation of hash in a
// commitment of work permutations that took t on g (its slowest member's
// share plus the top, which Timing.Parallel and Add report): a share's
// kernels times the members, over the work. A timing without timestamps
// teaches nothing.
func learnKernel(g *sched.Group, hash Hash, work int, t wgpu.Timing) {
	if !t.Measured || t.Kernel <= 0 || work <= 0 || g.Contexts()[0] == nil {
		return
	}
	ns := float64(t.Kernel.Nanoseconds()) * float64(g.Len()) / float64(work)
	kernels.Store(kernelKey{hash.Name(), g.Contexts()[0]}, ns)
}

// kernelNanos returns learnKernel's figure for hash on g's first device,
// or 0 where none is known.
func kernelNanos(g *sched.Group, hash Hash) float64 {
	if v, ok := kernels.Load(kernelKey{hash.Name(), g.Contexts()[0]}); ok {
		return v.(float64)
	}
	return 0
}

// splitModel predicts a commitment's time on k devices, the first k of a
// Group: each uploads and hashes its share of the rows, its upload
// overlapping its kernels (the pieces of pieceFill), and each member past
// the first adds its fixed costs.
type splitModel struct {
	bytes  float64       // the elements uploaded
	kernel time.Duration // one device's kernels, 0 where unknown
	// rate[k] is the bytes a second the host uploads into the first k
	// devices at once, all together (rate[1]: into one).
	rate map[int]float64
	// member is what each member past the first adds: its submissions,
	// waits and read-back, its goroutine, its subtree's narrow top
	// levels, and the top's merge of one more root.
	member time.Duration
	// plan returns the busiest member's share of the work on k devices
	// (1/k where the shares are even) and the most ranges a member
	// builds (planRanges); nil: even shares, one range each.
	plan func(k int) (share float64, ranges int)
	// rng is what each range a member builds past its first adds: its
	// subtree's narrow levels and read-backs.
	rng time.Duration
}

// memberCost is splitModel.member: a member's share costs its
// Committer's set-up, a submission, a wait and a read-back of its subtree
// beside its kernels, and its tree ends in levels too narrow to fill its
// GPU (rangePlan). It is the one quantity of the decision not measured
// where it runs: the value that makes the model agree with the two-device
// runs of bench/e2e -what scaling in BENCHMARKS.md, where a BabyBear
// commitment, half the upload of a Goldilocks one and a quarter of its
// kernels, measured slower split over two H200s while the Goldilocks one
// measured faster (TestSplitDecision holds both).
const memberCost = 5 * time.Millisecond

// rangeCost is splitModel.rng: a range past a member's first costs that
// member its subtree's levels too narrow to fill its GPU (a dispatch
// each, whatever the range's size) and a read-back or two. A judgment
// from the three-GPU runs of bench/e2e -what scaling (BENCHMARKS.md,
// "Four GPUs"), whose shares of five and six equal ranges each took
// more kernel time than their leaves' part of one device's, by about this
// much a range.
const rangeCost = time.Millisecond

// time returns the predicted time on k devices: the busiest member's
// share of the kernels or the upload into all at once, whichever is
// longer, each member past the first adding its fixed costs and each
// range past the busiest member's first its own.
func (s splitModel) time(k int) time.Duration {
	up := time.Duration(s.bytes / s.rate[k] * 1e9)
	share, ranges := 1/float64(k), 1
	if s.plan != nil && k > 1 {
		share, ranges = s.plan(k)
	}
	kernel := time.Duration(float64(s.kernel) * share)
	return max(up, kernel) + time.Duration(k-1)*s.member + time.Duration(ranges-1)*s.rng
}

// devices returns the count of devices predicted fastest, 1 or at most
// k: of the counts of sched.SplitCounts (k, or the power of two below it,
// where each device builds one range: planRanges) whose rate into all at
// once is known, the one of the shortest predicted time, where that time
// is faster than one device's by sched.SplitMargin; else 1. The split's
// per-member and per-range costs are in the prediction (time), so no
// split predicted slower than one device, or than the other count, is
// chosen.
func (s splitModel) devices(k int) int {
	if s.bytes <= 0 {
		return 1
	}
	return sched.FastestCount(k, func(j int) (time.Duration, bool) {
		if s.rate[j] <= 0 {
			return 0, false
		}
		return s.time(j), true
	})
}

// fastest returns g, or its first members, as many as the commitment of
// ms is predicted fastest on (splitModel.devices: one where no split is
// predicted faster by sched.SplitMargin). A Group that
// splits all (Group.SplitAll: the tests' forced splits) or has a CPU
// member is returned as it is.
func fastest[E field.Element](g *sched.Group, ms []Matrix[E], hash Hash) *sched.Group {
	k := g.Len()
	if k == 1 || g.Fit(0, 1).Len() == k || slices.Contains(g.Contexts(), nil) {
		return g
	}
	var e E
	rate := maps.Clone(g.UploadRates()) // the Group's map is shared: read only
	for _, j := range sched.SplitCounts(k) {
		if _, ok := rate[j]; !ok {
			if r, ok := g.Fit(j, 1).UploadRates()[j]; ok {
				rate[j] = r
			}
		}
	}
	s := splitModel{rate: rate, member: memberCost, rng: rangeCost}
	tall := 0
	for _, m := range ms {
		if powerOfTwo(m.Rows) && m.Rows <= 1<<40 {
			tall = max(tall, m.Rows)
		}
	}
	alike := g.Alike()
	s.plan = func(k int) (float64, int) { return planRanges(tall, k, alike).busiest(k) }
	for _, m := range ms {
		if m.Rows > 0 && m.Cols > 0 && m.Rows <= 1<<40 && m.Cols <= 1<<20 {
			s.bytes += float64(m.Rows) * float64(m.Cols) * float64(unsafe.Sizeof(e))
		}
	}
	s.kernel = time.Duration(float64(commitWork(ms)) * kernelNanos(g, hash))
	return g.Fit(s.devices(k), 1)
}
