package merklecmd

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unsafe"

	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/internal/base/impl"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/registry"
	"github.com/wgcompute/wgcompute/cmd/internal/fileout"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// rootOutput is where a command that writes the tree's nodes to out
// prints the root: standard output, or standard error where out is
// standard output itself, which then holds the nodes alone.
func rootOutput(cmd *cobra.Command, out string) io.Writer {
	if out != "" && fileout.Same(out, "-") {
		return cmd.ErrOrStderr()
	}
	return cmd.OutOrStdout()
}

// merkleHashes lists the merges the merkle commands offer, matched by
// name.
func merkleHashes() []merkle.Hash {
	var hs []merkle.Hash
	for _, h := range registry.Hashes() {
		hs = append(hs, h.Merkle)
	}
	return hs
}

// merkleHashNames returns the names of merkleHashes joined by sep.
func merkleHashNames(sep string) string {
	var names []string
	for _, h := range merkleHashes() {
		names = append(names, h.Name())
	}
	return strings.Join(names, sep)
}

// requireHash refuses a merkle command without --hash, listing the
// accepted names (the registry's): a tree's root depends on the hash, so
// there is no default.
func requireHash(cmd *cobra.Command, name string) error {
	if name != "" {
		return nil
	}
	return fmt.Errorf("%s: --hash is required: accepted are %s, or a schedule of them by level (blake3:4,rescue)", strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" "), merkleHashNames(", "))
}

// parseHash returns the merge of the hash named name (in any case).
func parseHash(name string) (merkle.Hash, error) {
	h, err := lookupMerkle(name)
	return h.Merkle, err
}

// lookupMerkle returns the registry's hash named name (in any case), its
// merge and what estimates its work, found once.
func lookupMerkle(name string) (registry.Hash, error) {
	var names []string
	for _, h := range registry.Hashes() {
		if strings.EqualFold(name, h.Name) {
			return h, nil
		}
		names = append(names, h.Name)
	}
	if isSchedule(name) {
		return registry.Hash{}, fmt.Errorf("merkle: hash schedule %q: this command builds trees of one hash (%s)", name, strings.Join(names, ", "))
	}
	return registry.Hash{}, fmt.Errorf("merkle: unknown hash %q: accepted are %s", name, strings.Join(names, ", "))
}

// NewMerkle returns the merkle command and its subcommands.
func NewMerkle(g *cli.Globals) *cobra.Command {
	var (
		hashName string
		in       string
		out      string
		approach int
		indices  []int
		format   string
		capH     int
		proofIn  string
		rootHex  string
		leaves   int
		quiet    bool
		rf       rangeFlags
	)
	cmd := &cobra.Command{
		Use:   "merkle --hash " + merkleHashNames("|") + " --in LEAVES [--out NODES] [--approach 1|2|3] [--range I/M [--leaves N]]",
		Short: "Build a binary Merkle tree on the GPU and print its root in hex",
		Long: `merkle builds the binary Merkle tree of the leaves in --in: N 32-byte digests,
N at least 1 (for Rescue, RPO and Poseidon2, each leaf is 4 little-endian
uint64 field elements below p = 2^64 - 2^32 + 1; for poseidon2-babybear and
poseidon2-koalabear, 8 little-endian uint32 elements below the field's p).
It prints the root in hex; --out writes all the nodes. With --out -
(standard output) the nodes alone go to standard output, and the root to
standard error. For N a power of two they are N nodes (N x 32 bytes, node 0 zero,
node 1 the root, node i the merge of nodes 2i and 2i+1, where node N+j is
leaf j). For other counts each level's nodes are paired left to right and an
odd last node is carried up unhashed (merkletreejs's default, RFC 6962's
shape), and --out writes node 0 (zero), then each level from the root down
to the one above the leaves, left to right: a level j holds ceil(N/2^j)
nodes (one leaf: node 0 and the leaf).

With --backend cpu the tree is built by the plain-Go merges on all cores.

--hash also takes a schedule of hashes by level, from the leaves up:
blake3:4,rescue merges the lowest 4 levels with BLAKE3 and the levels above
with Rescue (the leaves are BLAKE3 digests; the BLAKE3 digests of level 4
enter the Rescue levels as their four little-endian words reduced mod p). A
mixed tree is built on one device; prove and verify take the same schedule.

With --range I/M it computes the root of range I of M equal ranges of the
leaves (N and M powers of two, M from 1 to N; range I holds leaves I*N/M up to
(I+1)*N/M), reading only that range's bytes of --in, and prints a record
line instead of the root:

  ` + recordFormat + `

--out writes the line to a file as well. 'wgbench merkle combine' reads the
M records, from as many machines, and prints the whole tree's root. With
--leaves N, --in holds the range's N/M leaves alone (a pipe will do).`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := requireHash(cmd, hashName); err != nil {
				return err
			}
			if rf.set(cmd) {
				return rf.run(cmd, g, hashName, in, approach, out)
			}
			// Without --out only the root comes back from the device.
			tree, root, err := merkleBuild(cmd, g, hashName, in, approach, out == "")
			if err != nil {
				return err
			}
			// Ctrl-C during the build: nothing is written.
			if err := cli.Interrupted(cmd.Context()); err != nil {
				return err
			}
			if out != "" {
				if err := cli.WriteOutput(out, wgpu.Bytes(tree.Nodes())); err != nil {
					return fmt.Errorf("merkle: %w", err)
				}
			}
			_, err = fmt.Fprintln(rootOutput(cmd, out), hex.EncodeToString(root[:]))
			return err
		},
	}
	buildFlags := func(c *cobra.Command) {
		f := c.Flags()
		f.StringVar(&hashName, "hash", "", "merge hash: "+merkleHashNames(", ")+", or a schedule of them by level (blake3:4,rescue)")
		f.StringVar(&in, "in", "", "leaves file: N x 32 bytes (- for standard input)")
		f.IntVar(&approach, "approach", 0, "1: a dispatch per level, 2: workgroup levels, 3: subtrees in workgroup memory (default: fastest)")
	}
	buildFlags(cmd)
	cmd.Flags().StringVar(&out, "out", "", "write the N nodes (N x 32 bytes) to this file (- for standard output, the root then on standard error); with --range, the record line")
	rf.add(cmd, "compute the root of range I of M equal ranges of the leaves, M a power of two, and print it as a record line for merkle combine (I/M, as 3/16)")

	prove := &cobra.Command{
		Use:   "prove --hash " + merkleHashNames("|") + " --in LEAVES --index I[,I...] [--format single|multi|pruned] [--cap H] [--range R/M [--leaves N]]",
		Short: "Print the JSON membership proof of leaf I, or of several leaves",
		Long: `prove builds the tree of --in and prints the proof of leaf I as JSON:
{"index": I, "leaves": N, "leaf": hex, "path": [hex, ...], "root": hex}, the
path ordered from the leaf's sibling up to the child of the root (levels
where the leaf's ancestor is carried up without a sibling have no entry).

Several indices (--index 3,17,99, or --index repeated) print a multi-proof:
{"format": "multi", "version": 1, "leaves": N, "indices": [...],
"values": [hex, ...], "nodes": [hex, ...], "root": hex}: the leaves, in
ascending order of index, each once, and every node a verifier cannot compute
from them, once, level by level from the leaves up and left to right.
--format pruned prints pruned paths instead, plonky2's compressed proofs:
{"format": "pruned", "version": 1, "leaves": N, "indices": [...],
"values": [...], "paths": [[hex, ...], ...], "root": hex}, one path per
index in the order given (repeats allowed), each without the nodes the
leaves or earlier paths give. --format multi or pruned takes one index too.

--cap H keeps only the top H+1 levels of the tree in memory (at most 2^(H+1)
nodes) and rebuilds the subtrees the proof needs from the leaves, on one
device: for trees whose nodes would not fit beside the leaves.

With --range R/M (and --leaves, as merkle --range takes them) it builds the
tree of range R alone and prints leaf I's proof in it (I is the leaf's index
in the whole tree, in range R; the proof's index is its index in the range).
'wgbench merkle combine --prove R' prints the proof of the range's root
among the M, and 'wgbench merkle join' joins the two into the proof of leaf
I in the whole tree. --range proves one leaf, in the single form.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := requireHash(cmd, hashName); err != nil {
				return err
			}
			if rf.set(cmd) {
				if len(indices) != 1 || format != "" && format != "single" || capH != 0 {
					return errors.New("merkle prove: --range proves one leaf, in the single form: give one --index, and no --format or --cap")
				}
				p, err := rf.prove(cmd, g, hashName, in, approach, indices[0])
				if err != nil {
					return err
				}
				return printProof(cmd.OutOrStdout(), p)
			}
			return merkleProve(cmd, g, proveFlags{hashName: hashName, in: in, approach: approach, indices: indices, format: format, capHeight: capH})
		},
	}
	buildFlags(prove)
	pf := prove.Flags()
	pf.IntSliceVar(&indices, "index", nil, "leaf index, 0..N-1; several (3,17,99, or the flag repeated) for a multi-proof")
	pf.StringVar(&format, "format", "", "single (one index), multi (the default for several) or pruned")
	pf.IntVar(&capH, "cap", 0, "keep the top H+1 levels of the tree in memory and rebuild the subtrees the proof needs")
	rf.add(prove, "prove leaf I in the tree of range R of M equal ranges of the leaves alone (R/M, as 3/16)")

	verify := &cobra.Command{
		Use:   "verify --hash " + merkleHashNames("|") + " --proof FILE [--root HEX --leaves N] [--quiet]",
		Short: "Check a JSON proof on the CPU: exit 0 if valid, 1 if not",
		Long: `verify checks that the proof's leaf is leaf "index" of the tree with root --root
and --leaves leaves, merged with --hash: the exit status is 0 if it is, and
it prints valid (nothing with --quiet); 1 if not, with the reason on
standard error. A multi-proof or pruned paths (as merkle prove prints them for several
indices) must prove every leaf they state. A proof states its root and its
tree's size, but anyone can write a
consistent proof of a tree of their own, or of a smaller tree inside the real
one (an interior node of the real tree posing as a leaf): only the root and
size the verifier trusts make it a proof of membership. Without --root or
--leaves the values the proof states are used, and a line on standard error
says so.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := requireHash(cmd, hashName); err != nil {
				return err
			}
			if err := merkleVerify(cmd, hashName, proofIn, rootHex, leaves); err != nil || quiet {
				return err
			}
			_, err := fmt.Fprintln(cmd.OutOrStdout(), "valid")
			return err
		},
	}
	vf := verify.Flags()
	vf.StringVar(&hashName, "hash", "", "merge hash: "+merkleHashNames(", ")+", or a schedule of them by level (blake3:4,rescue)")
	vf.StringVar(&proofIn, "proof", "", "proof file, as printed by merkle prove: a single proof, a multi-proof or pruned paths (- for standard input)")
	vf.StringVar(&rootHex, "root", "", "the trusted root, 64 hex digits (default: the proof's own, with a warning)")
	vf.IntVar(&leaves, "leaves", 0, "the trusted number of leaves of the tree (default: the proof's own, with a warning)")
	vf.BoolVar(&quiet, "quiet", false, "skips printing valid when the proof verifies (the exit status says it)")

	cmd.AddCommand(prove, verify, newMerkleCombineCmd(g), newMerkleJoinCmd())
	return cmd
}

// merkleBuild reads the leaves file and builds its tree on the adapter the
// flags choose (the CPU backend included), returning the tree and its
// root, or with rootOnly the root alone. On a terminal it shows the
// build's progress, and Ctrl-C stops it.
func merkleBuild(cmd *cobra.Command, g *cli.Globals, hashName, in string, approach int, rootOnly bool) (tree *merkle.Tree, root [32]byte, err error) {
	if isSchedule(hashName) {
		spin := cli.NewSpinner(cmd, g, "merkle: building the tree")
		tree, err = mixedBuild(g, hashName, in, approach)
		spin.Done()
		if err != nil {
			return nil, root, err
		}
		return tree, tree.Root(), nil
	}
	err = withLeaves(g, hashName, in, func(hash merkle.Hash, leaves [][32]byte, grp *sched.Group) error {
		bm := cli.NewBuildMeter(cmd, g, "merkle: "+hash.Name()+" tree", len(leaves))
		defer bm.Done()
		opts, err := approachOptions(approach)
		if err != nil {
			return err
		}
		opts.Progress = bm.Progress
		if rootOnly {
			root, err = merkle.Root(grp, leaves, hash, opts)
			return err
		}
		if tree, err = merkle.Build(grp, leaves, hash, opts); err != nil {
			return err
		}
		root = tree.Root()
		return nil
	})
	return tree, root, err
}

// withLeaves reads the leaves file while the devices the flags choose
// open, and calls fn with the hash and them, the devices closed when it
// returns.
func withLeaves(g *cli.Globals, hashName, in string, fn func(hash merkle.Hash, leaves [][32]byte, grp *sched.Group) error) error {
	h, err := lookupMerkle(hashName)
	if err != nil {
		return err
	}
	return leavesOn(g, in, cli.OneDeviceWork(h, in, merkle.DigestSize), func(leaves [][32]byte, grp *sched.Group) error { return fn(h.Merkle, leaves, grp) })
}

// leavesOn reads the leaves file while the devices the flags choose open
// for work (cli.Globals.OpenSoon), and calls fn with them, the devices closed
// when it returns.
func leavesOn(g *cli.Globals, in string, work time.Duration, fn func(leaves [][32]byte, grp *sched.Group) error) error {
	if in == "" {
		return errors.New("merkle: --in LEAVES is required (a file of N x 32-byte leaves)")
	}
	devices := g.OpenSoon(work)
	defer devices.Close()
	leaves, err := readLeaves(in, g.HostMemory()/3)
	if err != nil {
		return err
	}
	grp, err := devices.Wait()
	if err != nil {
		return err
	}
	return fn(leaves, grp)
}

// merkleVerify checks the proof in proofIn against the trusted root and
// size where given, else against the proof's own with a warning.
func merkleVerify(cmd *cobra.Command, hashName, proofIn, rootHex string, leaves int) error {
	if isSchedule(hashName) {
		return verifyMixed(cmd, hashName, proofIn, rootHex, leaves)
	}
	hash, err := parseHash(hashName)
	if err != nil {
		return err
	}
	if proofIn == "" {
		return errors.New("merkle verify: --proof FILE is required (a proof as printed by merkle prove)")
	}
	b, err := cli.ReadInput(proofIn, maxProofBytes, proofLimit)
	if err != nil {
		return fmt.Errorf("merkle verify: %w", err)
	}
	form, err := proofForm(proofIn, b)
	if err != nil {
		return fmt.Errorf("merkle verify: %w", err)
	}
	if form != nil {
		return verifySet(cmd, hash, proofIn, form, rootHex, leaves)
	}
	var p merkle.Proof
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("merkle verify: %s is not a proof as merkle prove prints it: %w", proofIn, err)
	}
	root, n := p.Root, p.Leaves
	tr, err := trustedTree(cmd, rootHex, leaves, root, n)
	if err != nil {
		return err
	}
	root, n = tr.root, tr.n
	if !merkle.Verify(hash, root, n, p) {
		why := fmt.Sprintf("leaf %d and its path of %d digests do not give root %x with the %s merge", p.Index, len(p.Path), root[:], hash.Name())
		switch {
		case p.Leaves != n:
			why = fmt.Sprintf("it is a proof for a tree of %d leaves, not of the %d given by --leaves", p.Leaves, n)
		case p.Root != root:
			why = fmt.Sprintf("it states root %x, not the %x given by --root", p.Root[:], root[:])
		case p.Index < 0 || p.Index >= n:
			why = fmt.Sprintf("leaf %d is not one of a tree of %d leaves", p.Index, n)
		case len(p.Path) != merkle.PathLen(n, p.Index):
			why = fmt.Sprintf("leaf %d of a tree of %d leaves needs a path of %d digests, the proof's has %d", p.Index, n, merkle.PathLen(n, p.Index), len(p.Path))
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "merkle verify: %s does not verify: %s\n", proofIn, why)
		return cli.ExitError{Code: 1}
	}
	tr.warn(cmd)
	return nil
}

// readLeaves reads a leaves file: a regular file, a pipe or a FIFO, of at
// most limit bytes (the tree's nodes take as much again).
func readLeaves(path string, limit int64) ([][32]byte, error) {
	limit -= limit % merkle.DigestSize
	b, err := cli.ReadInput(path, limit, "the leaves can take here (the tree's nodes take as much again in host memory)")
	if err != nil {
		return nil, fmt.Errorf("merkle: %w", err)
	}
	if _, err := leafCount(path, int64(len(b))); err != nil {
		return nil, err
	}
	return asLeaves(b), nil
}

// leafCount returns the number of leaves in the size bytes of the leaves
// file path, or an error naming the file unless they make a tree: whole
// 32-byte leaves, at least one.
func leafCount(path string, size int64) (int, error) {
	if size%merkle.DigestSize != 0 {
		return 0, fmt.Errorf("merkle: %s has %d bytes, not a whole number of 32-byte leaves", path, size)
	}
	n := int(size / merkle.DigestSize)
	if n < 1 {
		return 0, fmt.Errorf("merkle: %s holds no leaves: a tree needs at least 1 leaf (32 bytes)", path)
	}
	return n, nil
}

// asLeaves returns the bytes b as leaves, without a copy: [32]byte has no
// alignment. len(b) is a multiple of 32.
func asLeaves(b []byte) [][32]byte {
	return unsafe.Slice((*[32]byte)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/merkle.DigestSize)
}

// maxProofBytes bounds a proof file: a single proof holds at most 64 path
// digests, about 5 KiB as merkle prove prints it; a multi-proof holds its
// leaves' values and its nodes, 70 bytes each.
const maxProofBytes = 64 << 20

// proofLimit says what maxProofBytes is, in errors.
const proofLimit = "a proof file can hold (a single proof holds at most 64 path digests; a multi-proof about 900000 values and nodes)"

// readProof reads a single proof as merkle prove prints it.
func readProof(path string) (merkle.Proof, error) {
	var p merkle.Proof
	b, err := cli.ReadInput(path, maxProofBytes, proofLimit)
	if err != nil {
		return p, err
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("%s is not a proof as merkle prove prints it: %w", path, err)
	}
	return p, nil
}

// approachOptions returns the options that build a tree's levels by
// --approach: 0 the default, 1 to 3 merkle's approaches, forced through
// internal/base/impl's "merkle" variants (listed in their numbers' order).
func approachOptions(approach int) (merkle.Options, error) {
	names := impl.List("merkle")
	if approach < 0 || approach >= len(names) {
		return merkle.Options{}, fmt.Errorf("merkle: approach %d: accepted are 1 (level-per-dispatch: a dispatch per level), 2 (workgroup-levels: levels through global memory), 3 (subtrees: subtrees in workgroup memory), or 0 (default: the fastest for the hash and size)", approach)
	}
	set, err := impl.Select[func(merkle.Options) merkle.Options]("merkle", names[approach])
	if err != nil {
		return merkle.Options{}, err
	}
	return set(merkle.Options{}), nil
}
