// Package merkle builds binary Merkle trees on the GPU, with BLAKE3 or
// Rescue Prime as the merge, and proves and verifies membership on the CPU.
//
// The layout is winterfell's: N leaves, N a power of two and at least 2; the
// tree is an array of N nodes where node 0 is unused (zero), node i is
// merge(node 2i, node 2i+1), nodes N..2N-1 stand for the leaves, and node 1
// is the root. Leaves and nodes are 32-byte digests.
//
// Build runs on the GPU; BuildCPU is the plain-Go reference it is tested
// against. Trees larger than one storage binding are built a binding-sized
// subtree at a time, and the subtree roots are then merged as a small tree
// of their own.
package merkle

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/bits"
	"time"
)

// DigestSize is the size in bytes of a leaf and of a node.
const DigestSize = 32

// Tree is a built Merkle tree: the leaves and all N nodes.
type Tree struct {
	hash     *Hash
	leaves   [][32]byte
	nodes    [][32]byte
	kernel   time.Duration
	measured bool
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
// node n+j = leaves[j]. The tree keeps leaves (it does not copy them).
func BuildCPU(leaves [][32]byte, hash *Hash) (*Tree, error) {
	n := len(leaves)
	if err := CheckSize(n); err != nil {
		return nil, err
	}
	if err := hash.CheckLeaves(leaves); err != nil {
		return nil, err
	}
	nodes := make([][32]byte, n)
	for j := n/2 - 1; j >= 0; j-- {
		nodes[n/2+j] = hash.merge(&leaves[2*j], &leaves[2*j+1])
	}
	for i := n/2 - 1; i >= 1; i-- {
		nodes[i] = hash.merge(&nodes[2*i], &nodes[2*i+1])
	}
	return &Tree{hash: hash, leaves: leaves, nodes: nodes}, nil
}

// Hash returns the hash the tree was built with.
func (t *Tree) Hash() *Hash { return t.hash }

// Len returns the number of leaves.
func (t *Tree) Len() int { return len(t.leaves) }

// Root returns node 1.
func (t *Tree) Root() [32]byte { return t.nodes[1] }

// Nodes returns the N nodes (node 0 zero). The slice is the tree's own.
func (t *Tree) Nodes() [][32]byte { return t.nodes }

// Leaves returns the leaves the tree was built from.
func (t *Tree) Leaves() [][32]byte { return t.leaves }

// KernelTime returns the GPU time the build's kernels took, summed over its
// submissions, and whether it was measured (GPU timestamps; false for
// BuildCPU and on adapters without timestamp queries, such as GL).
func (t *Tree) KernelTime() (time.Duration, bool) { return t.kernel, t.measured }

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
	return Proof{Index: i, Leaf: t.leaves[i], Path: path, Root: t.Root()}, nil
}

// Verify reports whether path proves that leaf is leaf i of the tree with
// root root: hashing leaf with each path entry, on the left when the
// current index is odd, must give root. The path's length fixes the tree's
// size, so i must be below 2^len(path).
func Verify(hash *Hash, root, leaf [32]byte, i int, path [][32]byte) bool {
	if len(path) == 0 || len(path) >= bits.UintSize-1 || i < 0 || uint(i) >= uint(1)<<len(path) {
		return false
	}
	// A digest has one encoding: for Rescue, e and e+p (which fits in 64
	// bits for small e) would otherwise both verify.
	if hash.check != nil {
		if hash.check(&leaf) != nil || hash.check(&root) != nil {
			return false
		}
		for k := range path {
			if hash.check(&path[k]) != nil {
				return false
			}
		}
	}
	h := leaf
	for _, s := range path {
		if i&1 == 0 {
			h = hash.merge(&h, &s)
		} else {
			h = hash.merge(&s, &h)
		}
		i >>= 1
	}
	return h == root
}

// Proof is a membership proof. Its JSON form is
// {"index": I, "leaf": hex, "path": [hex, ...], "root": hex}, each digest
// as 64 hex digits of its 32 bytes (for Rescue, the 4 elements as
// little-endian bytes).
type Proof struct {
	Index int
	Leaf  [32]byte
	Path  [][32]byte
	Root  [32]byte
}

// Verify checks the proof with hash (see the package-level Verify).
func (p Proof) Verify(hash *Hash) bool { return Verify(hash, p.Root, p.Leaf, p.Index, p.Path) }

type proofJSON struct {
	Index int      `json:"index"`
	Leaf  string   `json:"leaf"`
	Path  []string `json:"path"`
	Root  string   `json:"root"`
}

// MarshalJSON writes the proof's JSON form.
func (p Proof) MarshalJSON() ([]byte, error) {
	j := proofJSON{Index: p.Index, Leaf: hex.EncodeToString(p.Leaf[:]), Root: hex.EncodeToString(p.Root[:]), Path: make([]string, len(p.Path))}
	for k := range p.Path {
		j.Path[k] = hex.EncodeToString(p.Path[k][:])
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads the proof's JSON form.
func (p *Proof) UnmarshalJSON(b []byte) error {
	var j proofJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("merkle: proof: %w", err)
	}
	var q Proof
	q.Index = j.Index
	var err error
	if q.Leaf, err = ParseDigest(j.Leaf); err != nil {
		return fmt.Errorf("merkle: proof leaf: %w", err)
	}
	if q.Root, err = ParseDigest(j.Root); err != nil {
		return fmt.Errorf("merkle: proof root: %w", err)
	}
	q.Path = make([][32]byte, len(j.Path))
	for k, s := range j.Path {
		if q.Path[k], err = ParseDigest(s); err != nil {
			return fmt.Errorf("merkle: proof path[%d]: %w", k, err)
		}
	}
	*p = q
	return nil
}

// ParseDigest decodes 64 hex digits into a digest.
func ParseDigest(s string) ([32]byte, error) {
	var d [32]byte
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != DigestSize {
		return d, fmt.Errorf("digest %q: want 64 hex digits (32 bytes)", s)
	}
	copy(d[:], b)
	return d, nil
}
