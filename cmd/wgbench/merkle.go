package main

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/wgpu"
)

func newMerkleCmd(g *globals) *cobra.Command {
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
			tree, err := merkleBuild(g, hashName, in, approach)
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
			tree, err := merkleBuild(g, hashName, in, approach)
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
	return cmd
}

// merkleBuild reads the leaves file and builds its tree on the GPU (or with
// the CPU reference under WGCOMPUTE_BACKEND=cpu).
func merkleBuild(g *globals, hashName, in string, approach int) (*merkle.Tree, error) {
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
	ctx, err := g.openContext()
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
