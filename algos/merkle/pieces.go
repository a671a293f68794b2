package merkle

import (
	"fmt"
	"math/bits"

	"github.com/wgcompute/wgcompute/internal/base/checked"
	"github.com/wgcompute/wgcompute/wgpu"
)

// A tree's work splits into pieces that compose, each of which can run on
// another machine: because node i is merge(2i, 2i+1) all the way down, the
// subtree under node M+i of a tree of N leaves (M a power of two, at most
// N) is exactly the tree of leaves [i·N/M, (i+1)·N/M), and the M subtree
// roots, nodes M..2M-1, are the leaves of the tree of the top log2(M)
// levels, whose root is the whole tree's. So each of M workers computes
// the Root of its own leaves, and one Root of their roots,
// in order, gives the root; JoinProofs joins a proof inside a range with the proof of that
// range's root into a proof of the whole tree.

// rangeRoot returns the root of the subtree over leaves, the leaves of one
// range of a larger tree (split.Range.Bounds, or a worker's own share): Root's
// result on t (nil: the CPU); a range of one leaf has that leaf as its
// root. The root does not depend on where the range lies in the tree, so a
// worker needs only its own leaves. len(leaves) must be a power of two, as
// Range splits trees, and every leaf a digest the hash accepts.
func rangeRoot(t wgpu.Target, leaves [][32]byte, hash Hash, opts Options) ([32]byte, error) {
	n := len(leaves)
	if !powerOfTwo(n) {
		return [32]byte{}, fmt.Errorf("merkle: range of %d leaves: a range holds a power of two of leaves (1, 2, 4, ...)", n)
	}
	if n > 1 {
		return Root(t, leaves, hash, opts)
	}
	// A subtree of one leaf is the leaf, with no work to time.
	if hash == nil {
		return [32]byte{}, errNoHash
	}
	if err := checkLeaves(hash, leaves); err != nil {
		return [32]byte{}, err
	}
	if opts.Timing != nil {
		*opts.Timing = wgpu.Timing{}
	}
	return leaves[0], nil
}

// combine returns the root of the tree whose top levels have the subtree
// roots roots as leaves: given the rangeRoot of each range i of M, in
// order of i, it returns the root of the whole tree. It builds on t
// (nil: the CPU). len(roots) must be a power of two, M, as Range splits
// trees, and every root a digest the hash accepts; one root (M = 1, the
// range was the whole tree) is the root itself.
func combine(t wgpu.Target, roots [][32]byte, hash Hash, opts Options) ([32]byte, error) {
	m := len(roots)
	if !powerOfTwo(m) {
		return [32]byte{}, fmt.Errorf("merkle: combine %d subtree roots: want one per range, a power of two of them (1, 2, 4, ...)", m)
	}
	if hash == nil {
		return [32]byte{}, errNoHash
	}
	// Checked here to name a root rather than a leaf in the error.
	for i, d := range roots {
		if err := hash.CheckDigest(d); err != nil {
			return [32]byte{}, fmt.Errorf("merkle: combine: root of range %d/%d: %w", i, m, err)
		}
	}
	return rangeRoot(t, roots, hash, opts)
}

// JoinProofs joins two proofs into one of the whole tree of a power of
// two of leaves, as Range splits it: lower proves
// leaf j of a range's subtree of 2^k leaves (a proof of that subtree's
// tree, as Tree.Proof of the range's leaves gives), and upper proves that
// subtree's root as leaf i of the top tree of the 2^m range roots (as
// Tree.Proof of the roots gives). The result proves lower.Leaf as leaf
// i·2^k + j of the tree of 2^(k+m) leaves, with lower's path then upper's,
// and upper's root; the package's Verify checks it.
//
// A range of one leaf (k = 0), or a top tree of one root (m = 0), has the
// proof {Index: 0, Leaves: 1, Leaf: d, Path: none, Root: d}, the proof of
// the tree of one leaf.
//
// JoinProofs checks that the pieces fit (lower's root is upper's leaf,
// each path is as long as its tree is deep, the indices are in their
// trees, the joined tree is a size this package builds); it does not
// merge anything: whether the result proves membership is Verify's
// answer, with the root and size the verifier trusts.
func JoinProofs(lower, upper Proof) (Proof, error) {
	if err := checkPiece("lower", lower); err != nil {
		return Proof{}, err
	}
	if err := checkPiece("upper", upper); err != nil {
		return Proof{}, err
	}
	if lower.Root != upper.Leaf {
		return Proof{}, fmt.Errorf("merkle: join: the lower proof's root %x is not the upper proof's leaf %x: the upper proof is not of the lower one's subtree", lower.Root[:], upper.Leaf[:])
	}
	k, m := len(lower.Path), len(upper.Path)
	n, err := checked.Mul(lower.Leaves, upper.Leaves)
	if err != nil {
		return Proof{}, fmt.Errorf("merkle: join: a tree of 2^%d leaves (%d lower levels, %d upper): more than an int counts: %w", k+m, k, m, err)
	}
	path := make([][32]byte, 0, k+m)
	path = append(append(path, lower.Path...), upper.Path...)
	return Proof{Index: upper.Index*lower.Leaves + lower.Index, Leaves: n, Leaf: lower.Leaf, Path: path, Root: upper.Root}, nil
}

// checkPiece returns an error unless p has the shape of a proof in a tree
// of p.Leaves leaves, one leaf allowed.
func checkPiece(which string, p Proof) error {
	n := p.Leaves
	if !powerOfTwo(n) {
		return fmt.Errorf("merkle: join: the %s proof states %d leaves: join takes proofs in trees of a power of two of leaves (1, 2, 4, ...), as Range splits them", which, n)
	}
	if depth := bits.Len(uint(n)) - 1; len(p.Path) != depth {
		return fmt.Errorf("merkle: join: the %s proof's path has %d digests: a tree of %d leaves needs %d", which, len(p.Path), n, depth)
	}
	if p.Index < 0 || p.Index >= n {
		return fmt.Errorf("merkle: join: the %s proof is of leaf %d: a tree of %d leaves has leaves 0..%d", which, p.Index, n, n-1)
	}
	if n == 1 && p.Leaf != p.Root {
		return fmt.Errorf("merkle: join: the %s proof is of a tree of one leaf, whose root is the leaf, but states root %x and leaf %x", which, p.Root[:], p.Leaf[:])
	}
	return nil
}
