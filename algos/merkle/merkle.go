// Package merkle builds binary Merkle trees on the GPU or on all CPU
// cores, with any 2-to-1 merge (a Hash: blake3.MerkleMerge,
// rescue.MerkleMerge, or one of your own), and proves and verifies
// membership on the CPU.
//
// The layout is winterfell's: N leaves, N a power of two and at least 2; the
// tree is an array of N nodes where node 0 is unused (zero), node i is
// merge(node 2i, node 2i+1), nodes N..2N-1 stand for the leaves, and node 1
// is the root. Leaves and nodes are 32-byte digests.
//
// Build runs on the GPU, or with a nil Context on the CPU; BuildCPU is the
// plain-Go reference it is tested against. Trees larger than one storage
// binding are built a binding-sized subtree at a time, and the subtree
// roots are then merged as a small tree of their own. A Builder keeps its
// buffers from one build to the next.
//
// The same split composes across machines: the roots of M equal ranges of
// the leaves (RangeRoot of each Range's leaves, which a worker can hold
// alone) are the leaves of the tree's top log2(M) levels, so Combine of
// them is the whole tree's root, and JoinProofs joins a proof inside a
// range with the proof of its root among the M into a proof of the tree.
//
// What the tree separates: leaves and interior nodes are both 32-byte
// digests merged by the same function, with no domain separation (this is
// winterfell's layout, kept so that roots match winterfell's). So the nodes
// of any level are themselves the leaves of a smaller tree with the same
// root: node 2 of an 8-leaf tree with the path [node 3] is a valid proof for
// a 2-leaf tree. A Proof therefore states the tree's size, and Verify
// checks that the path is exactly log2(N) long and the index below N; a
// verifier that checks the size against the one it trusts, as it checks the
// root, cannot be shown an interior node as a leaf. The leaves are taken as
// given: hashing the data into leaves with a function domain-separated from
// the merge (a keyed or prefixed hash, as RFC 6962 does with 0x00 and 0x01)
// is the caller's choice.
package merkle

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"

	"github.com/wgcompute/wgcompute/internal/par"
)

// DigestSize is the size in bytes of a leaf and of a node.
const DigestSize = 32

// Tree is a built Merkle tree: the leaves and all N nodes.
type Tree struct {
	hash   Hash
	leaves [][32]byte
	nodes  [][32]byte
}

// CheckSize returns an error unless n is a tree size this package builds: a
// power of two, at least 2.
func CheckSize(n int) error {
	if n < 2 || n&(n-1) != 0 {
		return fmt.Errorf("merkle: %d leaves: a tree needs a power of two of leaves, at least 2 (2, 4, 8, ...)", n)
	}
	return nil
}

// BuildCPU is the plain-Go reference:
// for i := n-1; i >= 1; i-- { node[i] = merge(node[2i], node[2i+1]) } with
// node n+j = leaves[j], each level's merges spread over all cores. The tree
// keeps leaves (it does not copy them).
func BuildCPU(leaves [][32]byte, hash Hash) (*Tree, error) { return buildCPU(nil, leaves, hash, true) }

// buildCPU is BuildCPU into t's node memory when it holds enough (see
// Builder.BuildInto), checking the leaves unless the caller has.
func buildCPU(t *Tree, leaves [][32]byte, hash Hash, check bool) (*Tree, error) {
	n := len(leaves)
	if err := CheckSize(n); err != nil {
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
	var nodes [][32]byte
	if t != nil && cap(t.nodes) >= n {
		nodes = t.nodes[:n]
		nodes[0] = [32]byte{}
	} else {
		nodes = make([][32]byte, n)
	}
	for w := n / 2; w >= 1; w /= 2 {
		below := leaves // the level under level w: its 2w nodes
		if w < n/2 {
			below = nodes[2*w : 4*w]
		}
		par.For(w, 256, func(lo, hi int) {
			for j := lo; j < hi; j++ {
				nodes[w+j] = hash.Merge(below[2*j], below[2*j+1])
			}
		})
	}
	built := &Tree{hash: hash, leaves: leaves, nodes: nodes}
	if t != nil {
		*t = *built
		return t, nil
	}
	return built, nil
}

// Hash returns the hash the tree was built with.
func (t *Tree) Hash() Hash { return t.hash }

// Len returns the number of leaves.
func (t *Tree) Len() int { return len(t.leaves) }

// Root returns node 1.
func (t *Tree) Root() [32]byte { return t.nodes[1] }

// Nodes returns the N nodes (node 0 zero). The slice is the tree's own.
func (t *Tree) Nodes() [][32]byte { return t.nodes }

// Leaves returns the leaves the tree was built from.
func (t *Tree) Leaves() [][32]byte { return t.leaves }

// Proof returns the authentication path of leaf i: its sibling first, then
// the sibling of each ancestor below the root.
func (t *Tree) Proof(i int) (Proof, error) {
	n := len(t.leaves)
	if i < 0 || i >= n {
		return Proof{}, fmt.Errorf("merkle: proof of leaf %d: the tree has leaves 0..%d", i, n-1)
	}
	path := make([][32]byte, 0, bits.Len(uint(n))-1)
	path = append(path, t.leaves[i^1])
	for k := (n + i) / 2; k > 1; k /= 2 {
		path = append(path, t.nodes[k^1])
	}
	return Proof{Index: i, Leaves: n, Leaf: t.leaves[i], Path: path, Root: t.Root()}, nil
}

// Proof is a membership proof: Leaf is leaf Index of the tree of Leaves
// leaves whose root is Root. Its JSON form is
// {"index": I, "leaves": N, "leaf": hex, "path": [hex, ...], "root": hex},
// each digest as 64 hex digits of its 32 bytes (for Rescue, the 4 elements
// as little-endian bytes).
type Proof struct {
	Index  int
	Leaves int
	Leaf   [32]byte
	Path   [][32]byte
	Root   [32]byte
}

// Verify reports whether p proves that p.Leaf is leaf p.Index of the tree
// of n leaves with root root, merged with hash: the path must have log2(n)
// entries, the index must be below n, every digest must be one the hash
// accepts, p must state the same n and root, and hashing the leaf with each
// path entry in turn (on the left when the current index is odd) must give
// root. A nil hash verifies nothing.
func Verify(hash Hash, root [32]byte, n int, p Proof) bool {
	if hash == nil || CheckSize(n) != nil || p.Leaves != n || p.Root != root ||
		len(p.Path) != bits.Len(uint(n))-1 || p.Index < 0 || p.Index >= n {
		return false
	}
	// A digest has one encoding: for Rescue, e and e+p (which fits in 64
	// bits for small e) would otherwise both verify.
	if hash.CheckDigest(p.Leaf) != nil || hash.CheckDigest(root) != nil {
		return false
	}
	h, i := p.Leaf, p.Index
	for _, s := range p.Path {
		if hash.CheckDigest(s) != nil {
			return false
		}
		if i&1 == 0 {
			h = hash.Merge(h, s)
		} else {
			h = hash.Merge(s, h)
		}
		i >>= 1
	}
	return h == root
}

// Verify checks the proof against the root and the size it states itself:
// Verify(hash, p.Root, p.Leaves, p). It says only that the proof is
// consistent; a verifier must also check p.Root and p.Leaves against the
// root and size it trusts, or call the package's Verify with them.
func (p Proof) Verify(hash Hash) bool { return Verify(hash, p.Root, p.Leaves, p) }

type proofJSON struct {
	Index  int      `json:"index"`
	Leaves *int     `json:"leaves"`
	Leaf   string   `json:"leaf"`
	Path   []string `json:"path"`
	Root   string   `json:"root"`
}

// MarshalJSON writes the proof's JSON form.
func (p Proof) MarshalJSON() ([]byte, error) {
	j := proofJSON{Index: p.Index, Leaves: &p.Leaves, Leaf: hex.EncodeToString(p.Leaf[:]), Root: hex.EncodeToString(p.Root[:]), Path: make([]string, len(p.Path))}
	for k := range p.Path {
		j.Path[k] = hex.EncodeToString(p.Path[k][:])
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads the proof's JSON form; "leaves" is required.
func (p *Proof) UnmarshalJSON(b []byte) error {
	var j proofJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("merkle: proof: %w", err)
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
	q.Path = make([][32]byte, len(j.Path))
	for k, s := range j.Path {
		if q.Path[k], err = parseDigest(s); err != nil {
			return fmt.Errorf("merkle: proof path[%d]: %w", k, err)
		}
	}
	*p = q
	return nil
}

// ParseDigest decodes 64 hex digits into a digest.
func ParseDigest(s string) ([32]byte, error) {
	d, err := parseDigest(s)
	if err != nil {
		return d, fmt.Errorf("merkle: %w", err)
	}
	return d, nil
}

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
