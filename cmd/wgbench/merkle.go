package main

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unsafe"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/internal/fileout"
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
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			tree, err := merkleBuild(g, hashName, in, approach)
			if err != nil {
				return err
			}
			if out != "" {
				if err := fileout.WriteFile(out, wgpu.Bytes(tree.Nodes())); err != nil {
					return fmt.Errorf("merkle: %w", err)
				}
			}
			root := tree.Root()
			_, err = fmt.Fprintln(cmd.OutOrStdout(), hex.EncodeToString(root[:]))
			return err
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
{"index": I, "leaves": N, "leaf": hex, "path": [hex, ...], "root": hex}, the
path ordered from the leaf's sibling up to the child of the root.`,
		Args: noArgs,
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
			_, err = fmt.Fprintln(cmd.OutOrStdout(), string(b))
			return err
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
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			hash, err := merkle.ParseHash(hashName)
			if err != nil {
				return err
			}
			if proofIn == "" {
				return errors.New("merkle verify: --proof FILE is required (a proof as printed by merkle prove)")
			}
			p, err := readProof(proofIn)
			if err != nil {
				return fmt.Errorf("merkle verify: %w", err)
			}
			if !p.Verify(hash) {
				fmt.Fprintf(cmd.ErrOrStderr(), "merkle verify: %s does not verify: leaf %d and its path of %d digests do not give root %x with the %s merge\n",
					proofIn, p.Index, len(p.Path), p.Root[:], hash)
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
	if approach < 0 || approach > int(merkle.Subtrees) {
		return nil, fmt.Errorf("merkle: approach %d: accepted are 1 (a dispatch per level), 2 (workgroup levels through global memory), 3 (subtrees in workgroup memory), or 0 for the fastest", approach)
	}
	leaves, err := readLeaves(in, g.hostMemory()/3)
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
	return merkle.Build(ctx, leaves, hash, merkle.Options{Approach: merkle.Approach(approach)})
}

// readLeaves reads a leaves file: a regular file, a pipe or a FIFO, of at
// most limit bytes (the tree's nodes take as much again).
func readLeaves(path string, limit int64) ([][32]byte, error) {
	limit -= limit % merkle.DigestSize
	b, err := readInput(path, limit, "the leaves can take here (the tree's nodes take as much again in host memory)")
	if err != nil {
		return nil, fmt.Errorf("merkle: %w", err)
	}
	if len(b)%merkle.DigestSize != 0 {
		return nil, fmt.Errorf("merkle: %s has %d bytes, not a whole number of 32-byte leaves", path, len(b))
	}
	n := len(b) / merkle.DigestSize
	if n < 2 || n&(n-1) != 0 {
		count := fmt.Sprintf("%d leaves", n)
		if n == 1 {
			count = "1 leaf"
		}
		return nil, fmt.Errorf("merkle: %s holds %s: a tree needs a power of two of leaves, at least 2 (2, 4, 8, ...)", path, count)
	}
	// The bytes as leaves, without a copy: [32]byte has no alignment.
	return unsafe.Slice((*[32]byte)(unsafe.Pointer(unsafe.SliceData(b))), n), nil
}

// maxProofBytes bounds a proof file: a proof holds at most 64 path
// digests, about 5 KiB as merkle prove prints it.
const maxProofBytes = 1 << 20

// readProof reads a proof as merkle prove prints it. A digest that is not
// 64 hex digits is an error quoting at most its start.
func readProof(path string) (merkle.Proof, error) {
	var p merkle.Proof
	b, err := readInput(path, maxProofBytes, "a proof file can hold (a proof holds at most 64 path digests)")
	if err != nil {
		return p, err
	}
	var raw struct {
		Leaf string   `json:"leaf"`
		Path []string `json:"path"`
		Root string   `json:"root"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return p, fmt.Errorf("%s is not a proof: %w", path, err)
	}
	check := func(field, d string) error {
		if len(d) != 2*merkle.DigestSize || !isHex(d) {
			return fmt.Errorf("%s: %s is %s: want 64 hex digits (32 bytes)", path, field, shortQuote(d))
		}
		return nil
	}
	if err := check("leaf", raw.Leaf); err != nil {
		return p, err
	}
	if err := check("root", raw.Root); err != nil {
		return p, err
	}
	for k, d := range raw.Path {
		if err := check(fmt.Sprintf("path[%d]", k), d); err != nil {
			return p, err
		}
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// shortQuote quotes s, or its start and its length when the quoted form
// would be longer than about 60 characters.
func shortQuote(s string) string {
	const budget = 60
	if len(s) <= budget {
		if q := strconv.Quote(s); len(q) <= budget+2 {
			return q
		}
	}
	end := 0
	for i := range s {
		if len(strconv.Quote(s[:i])) > budget {
			break
		}
		end = i
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:end]), len(s))
}
