package merkle

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// Proofs of several leaves at once.
//
// A multi-proof of a set of leaves holds each node a verifier needs and
// cannot compute once: the siblings of the nodes on the proven leaves'
// paths to the root that are not themselves on one of those paths. Shared
// nodes appear once and nodes computable from the leaves not at all. Its
// nodes are in a fixed order, level by level from the leaves up and left
// to right in a level (the order of merkletreejs's multi-proofs, which can
// repeat a node and, for counts that are not powers of two, hold one that
// is no sibling; these do neither). A verifier walks the same order:
// merging the leaves and nodes it has, it takes the next proof node
// whenever a node's sibling is neither proven nor computed, and a proof
// must hold exactly the nodes the walk takes, so it has one form.
//
// Pruned paths are plonky2's compressed Merkle proofs
// (plonky2/src/hash/path_compression.rs): one path per proven leaf, in the
// order the leaves were asked for, repeats allowed, each without the
// siblings the verifier already has, those on a proven leaf's path to the
// root (computed from the leaves) and those given in an earlier path. They
// hold the same nodes as the multi-proof, grouped by leaf: a verifier that
// wants one authentication path per leaf rebuilds each from the leaves and
// the earlier paths.

// nodePos is node pos of level level (level 0: the leaves).
type nodePos struct{ level, pos int }

// walkMulti walks the multi-proof of the leaves at positions pos
// (ascending, distinct) of a tree of n leaves, holding vals, from the
// leaves up, each level left to right: need(level, p) gives each node the
// proof holds, in the proof's order, and walkMulti returns the root
// merged from vals and those nodes. Unlike walkPath, one leaf's walk, it
// merges known nodes with each other and asks for siblings as it goes.
func walkMulti(n int, pos []int, vals [][32]byte, merge func(a, b [32]byte) [32]byte, need func(level, p int) ([32]byte, error)) ([32]byte, error) {
	cur := slices.Clone(pos)
	h := slices.Clone(vals)
	for j, w := 0, n; w > 1; j, w = j+1, (w+1)/2 {
		next, nh := cur[:0], h[:0] // each parent is written at or before its first child
		for k := 0; k < len(cur); {
			p, v := cur[k], h[k]
			var err error
			var sib [32]byte
			switch {
			case p&1 == 1: // a right node whose left sibling is not proven
				if sib, err = need(j, p-1); err != nil {
					return [32]byte{}, err
				}
				v = merge(sib, v)
				k++
			case k+1 < len(cur) && cur[k+1] == p+1: // both children known
				v = merge(v, h[k+1])
				k += 2
			case p+1 < w:
				if sib, err = need(j, p+1); err != nil {
					return [32]byte{}, err
				}
				v = merge(v, sib)
				k++
			default: // the odd last node: carried up
				k++
			}
			next, nh = append(next, p>>1), append(nh, v)
		}
		cur, h = next, nh
	}
	return h[0], nil
}

// multiNodes lists the nodes of the multi-proof of the leaves at pos
// (ascending, distinct) of a tree of n leaves, in the proof's order.
func multiNodes(n int, pos []int) []nodePos {
	var ps []nodePos
	_, _ = walkMulti(n, pos, make([][32]byte, len(pos)), func(a, b [32]byte) [32]byte { return a },
		func(j, p int) ([32]byte, error) { ps = append(ps, nodePos{j, p}); return [32]byte{}, nil })
	return ps
}

// digests returns the tree's nodes at ps. A capped tree rebuilds the
// subtrees below its cap that they lie in, each once, one at a time, with
// one Builder and into one tree's memory; their leaves were checked when
// the tree was built.
func (t *Tree) digests(ps []nodePos) ([][32]byte, error) {
	l := newLayout(len(t.leaves))
	out := make([][32]byte, len(ps))
	var below map[int][]int // subtree: the indices in ps of its nodes
	for k, p := range ps {
		switch {
		case p.level == 0:
			out[k] = t.leaves[p.pos]
		case t.capped == nil || p.level >= t.capped.level:
			out[k] = t.nodes[l.off[p.level]+p.pos]
		default:
			if below == nil {
				below = map[int][]int{}
			}
			s := p.pos >> (t.capped.level - p.level)
			below[s] = append(below[s], k)
		}
	}
	if below == nil {
		return out, nil
	}
	b, err := newBuilder(t.capped.ctx, t.hash, t.capped.opts)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	b.leavesChecked = true
	var sub *Tree
	for _, s := range slices.Sorted(maps.Keys(below)) {
		if sub, err = b.BuildInto(sub, t.subtreeLeaves(s)); err != nil {
			return nil, err
		}
		sl := newLayout(len(sub.leaves))
		for _, k := range below[s] {
			p := ps[k]
			out[k] = sub.nodes[sl.off[p.level]+p.pos-s<<(t.capped.level-p.level)]
		}
	}
	return out, nil
}

// MultiProof is a proof that Values[k] is leaf Indices[k] of the tree of
// Leaves leaves whose root is Root, for every k: Indices ascending and
// distinct, and Nodes every other node the verifier needs, each once,
// level by level from the leaves up and left to right.
//
// Its JSON form is {"format": "multi", "version": 1, "leaves": N,
// "indices": [I, ...], "values": [hex, ...], "nodes": [hex, ...],
// "root": hex}, digests as Proof writes them.
type MultiProof struct {
	Leaves  int
	Indices []int
	Values  [][32]byte
	Nodes   [][32]byte
	Root    [32]byte
}

// PrunedProof is a proof that Values[k] is leaf Indices[k] of the tree of
// Leaves leaves whose root is Root, for every k, as pruned paths (plonky2's
// compressed proofs): Paths[k] is leaf Indices[k]'s path, from its sibling
// up, less the nodes on any proven leaf's path and those of Paths[0..k-1].
// Indices are in the order they were asked for and may repeat (a repeated
// leaf's path is empty).
//
// Its JSON form is {"format": "pruned", "version": 1, "leaves": N,
// "indices": [I, ...], "values": [hex, ...], "paths": [[hex, ...], ...],
// "root": hex}.
type PrunedProof struct {
	Leaves  int
	Indices []int
	Values  [][32]byte
	Paths   [][][32]byte
	Root    [32]byte
}

// checkIndices returns an error unless indices are leaves of a tree of n:
// at least one, each from 0 to n-1.
func checkIndices(what string, indices []int, n int) error {
	if len(indices) == 0 {
		return fmt.Errorf("merkle: %s: no leaf indices: give at least one, from 0 to %d", what, n-1)
	}
	for _, i := range indices {
		if i < 0 || i >= n {
			return fmt.Errorf("merkle: %s of leaf %d: the tree has leaves 0..%d", what, i, n-1)
		}
	}
	return nil
}

// MultiProof returns the multi-proof of the leaves at indices, in any
// order, a repeated index counted once. A capped tree rebuilds the
// subtrees the proof reaches into, each once, on the Context it was built
// on.
func (t *Tree) MultiProof(indices []int) (MultiProof, error) {
	n := len(t.leaves)
	if err := checkIndices("multi-proof", indices, n); err != nil {
		return MultiProof{}, err
	}
	idx := slices.Compact(slices.Sorted(slices.Values(indices)))
	nodes, err := t.digests(multiNodes(n, idx))
	if err != nil {
		return MultiProof{}, fmt.Errorf("merkle: multi-proof: %w", err)
	}
	mp := MultiProof{Leaves: n, Indices: idx, Values: make([][32]byte, len(idx)), Nodes: nodes, Root: t.Root()}
	for k, i := range idx {
		mp.Values[k] = t.leaves[i]
	}
	return mp, nil
}

// pruned returns, for leaves at indices of a tree of n leaves, the nodes
// of each one's pruned path.
func pruned(n int, indices []int) [][]nodePos {
	known := map[nodePos]bool{}
	for _, i := range indices {
		for j, w := 0, n; w > 1; j, w = j+1, (w+1)/2 { // the leaf and its ancestors, not its path's siblings
			known[nodePos{j, i >> j}] = true
		}
	}
	paths := make([][]nodePos, len(indices))
	for k, i := range indices {
		for _, p := range pathNodes(n, i) {
			if !known[p] {
				known[p] = true
				paths[k] = append(paths[k], p)
			}
		}
	}
	return paths
}

// PrunedProof returns the pruned paths of the leaves at indices, in their
// order, repeats allowed. A capped tree rebuilds the subtrees the paths
// reach into, each once, on the Context it was built on.
func (t *Tree) PrunedProof(indices []int) (PrunedProof, error) {
	n := len(t.leaves)
	if err := checkIndices("pruned proof", indices, n); err != nil {
		return PrunedProof{}, err
	}
	paths := pruned(n, indices)
	var all []nodePos
	for _, p := range paths {
		all = append(all, p...)
	}
	nodes, err := t.digests(all)
	if err != nil {
		return PrunedProof{}, fmt.Errorf("merkle: pruned proof: %w", err)
	}
	pp := PrunedProof{Leaves: n, Indices: slices.Clone(indices), Values: make([][32]byte, len(indices)), Paths: make([][][32]byte, len(indices)), Root: t.Root()}
	for k, i := range indices {
		pp.Values[k] = t.leaves[i]
		pp.Paths[k], nodes = nodes[:len(paths[k]):len(paths[k])], nodes[len(paths[k]):]
	}
	return pp, nil
}

// checkMulti returns why mp does not prove its values in the tree of n
// leaves with root root, or nil.
func checkMulti(hash Hash, root [32]byte, n int, mp MultiProof) error {
	switch {
	case hash == nil:
		return errNoHash
	case n < 1 || mp.Leaves != n:
		return fmt.Errorf("a proof for %d leaves, not %d", mp.Leaves, n)
	case mp.Root != root:
		return errors.New("another root")
	case len(mp.Indices) == 0 || len(mp.Values) != len(mp.Indices):
		return fmt.Errorf("%d indices and %d values: want one value for each index, at least one", len(mp.Indices), len(mp.Values))
	}
	for k, i := range mp.Indices {
		if i < 0 || i >= n || k > 0 && i <= mp.Indices[k-1] {
			return fmt.Errorf("index %d: want ascending, distinct indices below %d", i, n)
		}
	}
	for _, ds := range [][][32]byte{mp.Values, mp.Nodes, {root}} {
		for _, d := range ds {
			if err := hash.CheckDigest(d); err != nil {
				return err
			}
		}
	}
	next := 0
	got, err := walkMulti(n, mp.Indices, mp.Values, hash.Merge, func(int, int) ([32]byte, error) {
		if next == len(mp.Nodes) {
			return [32]byte{}, fmt.Errorf("%d nodes: the leaves need more", len(mp.Nodes))
		}
		next++
		return mp.Nodes[next-1], nil
	})
	if err != nil {
		return err
	}
	if next != len(mp.Nodes) {
		return fmt.Errorf("%d nodes: the leaves need %d", len(mp.Nodes), next)
	}
	if got != root {
		return errors.New("the leaves and nodes give another root")
	}
	return nil
}

// multi returns the multi-proof that holds pp's nodes, for a tree of n
// leaves, or an error unless pp has the shape of pruned paths in it.
func (pp PrunedProof) multi(n int) (MultiProof, error) {
	if pp.Leaves != n || n < 1 {
		return MultiProof{}, fmt.Errorf("a proof for %d leaves, not %d", pp.Leaves, n)
	}
	if len(pp.Values) != len(pp.Indices) || len(pp.Paths) != len(pp.Indices) {
		return MultiProof{}, fmt.Errorf("%d indices, %d values and %d paths: want one of each per leaf", len(pp.Indices), len(pp.Values), len(pp.Paths))
	}
	if err := checkIndices("pruned proof", pp.Indices, n); err != nil {
		return MultiProof{}, err
	}
	vals := map[int][32]byte{}
	for k, i := range pp.Indices {
		if v, ok := vals[i]; ok && v != pp.Values[k] {
			return MultiProof{}, fmt.Errorf("leaf %d is given two values", i)
		}
		vals[i] = pp.Values[k]
	}
	given := map[nodePos][32]byte{}
	for k, ps := range pruned(n, pp.Indices) {
		if len(ps) != len(pp.Paths[k]) {
			return MultiProof{}, fmt.Errorf("path %d holds %d nodes: leaf %d's pruned path holds %d", k, len(pp.Paths[k]), pp.Indices[k], len(ps))
		}
		for m, p := range ps {
			given[p] = pp.Paths[k][m]
		}
	}
	mp := MultiProof{Leaves: n, Root: pp.Root}
	mp.Indices = slices.Sorted(maps.Keys(vals))
	for _, i := range mp.Indices {
		mp.Values = append(mp.Values, vals[i])
	}
	for _, p := range multiNodes(n, mp.Indices) {
		mp.Nodes = append(mp.Nodes, given[p])
	}
	return mp, nil
}

// The JSON forms.

const (
	formatSingle = "single"
	formatMulti  = "multi"
	formatPruned = "pruned"
	// formatVersion is the version of every form this package writes
	// and reads.
	formatVersion = 1
)

// checkFormat returns an error unless format and version name the form
// want (what names it in errors); a single proof may leave both out.
func checkFormat(what, want, format string, version *int, required bool) error {
	if format == "" {
		if required {
			return fmt.Errorf(`merkle: %s: no "format": want "format": %q (a proof without one is a single Proof)`, what, want)
		}
		format = want
	}
	if format != want {
		forms := map[string]string{formatSingle: "a Proof", formatMulti: "a MultiProof", formatPruned: "a PrunedProof"}
		if f, ok := forms[format]; ok {
			return fmt.Errorf("merkle: %s: format %q: want %q (read it as %s)", what, format, want, f)
		}
		return fmt.Errorf("merkle: %s: format %q: accepted are %q, %q and %q", what, format, formatSingle, formatMulti, formatPruned)
	}
	if version == nil && required {
		return fmt.Errorf(`merkle: %s: no "version": want "version": %d`, what, formatVersion)
	}
	if version != nil && *version != formatVersion {
		return fmt.Errorf("merkle: %s: version %d: this package reads version %d", what, *version, formatVersion)
	}
	return nil
}

// setJSON is the JSON form of MultiProof and PrunedProof, as read and
// written: a form holds either nodes or paths, and writes the other as
// absent.
type setJSON struct {
	Format  string      `json:"format"`
	Version *int        `json:"version"`
	Leaves  *int        `json:"leaves"`
	Indices []int       `json:"indices"`
	Values  []string    `json:"values"`
	Nodes   *[]string   `json:"nodes,omitempty"`
	Paths   *[][]string `json:"paths,omitempty"`
	Root    string      `json:"root"`
}

// marshalSet writes the form format of a proof of n leaves; j holds its
// nodes or its paths.
func marshalSet(j setJSON, format string, n int, indices []int, values [][32]byte, root [32]byte) ([]byte, error) {
	version := formatVersion
	j.Format, j.Version, j.Leaves = format, &version, &n
	j.Indices, j.Values, j.Root = nonNil(indices), hexDigests(values), hex.EncodeToString(root[:])
	return json.Marshal(j)
}

// read parses b as the form format (what names it in errors), checking
// the fields both forms require, and returns the leaf count, the values
// and the root; field, "nodes" or "paths", must be present.
func (j *setJSON) read(b []byte, what, format, field string) (n int, values [][32]byte, root [32]byte, err error) {
	if err := json.Unmarshal(b, j); err != nil {
		return 0, nil, root, fmt.Errorf("merkle: %s: %w", what, err)
	}
	if err := checkFormat(what, format, j.Format, j.Version, true); err != nil {
		return 0, nil, root, err
	}
	if j.Leaves == nil {
		return 0, nil, root, fmt.Errorf(`merkle: %s: no "leaves": a proof states the tree's number of leaves`, what)
	}
	if j.Indices == nil || j.Values == nil || field == "nodes" && j.Nodes == nil || field == "paths" && j.Paths == nil {
		return 0, nil, root, fmt.Errorf(`merkle: %s: want "indices", "values" and %q, each a list`, what, field)
	}
	if values, err = parseDigests("values", j.Values); err != nil {
		return 0, nil, root, fmt.Errorf("merkle: %s %w", what, err)
	}
	if root, err = parseDigest(j.Root); err != nil {
		return 0, nil, root, fmt.Errorf("merkle: %s root: %w", what, err)
	}
	return *j.Leaves, values, root, nil
}

func hexDigests(ds [][32]byte) []string {
	out := make([]string, len(ds))
	for k := range ds {
		out[k] = hex.EncodeToString(ds[k][:])
	}
	return out
}

func parseDigests(what string, ss []string) ([][32]byte, error) {
	out := make([][32]byte, len(ss))
	for k, s := range ss {
		var err error
		if out[k], err = parseDigest(s); err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", what, k, err)
		}
	}
	return out, nil
}

// MarshalJSON writes the multi-proof's JSON form.
func (mp MultiProof) MarshalJSON() ([]byte, error) {
	nodes := hexDigests(mp.Nodes)
	return marshalSet(setJSON{Nodes: &nodes}, formatMulti, mp.Leaves, mp.Indices, mp.Values, mp.Root)
}

// UnmarshalJSON reads the multi-proof's JSON form: "format": "multi" and
// "version": 1 are required, and so are the other fields.
func (mp *MultiProof) UnmarshalJSON(b []byte) error {
	var j setJSON
	n, values, root, err := j.read(b, "multi-proof", formatMulti, "nodes")
	if err != nil {
		return err
	}
	nodes, err := parseDigests("nodes", *j.Nodes)
	if err != nil {
		return fmt.Errorf("merkle: multi-proof %w", err)
	}
	*mp = MultiProof{Leaves: n, Indices: j.Indices, Values: values, Nodes: nodes, Root: root}
	return nil
}

// MarshalJSON writes the pruned paths' JSON form.
func (pp PrunedProof) MarshalJSON() ([]byte, error) {
	paths := make([][]string, len(pp.Paths))
	for k := range pp.Paths {
		paths[k] = hexDigests(pp.Paths[k])
	}
	return marshalSet(setJSON{Paths: &paths}, formatPruned, pp.Leaves, pp.Indices, pp.Values, pp.Root)
}

// UnmarshalJSON reads the pruned paths' JSON form: "format": "pruned" and
// "version": 1 are required, and so are the other fields.
func (pp *PrunedProof) UnmarshalJSON(b []byte) error {
	var j setJSON
	n, values, root, err := j.read(b, "pruned proof", formatPruned, "paths")
	if err != nil {
		return err
	}
	paths := make([][][32]byte, len(*j.Paths))
	for k, p := range *j.Paths {
		if paths[k], err = parseDigests(fmt.Sprintf("paths[%d]", k), p); err != nil {
			return fmt.Errorf("merkle: pruned proof %w", err)
		}
	}
	*pp = PrunedProof{Leaves: n, Indices: j.Indices, Values: values, Paths: paths, Root: root}
	return nil
}

func nonNil(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}
