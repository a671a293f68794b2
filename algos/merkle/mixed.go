package merkle

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/wgcompute/wgcompute/wgpu"
)

// Mixed trees merge their lower levels with one hash and their upper
// levels with another: BLAKE3 where the tree is wide and speed counts,
// an algebraic hash (Rescue) near the root, where a proof system
// re-hashes the path. A Schedule names the hash of every level.
//
// Levels are numbered from the leaves: level 0 is the leaves, level j
// (1 to log2 N) the nodes made by the j-th merge, the last level the root.
// Every node of level j is a digest of the hash that merges it, the hash
// of level j+1; the root is a digest of the top level's hash. So where the
// hash changes, between level j and j+1, the nodes of level j are
// converted when they are made: node = Convert(MergeOfLevelJ(left, right)),
// Convert being the upper hash's digestConverter (nothing, for a hash that
// accepts every 32 bytes). A proof's path is checked level by level in the
// same way (VerifyMixed).

// digestConverter is implemented by a Hash whose levels may sit above
// another hash's in a mixed tree and which does not accept every 32 bytes
// as a digest: it maps the other hash's digests to its own. For the
// Goldilocks hashes (rescue.MerkleMerge) the rule is: each 8-byte
// little-endian word of the digest reduced mod p.
type digestConverter interface {
	// ConvertDigest maps any 32 bytes to one of the hash's digests: the
	// plain-Go oracle of the kernel.
	ConvertDigest(d [32]byte) [32]byte
	// ConvertModule returns the WGSL module that defines
	//
	//	fn convert_digest(d: array<u32, 8>) -> array<u32, 8>
	//
	// on digests as 8 little-endian words, with no bindings or entry
	// points; its identifiers must not start with mk_ or MK_.
	ConvertModule() wgpu.Module
}

// Schedule lists the hashes of a tree's levels, from the leaves up, in
// runs of consecutive levels merged with one hash: each run covers Count
// levels above the previous run's, at least 1; the zero-Count last run
// takes every level left (at least one). So Schedule{{blake3.MerkleMerge{},
// 4}, {rescue.MerkleMerge{}, 0}} merges the lowest 4 levels with BLAKE3
// and every level above with Rescue; Schedule{{Hash: h}} is a tree of one
// hash. The leaves are digests of the first run's hash.
type Schedule []struct {
	Hash  Hash
	Count int
}

// String writes the schedule as ParseSchedule reads it: "blake3:4,rescue".
func (s Schedule) String() string {
	parts := make([]string, len(s))
	for i, l := range s {
		name := "<nil>"
		if l.Hash != nil {
			name = l.Hash.Name()
		}
		parts[i] = name
		if l.Count != 0 {
			parts[i] += ":" + strconv.Itoa(l.Count)
		}
	}
	return strings.Join(parts, ",")
}

// ParseSchedule reads a schedule written as comma-separated runs NAME:K
// (K levels merged with the hash NAME) with the last run NAME alone (the
// levels left): "blake3:4,rescue". A name alone is a tree of that hash.
// lookup returns the hash of a name, or an error saying which names are
// accepted.
func ParseSchedule(text string, lookup func(name string) (Hash, error)) (Schedule, error) {
	if strings.TrimSpace(text) == "" {
		return nil, errors.New("merkle: empty hash schedule: want NAME or NAME:K,...,NAME (blake3:4,rescue: BLAKE3 for the lowest 4 levels, Rescue above)")
	}
	var s Schedule
	for i, part := range strings.Split(text, ",") {
		name, count, hasCount := strings.Cut(strings.TrimSpace(part), ":")
		h, err := lookup(name)
		if err != nil {
			return nil, err
		}
		l := Schedule{{Hash: h}}
		if hasCount {
			if l[0].Count, err = strconv.Atoi(count); err != nil || l[0].Count < 1 {
				return nil, fmt.Errorf("merkle: hash schedule %q: run %d (%q): the levels of a run are a count of at least 1 (NAME:K)", text, i+1, part)
			}
		}
		s = append(s, l...)
	}
	return s, s.check()
}

// check returns an error unless the schedule is well formed, whatever the
// tree: runs with hashes, counts of at least 1 but the last's, and a
// conversion wherever the hash changes.
func (s Schedule) check() error {
	if len(s) == 0 {
		return errors.New("merkle: empty hash schedule: give at least one run (Schedule{{Hash: hash}} for a tree of one hash)")
	}
	for i, l := range s {
		if l.Hash == nil {
			return fmt.Errorf("merkle: hash schedule %s: run %d has no hash", s, i+1)
		}
		if l.Count < 0 || (l.Count == 0 && i < len(s)-1) {
			return fmt.Errorf("merkle: hash schedule %s: run %d covers %d levels: every run covers at least 1, and only the last may say 0 (the levels left)", s, i+1, l.Count)
		}
		if i > 0 {
			if _, err := converter(s[i-1].Hash, l.Hash); err != nil {
				return fmt.Errorf("merkle: hash schedule %s: %w", s, err)
			}
		}
	}
	return nil
}

// converter returns how digests of from enter the levels of to: nil when
// they need nothing (the same hash, or one that accepts every digest).
func converter(from, to Hash) (digestConverter, error) {
	if from.Name() == to.Name() {
		return nil, nil
	}
	if a, ok := to.(anyDigester); ok && a.AcceptsAnyDigest() {
		return nil, nil
	}
	if c, ok := to.(digestConverter); ok {
		return c, nil
	}
	return nil, fmt.Errorf("%s above %s: %s has no digestConverter, so %s digests cannot enter its levels (a hash whose digests are not every 32 bytes must convert others')", to.Name(), from.Name(), to.Name(), from.Name())
}

// Levels returns the hash of each level of a tree of n leaves: element j-1
// for level j, log2(n) of them. It is an error if the schedule is not
// well formed, or does not fit the tree exactly: the counted runs must
// leave at least one level to a zero-Count last run, and fill the tree
// when the last run is counted too.
func (s Schedule) Levels(n int) ([]Hash, error) {
	if err := checkPerfect(n); err != nil {
		return nil, fmt.Errorf("merkle: %w", err)
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	total := bits.Len(uint(n)) - 1
	hs := make([]Hash, 0, total)
	for i, l := range s {
		c := l.Count
		if c == 0 {
			c = total - len(hs)
		}
		if c < 1 || len(hs)+c > total || (i == len(s)-1 && len(hs)+c != total) {
			return nil, fmt.Errorf("merkle: hash schedule %s covers %d levels, but a tree of %d leaves has %d: the counted runs need %d leaves or more (the last run without a count takes the levels left, at least one)", s, s.minLevels(), n, total, 1<<s.minLevels())
		}
		for k := 0; k < c; k++ {
			hs = append(hs, l.Hash)
		}
	}
	return hs, nil
}

// minLevels is the fewest levels the schedule fits.
func (s Schedule) minLevels() int {
	m := 0
	for _, l := range s {
		m += max(l.Count, 1)
	}
	return m
}

// convertAfter returns the converter of the nodes of a level merged with
// hs[j], when the level above merges with another hash (next, when j is
// the last of hs; nil for the root).
func convertAfter(hs []Hash, j int, next Hash) digestConverter {
	up := next
	if j+1 < len(hs) {
		up = hs[j+1]
	}
	if up == nil {
		return nil
	}
	c, _ := converter(hs[j], up) // checked with the schedule
	return c
}

// buildMixedCPU is the plain-Go reference of mixed trees, Build with
// Options.Schedule and a nil target: the tree of checked leaves (digests of the
// schedule's first hash) in the layout of Build's, where level j is
// merged with hs[j], the schedule's hash of level j, and converted as
// the package says where the hash changes. The tree keeps leaves; its
// Hash is the top level's.
func buildMixedCPU(leaves [][32]byte, hs []Hash) *Tree {
	nodes := make([][32]byte, len(leaves))
	newLayout(len(leaves)).mergeUp(nodes, leaves, 0, 256, mixedMerges(hs, nil), mixedManys(hs, nil))
	return &Tree{hash: hs[len(hs)-1], leaves: leaves, nodes: nodes}
}

// mixedMerges returns the levelMerges of a mixed tree with the level
// hashes hs: level j merged by hs[j-1], then converted for the level above
// where its hash changes (next above the last of hs; nil for the root).
func mixedMerges(hs []Hash, next Hash) levelMerges {
	return func(j int) nodeMerge {
		h, conv := hs[j-1], convertAfter(hs, j-1, next)
		return func(_ int, left, right [32]byte) [32]byte {
			d := h.Merge(left, right)
			if conv != nil {
				d = conv.ConvertDigest(d)
			}
			return d
		}
	}
}

// mixedManys returns the levelManys of a mixed tree with the level hashes
// hs: level j's hash's levelMerger where the level needs no conversion
// above it (next as mixedMerges takes it).
func mixedManys(hs []Hash, next Hash) levelManys {
	return func(j int) levelMerger {
		m, ok := hs[j-1].(levelMerger)
		if !ok || convertAfter(hs, j-1, next) != nil {
			return nil
		}
		return m
	}
}

// mixed runs fn with a Committer of opts.Schedule on t's one device (a
// Group's first), released after: Build and Root of a mixed tree. hash
// must be nil: the schedule names every level's.
func mixed(t wgpu.Target, hash Hash, opts Options, fn func(c *Committer) error) error {
	if hash != nil {
		return fmt.Errorf("merkle: a hash (%s) and Options.Schedule (%s) given: the schedule names every level's hash, give it alone", hash.Name(), opts.Schedule)
	}
	s := opts.Schedule
	opts.Schedule = nil
	c, err := NewCommitter(first(t), s, opts)
	if err != nil {
		return err
	}
	defer c.Release()
	return fn(c)
}

// VerifyMixed reports whether p proves that p.Leaf is leaf p.Index of the
// mixed tree of n leaves with root root, built with schedule s: as Verify
// does, with the leaf merged at each level by that level's hash and
// converted where the hash changes, and each digest checked by the hash
// that merges it (the root by the top level's).
func VerifyMixed(s Schedule, root [32]byte, n int, p Proof) bool {
	hs, err := s.Levels(n)
	if err != nil || p.Leaves != n || p.Root != root || len(p.Path) != len(hs) || p.Index < 0 || p.Index >= n {
		return false
	}
	if hs[0].CheckDigest(p.Leaf) != nil || hs[len(hs)-1].CheckDigest(root) != nil {
		return false
	}
	for j, sib := range p.Path {
		if hs[j].CheckDigest(sib) != nil {
			return false
		}
	}
	return walkPath(p.Leaf, pathNodes(n, p.Index), p.Path, mixedMerges(hs, nil)) == root
}
