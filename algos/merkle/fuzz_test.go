package merkle_test

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/rescue"
)

func sameProof(a, b merkle.Proof) bool {
	if a.Index != b.Index || a.Leaves != b.Leaves || a.Leaf != b.Leaf || a.Root != b.Root || len(a.Path) != len(b.Path) {
		return false
	}
	for k := range a.Path {
		if a.Path[k] != b.Path[k] {
			return false
		}
	}
	return true
}

// FuzzProofJSON parses arbitrary text as a proof and verifies it with each
// hash. Parsing never panics; what parses marshals back to JSON that parses
// to the same proof; and a proof verifies only if it is, field for field,
// the golden proof of that hash: any other leaf, root, path or index would
// need a hash collision.
func FuzzProofJSON(f *testing.F) {
	golden := map[merkle.Hash]merkle.Proof{}
	hashes := []merkle.Hash{blake3.MerkleMerge{}, rescue.MerkleMerge{}}
	for _, h := range hashes {
		b, err := os.ReadFile(filepath.Join("testdata", "proof_"+h.Name()+".json"))
		if err != nil {
			f.Fatal(err)
		}
		var p merkle.Proof
		if err := json.Unmarshal(b, &p); err != nil {
			f.Fatal(err)
		}
		golden[h] = p
		f.Add(b)
		f.Add([]byte(strings.ToUpper(string(b))))
		f.Add([]byte(strings.Replace(string(b), `"index": 37`, `"index": 36`, 1)))
		f.Add([]byte(strings.Replace(string(b), `"index": 37`, `"index": 101`, 1)))
		f.Add([]byte(strings.Replace(string(b), `"index": 37`, `"index": -27`, 1)))
		f.Add([]byte(strings.Replace(string(b), `"leaves": 64`, `"leaves": 32`, 1)))
		f.Add([]byte(strings.Replace(string(b), `"leaves": 64`, `"leaves": 128`, 1)))
		f.Add([]byte(strings.Replace(string(b), `"path": [`, `"path": ["`+strings.Repeat("00", 32)+`", `, 1)))
	}
	for _, s := range []string{
		``, `null`, `{}`, `[]`, `"x"`, `{"index":0}`,
		`{"index":0,"leaves":2,"leaf":"","path":[],"root":""}`,
		`{"index":0,"leaves":1,"leaf":"` + strings.Repeat("ab", 32) + `","path":[],"root":"` + strings.Repeat("ab", 32) + `"}`,
		`{"index":9223372036854775807,"leaves":-9223372036854775808,"leaf":"` + strings.Repeat("0", 64) + `","path":["` + strings.Repeat("1", 64) + `"],"root":"` + strings.Repeat("2", 64) + `"}`,
		`{"index":1,"leaves":2,"leaf":"` + strings.Repeat("0", 63) + `","path":null,"root":null}`,
		`{"index":1.5}`, `{"index":"1"}`, `{"path":{}}`, `{"leaf":"` + strings.Repeat("zz", 32) + `"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var p merkle.Proof
		if err := json.Unmarshal(b, &p); err != nil {
			return
		}
		out, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("marshal %+v: %v", p, err)
		}
		var back merkle.Proof
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("the proof's own JSON %s does not parse: %v", out, err)
		}
		if !sameProof(p, back) {
			t.Fatalf("JSON round trip changed the proof: %s", out)
		}
		for _, h := range hashes {
			g := golden[h]
			if got, want := merkle.Verify(h, g.Root, g.Leaves, p), sameProof(p, g); got != want {
				t.Fatalf("%s: Verify = %v for %s, want %v", h.Name(), got, out, want)
			}
		}
	})
}

// TestVerifyRejectsNonCanonicalRescue: a Rescue digest whose element is
// stored as e+p instead of e (both fit in a uint64 when e < 2^32-1) is not a
// field element and not a leaf any tree can have; Build rejects such leaves,
// so Verify must not accept them in a proof either, or one leaf has two
// valid encodings.
func TestVerifyRejectsNonCanonicalRescue(t *testing.T) {
	rp := rescue.MerkleMerge{}
	leaves := make([][32]byte, 4)
	for i := range leaves {
		for j, v := range []uint64{uint64(i), 5, 7, 9} {
			binary.LittleEndian.PutUint64(leaves[i][8*j:], v)
		}
	}
	tree, err := merkle.Build(nil, leaves, rp, merkle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := tree.Proof(1)
	if err != nil {
		t.Fatal(err)
	}
	if !merkle.Verify(rp, p.Root, p.Leaves, p) {
		t.Fatal("the canonical proof does not verify")
	}
	aliased := func(d [32]byte, j int) [32]byte {
		e := binary.LittleEndian.Uint64(d[8*j:])
		binary.LittleEndian.PutUint64(d[8*j:], e+rescue.P)
		return d
	}
	q := p
	q.Leaf = aliased(p.Leaf, 0)
	if rp.CheckDigest(q.Leaf) == nil {
		t.Fatal("the aliased leaf passes CheckDigest")
	}
	if merkle.Verify(rp, q.Root, q.Leaves, q) {
		t.Errorf("a proof with leaf element 0 stored as 1+p verifies")
	}
	q = p
	q.Path = [][32]byte{aliased(p.Path[0], 0), p.Path[1]}
	if merkle.Verify(rp, q.Root, q.Leaves, q) {
		t.Errorf("a proof with path[0] element 0 stored as 0+p verifies")
	}
}

// fuzzTree is the tree the set-proof fuzzers check claims against: the
// golden trees' leaves, 64 of them or 100.
func fuzzTree(f *testing.F, hash merkle.Hash, n int) *merkle.Tree {
	tree, err := merkle.Build(nil, randomLeaves(hash, n, 42), hash, merkle.Options{})
	if err != nil {
		f.Fatal(err)
	}
	return tree
}

// setSeeds adds the golden file name of each hash, and variants of it,
// to f's corpus.
func setSeeds(f *testing.F, name string) {
	for _, h := range []merkle.Hash{blake3.MerkleMerge{}, rescue.MerkleMerge{}} {
		b, err := os.ReadFile(filepath.Join("testdata", name+"_"+h.Name()+".json"))
		if err != nil {
			f.Fatal(err)
		}
		s := string(b)
		f.Add(b)
		f.Add([]byte(strings.ToUpper(s)))
		f.Add([]byte(strings.Replace(s, `"version": 1`, `"version": 2`, 1)))
		f.Add([]byte(strings.Replace(s, `"leaves": 64`, `"leaves": 63`, 1)))
		f.Add([]byte(strings.Replace(s, `"leaves": 100`, `"leaves": 101`, 1)))
		f.Add([]byte(strings.Replace(s, "    3,\n", "    4,\n", 1)))
		f.Add([]byte(strings.Replace(s, "    5,\n", "    -5,\n", 1)))
		f.Add([]byte(strings.Replace(s, "  ],\n  \"root\"", "  , []],\n  \"root\"", 1)))
	}
	for _, s := range []string{
		``, `null`, `{}`, `[]`, `{"format":"multi"}`, `{"format":"pruned","version":1}`,
		`{"format":"multi","version":1,"leaves":1,"indices":[0],"values":["` + strings.Repeat("ab", 32) + `"],"nodes":[],"root":"` + strings.Repeat("ab", 32) + `"}`,
		`{"format":"pruned","version":1,"leaves":1,"indices":[0,0],"values":["` + strings.Repeat("ab", 32) + `","` + strings.Repeat("ab", 32) + `"],"paths":[[],null],"root":"` + strings.Repeat("ab", 32) + `"}`,
		`{"format":"multi","version":1,"leaves":9223372036854775807,"indices":[9223372036854775806],"values":["` + strings.Repeat("0", 64) + `"],"nodes":[],"root":"` + strings.Repeat("1", 64) + `"}`,
	} {
		f.Add([]byte(s))
	}
}

// sound fails t if a proof that verifies against the tree's root and size
// claims a leaf the tree does not have: its values must be the leaves at
// its indices.
func sound(t *testing.T, tree *merkle.Tree, indices []int, values [][32]byte) {
	for k, i := range indices {
		if i < 0 || i >= tree.Len() || tree.Leaves()[i] != values[k] {
			t.Fatalf("a proof that leaf %d is %x verified", i, values[k])
		}
	}
}

// FuzzMultiProofJSON parses arbitrary text as a multi-proof. Parsing never
// panics; what parses marshals to JSON that parses to the same proof; and
// a proof that verifies against one of the golden trees' roots and sizes
// states only leaves that tree has.
func FuzzMultiProofJSON(f *testing.F) {
	setSeeds(f, "multiproof")
	hashes := []merkle.Hash{blake3.MerkleMerge{}, rescue.MerkleMerge{}}
	trees := map[merkle.Hash]*merkle.Tree{}
	for _, h := range hashes {
		trees[h] = fuzzTree(f, h, 64)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var mp merkle.MultiProof
		if err := json.Unmarshal(b, &mp); err != nil {
			return
		}
		out, err := json.Marshal(mp)
		if err != nil {
			t.Fatalf("marshal %+v: %v", mp, err)
		}
		var back merkle.MultiProof
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("the proof's own JSON %s does not parse: %v", out, err)
		}
		if !reflect.DeepEqual(mp, back) {
			t.Fatalf("JSON round trip changed the proof: %s", out)
		}
		for _, h := range hashes {
			tree := trees[h]
			if merkle.Verify(h, tree.Root(), tree.Len(), mp) {
				sound(t, tree, mp.Indices, mp.Values)
			}
		}
	})
}

// FuzzPrunedProofJSON is FuzzMultiProofJSON for pruned paths.
func FuzzPrunedProofJSON(f *testing.F) {
	setSeeds(f, "pruned")
	hashes := []merkle.Hash{blake3.MerkleMerge{}, rescue.MerkleMerge{}}
	trees := map[merkle.Hash]*merkle.Tree{}
	for _, h := range hashes {
		trees[h] = fuzzTree(f, h, 100)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var pp merkle.PrunedProof
		if err := json.Unmarshal(b, &pp); err != nil {
			return
		}
		out, err := json.Marshal(pp)
		if err != nil {
			t.Fatalf("marshal %+v: %v", pp, err)
		}
		var back merkle.PrunedProof
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("the proof's own JSON %s does not parse: %v", out, err)
		}
		if len(back.Indices) != len(pp.Indices) || len(back.Paths) != len(pp.Paths) || fmt.Sprint(back) != fmt.Sprint(pp) {
			t.Fatalf("JSON round trip changed the proof: %s", out)
		}
		for _, h := range hashes {
			tree := trees[h]
			if merkle.Verify(h, tree.Root(), tree.Len(), pp) {
				sound(t, tree, pp.Indices, pp.Values)
			}
		}
	})
}
