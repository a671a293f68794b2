package vortex

import (
	"context"
	"fmt"
	"time"

	"github.com/consensys/gnark-crypto/field/koalabear"
	"github.com/wgcompute/wgcompute/algos/ntt"
	"github.com/wgcompute/wgcompute/wgpu"
)

// This file is a device's share of a commitment as gnark-crypto's Commit
// is written: named stages, one after another, on one part. commitPart
// runs them; each stage's dispatches go into one queue, waited for once
// at the end (or each alone where timed).

// partOut is what commitPart leaves for the commitment beside its part.
type partOut struct {
	// firsts holds, a slot a piece of rows (starts), the index of the
	// piece's first word that is not a reduced Montgomery form (the first
	// share's device checks the rows).
	firsts *wgpu.Buffer
	starts []int
	// temps go back to the member after the commitment.
	temps []*wgpu.Buffer
	st    Stages
}

// partJob is what a device's share of a commitment is asked to do.
type partJob struct {
	stop context.Context
	rows [][]koalabear.Element
	// lo, hi are the share's columns; unit divides both (planLayout).
	lo, hi, unit int
	// check has the device check the rows' form (the first share's);
	// timed waits for each stage alone, so that its kernels' time is its
	// own (Options.Stages).
	check, timed bool
	// noSIS hashes the columns themselves (Linea's rounds without SIS);
	// constant marks the rows written on the device, not uploaded.
	noSIS    bool
	constant []bool
}

// partCommit is one part's commitment under way: the part, its layout,
// and the submissions not yet waited for.
type partCommit struct {
	d   *member
	job partJob
	pt  *part
	l   layout
	out *partOut
	// queue is the submissions not yet waited for, each with the stage
	// its timing is added to.
	queue []queued
}

type queued struct {
	p    *wgpu.Pending
	into *wgpu.Timing
}

// commitPart is a device's share of a commitment, the columns [lo, hi):
// encode (each piece of rows uploaded, checked where asked, encoded, the
// codewords into the share's column tiles), SIS (each tile's columns
// hashed), leaves (the digests, or the columns, into the subtrees' last
// level, canonical) and tree (the share's subtrees of unit columns each,
// level by level up to their roots). Where timed, the kernels' timing
// leaves the uploads out. A done stop ends it between pieces and stages
// (Options.Context).
func (d *member) commitPart(job partJob, out *partOut) (_ *part, err error) {
	c, err := d.newPartCommit(job, out)
	if c == nil {
		return nil, err
	}
	// Every submission is waited for, on errors too.
	defer c.drain("vortex: wait for the queue")
	if err != nil {
		return c.pt, err
	}
	start := time.Now()
	if err := c.encode(); err != nil {
		return c.pt, err
	}
	if job.timed {
		// Each piece was waited for: the encoding's wall ends here.
		out.st.Encode.Wall = time.Since(start)
	}
	if !job.noSIS {
		if err := c.stage(&out.st.SIS, "SIS", c.sis); err != nil {
			return c.pt, err
		}
	}
	if err := c.stage(&out.st.Leaves, "leaves", c.leaves); err != nil {
		return c.pt, err
	}
	treeStart := time.Now()
	if err := c.stage(&out.st.Tree, "tree", c.tree); err != nil {
		return c.pt, err
	}
	if err := c.drain("vortex: wait for the encoding, hashes and tree"); err != nil {
		return c.pt, fmt.Errorf("vortex: %w", err)
	}
	if !job.timed {
		// Waited for at once: the encoding's wall runs to the end.
		out.st.Encode.Wall = time.Since(start)
	}
	out.st.Tree.Wall = time.Since(treeStart)
	return c.pt, nil
}

// newPartCommit plans the part's layout and takes its column tiles. A nil
// partCommit is an error before anything was taken.
func (d *member) newPartCommit(job partJob, out *partOut) (*partCommit, error) {
	p := d.p
	R, m := len(job.rows), p.SizeCodeWord()
	// A tile's digests fit a binding, and so do its leaves (Linea's are
	// written straight into the level: 8 words a column).
	perColumn := p.Degree()
	if job.noSIS {
		perColumn = 0
	}
	if p.linea {
		perColumn = max(perColumn, 8)
	}
	l, err := planLayout(R, m, job.unit, job.hi-job.lo, perColumn, d.ctx.Limits().Binding(), d.ext.MaxTiles())
	if err != nil {
		return nil, err
	}
	c := &partCommit{d: d, job: job, l: l, out: out, pt: &part{d: d, lo: job.lo, w: l.w}}
	for range l.tiles {
		t, err := d.get("vortex codewords", uint64(R)*uint64(l.w)*4)
		if err != nil {
			return c, err
		}
		c.pt.tiles = append(c.pt.tiles, t)
	}
	return c, nil
}

// temp is a buffer for this commitment alone: it goes back to the member
// after it.
func (c *partCommit) temp(label string, size uint64) (*wgpu.Buffer, error) {
	b, err := c.d.get(label, size)
	if err == nil {
		c.out.temps = append(c.out.temps, b)
	}
	return b, err
}

// drain waits for every queued submission, adding each one's timing to
// its stage, and returns the first error.
func (c *partCommit) drain(span string) error {
	if len(c.queue) == 0 {
		return nil
	}
	endWait := wgpu.Span(span)
	defer endWait(0)
	var first error
	for _, q := range c.queue {
		tm, err := q.p.Wait()
		if err != nil && first == nil {
			first = err
		}
		*q.into = q.into.Add(tm)
	}
	c.queue = c.queue[:0]
	return first
}

// stage runs the named stage whose dispatches build returns: where timed,
// alone and waited for; else queued behind what came before. A done stop
// ends the commitment before it.
func (c *partCommit) stage(into *wgpu.Timing, name string, build func() ([]wgpu.Dispatch, error)) error {
	if err := cancelled(c.job.stop); err != nil {
		return err
	}
	ds, err := build()
	if err != nil {
		return err
	}
	if len(ds) == 0 {
		return nil
	}
	end := wgpu.Span("vortex: " + name)
	defer end(0)
	ctx := c.d.ctx
	if c.job.timed {
		tm, err := ctx.Run(ds...)
		*into = tm
		if err != nil {
			return fmt.Errorf("vortex: %s: %w", name, err)
		}
		return nil
	}
	pend, err := ctx.Submit(ds...)
	if err != nil {
		return fmt.Errorf("vortex: %s: %w", name, err)
	}
	c.queue = append(c.queue, queued{pend, into})
	return nil
}

// encode is the first stage: a piece of rows at a time uploaded (the next
// piece goes up while the kernels encode the last: two input buffers),
// the constant rows written on the device, the rows checked where asked,
// and encoded into the column tiles: by the encoding's last pass itself
// where the layout says (tiled, or the only tile), else through a
// scratch buffer of whole codewords and a copy. A
// piece is an eighth of the rows where the matrix is large, so that only
// a small first piece's upload waits alone.
//
// Each piece's encoding is submitted as soon as its rows are queued to go
// up, and the host goes on to fill the next piece's staging without
// waiting: the device runs copies and encodings back to back, in the
// queue's order (the copies into an input buffer come after the encoding
// that read it), and a staging slot is filled again only once its copy is
// done. The later stages are queued behind the last piece the same way,
// and the host waits once, at the end (a wait is for the whole queue:
// waiting for a piece would also wait for the pieces queued after it, and
// leave the device idle while the host fills the next). Where timed, each
// piece is waited for before the next, so that its kernels' time is its
// own.
func (c *partCommit) encode() error {
	d, job, l, pt, out := c.d, c.job, c.l, c.pt, c.out
	ctx, rows := d.ctx, job.rows
	R, n, m := len(rows), d.p.NumColumns(), d.p.SizeCodeWord()
	piece := encodePiece(R, n, m, l)
	starts := pieceStarts(R, piece, pieceUnit(R, m, l))
	nPieces := len(starts) - 1
	var ins [2]*wgpu.Buffer
	var err error
	for i := range min(2, nPieces) {
		if ins[i], err = c.temp("vortex rows", uint64(piece)*uint64(n)*4); err != nil {
			return err
		}
	}
	var scratch *wgpu.Buffer
	if !l.direct && !l.tiled {
		if scratch, err = c.temp("vortex codewords piece", uint64(piece)*uint64(m)*4); err != nil {
			return err
		}
	}
	fill, err := c.constantRows(starts)
	if err != nil {
		return err
	}
	if job.check {
		// A slot a piece for the first word that is not a reduced
		// Montgomery form.
		out.starts = starts
		if out.firsts, err = c.temp("vortex row checks", uint64(4*nPieces)); err != nil {
			return err
		}
		none := make([]uint32, nPieces)
		for i := range none {
			none[i] = ^uint32(0)
		}
		if err := ctx.Upload(out.firsts, 0, wgpu.Bytes(none)); err != nil {
			return fmt.Errorf("vortex: upload rows: %w", err)
		}
	}
	endFirst := wgpu.Span("vortex: upload the first piece")
	err = c.upload(ins[0], 0, starts[1]-starts[0])
	endFirst(0)
	if err != nil {
		return fmt.Errorf("vortex: upload rows: %w", err)
	}
	submit := func(k int) (*wgpu.Pending, error) {
		r0, nr := starts[k], starts[k+1]-starts[k]
		dst := wgpu.Bind(scratch)
		if l.direct {
			dst = wgpu.Binding{Buffer: pt.tiles[0], Offset: uint64(r0) * uint64(m) * 4, Size: uint64(nr) * uint64(m) * 4}
		}
		var ds []wgpu.Dispatch
		var err error
		switch {
		case l.tiled:
			// The encoding's last pass writes the tiles; its first
			// checks the rows as it reads them where asked.
			tiles := make([]wgpu.Binding, len(pt.tiles))
			for t, tile := range pt.tiles {
				tiles[t] = wgpu.Binding{Buffer: tile, Offset: uint64(r0) * uint64(l.w) * 4, Size: uint64(nr) * uint64(l.w) * 4}
			}
			var check wgpu.Binding
			if job.check {
				check = wgpu.Bind(out.firsts)
			}
			ds, err = d.ext.TileDispatches(wgpu.Bind(ins[k%2]), tiles, nr, ntt.Montgomery, check, k)
		case job.check:
			// The encoding's first pass checks the rows as it reads them.
			ds, err = d.ext.CheckedDispatches(wgpu.Bind(ins[k%2]), dst, nr, ntt.Montgomery, wgpu.Bind(out.firsts), k)
		default:
			ds, err = d.ext.Dispatches(wgpu.Bind(ins[k%2]), dst, nr, ntt.Montgomery)
		}
		if err != nil {
			return nil, fmt.Errorf("vortex: %w", err)
		}
		ds = append(fill(k, ins[k%2], nr), ds...)
		if !l.direct && !l.tiled {
			for t, tile := range pt.tiles {
				ds = append(ds, copyDispatch(ctx, d.copyKern, wgpu.Bind(scratch), wgpu.Bind(tile), nr, l.w, job.lo+t*l.w, m, r0*l.w, l.w, false))
			}
		}
		pend, err := ctx.Submit(ds...)
		if err != nil {
			return nil, fmt.Errorf("vortex: encode rows %d to %d: %w", r0, r0+nr, err)
		}
		return pend, nil
	}
	for k := range nPieces {
		if err := cancelled(job.stop); err != nil {
			return err
		}
		if job.timed {
			// The kernels' timing leaves the upload's last copies out.
			if err := c.drain("vortex: wait for a piece's encoding"); err != nil {
				return fmt.Errorf("vortex: encode: %w", err)
			}
			if err := ctx.Wait(); err != nil {
				return fmt.Errorf("vortex: upload rows: %w", err)
			}
		}
		pend, err := submit(k)
		if err != nil {
			return err
		}
		c.queue = append(c.queue, queued{pend, &out.st.Encode})
		if k+1 < nPieces {
			end := wgpu.Span("vortex: upload a piece while the last is encoded")
			err := c.upload(ins[(k+1)%2], starts[k+1], starts[k+2]-starts[k+1])
			end(0)
			if err != nil {
				return fmt.Errorf("vortex: upload rows: %w", err)
			}
		}
	}
	if job.timed {
		if err := c.drain("vortex: wait for a piece's encoding"); err != nil {
			return fmt.Errorf("vortex: encode: %w", err)
		}
	}
	return nil
}

// upload sends rows [r0, r0+nr) into in: one transfer for each run of rows
// that are not constants (the fill writes those), its staging filled on
// all cores wherever the rows lie; rows one after another in one slice's
// memory are one part.
func (c *partCommit) upload(in *wgpu.Buffer, r0, nr int) error {
	rows, n := c.job.rows, c.d.p.NumColumns()
	isConst := func(r int) bool { return c.job.constant != nil && c.job.constant[r] }
	for i := 0; i < nr; {
		if isConst(r0 + i) {
			i++
			continue
		}
		first := i
		var parts [][]byte
		for i < nr && !isConst(r0+i) {
			j := i + 1
			for j < nr && !isConst(r0+j) && adjacent(rows[r0+j-1], rows[r0+j]) && within(rows[r0+i], rows[r0+j]) {
				j++
			}
			parts = append(parts, wgpu.Bytes(rows[r0+i][:(j-i)*n]))
			i = j
		}
		if err := c.d.ctx.UploadParts(in, uint64(first)*uint64(n)*4, parts); err != nil {
			return err
		}
	}
	return nil
}

// constantRows uploads the constant rows' indices and values once and
// returns, for piece k of nr rows read from in, the dispatch that writes
// its constant rows into in before its encoding (vortex_fill.wgsl), or
// none.
func (c *partCommit) constantRows(starts []int) (func(k int, in *wgpu.Buffer, nr int) []wgpu.Dispatch, error) {
	none := func(int, *wgpu.Buffer, int) []wgpu.Dispatch { return nil }
	constant, rows := c.job.constant, c.job.rows
	if constant == nil {
		return none, nil
	}
	// first[k] is piece k's first pair.
	first := make([]int, len(starts))
	var words []uint32
	for k := range len(starts) - 1 {
		first[k] = len(words) / 2
		for r := starts[k]; r < starts[k+1]; r++ {
			if constant[r] {
				words = append(words, uint32(r), uint32(rows[r][0][0]))
			}
		}
	}
	first[len(starts)-1] = len(words) / 2
	if len(words) == 0 {
		return none, nil
	}
	ctx, n := c.d.ctx, c.d.p.NumColumns()
	kern, err := kernel(ctx, "vortex_fill.wgsl", "vortex_fill", 2)
	if err != nil {
		return nil, err
	}
	pairs, err := c.temp("vortex constant rows", uint64(4*len(words)))
	if err != nil {
		return nil, err
	}
	if err := ctx.Upload(pairs, 0, wgpu.Bytes(words)); err != nil {
		return nil, fmt.Errorf("vortex: upload the constant rows: %w", err)
	}
	return func(k int, in *wgpu.Buffer, nr int) []wgpu.Dispatch {
		cnt := first[k+1] - first[k]
		if cnt == 0 {
			return nil
		}
		count := uint64(cnt) * uint64(n)
		return []wgpu.Dispatch{{Kernel: kern, Bindings: []wgpu.Binding{wgpu.Bind(pairs), {Buffer: in, Size: uint64(nr) * uint64(n) * 4}},
			Params: []uint32{uint32(cnt), uint32(n), uint32(first[k]), uint32(starts[k])}, Groups: ctx.Grid(count, 256)}}
	}, nil
}

// sis is the second stage: the SIS digests of every column, a tile at a
// time.
func (c *partCommit) sis() ([]wgpu.Dispatch, error) {
	d, pt, w := c.d, c.pt, c.l.w
	rsd, err := d.sisFor(len(c.job.rows))
	if err != nil {
		return nil, err
	}
	var ds []wgpu.Dispatch
	for _, tile := range pt.tiles {
		dgb, err := d.get("vortex sis digests", uint64(w)*uint64(d.p.Degree())*4)
		if err != nil {
			return nil, err
		}
		pt.digests = append(pt.digests, dgb)
		dsp, err := rsd.Dispatch(wgpu.Bind(tile), wgpu.Bind(dgb), w, w, 1)
		if err != nil {
			return nil, fmt.Errorf("vortex: %w", err)
		}
		ds = append(ds, dsp)
	}
	return ds, nil
}

// leaves is the third stage: the digests (or, without SIS, the columns)
// hashed into the subtrees' last level, canonical, as gnark-crypto or
// Linea hashes them.
func (c *partCommit) leaves() ([]wgpu.Dispatch, error) {
	d, pt, job := c.d, c.pt, c.job
	if most := d.ctx.Limits().MaxBufferSize; uint64(job.hi-job.lo)*32 > most {
		return nil, fmt.Errorf("vortex: the tree's %d leaves (of this device's share) exceed the device's buffer of %d bytes", job.hi-job.lo, most)
	}
	subtrees := (job.hi - job.lo) / job.unit
	for lv := 0; job.unit>>lv > 0; lv++ {
		b, err := d.get("vortex tree level", uint64(32*subtrees)<<lv)
		if err != nil {
			return nil, err
		}
		pt.levels = append(pt.levels, b)
	}
	if d.p.linea {
		return d.lineaLeaves(pt, len(job.rows), d.p.Degree(), job.noSIS, c.temp)
	}
	return d.gnarkLeaves(pt, d.p.Degree(), c.temp)
}

// tree is the last stage: the share's subtrees, level by level.
func (c *partCommit) tree() ([]wgpu.Dispatch, error) {
	return merges(c.d.ctx, c.pt.levels, (c.job.hi-c.job.lo)/c.job.unit, c.d.p.linea)
}
