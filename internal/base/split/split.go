// Package split is the split of a Merkle tree of a power of two of leaves
// into equal ranges whose roots compose: because node i is merge(2i,
// 2i+1) all the way down, range I of M equal ranges of the leaves is the
// subtree under node M+I, and the M range roots are the leaves of the
// tree's top log2(M) levels. Package merkle builds a tree on several
// devices that way; the command splits one over machines, writing a
// range "I/M".
package split

import (
	"fmt"
	"strconv"
	"strings"
)

// Range is range Index of Count equal ranges of a tree's leaves: in a tree
// of N leaves it holds leaves [Index·N/Count, (Index+1)·N/Count), and its
// root is node Count+Index of the whole tree (the root itself when Count
// is 1, leaf Index when Count is N). Count is a power of two from 1 to N.
type Range struct {
	Index, Count int
}

// String returns the range as Parse reads it: "Index/Count".
func (r Range) String() string { return fmt.Sprintf("%d/%d", r.Index, r.Count) }

// Parse reads a range written "I/M": range I of M, with M a power of two
// and I from 0 to M-1 ("3/16").
func Parse(s string) (Range, error) {
	is, ms, ok := strings.Cut(s, "/")
	i, errI := strconv.Atoi(is)
	m, errM := strconv.Atoi(ms)
	if !ok || errI != nil || errM != nil {
		return Range{}, fmt.Errorf("merkle: range %q: want I/M, range I of M equal ranges, M a power of two and I from 0 to M-1 (3/16)", s)
	}
	r := Range{Index: i, Count: m}
	return r, r.checkSplit()
}

// checkSplit returns an error unless Count is a power of two and Index one
// of its ranges, whatever the tree.
func (r Range) checkSplit() error {
	if !powerOfTwo(r.Count) {
		return fmt.Errorf("merkle: range %s: the count of ranges must be a power of two (1, 2, 4, ...)", r)
	}
	if r.Index < 0 || r.Index >= r.Count {
		return fmt.Errorf("merkle: range %s: the index must be 0..%d", r, r.Count-1)
	}
	return nil
}

// Bounds returns the leaves range r of a tree of n leaves holds: leaf
// indices lo up to hi, hi excluded, n/Count of them; all[lo:hi:hi] of the
// tree's leaves all are the range's (capacity ending at hi, so that an
// append cannot write over the next range). It returns an error unless r
// is a range of that tree: n a power of two (ranges split those trees
// alone: equal ranges of another count are not subtrees), Count a power
// of two from 1 to n, and Index from 0 to Count-1.
func (r Range) Bounds(n int) (lo, hi int, err error) {
	if !powerOfTwo(n) {
		return 0, 0, fmt.Errorf("merkle: range %s of a tree of %d leaves: ranges split a tree of a power of two of leaves (1, 2, 4, ...); build a tree of %d leaves whole", r, n, n)
	}
	if err := r.checkSplit(); err != nil {
		return 0, 0, err
	}
	if r.Count > n {
		return 0, 0, fmt.Errorf("merkle: range %s of a tree of %d leaves: at most %d ranges, of one leaf each", r, n, n)
	}
	size := n / r.Count
	return r.Index * size, (r.Index + 1) * size, nil
}

func powerOfTwo(n int) bool { return n >= 1 && n&(n-1) == 0 }
