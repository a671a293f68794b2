package main

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/wgpu"
)

// merkleVariant is one construction the Merkle tables compare.
type merkleVariant struct {
	name string
	opts merkle.Options
}

// merkleLadder is one hash's sizes, 2^lo to 2^hi leaves, with the
// article's V100 figures in ms by log2 of the size.
type merkleLadder struct {
	hash    *merkle.Hash
	lo, hi  int
	article map[int]string
}

// benchMerkle times Build per hash, size and approach: GPU kernel time
// (timestamps) and end to end (upload, kernels, download into host nodes).
func benchMerkle(ctx *wgpu.Context, cfg *benchConfig) ([]table, error) {
	ladders := []merkleLadder{
		{merkle.Rescue, 20, 24, map[int]string{20: "63.1", 21: "116.3", 22: "219.8", 23: "431.5", 24: "849.1"}},
		{merkle.Blake3, 20, 25, map[int]string{25: "7.31"}},
	}
	var tables []table
	for _, l := range ladders {
		if cfg.quick {
			l.lo, l.hi = 10, 14
			if l.hash == merkle.Rescue {
				l.hi = 12 // a software adapter merges about 4e4 Rescue pairs per second
			}
		}
		t, err := merkleTable(ctx, cfg, l)
		if err != nil {
			return nil, err
		}
		tables = append(tables, t)
	}
	return tables, nil
}

// merkleTable measures every approach over one hash's ladder.
func merkleTable(ctx *wgpu.Context, cfg *benchConfig, l merkleLadder) (table, error) {
	variants := []merkleVariant{
		{"1: dispatch per level", merkle.Options{Approach: merkle.LevelPerDispatch}},
		{"1: pass per level", merkle.Options{Approach: merkle.LevelPerDispatch, PassPerLevel: true}},
		{"2: workgroup levels", merkle.Options{Approach: merkle.WorkgroupLevels}},
		{"3: subtrees", merkle.Options{Approach: merkle.Subtrees}},
	}
	t := table{
		Title: fmt.Sprintf("Merkle tree, %s merge", l.hash),
		Columns: []string{"leaves", "approach", "kernel ms", "end-to-end ms (Build)", "V100 approach 1 ms (article)", "kernel vs V100",
			"CPU ref ms (" + hostCPU() + ", est.)", "kernel vs CPU", "checked"},
		XLabel: "leaves", YLabel: "leaves per second (kernel)", LogX: true,
	}
	cpuPerLeaf, err := cpuMerkleRate(l.hash, 1<<min(16, l.hi))
	if err != nil {
		return t, err
	}
	for lg := l.lo; lg <= l.hi; lg++ {
		n := 1 << lg
		leaves := benchLeaves(l.hash, n)
		cpu := time.Duration(float64(n) * cpuPerLeaf)
		art := l.article[lg]
		if art == "" {
			art = "-"
		}
		for _, v := range variants {
			cfg.step(fmt.Sprintf("merkle %s 2^%d %s", l.hash, lg, v.name))
			wall, kernel, measured, err := merkleTimes(ctx, cfg, leaves, l.hash, v)
			if err != nil {
				return t, fmt.Errorf("%s 2^%d approach %s: %w", l.hash, lg, v.name, err)
			}
			kms, vsV100, vsCPU := "n/a", "-", "-"
			if measured {
				kms = ms(kernel)
				vsCPU = fmt.Sprintf("%.1f×", float64(cpu)/float64(kernel))
				if a, err := strconv.ParseFloat(art, 64); err == nil {
					vsV100 = fmt.Sprintf("%.2f×", a/(float64(kernel)/1e6))
				}
				t.Points = append(t.Points, point{X: float64(n), Y: float64(n) / kernel.Seconds(), Series: v.name})
			}
			t.Rows = append(t.Rows, []string{"2^" + strconv.Itoa(lg), v.name, kms, ms(wall), art, vsV100, ms(cpu), vsCPU, "1000 nodes = merge of children"})
		}
	}
	t.Notes = append(t.Notes, "End to end: upload of the leaves, the kernels, download of all N nodes into host memory. The article's V100 figures are approach 1.",
		fmt.Sprintf("CPU ref: the plain-Go merges level by level on all cores, timed on 2^%d leaves and scaled linearly (a whole reference tree at the top sizes would take the CPU minutes).", min(16, l.hi)))
	return t, nil
}

// merkleTimes checks one tree built with v against the CPU merge and
// returns the median wall time of Build and, where the adapter has
// timestamps (measured), the median kernel time of resident builds.
func merkleTimes(ctx *wgpu.Context, cfg *benchConfig, leaves [][32]byte, hash *merkle.Hash, v merkleVariant) (wall, kernel time.Duration, measured bool, err error) {
	tree, err := merkle.Build(ctx, leaves, hash, v.opts)
	if err != nil {
		return 0, 0, false, err
	}
	if err := spotCheck(tree, 1000); err != nil {
		return 0, 0, false, err
	}
	tree = nil
	repeats := max(cfg.repeats, 1)
	var walls []time.Duration
	for r := 0; r < repeats; r++ {
		start := time.Now()
		if _, err := merkle.Build(ctx, leaves, hash, v.opts); err != nil {
			return 0, 0, false, err
		}
		walls = append(walls, time.Since(start))
	}
	slices.Sort(walls)
	wall = walls[len(walls)/2]
	if !ctx.Info().Timestamps {
		return wall, 0, false, nil
	}
	// Resident leaves, back to back: Build's own kernel time follows an
	// upload that let the GPU clock down.
	first, err := merkle.KernelTimes(ctx, leaves, hash, v.opts, 1)
	if err != nil {
		return 0, 0, false, err
	}
	// Back-to-back runs for at least the warm-up: only the last repeats
	// count, once the GPU's clock is up.
	runs := repeats + int(cfg.nextWarmUp()/max(first[0], time.Microsecond))
	ks, err := merkle.KernelTimes(ctx, leaves, hash, v.opts, min(runs, 5000))
	if err != nil {
		return 0, 0, false, err
	}
	ks = ks[len(ks)-repeats:]
	slices.Sort(ks)
	return wall, ks[len(ks)/2], true, nil
}

// cpuMerkleRate times a tree of n leaves built level by level on all cores
// with the CPU merge and returns the time per leaf in nanoseconds.
func cpuMerkleRate(hash *merkle.Hash, n int) (float64, error) {
	leaves := benchLeaves(hash, n)
	nodes := make([][32]byte, n)
	start := time.Now()
	for lo := n / 2; lo >= 1; lo /= 2 {
		child := func(c int) [32]byte {
			if c >= n {
				return leaves[c-n]
			}
			return nodes[c]
		}
		cpuParallel(lo, func(k int) {
			i := lo + k
			nodes[i] = hash.Merge(child(2*i), child(2*i+1))
		})
	}
	d := time.Since(start)
	ref, err := merkle.BuildCPU(leaves, hash)
	if err != nil {
		return 0, err
	}
	if ref.Root() != nodes[1] {
		return 0, fmt.Errorf("merkle: the parallel CPU tree's root differs from the reference")
	}
	return float64(d.Nanoseconds()) / float64(n), nil
}

// benchLeaves returns n seeded leaves the hash accepts.
func benchLeaves(hash *merkle.Hash, n int) [][32]byte {
	r := rand.New(rand.NewPCG(uint64(n), 0x6d65726b6c65))
	leaves := make([][32]byte, n)
	for i := range leaves {
		for j := 0; j < 4; j++ {
			v := r.Uint64()
			if hash == merkle.Rescue {
				v >>= 1 // below p
			}
			binary.LittleEndian.PutUint64(leaves[i][8*j:], v)
		}
	}
	return leaves
}

// spotCheck verifies k random nodes (and node 1) against the CPU merge of
// their children: a whole-tree reference for 2^24 Rescue leaves would take
// the CPU minutes.
func spotCheck(tree *merkle.Tree, k int) error {
	nodes, leaves, n := tree.Nodes(), tree.Leaves(), tree.Len()
	child := func(c int) [32]byte {
		if c >= n {
			return leaves[c-n]
		}
		return nodes[c]
	}
	r := rand.New(rand.NewPCG(uint64(n), 1))
	for s := 0; s < k; s++ {
		i := 1 + r.IntN(n-1)
		if s == 0 {
			i = 1
		}
		if got, want := nodes[i], tree.Hash().Merge(child(2*i), child(2*i+1)); got != want {
			return fmt.Errorf("node %d is %x, the CPU merge of its children is %x", i, got, want)
		}
	}
	return nil
}
