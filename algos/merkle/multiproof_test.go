package merkle_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/rescue"
)

// pos is node p of level j.
type pos struct{ j, p int }

// onPaths is the set of nodes on the paths from the leaves at indices to
// the root, below the root.
func onPaths(levels [][][32]byte, indices []int) map[pos]bool {
	on := map[pos]bool{}
	for _, i := range indices {
		for j := 0; j+1 < len(levels); j++ {
			on[pos{j, i >> j}] = true
		}
	}
	return on
}

// refMulti is the multi-proof by its definition: the siblings of the nodes
// on the proven leaves' paths that are not on one, sorted by level, then
// by position.
func refMulti(levels [][][32]byte, indices []int) [][32]byte {
	on := onPaths(levels, indices)
	var need []pos
	for q := range on {
		if s := (pos{q.j, q.p ^ 1}); s.p < len(levels[q.j]) && !on[s] {
			need = append(need, s)
		}
	}
	slices.SortFunc(need, func(a, b pos) int {
		if a.j != b.j {
			return a.j - b.j
		}
		return a.p - b.p
	})
	nodes := [][32]byte{}
	for _, q := range need {
		nodes = append(nodes, levels[q.j][q.p])
	}
	return nodes
}

// refPruned is plonky2's compress_merkle_proofs on the full paths: every
// node on a proven leaf's path is known; each path keeps, in turn, the
// siblings not known yet, which become known.
func refPruned(levels [][][32]byte, indices []int) [][][32]byte {
	known := onPaths(levels, indices)
	var paths [][][32]byte
	for _, i := range indices {
		path := [][32]byte{}
		for j := 0; j+1 < len(levels); j++ {
			s := pos{j, (i >> j) ^ 1}
			if s.p < len(levels[j]) && !known[s] {
				known[s] = true
				path = append(path, levels[j][s.p])
			}
		}
		paths = append(paths, path)
	}
	return paths
}

// subsets returns every non-empty subset of 0..n-1 for small n, else
// some: single leaves, pairs, runs, strides, random sets and all.
func subsets(n int, r *rand.Rand) [][]int {
	var sets [][]int
	if n <= 10 {
		for m := 1; m < 1<<n; m++ {
			var s []int
			for i := 0; i < n; i++ {
				if m>>i&1 == 1 {
					s = append(s, i)
				}
			}
			sets = append(sets, s)
		}
		return sets
	}
	sets = append(sets, []int{0}, []int{n - 1}, []int{0, n - 1}, []int{n / 2, n/2 + 1}, seq(n-7, n-1), seq(0, n-1))
	for _, stride := range []int{2, 3, 7} {
		var s []int
		for i := 1; i < n; i += stride {
			s = append(s, i)
		}
		sets = append(sets, s)
	}
	for k := 0; k < 6; k++ {
		sets = append(sets, r.Perm(n)[:1+r.IntN(min(n, 40))])
	}
	return sets
}

// TestMultiProofs: for every set of leaves of trees of up to 10 leaves,
// and many of larger trees, the multi-proof and the pruned paths hold the
// nodes their definitions give, in their order, and verify; the pruned
// paths, asked in shuffled order with repeats, too.
func TestMultiProofs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, hash := range hashes {
		leaves := randomLeaves(hash, 1025, 8)
		counts := append(seq(1, 10), 13, 16, 33, 100, 1024, 1025)
		if hash.Name() == "rescue" {
			counts = []int{1, 2, 3, 5, 8, 13, 100}
		}
		for _, n := range counts {
			levels := refLevels(leaves[:n], hash)
			tree, err := merkle.Build(nil, leaves[:n], hash, merkle.Options{})
			require.NoError(t, err)
			for _, set := range subsets(n, r) {
				what := fmt.Sprintf("%s n=%d %v", hash.Name(), n, set)
				sorted := slices.Sorted(slices.Values(set))
				asked := append(slices.Clone(set), set[0])
				r.Shuffle(len(asked), func(a, b int) { asked[a], asked[b] = asked[b], asked[a] })
				mp, err := tree.MultiProof(asked)
				require.NoError(t, err, what)
				require.Equal(t, n, mp.Leaves)
				require.Equal(t, tree.Root(), mp.Root)
				require.Equal(t, sorted, mp.Indices, what)
				for k, i := range mp.Indices {
					require.Equal(t, leaves[i], mp.Values[k])
				}
				require.Equal(t, refMulti(levels, sorted), append([][32]byte{}, mp.Nodes...), what)
				require.True(t, merkle.Verify(hash, tree.Root(), n, mp), what)
				require.True(t, merkle.Verify(hash, mp.Root, mp.Leaves, mp), what)

				pp, err := tree.PrunedProof(asked)
				require.NoError(t, err, what)
				require.Equal(t, asked, pp.Indices)
				require.Len(t, pp.Paths, len(asked))
				for k, p := range refPruned(levels, asked) {
					require.Equal(t, p, append([][32]byte{}, pp.Paths[k]...), "%s path %d", what, k)
					require.Equal(t, leaves[asked[k]], pp.Values[k])
				}
				require.True(t, merkle.Verify(hash, tree.Root(), n, pp), what)
				require.True(t, merkle.Verify(hash, pp.Root, pp.Leaves, pp), what)
				// The same nodes as the multi-proof, grouped by leaf.
				var all [][32]byte
				for _, p := range pp.Paths {
					all = append(all, p...)
				}
				require.ElementsMatch(t, mp.Nodes, all, what)
			}
		}
	}
}

// TestMultiProofTamper changes every byte of every value, node and root of
// multi-proofs and pruned paths, every index to every other, the size, and
// the lists' lengths, and requires that each fails verification against
// the trusted root and size.
func TestMultiProofTamper(t *testing.T) {
	for _, hash := range []merkle.Hash{blake3.MerkleMerge{}, rescue.MerkleMerge{}, mixHash{}} {
		for _, c := range []struct {
			n   int
			set []int
		}{{1, []int{0}}, {2, []int{1}}, {3, []int{2}}, {7, []int{1, 2, 6}}, {8, []int{0, 3, 4}}, {13, []int{0, 5, 6, 12}}, {100, []int{3, 17, 64, 99}}} {
			leaves := randomLeaves(hash, c.n, 77)
			tree, err := merkle.Build(nil, leaves, hash, merkle.Options{})
			require.NoError(t, err)
			mp, err := tree.MultiProof(c.set)
			require.NoError(t, err)
			multiTamperFails(t, hash, tree.Root(), mp)
			order := slices.Clone(c.set)
			slices.Reverse(order)
			pp, err := tree.PrunedProof(append(order, c.set[0]))
			require.NoError(t, err)
			prunedTamperFails(t, hash, tree.Root(), pp)
		}
	}
}

func cloneMulti(mp merkle.MultiProof) merkle.MultiProof {
	mp.Indices = slices.Clone(mp.Indices)
	mp.Values = slices.Clone(mp.Values)
	mp.Nodes = slices.Clone(mp.Nodes)
	return mp
}

func multiTamperFails(t *testing.T, hash merkle.Hash, root [32]byte, mp merkle.MultiProof) {
	t.Helper()
	n := mp.Leaves
	fails := func(q merkle.MultiProof, what string, args ...any) {
		t.Helper()
		require.False(t, merkle.Verify(hash, root, n, q), append([]any{what}, args...)...)
	}
	require.True(t, merkle.Verify(hash, root, n, mp))
	for b := 0; b < merkle.DigestSize; b++ {
		for k := range mp.Values {
			q := cloneMulti(mp)
			q.Values[k][b] ^= 0x04
			fails(q, "value %d byte %d", k, b)
		}
		for k := range mp.Nodes {
			q := cloneMulti(mp)
			q.Nodes[k][b] ^= 0x20
			fails(q, "node %d byte %d", k, b)
		}
		q := cloneMulti(mp)
		q.Root[b] ^= 1
		fails(q, "root byte %d", b)
		require.False(t, merkle.Verify(hash, q.Root, n, q), "another root, byte %d", b)
	}
	for k := range mp.Indices {
		for d := -1; d <= n; d++ {
			if d == mp.Indices[k] {
				continue
			}
			q := cloneMulti(mp)
			q.Indices[k] = d
			fails(q, "index %d as %d", mp.Indices[k], d)
		}
	}
	for _, m := range []int{n - 1, n + 1, 2 * n, 0} {
		q := cloneMulti(mp)
		q.Leaves = m
		fails(q, "%d leaves stated as %d", n, m)
		require.False(t, merkle.Verify(hash, root, m, mp), "%d leaves trusted as %d", n, m)
	}
	q := cloneMulti(mp)
	q.Nodes = append(q.Nodes, root)
	fails(q, "a node more")
	if len(mp.Nodes) > 0 {
		q = cloneMulti(mp)
		q.Nodes = q.Nodes[1:]
		fails(q, "a node less")
	}
	if len(mp.Values) > 1 {
		q = cloneMulti(mp)
		q.Values[0], q.Values[1] = q.Values[1], q.Values[0]
		fails(q, "values swapped")
		q = cloneMulti(mp)
		q.Indices, q.Values = q.Indices[1:], q.Values[1:]
		fails(q, "a leaf less")
	}
	q = cloneMulti(mp)
	q.Values = q.Values[:len(q.Values)-1]
	fails(q, "a value less")
	q = cloneMulti(mp)
	q.Indices, q.Values = nil, nil
	fails(q, "no leaves")
	require.False(t, merkle.Verify(nil, root, n, mp), "no hash")
}

func clonePruned(pp merkle.PrunedProof) merkle.PrunedProof {
	pp.Indices = slices.Clone(pp.Indices)
	pp.Values = slices.Clone(pp.Values)
	pp.Paths = slices.Clone(pp.Paths)
	for k := range pp.Paths {
		pp.Paths[k] = slices.Clone(pp.Paths[k])
	}
	return pp
}

func prunedTamperFails(t *testing.T, hash merkle.Hash, root [32]byte, pp merkle.PrunedProof) {
	t.Helper()
	n := pp.Leaves
	fails := func(q merkle.PrunedProof, what string, args ...any) {
		t.Helper()
		require.False(t, merkle.Verify(hash, root, n, q), append([]any{what}, args...)...)
	}
	require.True(t, merkle.Verify(hash, root, n, pp))
	for b := 0; b < merkle.DigestSize; b++ {
		for k := range pp.Values {
			q := clonePruned(pp)
			q.Values[k][b] ^= 0x40
			fails(q, "value %d byte %d", k, b)
		}
		for k := range pp.Paths {
			for m := range pp.Paths[k] {
				q := clonePruned(pp)
				q.Paths[k][m][b] ^= 0x02
				fails(q, "path %d node %d byte %d", k, m, b)
			}
		}
		q := clonePruned(pp)
		q.Root[b] ^= 1
		fails(q, "root byte %d", b)
	}
	for k := range pp.Indices {
		for d := -1; d <= n; d++ {
			if d == pp.Indices[k] {
				continue
			}
			q := clonePruned(pp)
			q.Indices[k] = d
			fails(q, "index %d as %d", pp.Indices[k], d)
		}
	}
	for _, m := range []int{n - 1, n + 1, 2 * n, 0} {
		q := clonePruned(pp)
		q.Leaves = m
		fails(q, "%d leaves stated as %d", n, m)
		require.False(t, merkle.Verify(hash, root, m, pp), "%d leaves trusted as %d", n, m)
	}
	// A node moved to another path, paths swapped, a path short or long.
	for k := range pp.Paths {
		for o := range pp.Paths {
			if o == k || len(pp.Paths[k]) == 0 {
				continue
			}
			q := clonePruned(pp)
			q.Paths[o] = append(q.Paths[o], q.Paths[k][0])
			q.Paths[k] = q.Paths[k][1:]
			fails(q, "path %d's first node moved to path %d", k, o)
			q = clonePruned(pp)
			q.Paths[k], q.Paths[o] = q.Paths[o], q.Paths[k]
			fails(q, "paths %d and %d swapped", k, o)
		}
		q := clonePruned(pp)
		q.Paths[k] = append(q.Paths[k], root)
		fails(q, "path %d longer", k)
	}
	if len(slices.Compact(slices.Sorted(slices.Values(pp.Indices)))) > 1 {
		q := clonePruned(pp)
		q.Indices, q.Values, q.Paths = q.Indices[1:], q.Values[1:], q.Paths[1:]
		fails(q, "the first leaf dropped") // a leaf the others' paths lean on
	}
	q := clonePruned(pp)
	q.Paths = q.Paths[:len(q.Paths)-1]
	fails(q, "a path less")
	require.False(t, merkle.Verify(nil, root, n, pp), "no hash")
}

// TestPrunedRepeats: a leaf asked for twice has an empty path the second
// time, and both of its values must agree.
func TestPrunedRepeats(t *testing.T) {
	hash := mixHash{}
	tree, err := merkle.Build(nil, randomLeaves(hash, 20, 1), hash, merkle.Options{})
	require.NoError(t, err)
	pp, err := tree.PrunedProof([]int{7, 3, 7})
	require.NoError(t, err)
	require.Empty(t, pp.Paths[2])
	require.True(t, merkle.Verify(hash, pp.Root, pp.Leaves, pp))
	q := clonePruned(pp)
	q.Values[2][0] ^= 1
	require.False(t, merkle.Verify(hash, q.Root, q.Leaves, q), "two values for leaf 7")
}

func TestMultiProofBadInput(t *testing.T) {
	tree, err := merkle.Build(nil, randomLeaves(mixHash{}, 12, 1), mixHash{}, merkle.Options{})
	require.NoError(t, err)
	for _, c := range []struct {
		indices []int
		want    string
	}{
		{nil, "no leaf indices: give at least one, from 0 to 11"},
		{[]int{}, "no leaf indices"},
		{[]int{3, 12}, "of leaf 12: the tree has leaves 0..11"},
		{[]int{-1}, "of leaf -1: the tree has leaves 0..11"},
	} {
		_, err := tree.MultiProof(c.indices)
		require.ErrorContains(t, err, "merkle: multi-proof")
		require.ErrorContains(t, err, c.want)
		_, err = tree.PrunedProof(c.indices)
		require.ErrorContains(t, err, "merkle: pruned proof")
		require.ErrorContains(t, err, c.want)
	}
}

// The golden multi-proof and pruned paths: leaves 3, 17 and 37 of the 64
// leaves of the golden single proofs, and 5, 0 and 5 (pruned) of 100.
func goldenSets(t *testing.T, hash merkle.Hash) (merkle.MultiProof, merkle.PrunedProof) {
	tree, err := merkle.Build(nil, randomLeaves(hash, 64, 42), hash, merkle.Options{})
	require.NoError(t, err)
	mp, err := tree.MultiProof([]int{37, 3, 17})
	require.NoError(t, err)
	odd, err := merkle.Build(nil, randomLeaves(hash, 100, 42), hash, merkle.Options{})
	require.NoError(t, err)
	pp, err := odd.PrunedProof([]int{99, 5, 0, 5})
	require.NoError(t, err)
	return mp, pp
}

// golden compares v's indented JSON with testdata/name, or writes it with
// -update.
func golden(t *testing.T, name string, v any) []byte {
	got, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	got = append(got, '\n')
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to write it")
	require.Equal(t, string(want), string(got))
	return want
}

func TestGoldenMultiProofs(t *testing.T) {
	for _, hash := range []merkle.Hash{blake3.MerkleMerge{}, rescue.MerkleMerge{}} {
		t.Run(hash.Name(), func(t *testing.T) {
			mp, pp := goldenSets(t, hash)
			b := golden(t, "multiproof_"+hash.Name()+".json", mp)
			var back merkle.MultiProof
			require.NoError(t, json.Unmarshal(b, &back))
			require.Equal(t, mp, back)
			require.True(t, merkle.Verify(hash, back.Root, back.Leaves, back))
			b = golden(t, "pruned_"+hash.Name()+".json", pp)
			var backP merkle.PrunedProof
			require.NoError(t, json.Unmarshal(b, &backP))
			require.Equal(t, pp, backP)
			require.True(t, merkle.Verify(hash, backP.Root, backP.Leaves, backP))
			// One hex digit changed anywhere in a digest of the text breaks
			// verification.
			for off := 0; off < len(b); off++ {
				if !isHexDigest(b, off) {
					continue
				}
				bad := slices.Clone(b)
				bad[off] = flip(bad[off])
				var q merkle.PrunedProof
				if err := json.Unmarshal(bad, &q); err == nil {
					require.False(t, merkle.Verify(hash, q.Root, q.Leaves, q), "pruned: byte %d changed", off)
				}
			}
		})
	}
}

// isHexDigest reports whether b[off] is a digit of a 64-digit hex string.
func isHexDigest(b []byte, off int) bool {
	lo := off
	for lo > 0 && strings.IndexByte("0123456789abcdef", b[lo-1]) >= 0 {
		lo--
	}
	hi := off
	for hi < len(b) && strings.IndexByte("0123456789abcdef", b[hi]) >= 0 {
		hi++
	}
	return hi-lo == 64 && lo > 0 && b[lo-1] == '"'
}

func flip(c byte) byte {
	if c == '0' {
		return '1'
	}
	return '0'
}

func TestProofFormats(t *testing.T) {
	hash := blake3.MerkleMerge{}
	mp, pp := goldenSets(t, hash)
	single, err := os.ReadFile(filepath.Join("testdata", "proof_blake3.json"))
	require.NoError(t, err)
	mj, err := json.Marshal(mp)
	require.NoError(t, err)
	pj, err := json.Marshal(pp)
	require.NoError(t, err)

	// A single proof may name its format and version, and no other.
	var p merkle.Proof
	withFormat := strings.Replace(string(single), "{", `{"format": "single", "version": 1,`, 1)
	require.NoError(t, json.Unmarshal([]byte(withFormat), &p))
	require.True(t, merkle.Verify(hash, p.Root, p.Leaves, p))
	require.ErrorContains(t, json.Unmarshal(mj, &p), `merkle: proof: format "multi": want "single" (read it as a MultiProof)`)
	require.ErrorContains(t, json.Unmarshal(pj, &p), `format "pruned": want "single" (read it as a PrunedProof)`)
	require.ErrorContains(t, json.Unmarshal([]byte(strings.Replace(withFormat, `"version": 1`, `"version": 2`, 1)), &p), "version 2: this package reads version 1")

	var m merkle.MultiProof
	require.ErrorContains(t, json.Unmarshal(single, &m), `merkle: multi-proof: no "format": want "format": "multi" (a proof without one is a single Proof)`)
	require.ErrorContains(t, json.Unmarshal([]byte(withFormat), &m), `merkle: multi-proof: format "single": want "multi" (read it as a Proof)`)
	require.ErrorContains(t, json.Unmarshal(pj, &m), `format "pruned": want "multi"`)
	var q merkle.PrunedProof
	require.ErrorContains(t, json.Unmarshal(mj, &q), `merkle: pruned proof: format "multi": want "pruned" (read it as a MultiProof)`)

	edit := func(b []byte, f func(map[string]any)) []byte {
		var v map[string]any
		require.NoError(t, json.Unmarshal(b, &v))
		f(v)
		out, err := json.Marshal(v)
		require.NoError(t, err)
		return out
	}
	for _, c := range []struct {
		name string
		b    []byte
		into any
		want string
	}{
		{"unknown format", edit(mj, func(v map[string]any) { v["format"] = "octopus" }), &m, `format "octopus": accepted are "single", "multi" and "pruned"`},
		{"no version", edit(mj, func(v map[string]any) { delete(v, "version") }), &m, `no "version": want "version": 1`},
		{"version 2", edit(pj, func(v map[string]any) { v["version"] = 2 }), &q, "version 2: this package reads version 1"},
		{"no leaves", edit(mj, func(v map[string]any) { delete(v, "leaves") }), &m, `no "leaves"`},
		{"no nodes", edit(mj, func(v map[string]any) { delete(v, "nodes") }), &m, `want "indices", "values" and "nodes"`},
		{"null nodes", edit(mj, func(v map[string]any) { v["nodes"] = nil }), &m, `want "indices", "values" and "nodes"`},
		{"no paths", edit(pj, func(v map[string]any) { delete(v, "paths") }), &q, `want "indices", "values" and "paths"`},
		{"no indices", edit(pj, func(v map[string]any) { delete(v, "indices") }), &q, `want "indices"`},
		{"bad value", edit(mj, func(v map[string]any) { v["values"].([]any)[1] = "xyz" }), &m, "merkle: multi-proof values[1]: digest of 3 characters"},
		{"bad node", edit(mj, func(v map[string]any) { v["nodes"].([]any)[2] = strings.Repeat("g", 64) }), &m, "multi-proof nodes[2]: digest"},
		{"bad path node", edit(pj, func(v map[string]any) { v["paths"].([]any)[1].([]any)[0] = "" }), &q, "pruned proof paths[1][0]: digest of 0 characters"},
		{"bad root", edit(pj, func(v map[string]any) { v["root"] = 7 }), &q, "merkle: pruned proof: json"},
	} {
		require.ErrorContains(t, json.Unmarshal(c.b, c.into), c.want, c.name)
	}
}
