package vortex

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/field/koalabear"
	gvortex "github.com/consensys/gnark-crypto/field/koalabear/vortex"
	"github.com/stretchr/testify/require"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// groupShapes are split over 2, 3 and 7 devices where their codewords
// are wide enough (splitUnit), several tiles a share under the small
// limits of every other member.
var groupShapes = []shape{
	{16, 9, 2, smallSIS},
	{3, 12, 2, vortexSIS},
	{2, 11, 2, smallSIS}, // leaves past a binding
	{37, 10, 4, midSIS},
	{5, 8, 8, smallSIS},
}

// TestCommitOnGroup holds a Committer on a Group, its commitment split
// over the members, to gnark-crypto: root, codewords, digests, tree,
// openings and Verify; a bad element is named; nothing is left on the
// devices.
func TestCommitOnGroup(t *testing.T) {
	gputest.ForEachGroup(t, func(t *testing.T, g *sched.Group) {
		s1, s2 := rand.Uint64(), rand.Uint64()
		t.Logf("seed %d, %d", s1, s2)
		rng := rand.New(rand.NewPCG(s1, s2))
		live := func() map[*wgpu.Context]int {
			n := map[*wgpu.Context]int{}
			for _, ctx := range g.Contexts() {
				n[ctx] = ctx.LiveBuffers()
			}
			return n
		}
		before := live()
		for _, s := range groupShapes {
			m := s.rate << s.logN
			want := 1
			if splitUnit(m, g.Len()) > 0 {
				want = g.Len()
			}
			t.Run(fmt.Sprintf("%v/%d_shares", s, want), func(t *testing.T) {
				var c *Committer
				defer func() { c.Release() }()
				checkCommit(t, s, rng, func(p *Params, _ []koalabear.Element, rows [][]koalabear.Element, st *Stages) (*ProverState, error) {
					var err error
					if c, err = NewCommitter(g, p); err != nil {
						return nil, err
					}
					got, err := c.Commit(rows, Options{Stages: st})
					if err == nil {
						require.Len(t, got.dev.parts, want, "shares")
					}
					return got, err
				})
				// A bad element, in a row every device uploads, is named.
				rows := split(randMatrix(rng, s.rows, 1<<s.logN), s.rows)
				r, j := rng.IntN(s.rows), rng.IntN(1<<s.logN)
				rows[r][j][0] = 2130706433 + 7
				_, err := c.Commit(rows, Options{})
				require.ErrorContains(t, err, fmt.Sprintf("element (%d, %d) is 2130706440", r, j))
			})
		}
		require.Equal(t, before, live(), "live buffers once the Committers and states are released")
	})
}

// TestCommitOnGroupsOfFiveAndSix holds commitments split over five and
// six devices (every other one of small limits), the counts
// TestCommitOnGroup's Groups leave out, to gnark-crypto (shares of 25 or
// 26 and 21 or 22 of 128 units); nothing is left on the devices.
func TestCommitOnGroupsOfFiveAndSix(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, b := range gputest.Backends() {
		for _, k := range []int{5, 6} {
			t.Run(fmt.Sprintf("%s/%d", b, k), func(t *testing.T) {
				members := make([]*wgpu.Context, k)
				for i := range members {
					members[i] = gputest.Context(t, b)
					if i%2 == 1 {
						members[i] = gputest.Limited(t, b, gputest.SmallLimits)
					}
				}
				g, err := sched.NewGroup(members...)
				require.NoError(t, err)
				g = g.SplitAll()
				live := func() map[*wgpu.Context]int {
					n := map[*wgpu.Context]int{}
					for _, ctx := range members {
						n[ctx] = ctx.LiveBuffers()
					}
					return n
				}
				before := live()
				for _, s := range []shape{{3, 12, 2, vortexSIS}, {37, 10, 4, midSIS}, {5, 8, 8, smallSIS}} {
					require.NotZero(t, splitUnit(s.rate<<s.logN, k), "%v", s)
					var c *Committer
					checkCommit(t, s, rng, func(p *Params, _ []koalabear.Element, rows [][]koalabear.Element, st *Stages) (*ProverState, error) {
						var err error
						if c, err = NewCommitter(g, p); err != nil {
							return nil, err
						}
						got, err := c.Commit(rows, Options{Stages: st})
						if err == nil {
							require.Len(t, got.dev.parts, k, "shares")
						}
						return got, err
					})
					c.Release()
				}
				require.Equal(t, before, live(), "live buffers once the Committers and states are released")
			})
		}
	}
}

// TestSplitDecision holds the split's model to the decisions it should
// make on two devices whose host feeds both at 1.5 times one's rate:
// BenchmarkVortexReal's shape, whose upload and encoding every device
// repeats, stays on one; a matrix of 16 rows of 2^22, whose leaves
// dominate, splits; nothing splits before its kernels are known.
func TestSplitDecision(t *testing.T) {
	rate := map[int]float64{1: 40e9, 2: 60e9}
	ms := time.Millisecond
	for _, c := range []struct {
		name             string
		rows, logN       int
		encode, hash     time.Duration
		devices, k, want int
	}{
		{"real", 1 << 11, 19, 69 * ms, 38 * ms, 2, 2, 1},
		{"wide", 16, 22, 5 * ms, 155 * ms, 2, 2, 2},
		{"wide, unknown kernels", 16, 22, 0, 0, 2, 2, 1},
		{"one device", 16, 22, 5 * ms, 155 * ms, 1, 1, 1},
	} {
		s := splitModel{
			bytes: float64(c.rows) * float64(int(1)<<c.logN) * 4,
			cost:  kernelCost{c.encode, c.hash}, rate: rate, member: memberCost,
		}
		require.Equal(t, c.want, s.devices(c.k), "%s: predicted %v on one, %v on %d", c.name, s.time(1), s.time(c.k), c.k)
	}
}

// TestSplitUnit checks the shares' unit: even halves and quarters, fine
// units for three, none under 16 columns.
func TestSplitUnit(t *testing.T) {
	for _, c := range [][3]int{{1 << 20, 1, 1 << 20}, {1 << 20, 2, 1 << 19}, {1 << 20, 4, 1 << 18}, {1 << 20, 3, 1 << 14}, {1 << 20, 7, 1 << 13}, {32, 2, 16}, {16, 2, 0}, {1 << 10, 3, 16}, {1 << 9, 3, 0}} {
		require.Equal(t, c[2], splitUnit(c[0], c[1]), "%d columns over %d", c[0], c[1])
	}
}

// TestSplitShares: the shares of the codeword columns over 3, 5, 6 and 7
// devices (Group.Ranges of splitUnit's units) are within 6% of each other
// wherever the codewords split, and the model's busiest share is the
// largest of them.
func TestSplitShares(t *testing.T) {
	for _, k := range []int{2, 3, 4, 5, 6, 7} {
		g, err := sched.NewGroup(make([]*wgpu.Context, k)...)
		require.NoError(t, err)
		for lg := 8; lg <= 26; lg++ {
			m := 1 << lg
			u := splitUnit(m, k)
			if u == 0 {
				require.Equal(t, 1.0, busiestShare(g, m))
				continue
			}
			b := g.Ranges(m, u)
			least, most := m, 0
			for i := range k {
				least, most = min(least, b[i+1]-b[i]), max(most, b[i+1]-b[i])
				require.Zero(t, (b[i+1]-b[i])%u)
			}
			require.LessOrEqual(t, float64(most)/float64(least)-1, 0.06, "%d columns over %d devices: %v", m, k, b)
			require.Equal(t, float64(most)/float64(m), busiestShare(g, m))
		}
	}
}

// TestSplitDecisionThree: on three devices the model weighs the busiest
// device's share of the hashes and the power of two below, two devices:
// a wide matrix, its hashes dominant, splits over three; one whose
// upload into three is no faster than into two goes to two (to three
// where the rate into two is unknown); the Real
// shape, its upload and encoding repeated on every device, stays on one.
func TestSplitDecisionThree(t *testing.T) {
	ms := time.Millisecond
	g, err := sched.NewGroup(nil, nil, nil)
	require.NoError(t, err)
	for _, c := range []struct {
		name         string
		rows, logN   int
		encode, hash time.Duration
		rate         map[int]float64
		want         int
	}{
		{"wide", 16, 22, 5 * ms, 155 * ms, map[int]float64{1: 40e9, 2: 60e9, 3: 66e9}, 3},
		{"the host feeds two", 256, 20, 10 * ms, 60 * ms, map[int]float64{1: 40e9, 2: 80e9, 3: 80e9}, 2},
		{"the rate into two unknown", 256, 20, 10 * ms, 60 * ms, map[int]float64{1: 40e9, 3: 80e9}, 3},
		{"real", 1 << 11, 19, 69 * ms, 38 * ms, map[int]float64{1: 40e9, 2: 60e9, 3: 66e9}, 1},
	} {
		m := 2 << c.logN
		s := splitModel{
			bytes: float64(c.rows) * float64(int(1)<<c.logN) * 4,
			cost:  kernelCost{c.encode, c.hash}, rate: c.rate, member: memberCost,
			share: func(k int) float64 { return busiestShare(g.Fit(k, 1), m) },
		}
		require.Equal(t, c.want, s.devices(3), "%s: predicted %v on one, %v on two, %v on three", c.name, s.time(1), s.time(2), s.time(3))
	}
}

// TestSplitNeverSlower: over random shapes, kernel times, rates and
// counts of devices, the decision never picks a count predicted slower
// than one device or than another count it weighs, and picks a split
// only where it is predicted faster than one device by sched.SplitMargin.
func TestSplitNeverSlower(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	g, err := sched.NewGroup(make([]*wgpu.Context, 8)...)
	require.NoError(t, err)
	for range 20000 {
		k := 2 + r.IntN(7)
		m := 1 << (10 + r.IntN(14))
		rate := map[int]float64{1: 5e9 + r.Float64()*50e9}
		for _, j := range sched.SplitCounts(k) {
			if r.IntN(8) != 0 {
				rate[j] = rate[1] * (0.5 + r.Float64()*float64(j))
			}
		}
		s := splitModel{
			bytes: float64(1+r.IntN(4096)) * float64(m) * 2,
			cost:  kernelCost{time.Duration(r.Int64N(int64(time.Second / 4))), time.Duration(r.Int64N(int64(time.Second)))},
			rate:  rate, member: memberCost,
			share: func(k int) float64 { return busiestShare(g.Fit(k, 1), m) },
		}
		got := s.devices(k)
		if got == 1 {
			continue
		}
		require.True(t, sched.SplitPays(s.time(1), s.time(got)), "k %d m %d: %d devices predicted %v, one %v", k, m, got, s.time(got), s.time(1))
		for _, j := range sched.SplitCounts(k) {
			if rate[j] > 0 {
				require.LessOrEqual(t, s.time(got), s.time(j), "k %d m %d: %d devices predicted %v, %d devices %v", k, m, got, s.time(got), j, s.time(j))
			}
		}
	}
}

// TestCommitOnDevices splits commitments over every adapter of the
// machine's backend, where it has several (the GPU machine's), and holds
// them to gnark-crypto as TestCommitOnGroup does.
func TestCommitOnDevices(t *testing.T) {
	o := gputest.Options(t, gputest.Backends()[0])
	o.Devices = "all"
	g, err := sched.OpenGroup(o)
	require.NoError(t, err)
	defer g.Close()
	if g.Len() < 2 {
		t.Skipf("one device of backend %q: TestCommitOnGroup splits over several on one", o.Backend)
	}
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	for _, s := range append(groupShapes, shape{64, 14, 2, vortexSIS}) {
		t.Run(s.String(), func(t *testing.T) {
			var c *Committer
			defer func() { c.Release() }()
			checkCommit(t, s, rng, func(p *Params, _ []koalabear.Element, rows [][]koalabear.Element, st *Stages) (*ProverState, error) {
				var err error
				if c, err = NewCommitter(g.SplitAll(), p); err != nil {
					return nil, err
				}
				got, err := c.Commit(rows, Options{Stages: st})
				if err == nil {
					require.Len(t, got.dev.parts, g.Len(), "shares")
				}
				return got, err
			})
		})
	}
}

// TestPieces checks the cut of a job into bindings: whole where it fits,
// else equal power-of-two pieces that cover it, for sizes that are not
// powers of two too (a share of 21 subtrees' level).
func TestPieces(t *testing.T) {
	for _, c := range []struct{ limit, size, step uint64 }{
		{1 << 20, 21 << 10, 21 << 10},
		{4096, 21 << 10, 1024},
		{1 << 16, 1 << 20, 1 << 16},
		{1 << 14, 3 << 14, 1 << 14},
		{1 << 16, 3 << 14, 3 << 14},
		{1 << 16, 1 << 16, 1 << 16},
	} {
		var got []uint64
		pieces(c.limit, c.size, func(off, size uint64) wgpu.Dispatch {
			require.Equal(t, c.step, size, "%v", c)
			got = append(got, off)
			return wgpu.Dispatch{}
		})
		require.Len(t, got, int(c.size/c.step), "%v", c)
		for i, off := range got {
			require.Equal(t, uint64(i)*c.step, off, "%v", c)
		}
	}
}

// TestCommitterLearns: a Committer on a Group that decides for itself
// commits a row count's first matrix on one device and learns its
// kernels from it; whatever it decides after, the roots are gnark-crypto's.
func TestCommitterLearns(t *testing.T) {
	b := gputest.Backends()[0]
	g, err := sched.NewGroup(gputest.Context(t, b), gputest.Context(t, b))
	require.NoError(t, err)
	p, err := NewParams(1<<10, 8, 2, vortexSIS, 3)
	require.NoError(t, err)
	c, err := NewCommitter(g, p)
	require.NoError(t, err)
	defer c.Release()
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	for k := range 3 {
		rows := split(randMatrix(rng, 8, 1<<10), 8)
		want, err := gvortex.Commit(p.Gnark(), rows)
		require.NoError(t, err)
		st, err := c.Commit(rows, Options{})
		require.NoError(t, err)
		require.Equal(t, want.GetCommitment(), st.Root(), "commitment %d", k)
		if k == 0 {
			require.Len(t, st.dev.parts, 1, "the first commitment's shares")
			c.mu.Lock()
			cost := c.learnt[8]
			c.mu.Unlock()
			require.Positive(t, cost.hash, "the hashes' time learnt")
		}
		st.Release()
	}
}

// TestLeavesPastABuffer: a device whose buffers cannot hold its share's
// leaves refuses the commitment, saying so, and keeps nothing.
func TestLeavesPastABuffer(t *testing.T) {
	ctx := gputest.Limited(t, gputest.Backends()[0], gputest.SmallLimits)
	p, err := NewParams(1<<13, 1, 2, smallSIS, 3)
	require.NoError(t, err)
	gputest.NoLeaks(t, ctx, func() error {
		_, err := Commit(ctx, p, randMatrix(rand.New(rand.NewPCG(1, 2)), 1, 1<<13), Options{})
		require.ErrorContains(t, err, "the tree's 16384 leaves (of this device's share) exceed the device's buffer of 262144 bytes")
		return nil
	})
}

// TestLearnIsBounded: a Committer that meets many row counts keeps the
// kernel times of learntShapes of them, the latest among them.
func TestLearnIsBounded(t *testing.T) {
	c := &Committer{learnt: map[int]kernelCost{}}
	for rows := 1; rows <= 3*learntShapes; rows++ {
		c.learn(rows, kernelCost{hash: time.Duration(rows)})
	}
	require.Len(t, c.learnt, learntShapes)
	require.Equal(t, time.Duration(3*learntShapes), c.learnt[3*learntShapes].hash)
}

// TestCommitTarget: Commit takes any target: a Group of one is its
// member, a Group of several splits the commitment (here two members on
// one device), nil is gnark-crypto on the CPU, each with the same root;
// a LineaCommitter runs on one device and refuses a Group of several.
func TestCommitTarget(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		p, err := NewParams(1<<9, 16, 2, smallSIS, 4)
		require.NoError(t, err)
		rows := split(randMatrix(rand.New(rand.NewPCG(9, 10)), 13, 1<<9), 13)
		want, err := Commit(nil, p, rows, Options{})
		require.NoError(t, err)
		one, err := sched.NewGroup(ctx)
		require.NoError(t, err)
		two, err := sched.NewGroup(ctx, ctx)
		require.NoError(t, err)
		for name, target := range map[string]wgpu.Target{"context": ctx, "group of one": one, "group of two": two} {
			got, err := Commit(target, p, rows, Options{})
			require.NoError(t, err, name)
			require.Equal(t, want.Root(), got.Root(), name)
			got.Release()
		}
		lp, err := NewLineaParams(2, 64, 8, 9, 16)
		require.NoError(t, err)
		_, err = NewLineaCommitter(two, lp)
		require.EqualError(t, err, "vortex: a LineaCommitter runs on one device: give a Context, a Group of one or nil (the CPU), not a Group of 2")
		c, err := NewLineaCommitter(one, lp)
		require.NoError(t, err)
		c.Release()
	})
}
