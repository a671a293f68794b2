package merkle

import (
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/wgcompute/wgcompute/internal/base/split"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// A tree splits over a Group's members in ranges, each a subtree built
// whole on one member (rootOn, commitOn): node i is merge(2i, 2i+1)
// all the way down, so a range's subtree is a piece of the whole tree
// wherever it lies, and ranges of different sizes compose as long as
// each is a subtree (Range: a power of two of leaves, aligned to its
// size). Every range costs its member more than its leaves: its tree ends
// in levels too narrow to fill a GPU, each a dispatch whose time does not
// shrink with the range, and a read-back or two of its nodes. So alike
// members get as few ranges as even shares allow: one each where their
// count is a power of two, else a member's share is a sum of a few
// powers of two (its binary digits) of the finest ranges, such as 21, 21
// and 22 sixty-fourths for three (16+4+1, 16+4+1 and 16+4+2: three
// ranges a member, shares within 5% of each other). Equal ranges would
// need 5, 5 and 6 of 16 for the same three members (shares 20% apart,
// five or six ranges a member) or 21, 21 and 22 of 64, each paying its
// narrow levels and read-backs.

// rangePlan is how a tree of a power of two of leaves splits over a
// Group's members.
type rangePlan struct {
	// base is the count of the finest ranges: the top levels merge the
	// base range roots, nodes base..2·base-1 of the tree, on the first
	// member. 1: the one range is the whole tree.
	base int
	// ranges are the subtrees the members build, in the order of their
	// leaves; together they hold every leaf once.
	ranges []split.Range
	// owner[i] is the member that builds ranges[i]; nil where the
	// members are not alike and take the next range as they are free
	// (Group.Each), so that a faster device takes more.
	owner []int
}

// shareSpread is how much more work the busiest of alike members may be
// given than the least busy one (as a fraction of the latter) before a
// deal of more ranges a member is preferred: each range a member takes
// costs its narrow levels and read-backs, and an uneven deal makes the
// others wait for the busiest.
const shareSpread = 0.05

// maxBase is the most ranges a deal over alike members splits a tree
// into: enough for shares within shareSpread for any count of members up
// to about 50.
const maxBase = 1 << 10

// planRanges returns how a tree of n leaves (a power of two) splits over
// k members, alike or not, never into ranges of fewer than two leaves:
// the whole tree on one member where that leaves nothing to split (k or
// n below 2); over alike members the fewest ranges a member for shares
// within shareSpread (dealShares, blocks); else equal ranges, about four
// a member, for Group.Each to hand out.
func planRanges(n, k int, alike bool) rangePlan {
	limit := n / 2 // two leaves a range at least
	if k <= 1 || limit <= 1 {
		return rangePlan{base: 1, ranges: []split.Range{{Index: 0, Count: 1}}, owner: []int{0}}
	}
	if !alike {
		m := min(1<<bits.Len(uint(4*k-1)), limit)
		p := rangePlan{base: m, ranges: make([]split.Range, m)}
		for i := range m {
			p.ranges[i] = split.Range{Index: i, Count: m}
		}
		return p
	}
	m, shares := dealShares(k, limit)
	return blocks(m, shares)
}

// dealKey names a dealShares result in dealCache.
type dealKey struct{ k, limit int }

type deal struct {
	base   int
	shares []int
}

// dealCache holds dealShares' results, which depend on k and the limit
// alone.
var dealCache sync.Map // dealKey -> deal

// dealShares returns a count m of finest ranges (a power of two, at most
// limit and maxBase) and k shares of them, summing to m, in increasing
// order (the first member, which also builds the top, takes the
// smallest): the shares with the fewest binary digits (ranges a member,
// blocks) that are within shareSpread of each other, of the smallest m
// that allows that, and among those the most even. One range each where
// k is a power of two. Where no shares are that even (limit small), the
// finest ranges allowed, dealt as evenly as they go.
func dealShares(k, limit int) (int, []int) {
	limit = min(limit, maxBase)
	key := dealKey{k, limit}
	if v, ok := dealCache.Load(key); ok {
		d := v.(deal)
		return d.base, slices.Clone(d.shares)
	}
	m, shares := findShares(k, limit)
	dealCache.Store(key, deal{m, slices.Clone(shares)})
	return m, shares
}

func findShares(k, limit int) (int, []int) {
	if powerOfTwo(k) && k <= limit {
		shares := make([]int, k)
		for i := range shares {
			shares[i] = 1
		}
		return k, shares
	}
	first := 1 << bits.Len(uint(k-1))
	for digits := 1; digits <= bits.Len(uint(limit)); digits++ {
		for m := first; m <= limit; m *= 2 {
			if s := evenShares(m, k, digits); s != nil {
				return m, s
			}
		}
	}
	m := max(1, limit)
	shares := make([]int, k)
	for i := range shares {
		shares[i] = m*(i+1)/k - m*i/k
	}
	slices.Sort(shares)
	return m, shares
}

// evenShares returns k shares of m, each of at most digits binary digits,
// the largest within shareSpread of the smallest, the most even such
// shares, in increasing order; nil where there are none.
func evenShares(m, k, digits int) []int {
	var best []int
	var bestRatio float64
	for lo := m / k; lo >= 1 && float64(m) <= float64(k*lo)*(1+shareSpread); lo-- {
		for hi := max(lo, (m+k-1)/k); float64(hi) <= float64(lo)*(1+shareSpread); hi++ {
			ratio := float64(hi) / float64(lo)
			if best != nil && ratio >= bestRatio {
				break
			}
			if s := pickShares(m, k, digits, lo, hi); s != nil {
				best, bestRatio = s, ratio
				break
			}
		}
	}
	return best
}

// pickShares returns k values from lo to hi, each of at most digits
// binary digits, that sum to m, in increasing order; nil where there are
// none.
func pickShares(m, k, digits, lo, hi int) []int {
	var vs []int
	for v := lo; v <= hi; v++ {
		if bits.OnesCount(uint(v)) <= digits {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return nil
	}
	// last[j][s] is a value whose pick brings j picks to the sum s, or 0
	// where j picks cannot sum to s.
	last := make([][]int, k+1)
	last[0] = make([]int, m+1)
	last[0][0] = -1
	for j := 1; j <= k; j++ {
		last[j] = make([]int, m+1)
		for s := range m + 1 {
			for _, v := range vs {
				if v <= s && last[j-1][s-v] != 0 {
					last[j][s] = v
					break
				}
			}
		}
	}
	if last[k][m] == 0 {
		return nil
	}
	shares := make([]int, 0, k)
	for j, s := k, m; j > 0; j-- {
		v := last[j][s]
		shares = append(shares, v)
		s -= v
	}
	slices.Sort(shares)
	return shares
}

// blocks returns the plan that gives member i shares[i] of m finest
// ranges as one subtree per binary digit of its share: the subtrees,
// largest first, laid side by side from the first leaf, each then aligned
// to its size.
func blocks(m int, shares []int) rangePlan {
	type block struct{ size, member int }
	var bs []block
	for i, s := range shares {
		for b := bits.Len(uint(s)) - 1; b >= 0; b-- {
			if s&(1<<b) != 0 {
				bs = append(bs, block{1 << b, i})
			}
		}
	}
	slices.SortStableFunc(bs, func(a, b block) int { return b.size - a.size })
	p := rangePlan{base: m}
	at := 0
	for _, b := range bs {
		p.ranges = append(p.ranges, split.Range{Index: at / b.size, Count: m / b.size})
		p.owner = append(p.owner, b.member)
		at += b.size
	}
	return p
}

// perMember returns, for each of k members, how many ranges of the plan
// it builds and its share of the tree's leaves in finest ranges (for a
// plan without owners: the equal shares Group.Each would hand out at
// best).
func (p rangePlan) perMember(k int) (ranges, shares []int) {
	ranges, shares = make([]int, k), make([]int, k)
	for i, r := range p.ranges {
		member := i % k
		if p.owner != nil {
			member = p.owner[i]
		}
		ranges[member]++
		shares[member] += p.base / r.Count
	}
	return ranges, shares
}

// busiest returns the largest share of the plan over k members, as a
// fraction of the tree, and the most ranges a member builds.
func (p rangePlan) busiest(k int) (share float64, ranges int) {
	rs, ss := p.perMember(k)
	return float64(slices.Max(ss)) / float64(p.base), slices.Max(rs)
}

// run runs fn(member, ctx, i) for each range i of the plan over g's
// members: each member its own ranges one after another, or, without
// owners, the next range as each member is free (Group.Each). After an
// error no new range is started; the errors are returned joined, each
// naming its device.
func (p rangePlan) run(g *sched.Group, fn func(member int, ctx *wgpu.Context, i int) error) error {
	if p.owner == nil {
		return g.Each(len(p.ranges), fn)
	}
	var failed atomic.Bool
	// Split of one item a member runs each member once, on its own
	// goroutine.
	return g.Split(g.Len(), 1, func(member int, ctx *wgpu.Context, _, _ int) error {
		for i, o := range p.owner {
			if o != member {
				continue
			}
			if failed.Load() {
				return nil
			}
			if err := fn(member, ctx, i); err != nil {
				failed.Store(true)
				return err
			}
		}
		return nil
	})
}

// topRoot returns the root of the tree whose subtrees the plan's ranges
// are, from their roots (in the plan's order), merged on the host: the
// nodes above the ranges, one fewer than the ranges.
func (p rangePlan) topRoot(hash Hash, roots [][32]byte) [32]byte {
	heap := make([][32]byte, 2*p.base)
	have := make([]bool, 2*p.base)
	for i, r := range p.ranges {
		heap[r.Count+r.Index] = roots[i]
		have[r.Count+r.Index] = true
	}
	for i := p.base - 1; i >= 1; i-- {
		if !have[i] && have[2*i] && have[2*i+1] {
			heap[i] = hash.Merge(heap[2*i], heap[2*i+1])
			have[i] = true
		}
	}
	return heap[1]
}

// regular reports whether the plan's ranges are all of the finest size,
// in order: their roots are then nodes base..2·base-1 of the tree, the
// leaves of its top.
func (p rangePlan) regular() bool {
	for i, r := range p.ranges {
		if r.Count != p.base || r.Index != i {
			return false
		}
	}
	return true
}
