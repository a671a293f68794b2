package vortex

import (
	"fmt"
	"sync"

	"github.com/consensys/gnark-crypto/field/koalabear"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/ntt"
	"github.com/wgcompute/wgcompute/algos/sis"
	"github.com/wgcompute/wgcompute/wgpu"
)

// Committer commits to matrices of one Params on one device, again and
// again: the kernels, the NTT tables, the SIS key and the device buffers
// stay between commitments, and a released ProverState's buffers serve
// the next one (those of the last two commitments are kept: a shape met
// again after that allocates anew). A prover that commits once a round
// keeps one; Commit
// makes one for each call. Its methods may be called from several
// goroutines; the commitments run one at a time. Release frees it.
type Committer struct {
	ctx      *wgpu.Context
	p        *Params
	copyKern *wgpu.Kernel
	// checkKern finds the rows' first element that is not reduced.
	checkKern *wgpu.Kernel
	ext       *ntt.Extender

	// run is held for a commitment: the Extender's scratch is shared.
	run sync.Mutex

	mu   sync.Mutex
	sis  map[int]*sis.Resident // by row count
	free map[uint64][]pooled   // by size
	// gen counts the commitments begun; a buffer not given back during
	// the last keptCommitments is freed when the next begins.
	gen uint64
	// closed is set by Release: buffers given back after are freed.
	closed bool
}

// pooled is a buffer given back, and the commitment it was given back
// during (Committer.gen).
type pooled struct {
	b   *wgpu.Buffer
	gen uint64
}

// keptCommitments is how many commitments' buffers a Committer keeps:
// two, so that a prover alternating between two shapes allocates nothing,
// and one that moves through many keeps no more than two shapes' worth.
const keptCommitments = 2

// largeMatrix is the size of the rows from which a Committer asks its
// Context for staging slots of largeStagingSlot bytes.
const (
	largeMatrix      = 1 << 30
	largeStagingSlot = 64 << 20
)

// NewCommitter returns the Committer of p's commitments on ctx (not nil:
// the CPU path, gnark-crypto's, keeps nothing between calls).
func NewCommitter(ctx *wgpu.Context, p *Params) (*Committer, error) {
	return newCommitter(ctx, p, true)
}

// newCommitter is NewCommitter; repeated says whether commitments will
// follow one another, for which large matrices take larger staging slots.
func newCommitter(ctx *wgpu.Context, p *Params, repeated bool) (*Committer, error) {
	if p == nil {
		return nil, fmt.Errorf("vortex: no parameters: make them with NewParams")
	}
	if ctx == nil {
		return nil, fmt.Errorf("vortex: a Committer needs a GPU Context: a nil Context commits with gnark-crypto (Commit)")
	}
	ck, err := kernel(ctx, "vortex.wgsl", "vortex_copy", 2)
	if err != nil {
		return nil, err
	}
	chk, err := kernel(ctx, "vortex_check.wgsl", "vortex_check", 2)
	if err != nil {
		return nil, err
	}
	ext, err := ntt.NewExtender(ctx, field.KoalaBear, p.logN, ntt.ExtendOptions{Rate: p.Rate()})
	if err != nil {
		return nil, fmt.Errorf("vortex: %w", err)
	}
	if repeated && uint64(p.MaxRows())*uint64(p.NumColumns())*4 >= largeMatrix {
		// Gigabytes go up each commitment: larger staging slots move
		// them faster once made.
		if err := ctx.GrowStaging(largeStagingSlot); err != nil {
			ext.Release()
			return nil, fmt.Errorf("vortex: %w", err)
		}
	}
	return &Committer{ctx: ctx, p: p, copyKern: ck, checkKern: chk, ext: ext, sis: map[int]*sis.Resident{}, free: map[uint64][]pooled{}}, nil
}

// Params returns the parameters c commits with.
func (c *Committer) Params() *Params { return c.p }

// Commit commits to rows (each p.NumColumns() elements, at most
// p.MaxRows() of them) as the package's Commit does, on c's device with
// its resident tables and buffers. Rows that lie one after another in
// memory go up in one transfer.
func (c *Committer) Commit(rows [][]koalabear.Element, opts Options) (*ProverState, error) {
	rs, err := rowsOf(c.p, rows)
	if err != nil {
		return nil, err
	}
	return c.commit(rs, opts)
}

// commit is Commit on rows of the right shape. Their elements are
// checked on the device as they arrive (vortex_check.wgsl): one that is
// not reduced makes the kernels compute nonsense, which is thrown away.
func (c *Committer) commit(rows [][]koalabear.Element, opts Options) (*ProverState, error) {
	c.run.Lock()
	defer c.run.Unlock()
	c.mu.Lock()
	closed := c.closed
	if !closed {
		c.gen++
		c.trim()
	}
	c.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("vortex: the Committer was released")
	}
	defer wgpu.Span("vortex: commit")(0)
	dev, root, err := c.commitGPU(rows, opts)
	if err != nil {
		return nil, err
	}
	return &ProverState{p: c.p, root: root, dev: dev}, nil
}

// Release frees c's tables and the buffers it keeps; states it made stay
// valid and free their own buffers on their Release.
func (c *Committer) Release() {
	if c == nil {
		return
	}
	c.run.Lock()
	defer c.run.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	c.ext.Release()
	for _, r := range c.sis {
		r.Release()
	}
	for _, bs := range c.free {
		for _, p := range bs {
			p.b.Release()
		}
	}
	c.sis, c.free = nil, nil
}

// trim frees the buffers not given back during the last keptCommitments
// commitments (c.mu held).
func (c *Committer) trim() {
	for size, bs := range c.free {
		kept := bs[:0]
		for _, p := range bs {
			if p.gen+keptCommitments >= c.gen {
				kept = append(kept, p)
			} else {
				p.b.Release()
			}
		}
		if len(kept) == 0 {
			delete(c.free, size)
		} else {
			c.free[size] = kept
		}
	}
}

// sisFor returns the resident SIS key of columns of rows elements.
func (c *Committer) sisFor(rows int) (*sis.Resident, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r := c.sis[rows]; r != nil {
		return r, nil
	}
	r, err := c.p.key.NewResident(c.ctx, rows)
	if err != nil {
		return nil, fmt.Errorf("vortex: %w", err)
	}
	c.sis[rows] = r
	return r, nil
}

// get returns a buffer of size bytes: one given back before, or a new one.
// Its contents are whatever was last written: every user writes a
// buffer whole before reading it.
func (c *Committer) get(label string, size uint64) (*wgpu.Buffer, error) {
	c.mu.Lock()
	if bs := c.free[size]; len(bs) > 0 {
		b := bs[len(bs)-1].b
		c.free[size] = bs[:len(bs)-1]
		c.mu.Unlock()
		return b, nil
	}
	c.mu.Unlock()
	b, err := c.ctx.NewBuffer(label, size)
	if err != nil {
		return nil, fmt.Errorf("vortex: %w", err)
	}
	return b, nil
}

// put gives buffers back for the next commitment, or frees them once c
// is released.
func (c *Committer) put(bs ...*wgpu.Buffer) {
	if len(bs) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range bs {
		if b == nil {
			continue
		}
		if c.closed {
			b.Release()
			continue
		}
		c.free[b.Size()] = append(c.free[b.Size()], pooled{b, c.gen})
	}
}
