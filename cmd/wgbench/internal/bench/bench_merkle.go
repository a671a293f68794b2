package bench

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/cmd/internal/results"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/internal/base/impl"
	"github.com/wgcompute/wgcompute/wgpu"
)

// merkleVariant is one construction the Merkle tables compare.
type merkleVariant struct {
	name string
	opts merkle.Options
}

// merkleLadder is one hash's sizes, 2^lo to 2^hi leaves (2^quick at most
// with --quick), with the article's V100 figures in ms by log2 of the size.
type merkleLadder struct {
	hash          merkle.Hash
	lo, hi, quick int
	article       map[int]string
}

// benchMerkle times Build per hash, size and approach: GPU kernel time
// (timestamps) and end to end (upload, kernels, download into host nodes).
func benchMerkle(ctx *wgpu.Context, cfg *benchConfig) ([]results.Table, error) {
	ladders := []merkleLadder{
		// A software adapter merges only tens of thousands of Rescue pairs
		// a second (bench/results/HISTORY.md, "Full results: lavapipe").
		{rescue.MerkleMerge{}, 20, 24, 12, map[int]string{20: "63.1", 21: "116.3", 22: "219.8", 23: "431.5", 24: "849.1"}},
		{blake3.MerkleMerge{}, 20, 25, 14, map[int]string{25: "7.31"}},
	}
	var tables []results.Table
	for _, l := range ladders {
		if cfg.quick {
			l.lo, l.hi = 10, l.quick
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
func merkleTable(ctx *wgpu.Context, cfg *benchConfig, l merkleLadder) (results.Table, error) {
	variants := []merkleVariant{
		{"1: dispatch per level", forceMerkle("merkle", "level-per-dispatch", merkle.Options{})},
		{"1: pass per level", forceMerkle("merkle-passes", "pass-per-level", forceMerkle("merkle", "level-per-dispatch", merkle.Options{}))},
		{"2: workgroup levels", forceMerkle("merkle", "workgroup-levels", merkle.Options{})},
		{"3: subtrees", forceMerkle("merkle", "subtrees", merkle.Options{})},
	}
	name := l.hash.Name()
	t := results.Table{
		Title: fmt.Sprintf("Merkle tree, %s merge", name),
		Columns: []string{"leaves", "approach", "kernel ms", "end-to-end ms (Build)", "V100 approach 1 ms (article)", "kernel vs V100",
			"CPU ref ms (" + cli.HostCPU() + ", est.)", "kernel vs CPU", "checked"},
		Axes: results.Axes{XLabel: "leaves", YLabel: "leaves per second (kernel)", LogX: true},
	}
	cpuPerLeaf, err := cpuMerkleRate(l.hash, 1<<min(16, l.hi))
	if err != nil {
		return t, err
	}
	for lg := l.lo; lg <= l.hi; lg++ {
		n := 1 << lg
		leaves := cli.RandomLeaves(l.hash, n, 0x6d65726b6c65)
		cpu := time.Duration(float64(n) * cpuPerLeaf)
		art := l.article[lg]
		if art == "" {
			art = "-"
		}
		for _, v := range variants {
			cfg.step(fmt.Sprintf("merkle %s 2^%d %s", name, lg, v.name))
			kernel, wall, err := merkleTimes(ctx, cfg, leaves, l.hash, v.opts)
			if err != nil {
				return t, fmt.Errorf("%s 2^%d approach %s: %w", name, lg, v.name, err)
			}
			vsV100 := "-"
			if a, err := strconv.ParseFloat(art, 64); err == nil {
				vsV100 = fmt.Sprintf("%.2f×", a/(float64(kernel)/1e6))
			}
			t.Points = append(t.Points, results.Point{X: float64(n), Y: float64(n) / kernel.Seconds(), Series: v.name})
			t.Rows = append(t.Rows, []string{"2^" + strconv.Itoa(lg), v.name, ms(kernel), ms(wall), art, vsV100, ms(cpu),
				fmt.Sprintf("%.1f×", float64(cpu)/float64(kernel)), "1000 nodes = merge of children"})
		}
	}
	t.Notes = append(t.Notes, "Kernel: "+timeKind(ctx)+", of builds from leaves already on the GPU where the tree fits one subtree. "+
		"End to end: upload of the leaves, the kernels, download of all N nodes into host memory. The article's V100 figures are approach 1.",
		fmt.Sprintf("CPU ref: the plain-Go merges level by level on all cores, timed on 2^%d leaves and scaled linearly (a whole reference tree at the top sizes would take the CPU minutes).", min(16, l.hi)))
	return t, nil
}

// merkleTimes checks one tree built with opts against the CPU merge and
// returns the median GPU time of a build, from leaves already on the GPU
// where the tree fits one subtree (an upload before each build would let
// the GPU clock down), and the median wall time of Build from host memory.
func merkleTimes(ctx *wgpu.Context, cfg *benchConfig, leaves [][32]byte, hash merkle.Hash, opts merkle.Options) (kernel, wall time.Duration, err error) {
	var tm wgpu.Timing
	timed := opts
	timed.Timing = &tm
	b, err := merkle.NewCommitter(ctx, merkle.Schedule{{Hash: hash}}, timed)
	if err != nil {
		return 0, 0, err
	}
	defer b.Release()
	tree, err := merkle.Build(ctx, leaves, nil, merkle.Options{Committer: b})
	if err != nil {
		return 0, 0, err
	}
	if err := spotCheck(tree, hash, 1000); err != nil {
		return 0, 0, err
	}
	tree = nil
	build := func() error {
		_, err := merkle.Build(ctx, leaves, nil, merkle.Options{Committer: b})
		return err
	}
	if n := len(leaves); n <= b.SubtreeLeaves() {
		leafBuf, err := residentBuffer(ctx, "bench merkle leaves", wgpu.Bytes(leaves))
		if err != nil {
			return 0, 0, err
		}
		defer leafBuf.Release()
		nodeBuf, err := ctx.NewBuffer("bench merkle nodes", uint64(n*merkle.DigestSize))
		if err != nil {
			return 0, 0, err
		}
		defer nodeBuf.Release()
		build = func() error { return b.BuildBuffers(nodeBuf, leafBuf, n) }
	}
	if kernel, err = cfg.gpuTime(&tm, build); err != nil {
		return 0, 0, err
	}
	wall, err = cfg.wallTime(func() error {
		_, err := merkle.Build(ctx, leaves, hash, opts)
		return err
	})
	return kernel, wall, err
}

// cpuMerkleRate times a tree of n leaves built on the CPU backend (the
// merges of each level on all cores) and returns the time per leaf in
// nanoseconds.
func cpuMerkleRate(hash merkle.Hash, n int) (float64, error) {
	var t wgpu.Timing
	if _, err := merkle.Build(nil, cli.RandomLeaves(hash, n, 0x6d65726b6c65), hash, merkle.Options{Timing: &t}); err != nil {
		return 0, err
	}
	return float64(t.Wall.Nanoseconds()) / float64(n), nil
}

// spotCheck verifies k random nodes (and node 1) against the CPU merge with
// hash of their children: a whole-tree reference for 2^24 Rescue leaves would take
// the CPU minutes.
func spotCheck(tree *merkle.Tree, hash merkle.Hash, k int) error {
	nodes, leaves, n := tree.Nodes(), tree.Leaves(), len(tree.Leaves())
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
		if got, want := nodes[i], hash.Merge(child(2*i), child(2*i+1)); got != want {
			return fmt.Errorf("node %d is %x, the CPU merge of its children is %x", i, got, want)
		}
	}
	return nil
}

// forceMerkle returns o with merkle's variant name of entry forced
// (internal/base/impl), for the benchmarks; a name merkle does not register
// leaves o as it is, which the benchmark's checks then report as the
// default's figures under the variant's name, so the names are tested
// (TestForceMerkle).
func forceMerkle(entry, name string, o merkle.Options) merkle.Options {
	set, err := impl.Select[func(merkle.Options) merkle.Options](entry, name)
	if err != nil {
		return o
	}
	return set(o)
}
