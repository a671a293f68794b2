package blake3

import (
	"errors"
	"io"
	"slices"
	"time"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// sumOn hashes the n bytes r holds (a file, a bytes.Reader) on the
// devices of g (Sum and SumReader on a Group), in the mode and output length opts choose, and returns
// the same output as an Engine's Sum of them. The input is cut into parts
// of a power-of-two number of chunks, about four per device; each part is
// hashed to its pieces (SumPieces) by the next free device, each device
// with an Engine of its own, and the pieces are merged on the host
// (Combine). opts.Timing receives the devices' timings side by side (the
// slowest device's).
func sumOn(g *sched.Group, r io.ReaderAt, n int64, opts Options) ([]byte, error) {
	root, err := sumOnRoot(g, r, n, opts)
	if err != nil {
		return nil, err
	}
	length, _ := opts.length() // checked by sumOnRoot
	out := make([]byte, length)
	root.rootBytes(out, 0)
	return out, nil
}

// sumOnRoot is sumOn's root node, for callers that read any length of
// output from it.
func sumOnRoot(g *sched.Group, r io.ReaderAt, n int64, opts Options) (output, error) {
	switch {
	case g == nil:
		return output{}, errors.New("blake3: no Group given: open one with sched.OpenGroup or sched.NewGroup")
	case r == nil:
		return output{}, errors.New("blake3: a Group's hash needs a reader, got nil")
	case n < 0:
		return output{}, errors.New("blake3: a hash of a negative length")
	}
	if _, _, err := opts.mode(); err != nil {
		return output{}, err
	}
	if _, err := opts.length(); err != nil {
		return output{}, err
	}
	start := time.Now()
	total := uint64(n)
	// Parts of whole subtrees, so that each is one piece (the last may
	// be a few).
	part := wgpu.PowerOfTwoBelow(max(chunksOf(total)/uint64(4*g.Len()), 1)) * ChunkSize
	parts := int(max((total+part-1)/part, 1))
	found := make([][]Piece, parts)
	engines := make([]*Engine, g.Len())
	times := make([]wgpu.Timing, g.Len())
	defer func() {
		for _, e := range engines {
			if e != nil {
				e.Release()
			}
		}
	}()
	// A member runs its tasks one after another, on its own goroutine:
	// engines[member] and times[member] are its alone.
	err := g.Each(parts, func(member int, ctx *wgpu.Context, i int) error {
		e := engines[member]
		if e == nil {
			var err error
			if e, err = NewEngine(ctx, opts); err != nil {
				return err
			}
			engines[member] = e
		}
		var t wgpu.Timing
		e.opts.Timing = &t
		off := uint64(i) * part
		ps, err := e.SumPieces(r, total, off, min(part, total-off))
		times[member] = times[member].Add(t)
		found[i] = ps
		return err
	})
	if err != nil {
		return output{}, err
	}
	root, err := combineRoot(slices.Concat(found...), opts)
	if opts.Timing != nil {
		var all wgpu.Timing
		for _, t := range times {
			all = all.Parallel(t)
		}
		all.Wall = time.Since(start)
		*opts.Timing = all
	}
	return root, err
}
