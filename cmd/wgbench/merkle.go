package main

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/wgpu"
)

func init() {
	var (
		hashName string
		in       string
		out      string
		approach int
		index    int
		proofIn  string
	)
	cmd := &cobra.Command{
		Use:   "merkle --hash blake3|rescue --in LEAVES [--out NODES] [--approach 1|2|3]",
		Short: "Build a binary Merkle tree on the GPU and print its root in hex",
		Long: `merkle builds the binary Merkle tree of the leaves in --in: N 32-byte digests,
N a power of two and at least 2 (for Rescue, each leaf is 4 little-endian
uint64 field elements below p = 2^64 - 2^32 + 1). It prints the root in hex;
--out writes all N nodes (N x 32 bytes, node 0 zero, node 1 the root, node i
the merge of nodes 2i and 2i+1, where node N+j is leaf j).

With WGCOMPUTE_BACKEND=cpu the tree is built by the plain-Go reference.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			tree, err := merkleBuild(hashName, in, approach)
			if err != nil {
				return err
			}
			if out != "" {
				nodes := tree.Nodes()
				if err := os.WriteFile(out, wgpu.Bytes(nodes), 0o644); err != nil {
					return fmt.Errorf("merkle: write nodes: %w", err)
				}
			}
			root := tree.Root()
			fmt.Fprintln(cmd.OutOrStdout(), hex.EncodeToString(root[:]))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&hashName, "hash", "", "merge hash: blake3 or rescue")
	f.StringVar(&in, "in", "", "leaves file: N x 32 bytes")
	f.StringVar(&out, "out", "", "write the N nodes (N x 32 bytes) to this file")
	f.IntVar(&approach, "approach", 0, "1: a dispatch per level, 2: workgroup levels, 3: subtrees in workgroup memory (default: fastest)")

	prove := &cobra.Command{
		Use:   "prove --hash blake3|rescue --in LEAVES --index I",
		Short: "Print the JSON membership proof of leaf I",
		Long: `prove builds the tree of --in and prints the proof of leaf I as JSON:
{"index": I, "leaf": hex, "path": [hex, ...], "root": hex}, the path ordered
from the leaf's sibling up to the child of the root.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			tree, err := merkleBuild(hashName, in, approach)
			if err != nil {
				return err
			}
			p, err := tree.Proof(index)
			if err != nil {
				return err
			}
			b, err := json.MarshalIndent(p, "", "  ")
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), string(b))
			return nil
		},
	}
	pf := prove.Flags()
	pf.StringVar(&hashName, "hash", "", "merge hash: blake3 or rescue")
	pf.StringVar(&in, "in", "", "leaves file: N x 32 bytes")
	pf.IntVar(&index, "index", -1, "leaf index, 0..N-1")
	pf.IntVar(&approach, "approach", 0, "build approach 1, 2 or 3 (default: fastest)")

	verify := &cobra.Command{
		Use:   "verify --hash blake3|rescue --proof FILE",
		Short: "Check a JSON proof on the CPU: exit 0 if valid, 1 if not",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			hash, err := merkle.ParseHash(hashName)
			if err != nil {
				return err
			}
			if proofIn == "" {
				return errors.New("merkle verify: --proof FILE is required (a proof as printed by merkle prove)")
			}
			b, err := os.ReadFile(proofIn)
			if err != nil {
				return fmt.Errorf("merkle verify: %w", err)
			}
			var p merkle.Proof
			if err := json.Unmarshal(b, &p); err != nil {
				return fmt.Errorf("merkle verify: %s: %w", proofIn, err)
			}
			if !p.Verify(hash) {
				return exitError{1}
			}
			return nil
		},
	}
	vf := verify.Flags()
	vf.StringVar(&hashName, "hash", "", "merge hash: blake3 or rescue")
	vf.StringVar(&proofIn, "proof", "", "proof file, as printed by merkle prove")

	cmd.AddCommand(prove, verify)
	rootCmd.AddCommand(cmd)
	registerSuite(suite{name: "merkle", about: "binary Merkle trees, BLAKE3 and Rescue, three constructions", run: benchMerkle})
}

// merkleBuild reads the leaves file and builds its tree on the GPU (or with
// the CPU reference under WGCOMPUTE_BACKEND=cpu).
func merkleBuild(hashName, in string, approach int) (*merkle.Tree, error) {
	hash, err := merkle.ParseHash(hashName)
	if err != nil {
		return nil, err
	}
	if in == "" {
		return nil, errors.New("merkle: --in LEAVES is required (a file of N x 32-byte leaves)")
	}
	// The CPU path has no approaches, but a typo must not pass there and
	// fail only on a GPU.
	if approach < 0 || approach > merkle.Subtrees {
		return nil, fmt.Errorf("merkle: approach %d: accepted are 1 (a dispatch per level), 2 (workgroup levels through global memory), 3 (subtrees in workgroup memory), or 0 for the fastest", approach)
	}
	leaves, err := readLeaves(in)
	if err != nil {
		return nil, err
	}
	if err := merkle.CheckSize(len(leaves)); err != nil {
		return nil, err
	}
	ctx, err := openContext()
	if errors.Is(err, wgpu.ErrCPUBackend) {
		ctx, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	if ctx != nil {
		defer ctx.Close()
	}
	return merkle.Build(ctx, leaves, hash, merkle.Options{Approach: approach})
}

func readLeaves(path string) ([][32]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("merkle: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("merkle: %w", err)
	}
	if st.Size()%merkle.DigestSize != 0 {
		return nil, fmt.Errorf("merkle: %s has %d bytes, not a whole number of 32-byte leaves", path, st.Size())
	}
	leaves := make([][32]byte, st.Size()/merkle.DigestSize)
	if _, err := io.ReadFull(f, wgpu.Bytes(leaves)); err != nil {
		return nil, fmt.Errorf("merkle: read %s: %w", path, err)
	}
	return leaves, nil
}

// benchMerkle times Build per hash, size and approach: GPU kernel time
// (timestamps) and end to end (upload, kernels, download into host nodes).
func benchMerkle(ctx *wgpu.Context, cfg *benchConfig) ([]table, error) {
	type variant struct {
		name string
		opts merkle.Options
	}
	variants := []variant{
		{"1: dispatch per level", merkle.Options{Approach: merkle.LevelPerDispatch}},
		{"1: pass per level", merkle.Options{Approach: merkle.LevelPerDispatch, PassPerLevel: true}},
		{"2: workgroup levels", merkle.Options{Approach: merkle.WorkgroupLevels}},
		{"3: subtrees", merkle.Options{Approach: merkle.Subtrees}},
	}
	ladders := []struct {
		hash    *merkle.Hash
		lo, hi  int
		article map[int]string
	}{
		{merkle.Rescue, 20, 24, map[int]string{20: "63.1", 21: "116.3", 22: "219.8", 23: "431.5", 24: "849.1"}},
		{merkle.Blake3, 20, 25, map[int]string{25: "7.31"}},
	}
	var tables []table
	for _, l := range ladders {
		lo, hi := l.lo, l.hi
		if cfg.quick {
			lo, hi = 10, 14
			if l.hash == merkle.Rescue {
				hi = 12 // a software adapter merges about 4e4 Rescue pairs per second
			}
		}
		t := table{
			Title: fmt.Sprintf("Merkle tree, %s merge", l.hash),
			Columns: []string{"leaves", "approach", "kernel ms", "end-to-end ms (Build)", "V100 approach 1 ms (article)", "kernel vs V100",
				"CPU ref ms (" + hostCPU() + ", est.)", "kernel vs CPU", "checked"},
			XLabel: "leaves", YLabel: "leaves per second (kernel)", LogX: true,
		}
		cpuPerLeaf, err := cpuMerkleRate(l.hash, 1<<min(16, hi))
		if err != nil {
			return nil, err
		}
		for lg := lo; lg <= hi; lg++ {
			n := 1 << lg
			leaves := benchLeaves(l.hash, n)
			cpu := time.Duration(float64(n) * cpuPerLeaf)
			for _, v := range variants {
				cfg.step(fmt.Sprintf("merkle %s 2^%d %s", l.hash, lg, v.name))
				tree, err := merkle.Build(ctx, leaves, l.hash, v.opts)
				if err != nil {
					return nil, err
				}
				if err := spotCheck(tree, 1000); err != nil {
					return nil, fmt.Errorf("%s 2^%d approach %s: %w", l.hash, lg, v.name, err)
				}
				tree = nil
				var walls []time.Duration
				for r := 0; r < max(cfg.repeats, 1); r++ {
					start := time.Now()
					if _, err := merkle.Build(ctx, leaves, l.hash, v.opts); err != nil {
						return nil, err
					}
					walls = append(walls, time.Since(start))
				}
				slices.Sort(walls)
				w := walls[len(walls)/2]
				kms, vsV100, vsCPU := "n/a", "-", "-"
				art := l.article[lg]
				if art == "" {
					art = "-"
				}
				if ctx.Info().Timestamps {
					// Resident leaves, back to back: Build's own kernel
					// time follows an upload that let the GPU clock down.
					first, err := merkle.KernelTimes(ctx, leaves, l.hash, v.opts, 1)
					if err != nil {
						return nil, err
					}
					// Back-to-back runs for at least warmUp: only the last
					// repeats count, once the GPU's clock is up.
					runs := max(cfg.repeats, 1) + int(nextWarmUp()/max(first[0], time.Microsecond))
					ks, err := merkle.KernelTimes(ctx, leaves, l.hash, v.opts, min(runs, 5000))
					if err != nil {
						return nil, err
					}
					ks = ks[len(ks)-max(cfg.repeats, 1):]
					slices.Sort(ks)
					k := ks[len(ks)/2]
					kms = ms(k)
					vsCPU = fmt.Sprintf("%.1f×", float64(cpu)/float64(k))
					if a, err := strconv.ParseFloat(art, 64); err == nil {
						vsV100 = fmt.Sprintf("%.2f×", a/(float64(k)/1e6))
					}
					t.Points = append(t.Points, point{X: float64(n), Y: float64(n) / k.Seconds(), Series: v.name})
				}
				t.Rows = append(t.Rows, []string{"2^" + strconv.Itoa(lg), v.name, kms, ms(w), art, vsV100, ms(cpu), vsCPU, "1000 nodes = merge of children"})
			}
		}
		t.Notes = append(t.Notes, "End to end: upload of the leaves, the kernels, download of all N nodes into host memory. The article's V100 figures are approach 1.",
			fmt.Sprintf("CPU ref: the plain-Go merges level by level on all cores, timed on 2^%d leaves and scaled linearly (a whole reference tree at the top sizes would take the CPU minutes).", min(16, hi)))
		tables = append(tables, t)
	}
	return tables, nil
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
