package main

import (
	"fmt"
	"time"

	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// commitScaling is the matrix commitments of the scaling measurement:
// a rows × 128 Goldilocks matrix and a BabyBear one, committed with
// Poseidon2 from host memory on the first k devices (CommitMatrix on a Group), end
// to end and their kernels, each Group size's root checked against the
// first's.
type commitScaling struct {
	reps  int
	warm  time.Duration // each measurement's GPUs are warmed this long first
	table *scaleTable
	gold  merkle.Matrix[uint64]
	bb    merkle.Matrix[uint32]
	// By commitment, in the order of the Group sizes run: the median
	// wall time, the kernel time of the last call, the root.
	walls, kernels map[string][]time.Duration
	roots          map[string][32]byte
	names          []string
}

func newCommitScaling(rows, reps int, warm time.Duration, table *scaleTable) *commitScaling {
	c := &commitScaling{reps: reps, warm: warm, table: table, walls: map[string][]time.Duration{}, kernels: map[string][]time.Duration{}, roots: map[string][32]byte{}}
	c.gold = merkle.Matrix[uint64]{Rows: rows, Cols: 128, Data: make([]uint64, rows*128)}
	for i := range c.gold.Data {
		c.gold.Data[i] = uint64(i) * 0x9e3779b97f4a7c15 % rescue.P
	}
	p := poseidon2.BabyBearMerkle.Modulus()
	c.bb = merkle.Matrix[uint32]{Rows: rows, Cols: 128, Data: make([]uint32, rows*128)}
	for i := range c.bb.Data {
		c.bb.Data[i] = uint32(uint64(i) * 2654435761 % uint64(p))
	}
	return c
}

// commits returns the measured commitments on g, each by name.
func (c *commitScaling) commits(g *sched.Group, gold merkle.Matrix[uint64], bb merkle.Matrix[uint32]) []struct {
	name   string
	commit func(o merkle.Options) (*merkle.Tree, error)
} {
	return []struct {
		name   string
		commit func(o merkle.Options) (*merkle.Tree, error)
	}{
		{fmt.Sprintf("Goldilocks Poseidon2 %d x %d", gold.Rows, gold.Cols), func(o merkle.Options) (*merkle.Tree, error) {
			return merkle.CommitMatrix(g, gold, poseidon2.MerkleMerge{}, o)
		}},
		{fmt.Sprintf("BabyBear Poseidon2 %d x %d", bb.Rows, bb.Cols), func(o merkle.Options) (*merkle.Tree, error) {
			return merkle.CommitMatrix(g, bb, poseidon2.BabyBearMerkle, o)
		}},
	}
}

// run commits both matrices on sub, the first k devices, after timing
// the Goldilocks matrix's bytes uploaded in equal shares to the k at
// once: the host's bound on the commitment end to end.
func (c *commitScaling) run(sub *sched.Group, k int) error {
	m := measurer{reps: c.reps}
	data := wgpu.Bytes(c.gold.Data)
	share := len(data) / k
	bufs := make([]*wgpu.Buffer, k)
	defer func() {
		for _, b := range bufs {
			if b != nil {
				b.Release()
			}
		}
	}()
	for i, ctx := range sub.Contexts() {
		var err error
		if bufs[i], err = ctx.NewBuffer("upload", uint64(share)); err != nil {
			return err
		}
	}
	m.run(fmt.Sprintf("%s uploaded to each of %d device(s) at once", byteSize(uint64(share)), k), func() error {
		return sub.Split(k, 1, func(i int, ctx *wgpu.Context, _, _ int) error {
			if err := ctx.Upload(bufs[i], 0, data[i*share:(i+1)*share]); err != nil {
				return err
			}
			return ctx.Wait()
		})
	})
	for i, b := range bufs {
		b.Release()
		bufs[i] = nil
	}
	// On k > 1 devices the Group decides whether a split is faster
	// (merkle's splitModel); the split forced over all k (SplitAll) is
	// measured beside it, under its own name.
	groups := []struct {
		suffix string
		g      *sched.Group
	}{{"", sub}}
	if k > 1 {
		groups = append(groups, struct {
			suffix string
			g      *sched.Group
		}{", forced split", sub.SplitAll()})
	}
	for _, gr := range groups {
		if err := c.measure(m, gr.g, k, gr.suffix); err != nil {
			return err
		}
	}
	return nil
}

// measure commits both matrices on g, the first k devices, each under its
// name plus suffix, checking the root against the first Group size's.
func (c *commitScaling) measure(m measurer, g *sched.Group, k int, suffix string) error {
	for _, x := range c.commits(g, c.gold, c.bb) {
		var t wgpu.Timing
		var root [32]byte
		wall, per, err := runOn(m, g, c.warm, fmt.Sprintf("merkle commitment, %s, on %d device(s)%s", x.name, k, suffix), func() error {
			tree, err := x.commit(merkle.Options{Timing: &t})
			if err == nil {
				root = tree.Root()
			}
			return err
		})
		if err != nil {
			return err
		}
		fmt.Printf("    kernels of the last call: %.2f ms (slowest device plus the top); per device per call %v\n", ms(t.Elapsed()), per)
		if want, ok := c.roots[x.name]; !ok {
			c.roots[x.name] = root
			c.names = append(c.names, x.name)
		} else if root != want {
			return fmt.Errorf("commitment %s on %d devices%s: root %x, on the first Group size %x", x.name, k, suffix, root, want)
		}
		c.walls[x.name+suffix] = append(c.walls[x.name+suffix], wall)
		c.kernels[x.name+suffix] = append(c.kernels[x.name+suffix], t.Elapsed())
		if c.table != nil {
			c.table.add("commitment "+x.name+suffix+", end to end", k, cell{wall: wall, kernel: t.Elapsed(), perDevice: per})
		}
	}
	return nil
}

// report prints each commitment's speed-up on the last Group size, of k
// devices, over the first, of k0: the first's median time over the
// last's, end to end and in kernels, the Group's decision (a split only
// where predicted faster) and the split forced over all k.
func (c *commitScaling) report(k0, k int) {
	for _, name := range c.names {
		w, kn := c.walls[name], c.kernels[name]
		if len(w) < 2 {
			continue
		}
		last := len(w) - 1
		fmt.Printf("commitment %s: %d devices %.2fx %d end to end (%.2f against %.2f ms), %.2fx in kernels (%.2f against %.2f ms)\n",
			name, k, float64(w[0])/float64(w[last]), k0, ms(w[last]), ms(w[0]), float64(kn[0])/float64(kn[last]), ms(kn[last]), ms(kn[0]))
		if fw, fk := c.walls[name+", forced split"], c.kernels[name+", forced split"]; len(fw) > 0 {
			f := len(fw) - 1
			fmt.Printf("commitment %s: split forced over %d devices %.2fx %d end to end (%.2f ms), %.2fx in kernels (%.2f ms)\n",
				name, k, float64(w[0])/float64(fw[f]), k0, ms(fw[f]), float64(kn[0])/float64(fk[f]), ms(fk[f]))
		}
	}
}

// floor times small commitments (2^10 to 2^18 rows of 128 columns, at
// most the measured matrices' rows) on
// the first device alone and split over every device of g (SplitAll,
// past Group.Fit), end to end: where a second device starts to pay, the
// floor Group.Fit keeps commitments on one device below.
func (c *commitScaling) floor(g *sched.Group) error {
	one, err := sched.NewGroup(g.Contexts()[0])
	if err != nil {
		return err
	}
	m := measurer{reps: c.reps}
	for lg := 10; lg <= 18 && 1<<lg <= c.gold.Rows; lg += 2 {
		rows := 1 << lg
		gold := merkle.Matrix[uint64]{Rows: rows, Cols: 128, Data: c.gold.Data[:rows*128]}
		bb := merkle.Matrix[uint32]{Rows: rows, Cols: 128, Data: c.bb.Data[:rows*128]}
		ones, splits := c.commits(one, gold, bb), c.commits(g.SplitAll(), gold, bb)
		for i := range ones {
			a := m.runQuiet(func() error { _, err := ones[i].commit(merkle.Options{}); return err })
			b := m.runQuiet(func() error { _, err := splits[i].commit(merkle.Options{}); return err })
			if a == 0 || b == 0 {
				return fmt.Errorf("commitment %s failed", ones[i].name)
			}
			fmt.Printf("floor: %s (%d permutations): 1 device %.3f ms, %d split %.3f ms: %.2fx\n",
				ones[i].name, rows*17, ms(a), g.Len(), ms(b), float64(a)/float64(b))
		}
	}
	return nil
}
