package vortex

import (
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/consensys/gnark-crypto/field/koalabear"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/ntt"
	"github.com/wgcompute/wgcompute/algos/sis"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// Committer commits to matrices of one Params on one device or on the
// devices of a Group, again and again: the kernels, the NTT tables, the
// SIS keys and the device buffers stay between commitments, and a
// released ProverState's buffers serve the next one (those of the last
// two commitments are kept: a shape met again after that allocates
// anew). A prover that commits once a round keeps one; Commit makes one
// for each call. Its methods may be called from several goroutines; the
// commitments run one at a time. Release frees it at once; a Committer
// that becomes unreachable without Release is freed then, as the garbage
// collector finds it (runtime.AddCleanup). The states it made stay valid
// either way.
//
// A Committer of a nil Context (NewCommitter(nil, p)) commits with
// gnark-crypto's vortex.Commit on all cores and keeps nothing.
//
// On a Group, a commitment splits its columns over the devices where that
// is predicted faster than one device (see split.go), with the same bits.
type Committer struct {
	g    *sched.Group // nil for the CPU
	p    *Params
	devs []*member // one a member of g, in order
	// cleanup releases devs once c is unreachable; Release stops it.
	cleanup runtime.Cleanup

	// run is held for a commitment: the Extenders' scratch is shared.
	run sync.Mutex

	mu sync.Mutex
	// closed is set by Release.
	closed bool
	// learnt is what one device's kernels took in earlier commitments, by
	// row count: what the split decision weighs.
	learnt map[int]kernelCost
}

// member is a Committer's state on one device: its kernels, Extender,
// SIS keys and buffers.
type member struct {
	ctx      *wgpu.Context
	p        *Params
	copyKern *wgpu.Kernel
	ext      *ntt.Extender

	mu   sync.Mutex
	sis  map[int]*sis.Resident // by row count
	free map[uint64][]pooled   // by size
	// gen counts the commitments begun; a buffer not given back during
	// the last keptCommitments is freed when the next begins.
	gen uint64
	// closed is set by release: buffers given back after are freed.
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

// NewCommitter returns the Committer of p's commitments on t: a Context's
// GPU, or the devices of a Group (no CPU member), each set up at once, a
// commitment split over them where that is predicted faster than one
// device (a Context is a Group of one); a Group stays open while the
// Committer is used, and Release leaves it open. A nil t commits with
// gnark-crypto's vortex.Commit on all cores, keeping nothing between
// calls.
func NewCommitter(t wgpu.Target, p *Params) (*Committer, error) {
	if ctx, one := sched.Device(t); one && ctx == nil {
		if p == nil {
			return nil, fmt.Errorf("vortex: no parameters: make them with NewParams or FromGnark")
		}
		return &Committer{p: p}, nil
	}
	return newCommitter(sched.GroupOf(t), p, true)
}

// newCommitter is NewCommitter on g; repeated says whether commitments will
// follow one another, for which large matrices take larger staging slots.
func newCommitter(g *sched.Group, p *Params, repeated bool) (*Committer, error) {
	if p == nil {
		return nil, fmt.Errorf("vortex: no parameters: make them with NewParams or FromGnark")
	}
	if g == nil || g.Len() == 0 || slices.Contains(g.Contexts(), nil) {
		return nil, fmt.Errorf("vortex: a Group's Committer needs GPU Contexts: the CPU commits with gnark-crypto (NewCommitter or Commit with a nil target)")
	}
	c := &Committer{g: g, p: p, devs: make([]*member, g.Len()), learnt: map[int]kernelCost{}}
	err := g.Setup(func(i int, ctx *wgpu.Context) error {
		var err error
		c.devs[i], err = newMember(ctx, p, repeated)
		return err
	})
	if err != nil {
		for _, d := range c.devs {
			d.release()
		}
		return nil, err
	}
	// The cleanup holds the members, never c: they hold nothing of c.
	c.cleanup = runtime.AddCleanup(c, releaseMembers, c.devs)
	return c, nil
}

// releaseMembers frees the members' tables and kept buffers.
func releaseMembers(devs []*member) {
	for _, d := range devs {
		d.release()
	}
}

// newMember sets p's commitments up on ctx.
func newMember(ctx *wgpu.Context, p *Params, repeated bool) (*member, error) {
	ck, err := copyKernel(ctx)
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
	return &member{ctx: ctx, p: p, copyKern: ck, ext: ext, sis: map[int]*sis.Resident{}, free: map[uint64][]pooled{}}, nil
}

// Evict frees the device memory c keeps for later commitments: the
// buffers of earlier commitments' shapes (those of states still open stay
// theirs until released) and the resident SIS keys of every row count
// but keep (0: of every one); the kernels and tables stay. A prover that
// moves on from a shape calls it, as Linea's prover evicts its pipeline
// cache; the next commitment allocates what it needs again.
func (c *Committer) Evict(keep int) {
	c.run.Lock()
	defer c.run.Unlock()
	for _, d := range c.devs {
		d.evict(keep)
	}
}

// Params returns the parameters c commits with.
func (c *Committer) Params() *Params { return c.p }

// Commit commits to rows (each p.NumColumns() elements, at most
// p.MaxRows() of them) as the package's Commit does, on c's devices with
// their resident tables and buffers. Rows that lie one after another in
// memory go up in one transfer.
func (c *Committer) Commit(rows [][]koalabear.Element, opts Options) (*ProverState, error) {
	rs, err := rowsOf(c.p, rows)
	if err != nil {
		return nil, err
	}
	return c.commit(rs, commitJob{Options: opts})
}

// CommitFlat is Commit of the rows one after another in m, as the
// package's Commit takes them (len(m) a multiple of p.NumColumns()).
func (c *Committer) CommitFlat(m []koalabear.Element, opts Options) (*ProverState, error) {
	rs, err := rowsOf(c.p, m)
	if err != nil {
		return nil, err
	}
	return c.commit(rs, commitJob{Options: opts})
}

// commit is Commit on rows of the right shape. Their elements are
// checked on the device as the encoding's first pass reads them
// (Extender.CheckedDispatches): one that is not reduced makes the kernels
// compute nonsense, which is thrown away.
func (c *Committer) commit(rows [][]koalabear.Element, opts commitJob) (*ProverState, error) {
	c.run.Lock()
	defer c.run.Unlock()
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("vortex: the Committer was released")
	}
	if c.g == nil {
		return commitCPU(c.p, rows, opts.Options)
	}
	if err := cancelled(opts.Context); err != nil {
		return nil, err
	}
	for _, d := range c.devs {
		d.begin()
	}
	defer wgpu.Span("vortex: commit")(0)
	dev, root, err := c.commitGPU(rows, c.parts(len(rows)), opts)
	if err != nil {
		return nil, err
	}
	return newDeviceState(c.p, root, dev), nil
}

// Release frees c's tables and the buffers it keeps; states it made stay
// valid and free their own buffers on their Release. The Group stays
// open.
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
	c.cleanup.Stop()
	releaseMembers(c.devs)
}

// begin starts a commitment on d: the buffers of older ones are freed.
func (d *member) begin() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.gen++
	d.trim()
}

// release frees d's tables and the buffers it keeps.
func (d *member) release() {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	d.closed = true
	d.ext.Release()
	for _, r := range d.sis {
		r.Release()
	}
	for _, bs := range d.free {
		for _, p := range bs {
			p.b.Release()
		}
	}
	d.sis, d.free = nil, nil
}

// trim frees the buffers not given back during the last keptCommitments
// commitments (d.mu held).
// evict frees every buffer kept for later commitments and the SIS keys
// resident for row counts other than keep (none where keep is 0).
func (d *member) evict(keep int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	for _, bs := range d.free {
		for _, p := range bs {
			p.b.Release()
		}
	}
	d.free = map[uint64][]pooled{}
	for rows, r := range d.sis {
		if rows != keep {
			r.Release()
			delete(d.sis, rows)
		}
	}
}

func (d *member) trim() {
	for size, bs := range d.free {
		kept := bs[:0]
		for _, p := range bs {
			if p.gen+keptCommitments >= d.gen {
				kept = append(kept, p)
			} else {
				p.b.Release()
			}
		}
		if len(kept) == 0 {
			delete(d.free, size)
		} else {
			d.free[size] = kept
		}
	}
}

// sisFor returns the resident SIS key of columns of rows elements.
func (d *member) sisFor(rows int) (*sis.Resident, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if r := d.sis[rows]; r != nil {
		return r, nil
	}
	r, err := d.p.key.NewResident(d.ctx, rows)
	if err != nil {
		return nil, fmt.Errorf("vortex: %w", err)
	}
	d.sis[rows] = r
	return r, nil
}

// get returns a buffer of size bytes: one given back before, or a new one.
// Its contents are whatever was last written: every user writes a
// buffer whole before reading it.
func (d *member) get(label string, size uint64) (*wgpu.Buffer, error) {
	d.mu.Lock()
	if bs := d.free[size]; len(bs) > 0 {
		b := bs[len(bs)-1].b
		d.free[size] = bs[:len(bs)-1]
		d.mu.Unlock()
		return b, nil
	}
	d.mu.Unlock()
	b, err := d.ctx.NewBuffer(label, size)
	if err != nil {
		return nil, fmt.Errorf("vortex: %w", err)
	}
	return b, nil
}

// put gives buffers back for the next commitment, or frees them once d
// is released.
func (d *member) put(bs ...*wgpu.Buffer) {
	if len(bs) == 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, b := range bs {
		if b == nil {
			continue
		}
		if d.closed {
			b.Release()
			continue
		}
		d.free[b.Size()] = append(d.free[b.Size()], pooled{b, d.gen})
	}
}
