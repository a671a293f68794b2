package vortex

import (
	"math/bits"
	"time"

	"github.com/wgcompute/wgcompute/wgpu"
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
// that is predicted faster than one device by wgpu.SplitMargin (splitModel):
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
}

// memberCost is splitModel.member: a member's submissions, waits and
// goroutine, its subtrees' roots' trip to the first device, and the wait
// for the slowest member. A judgment, not a
// measurement: small beside the shares that split.
const memberCost = 2 * time.Millisecond

// time returns the predicted time on k devices.
func (s splitModel) time(k int) time.Duration {
	up := float64(k) * s.bytes / s.rate[k]
	return time.Duration(up*1e9) + s.cost.encode + s.cost.hash/time.Duration(k) + time.Duration(k-1)*s.member
}

// devices returns the count of devices, 1 or k, predicted fastest: k only
// where it is predicted faster than one by wgpu.SplitMargin, and where both
// rates and the kernels are known.
func (s splitModel) devices(k int) int {
	if k <= 1 || s.rate[1] <= 0 || s.rate[k] <= 0 || s.bytes <= 0 || s.cost.hash <= 0 {
		return 1
	}
	if wgpu.SplitPays(s.time(1), s.time(k)) {
		return k
	}
	return 1
}

// parts returns how many of c's devices a commitment of rows rows splits
// over: all of them where splitModel predicts that faster, or where the
// Group splits all (Group.SplitAll: the tests' forced splits), else one.
func (c *Committer) parts(rows int) int {
	k := c.g.Len()
	if k == 1 || splitUnit(c.p.SizeCodeWord(), k) == 0 {
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
	s := splitModel{
		bytes: float64(rows) * float64(c.p.NumColumns()) * 4,
		cost:  cost, rate: c.g.UploadRates(), member: memberCost,
	}
	return s.devices(k)
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
// that the shares are even to within a few percent; 0 where that would
// be under 16 columns (a share's leaves and UAlpha start at 256-byte
// aligned offsets), which keeps the commitment on one device.
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
