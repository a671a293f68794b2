// Package merkle builds binary Merkle trees on the GPU or on all CPU
// cores, with any 2-to-1 merge (a Hash: blake3.MerkleMerge,
// rescue.MerkleMerge, or one of your own), and proves and verifies
// membership on the CPU.
//
// The layout is winterfell's: for N leaves, N a power of two, the tree is
// an array of N nodes where node 0 is unused (zero), node i is
// merge(node 2i, node 2i+1), nodes N..2N-1 stand for the leaves, and node 1
// is the root. Leaves and nodes are 32-byte digests.
//
// Any other number of leaves (at least 1) makes a tree by merkletreejs's
// default rule, which is also the shape of RFC 6962's Merkle Tree Hash:
// each level's nodes are paired left to right and an odd last node is
// carried up unchanged, neither hashed nor duplicated. Bitcoin's rule,
// duplicating it, gives [a, b, c] and [a, b, c, c] the same root
// (CVE-2012-2459) and spends a merge on nothing; padding to a power of two
// doubles the work and needs a padding value that cannot be a leaf. The
// carried node costs nothing, every leaf keeps one position, a tree is the
// perfect trees of its count's binary decomposition joined from the right
// (so power-of-two trees are unchanged), and proofs are those of
// merkletreejs and RFC 6962's shape, tested against merkletreejs's
// outputs (testdata/merkletreejs_blake3.json). The node array of such a
// tree holds node 0, then each level from the root down to the one above
// the leaves, left to right (Tree.Nodes, at most n + log2(n) of them);
// for a power of two this is the heap layout above. PathLen gives a
// leaf's proof length; on the GPU each perfect part is built as a tree of
// its own and the parts' roots are joined from the right.
//
// Build runs on a GPU (a wgpu.Context), on several (a sched.Group), or with
// a nil target on the CPU, the plain-Go reference the devices are tested
// against. Trees larger than one storage
// binding are built a binding-sized subtree at a time, and the subtree
// roots are then merged as a small tree of their own. A Committer keeps its
// buffers from one build to the next.
//
// The same split composes across machines: the roots of M equal ranges of
// the leaves (Root of each range's leaves, which a worker can hold alone)
// are the leaves of the tree's top log2(M) levels, so Root of them is the
// whole tree's root, and JoinProofs joins a proof inside a
// range with the proof of its root among the M into a proof of the tree.
//
// A proof of a set of leaves (MultiProof) holds every node the verifier
// cannot compute from them once; pruned paths (PrunedProof) are the same
// nodes as one path per leaf, each without the nodes earlier paths or the
// leaves already give, as plonky2 compresses its Merkle proofs. Options'
// CapHeight keeps only the top levels of a tree on the host (plonky2's
// Merkle cap); its proofs rebuild the subtrees they need from the leaves.
//
// What the tree separates: leaves and interior nodes are both 32-byte
// digests merged by the same function, with no domain separation (this is
// winterfell's layout, kept so that roots match winterfell's). So the nodes
// of any level are themselves the leaves of a smaller tree with the same
// root: node 2 of an 8-leaf tree with the path [node 3] is a valid proof for
// a 2-leaf tree, and with carried nodes a proof of leaf 0 of 4 leaves is
// also one of leaf 0 of 3. A Proof therefore states the tree's size, and
// Verify checks that the path has exactly the length the size and index
// give and the index is below N; a verifier that checks the size against
// the one it trusts, as it checks the root, cannot be shown an interior
// node as a leaf or a proof of another tree shape. The leaves are taken as
// given: hashing the data into leaves with a function domain-separated from
// the merge (a keyed or prefixed hash, as RFC 6962 does with 0x00 and 0x01)
// is the caller's choice.
package merkle

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
)

// DigestSize is the size in bytes of a leaf and of a node.
const DigestSize = 32

// Tree is a built Merkle tree: the leaves and its nodes (all of them, or
// the top levels of a capped tree).
type Tree struct {
	hash   Hash
	leaves [][32]byte
	nodes  [][32]byte
	capped *capInfo // nil: every node is kept
}

// checkSize returns an error unless n is a tree size this package builds:
// at least 1 leaf.
func checkSize(n int) error {
	if n < 1 {
		return fmt.Errorf("merkle: %d leaves: a tree needs at least 1 leaf (any count: 1, 2, 3, ...)", n)
	}
	return nil
}

// buildCPU is the plain-Go reference, Build with a nil target: for a
// power of two, for i := n-1; i >= 1; i-- { node[i] = merge(node[2i],
// node[2i+1]) } with node n+j = leaves[j]; for any count, level by level,
// each level's pairs merged and an odd last node carried up. Each level's
// merges are spread over all cores. The tree keeps leaves (it does not
// copy them). It builds into t's node memory when it holds enough (see
// builder.BuildInto), checking the leaves unless the caller has.
func buildCPU(t *Tree, leaves [][32]byte, hash Hash, check bool, progress func(done, total int) error) (*Tree, error) {
	n := len(leaves)
	if err := checkSize(n); err != nil {
		return nil, err
	}
	if hash == nil {
		return nil, errNoHash
	}
	if check {
		if err := checkLeaves(hash, leaves); err != nil {
			return nil, err
		}
	}
	l := newLayout(n)
	nodes := t.reuse(l.size(l.low()))
	if progress != nil {
		if err := l.buildCPUReporting(nodes, leaves, hash, progress); err != nil {
			return nil, err
		}
	} else {
		l.buildCPU(nodes, leaves, hash)
	}
	built := &Tree{hash: hash, leaves: leaves, nodes: nodes}
	if t != nil {
		*t = *built
		return t, nil
	}
	return built, nil
}

// Root returns node 1: the root (for one leaf, the leaf).
func (t *Tree) Root() [32]byte { return t.nodes[1] }

// Nodes returns the node array (node 0 zero): nodeCount(Len()) nodes, N
// for a power of two, or for a capped tree its first nodes, the levels
// kept. The slice is the tree's own.
func (t *Tree) Nodes() [][32]byte { return t.nodes }

// Leaves returns the leaves the tree was built from.
func (t *Tree) Leaves() [][32]byte { return t.leaves }

// Proof returns the authentication path of leaf i: its sibling first, then
// the sibling of each ancestor below the root, skipping the levels where
// the ancestor is carried up without a sibling (PathLen digests). A
// capped tree rebuilds the leaf's subtree (Subtree) on the Context it was
// built on.
func (t *Tree) Proof(i int) (Proof, error) {
	n := len(t.leaves)
	if i < 0 || i >= n {
		return Proof{}, fmt.Errorf("merkle: proof of leaf %d: the tree has leaves 0..%d", i, n-1)
	}
	path, err := t.digests(pathNodes(n, i))
	if err != nil {
		return Proof{}, fmt.Errorf("merkle: proof of leaf %d: %w", i, err)
	}
	return Proof{Index: i, Leaves: n, Leaf: t.leaves[i], Path: path, Root: t.Root()}, nil
}

// Proof is a membership proof: Leaf is leaf Index of the tree of Leaves
// leaves whose root is Root. Its JSON form is
// {"index": I, "leaves": N, "leaf": hex, "path": [hex, ...], "root": hex},
// each digest as 64 hex digits of its 32 bytes (for Rescue, the 4 elements
// as little-endian bytes). It is written without a format; reading takes
// "format": "single" and "version": 1 too (MultiProof and PrunedProof
// have formats of their own).
type Proof struct {
	Index  int
	Leaves int
	Leaf   [32]byte
	Path   [][32]byte
	Root   [32]byte
}

// Verify reports whether p proves its leaves in the tree of n leaves with
// root root, merged with hash, for each kind of proof (a proof states its
// own root and size too: pass p.Root and p.Leaves to check that it is
// consistent, but a verifier checks the root and size it trusts). A nil
// hash verifies nothing.
//
// A Proof proves that p.Leaf is leaf p.Index: the index must be below n,
// the path must have PathLen(n, p.Index) entries (log2(n) for a power of
// two), every digest must be one the hash accepts, p must state the same n
// and root, and hashing the leaf with each path entry in turn (on the left
// when the current index is odd), past the levels where it has no sibling,
// must give root.
//
// A MultiProof proves that each of its Values is its leaf: it must state
// the same n and root, hold at least one leaf, its indices ascending and
// distinct and below n, one value for each, exactly the nodes the leaves
// need (no more, no fewer), every digest one the hash accepts, and merging
// the values with the nodes in the proof's order must give root.
//
// A PrunedProof proves the same as a MultiProof, where each path must hold
// exactly the nodes pruning leaves in it, and a repeated index the same
// value.
func Verify[P Proof | MultiProof | PrunedProof](hash Hash, root [32]byte, n int, p P) bool {
	switch p := any(p).(type) {
	case MultiProof:
		return checkMulti(hash, root, n, p) == nil
	case PrunedProof:
		mp, err := p.multi(n)
		return err == nil && checkMulti(hash, root, n, mp) == nil
	case Proof:
		return verifyOne(hash, root, n, p)
	}
	return false
}

// verifyOne is Verify of a Proof.
func verifyOne(hash Hash, root [32]byte, n int, p Proof) bool {
	if hash == nil || checkSize(n) != nil || p.Leaves != n || p.Root != root ||
		p.Index < 0 || p.Index >= n {
		return false
	}
	ps := pathNodes(n, p.Index)
	if len(p.Path) != len(ps) {
		return false
	}
	// A digest has one encoding: for Rescue, e and e+p (which fits in 64
	// bits for small e) would otherwise both verify.
	if hash.CheckDigest(p.Leaf) != nil || hash.CheckDigest(root) != nil {
		return false
	}
	for _, s := range p.Path {
		if hash.CheckDigest(s) != nil {
			return false
		}
	}
	return walkPath(p.Leaf, ps, p.Path, merges(hash)) == root
}

type proofJSON struct {
	Format  string   `json:"format,omitempty"`  // "single" or absent
	Version *int     `json:"version,omitempty"` // 1 or absent
	Index   int      `json:"index"`
	Leaves  *int     `json:"leaves"`
	Leaf    string   `json:"leaf"`
	Path    []string `json:"path"`
	Root    string   `json:"root"`
}

// MarshalJSON writes the proof's JSON form.
func (p Proof) MarshalJSON() ([]byte, error) {
	return json.Marshal(proofJSON{Index: p.Index, Leaves: &p.Leaves, Leaf: hex.EncodeToString(p.Leaf[:]), Root: hex.EncodeToString(p.Root[:]), Path: hexDigests(p.Path)})
}

// UnmarshalJSON reads the proof's JSON form; "leaves" is required.
func (p *Proof) UnmarshalJSON(b []byte) error {
	var j proofJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("merkle: proof: %w", err)
	}
	if err := checkFormat("proof", formatSingle, j.Format, j.Version, false); err != nil {
		return err
	}
	if j.Leaves == nil {
		return errors.New(`merkle: proof: no "leaves": a proof states the tree's number of leaves`)
	}
	q := Proof{Index: j.Index, Leaves: *j.Leaves}
	var err error
	if q.Leaf, err = parseDigest(j.Leaf); err != nil {
		return fmt.Errorf("merkle: proof leaf: %w", err)
	}
	if q.Root, err = parseDigest(j.Root); err != nil {
		return fmt.Errorf("merkle: proof root: %w", err)
	}
	if q.Path, err = parseDigests("path", j.Path); err != nil {
		return fmt.Errorf("merkle: proof %w", err)
	}
	*p = q
	return nil
}

// parseDigest decodes 64 hex digits into a digest.
func parseDigest(s string) ([32]byte, error) {
	var d [32]byte
	if len(s) != 2*DigestSize {
		return d, fmt.Errorf("digest of %d characters: want 64 hex digits (32 bytes)", len(s))
	}
	if _, err := hex.Decode(d[:], []byte(s)); err != nil {
		return d, fmt.Errorf("digest %q: want 64 hex digits (32 bytes)", s)
	}
	return d, nil
}
