package vortex

import (
	"maps"
	"math/bits"
	"time"

	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// A commitment splits its codewords' columns over a Committer's devices:
// each device's share a range of whole column tiles, their SIS digests,
// leaves and subtrees (of splitUnit columns each); the subtrees' roots
// cross the host to the first device, which builds the tree's top.
// Every codeword column depends on a whole row, so every device uploads
// and encodes every row: the split shares the columns' hashes (SIS and the
// leaves' sponge), not the upload or the encoding, and it pays where the
// hashes outweigh what it repeats: matrices of few rows and many columns.
// (Splitting the rows instead would share the upload and the encoding,
// but each device's SIS sums over its rows would then cross the host, a
// matrix's worth of digests: WebGPU has no copies between devices.)
//
// So a commitment splits over all of a Committer's devices only where
// that is predicted faster than one device by sched.SplitMargin (splitModel):
// from the upload rates measured on the devices (Group.UploadRates) and
// the kernel times of the Committer's earlier commitments of that many
// rows. The first commitment of a row count runs on one device and
// teaches the model.

// kernelCost is one device's kernels in a commitment: the encoding, which
// every device of a split repeats, and the columns' hashes (SIS and the
// leaves), which a split shares out.
type kernelCost struct {
	encode, hash time.Duration
}

// splitModel predicts a commitment's time on k devices: the uploads of
// every row into each device (at the rate the host feeds k devices at
// once), the encoding, the device's share of the hashes, and each
// member's fixed costs. The uploads and the kernels are summed: a
// device's one queue runs its copies and its kernels one after the other.
type splitModel struct {
	bytes float64 // the rows
	cost  kernelCost
	// rate[k] is the bytes a second the host uploads into k devices at
	// once, all together (rate[1]: into one).
	rate map[int]float64
	// member is what each member past the first adds.
	member time.Duration
	// share returns the busiest device's share of the columns over k
	// devices (Group.Ranges of splitUnit's units); nil: 1/k.
	share func(k int) float64
}

// memberCost is splitModel.member: a member's submissions, waits and
// goroutine, its subtrees' roots' trip to the first device, and the wait
// for the slowest member. A judgment, not a
// measurement: small beside the shares that split.
const memberCost = 2 * time.Millisecond

// time returns the predicted time on k devices, the hashes of the
// busiest device's share.
func (s splitModel) time(k int) time.Duration {
	up := float64(k) * s.bytes / s.rate[k]
	share := 1 / float64(k)
	if s.share != nil && k > 1 {
		share = s.share(k)
	}
	hash := time.Duration(float64(s.cost.hash) * share)
	return time.Duration(up*1e9) + s.cost.encode + hash + time.Duration(k-1)*s.member
}

// devices returns the count of devices predicted fastest, 1 or at most k:
// of the counts of sched.SplitCounts (k, or the power of two below it)
// whose rate into all at once is known, the one of the shortest predicted
// time, where that is faster than one device's by sched.SplitMargin and
// the kernels are known; else 1. No split predicted slower than one
// device, or than the other count, is chosen.
func (s splitModel) devices(k int) int {
	if s.bytes <= 0 || s.cost.hash <= 0 {
		return 1
	}
	return sched.FastestCount(k, func(j int) (time.Duration, bool) {
		if s.rate[j] <= 0 {
			return 0, false
		}
		return s.time(j), true
	})
}

// parts returns how many of c's devices (its first ones) a commitment of
// rows rows splits over: as many as splitModel predicts fastest, or all
// where the Group splits all (Group.SplitAll: the tests' forced splits);
// one where the codewords are too narrow to share (splitUnit).
func (c *Committer) parts(rows int) int {
	k := c.g.Len()
	m := c.p.SizeCodeWord()
	if k == 1 || splitUnit(m, k) == 0 {
		return 1
	}
	if c.g.Fit(0, 1).Len() == k {
		return k
	}
	c.mu.Lock()
	cost, ok := c.learnt[rows]
	c.mu.Unlock()
	if !ok {
		return 1
	}
	rate := maps.Clone(c.g.UploadRates()) // the Group's map is shared: read only
	for _, j := range sched.SplitCounts(k) {
		if _, ok := rate[j]; !ok && splitUnit(m, j) > 0 {
			if r, ok := c.g.Fit(j, 1).UploadRates()[j]; ok {
				rate[j] = r
			}
		}
	}
	s := splitModel{
		bytes: float64(rows) * float64(c.p.NumColumns()) * 4,
		cost:  cost, rate: rate, member: memberCost,
		share: func(k int) float64 { return busiestShare(c.g.Fit(k, 1), m) },
	}
	return s.devices(k)
}

// busiestShare returns the largest share of m codeword columns that g's
// devices take (Group.Ranges of splitUnit's units), as a fraction of m;
// 1 where m does not split over them.
func busiestShare(g *sched.Group, m int) float64 {
	u := splitUnit(m, g.Len())
	if u == 0 || m <= 0 {
		return 1
	}
	b := g.Ranges(m, u)
	most := 0
	for i := range g.Len() {
		most = max(most, b[i+1]-b[i])
	}
	return float64(most) / float64(m)
}

// learn records one device's kernels in a commitment of rows rows. It
// keeps at most learntShapes row counts: a prover that meets more forgets
// one, which its next commitment of that count learns again on one device.
func (c *Committer) learn(rows int, cost kernelCost) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.learnt[rows]; !ok && len(c.learnt) >= learntShapes {
		for r := range c.learnt {
			delete(c.learnt, r)
			break
		}
	}
	c.learnt[rows] = cost
}

// learntShapes is how many row counts a Committer keeps kernel times of.
const learntShapes = 64

// splitUnit returns the columns that the shares of m codeword columns
// over k devices are whole multiples of (Group.Ranges' align): m/k for a
// power-of-two k, else a sixteenth of m over the next power of two, so
// that the shares are even to within a few percent (21 and 22 of 64 units
// for three devices, 25 and 26 of 128 for five, 21 and 22 for six, 18
// and 19 for seven); 0 where that would be under 16 columns (a share's
// leaves and UAlpha start at 256-byte aligned offsets), which keeps the
// commitment on one device. Many units a share cost little, unlike a
// Merkle tree's ranges: a share's subtrees of a unit each are built side
// by side, one dispatch a level for all of them, and their roots read
// back in one download; what grows with them is the share's column
// tiles (no wider than a unit), a few dispatches each.
func splitUnit(m, k int) int {
	if k < 1 {
		return 0
	}
	u := m >> bits.Len(uint(k-1))
	if k&(k-1) != 0 {
		u /= 16
	}
	if u < 16 {
		return 0
	}
	return u
}
