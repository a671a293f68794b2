// Package registry is the one list of the hashes this module computes:
// each with its name, field, Merkle merge, batch functions and reference,
// and the fields they work over. A hash's batch functions and reference
// are of its field's types (BatchOf and ReferenceOf return them typed), so
// that a hash over a new field is one more line, not a new field of Hash.
// The kernel variants kept for measurement are internal/base/impl's,
// registered under the hash's name, not offered here. The command line (its hash
// commands, --hash, --field, the defaults, the benchmark suites), the
// browser page, the benchmarks under bench/, the self-test and the tests
// read it, so that adding a hash is its parameters, its round function and
// one line in Hashes.
package registry

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/algos/rpo"
)

// Fields a hash works over.
const (
	// Bytes: digests are any 32 bytes (BLAKE3).
	Bytes = "bytes"
	// Goldilocks: elements below 2^64 - 2^32 + 1, digests 4 of them.
	Goldilocks = "goldilocks"
	// BabyBear: elements below 15·2^27 + 1, digests 8 of them.
	BabyBear = "babybear"
	// KoalaBear: elements below 2^31 - 2^24 + 1, digests 8 of them.
	KoalaBear = "koalabear"
)

// Field is a field the hashes work over, as files and matrices hold its
// elements.
type Field struct {
	// Name is the Hash.Field of its hashes: "goldilocks".
	Name string
	// Title names it in prose: "Goldilocks".
	Title string
	// ElementBits is the width of the little-endian word an element is
	// stored in: 64 (Goldilocks) or 32 (the 31-bit fields).
	ElementBits int
	// Modulus is its p: elements are the values below it.
	Modulus uint64
}

// Element returns the Go type of an element: "uint64" or "uint32".
func (f Field) Element() string { return fmt.Sprintf("uint%d", f.ElementBits) }

// fieldTitles are the fields' names in prose.
var fieldTitles = map[string]string{Goldilocks: "Goldilocks", BabyBear: "BabyBear", KoalaBear: "KoalaBear"}

// Fields returns the fields of the hashes with batch functions, each
// once, in the order of Hashes: a fresh slice. Bytes is no field.
func Fields() []Field {
	var out []Field
	for _, h := range Batched() {
		if slices.ContainsFunc(out, func(f Field) bool { return f.Name == h.Field }) {
			continue
		}
		m, _ := h.Batch.(interface{ Modulus() uint64 })
		f := Field{Name: h.Field, Title: fieldTitles[h.Field], ElementBits: h.ElementBits()}
		if m != nil {
			f.Modulus = m.Modulus()
		}
		out = append(out, f)
	}
	return out
}

// FieldOf returns the field named name (in any case), or an error
// listing the fields.
func FieldOf(name string) (Field, error) {
	fs := Fields()
	var names []string
	for _, f := range fs {
		if strings.EqualFold(f.Name, name) {
			return f, nil
		}
		names = append(names, f.Name)
	}
	return Field{}, fmt.Errorf("unknown field %q: accepted are %s", name, strings.Join(names, ", "))
}

// Fields31 are the 31-bit fields (of 32-bit elements).
var Fields31 = func() []string {
	var out []string
	for _, f := range Fields() {
		if f.ElementBits == 32 {
			out = append(out, f.Name)
		}
	}
	return out
}()

// Default returns the hash a command uses for the field (or Bytes) where
// none is named: the field's first in Hashes.
func Default(field string) (Hash, error) {
	hs := Of(field)
	if len(hs) == 0 {
		return Hash{}, fmt.Errorf("no hash over %q", field)
	}
	return hs[0], nil
}

// Reference is a hash's plain-Go reference over its field, one item at a
// time, on elements E, digests D and states S: the oracle of the tests,
// the benchmarks' checks and the self-test's golden outputs.
type Reference[E field.Element, D, S any] struct {
	Permute      func(state *S)
	Merge        func(a, b D) D
	HashElements func(els []E) D
}

// GoldilocksReference is the Reference of a Goldilocks hash.
type GoldilocksReference = Reference[uint64, [4]uint64, [12]uint64]

// Monty31Reference is the Reference of a hash over BabyBear or KoalaBear.
type Monty31Reference = Reference[uint32, [8]uint32, [16]uint32]

// Hash is one hash of the module.
type Hash struct {
	// Name names it everywhere: --hash, the command, the suite, the
	// self-test family, and the first word of its errors.
	Name string
	// Field is Bytes, Goldilocks, BabyBear or KoalaBear.
	Field string
	// Command is the wgbench command of its batch functions (merge,
	// hash), where one command serves hashes of several fields through
	// --field: "poseidon2" for each Poseidon2. Empty for a hash without
	// batch functions.
	Command string
	// Title names it in tables and help: "Rescue Prime Rp64_256".
	Title string
	// About completes "NAME hashes Goldilocks field elements on the GPU
	// with" in its command's help: what it computes, whose it is.
	About string
	// Merkle is its merge in package merkle's trees.
	Merkle merkle.Hash
	// Batch is its batch functions over its field, a *batch.Family of the
	// field's elements, digests, pairs and states (*batch.Goldilocks,
	// *batch.Monty31), nil for a hash without; BatchOf returns it typed.
	Batch any
	// Reference is its plain-Go reference, a Reference of the field's
	// types (GoldilocksReference, Monty31Reference), nil for a hash without
	// batch functions; ReferenceOf returns it typed.
	Reference any
	// PermuteNanos is the GPU kernel time of one permutation (BLAKE3: one
	// compression of a 2-to-1 merge) on an H200 (H100-class compute), from
	// the kernel times of a BLAKE3 tree of 2^25 leaves, a Rescue tree of
	// 2^24 (RPO: the same rounds, Rescue's figure), the Goldilocks
	// Poseidon2 and BabyBear commitments of 2^20 x 128 (17.8 M
	// permutations) and 2^20 KoalaBear permutations: BENCHMARKS.md's
	// "Merkle trees", "Matrix commitments" and "Poseidon2 over BabyBear and
	// KoalaBear" (the figures as this comment quoted them are in
	// bench/results/HISTORY.md, "Figures moved from code comments"). What
	// a one-shot command estimates its work with, to decide whether a
	// second GPU pays for its set-up.
	PermuteNanos float64
	// FastCPU: its CPU path is a faster twin of Reference rather than
	// Reference itself, so the self-test's golden outputs come from
	// Reference.
	FastCPU bool
}

// Hashes returns every hash, in the order lists show them: a fresh slice.
func Hashes() []Hash {
	return []Hash{
		{Name: "blake3", Field: Bytes, Title: "BLAKE3", Merkle: blake3.MerkleMerge{}, PermuteNanos: 0.06},
		{Name: "rescue", Field: Goldilocks, Command: "rescue", Title: "Rescue Prime Rp64_256", Merkle: rescue.MerkleMerge{}, Batch: rescue.Batch, PermuteNanos: 8.3,
			Reference: GoldilocksReference{rescue.Permute, rescue.Merge, rescue.HashElements},
			About:     "Rp64_256, winterfell's Rescue Prime."},
		{Name: "rpo", Field: Goldilocks, Command: "rpo", Title: "RPO256 (miden-crypto Rpo256)", Merkle: rpo.MerkleMerge{}, Batch: rpo.Batch, PermuteNanos: 8.3,
			Reference: GoldilocksReference{rpo.Permute, rpo.Merge, rpo.HashElements},
			About: `RPO256, miden-crypto's
Rpo256 (releases 0.11 to 0.20): merge is Rpo256::merge, hash is
Rpo256::hash_elements.`},
		{Name: "poseidon2", Field: Goldilocks, Command: "poseidon2", Title: "Poseidon2 (Goldilocks, width 12)", Merkle: poseidon2.MerkleMerge{}, Batch: poseidon2.Batch, PermuteNanos: 1.55,
			Reference: GoldilocksReference{poseidon2.Permute, poseidon2.Merge, poseidon2.HashElements}, FastCPU: true,
			About: `Plonky3's
Poseidon2 (width 12, default_goldilocks_poseidon2_12). merge is the 2-to-1
compression of Plonky3's Merkle trees (TruncatedPermutation<_, 2, 4, 12>);
hash is its padding-free sponge (PaddingFreeSponge<_, 12, 8, 4>: no
padding, so hash records of one length only).`},
		poseidon2Of31(poseidon2.BabyBearMerkle, "BabyBear", "default_babybear_poseidon2_16", 0.43),
		poseidon2Of31(poseidon2.KoalaBearMerkle, "KoalaBear", "default_koalabear_poseidon2_16, v0.5's constants", 0.35),
		// gnark-crypto's instances (Vortex's and Linea's hashes), named
		// poseidon2-gnark-FIELD, one command with --field.
		poseidon2Gnark(poseidon2.GnarkKoalaBear, "KoalaBear", "16, 6, 21 and 24, 6, 21", "the hashes of its Vortex commitment", 0.35),
		poseidon2Gnark(poseidon2.GnarkBabyBear, "BabyBear", "16, 8, 13 and 24, 8, 21", "its Vortex hashes (KoalaBear's) over BabyBear", 0.43),
	}
}

// poseidon2Gnark is the line of gnark-crypto's Poseidon2 hashing over a
// 31-bit field, g, the field titled title, its permutations
// NewPermutation(perms), which are role, measured at about ns a
// permutation on the GPU
// (Plonky3's instance of the field's figure: the rounds are within one of
// its).
func poseidon2Gnark(g poseidon2.GnarkHash, title, perms, role string, ns float64) Hash {
	return Hash{Name: g.Name(), Field: g.FieldName(), Command: "poseidon2-gnark", Title: "Poseidon2 (gnark-crypto, " + title + ")",
		Merkle: g, Batch: g.Batch(), FastCPU: true, PermuteNanos: ns,
		// The reference cannot fail on the canonical elements the
		// batch functions accept.
		Reference: Monty31Reference{
			Permute: func(s *[16]uint32) { _ = g.Permutation().Permute(s[:]) },
			Merge: func(a, b [8]uint32) [8]uint32 {
				out, _ := g.Compress(a, b)
				return out
			},
			HashElements: func(els []uint32) [8]uint32 {
				out, _ := g.Sponge(els)
				return out
			},
		},
		About: `gnark-crypto's Poseidon2 over ` + title + `
(v0.22.0's NewPermutation(` + perms + `), round keys from
Keccak-256): ` + role + `. merge is
CompressPoseidon2 (the width-16 permutation of a || b, the second half fed
forward with b); hash is HashPoseidon2 (the width-24 sponge: rate 16 in
lanes 8..24, the digest lanes 0..8, no padding, so hash records of one
length only).`}
}

// poseidon2Of31 is the line of Poseidon2 over a 31-bit field, m's hash,
// the field titled title, its permutation Plonky3's perm, measured at ns
// a permutation on the GPU.
func poseidon2Of31(m poseidon2.MerkleMerge31, title, perm string, ns float64) Hash {
	p := m.Permutation()
	return Hash{Name: m.Name(), Field: m.FieldName(), Command: "poseidon2", Title: "Poseidon2 (" + title + ", width 16)",
		Merkle: m, Batch: m.Batch(), FastCPU: true, PermuteNanos: ns,
		// The reference cannot fail on the canonical elements the
		// batch functions accept.
		Reference: Monty31Reference{
			Permute: func(s *[16]uint32) { _ = p.Permute(s[:]) },
			Merge: func(a, b [8]uint32) [8]uint32 {
				out, _ := p.Compression().Compress(a[:], b[:])
				return [8]uint32(out)
			},
			HashElements: func(els []uint32) [8]uint32 {
				out, _ := p.Sponge().Hash(els)
				return [8]uint32(out)
			},
		},
		About: `Plonky3's Poseidon2 over ` + title + `
(width 16, ` + perm + `): the hashes of Plonky3's Merkle
trees over the field. merge is
TruncatedPermutation<_, 2, 8, 16>; hash is PaddingFreeSponge<_, 16, 8, 8>
(no padding, so hash records of one length only).`}
}

// Of returns the hashes of field f, in order.
func Of(f string) []Hash {
	var out []Hash
	for _, h := range Hashes() {
		if h.Field == f {
			out = append(out, h)
		}
	}
	return out
}

// Names returns the names of hs, in order.
func Names(hs []Hash) []string {
	names := make([]string, len(hs))
	for i, h := range hs {
		names[i] = h.Name
	}
	return names
}

// Lookup returns the hash named name (in any case), or an error listing
// the names.
func Lookup(name string) (Hash, error) {
	hs := Hashes()
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h, nil
		}
	}
	return Hash{}, fmt.Errorf("unknown hash %q: accepted are %s", name, strings.Join(Names(hs), ", "))
}

// Batched returns the hashes with batch functions (a Goldilocks or a
// 31-bit field's), in order.
func Batched() []Hash {
	var out []Hash
	for _, h := range Hashes() {
		if h.Command != "" {
			out = append(out, h)
		}
	}
	return out
}

// Commands returns the Command names of Batched, each once, in order.
func Commands() []string {
	var out []string
	for _, h := range Batched() {
		if !slices.Contains(out, h.Command) {
			out = append(out, h.Command)
		}
	}
	return out
}

// ElementBits returns the width of the little-endian word an element of
// h's field is stored in: 64 (Goldilocks), 32 (the 31-bit fields), or 0
// for a hash of bytes.
func (h Hash) ElementBits() int {
	switch h.Merkle.(type) {
	case merkle.RowHash[uint64]:
		return 64
	case merkle.RowHash[uint32]:
		return 32
	}
	return 0
}

// BatchOf returns h's batch functions where they are over elements E,
// digests D, pairs P and states S (its field's), else nil: a hash without
// batch functions, or over a field of other types.
func BatchOf[E field.Element, D, P, S any](h Hash) *batch.Family[E, D, P, S] {
	f, _ := h.Batch.(*batch.Family[E, D, P, S])
	return f
}

// ReferenceOf returns h's reference where it is over elements E, digests
// D and states S (its field's), and false for a hash without batch
// functions or over a field of other types.
func ReferenceOf[E field.Element, D, S any](h Hash) (Reference[E, D, S], bool) {
	r, ok := h.Reference.(Reference[E, D, S])
	return r, ok
}
