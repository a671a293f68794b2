package selftest

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"unsafe"

	"github.com/consensys/gnark-crypto/field/koalabear"
	gvortex "github.com/consensys/gnark-crypto/field/koalabear/vortex"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/eigen"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/field/u64emu"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/ntt"
	"github.com/wgcompute/wgcompute/algos/registry"
	"github.com/wgcompute/wgcompute/algos/vortex"
	"github.com/wgcompute/wgcompute/internal/base/impl"
	"github.com/wgcompute/wgcompute/wgpu"
)

// Families returns the self-test of every kernel family, in the order
// they are reported: a fresh table, which a test may change.
func Families() []Family {
	fams := []Family{{Name: "blake3", Run: runBLAKE3}, {Name: "u64emu", Run: runU64emu}}
	for _, h := range registry.Batched() {
		fams = append(fams, elementFamily(h))
	}
	return append(fams,
		Family{Name: "ntt", Run: runNTT},
		Family{Name: "vortex", Run: runVortex},
		Family{Name: "linea", Run: runLinea, Reference: lineaReference},
		Family{Name: "merkle", Run: runMerkle},
		Family{Name: "eigen", Tolerance: EigenTolerance, Run: runEigen, Reference: eigenReference})
}

// cpuVariant names the one variant of the CPU backend.
const cpuVariant = "cpu"

// variantsOn returns the variants to run on ctx: all of them, or on the
// CPU backend (ctx nil) the zero value alone, every family's default.
func variantsOn[V any](ctx *wgpu.Context, all []V) []V {
	if ctx == nil {
		return make([]V, 1)
	}
	return all
}

// variantName is what outputs call the variant named gpu: that name, or
// cpuVariant on the CPU backend (ctx nil).
func variantName(ctx *wgpu.Context, gpu string) string {
	if ctx == nil {
		return cpuVariant
	}
	return gpu
}

// merkleApproaches returns the names of the ways merkle builds a tree's
// levels, internal/base/impl's "merkle" variants but the default (which is
// one of them, chosen by hash and size).
func merkleApproaches() []string { return impl.List("merkle")[1:] }

// merkleOptions returns the options that build by the approach named a,
// or the default's for "" (the CPU backend's zero value).
func merkleOptions(a string) merkle.Options {
	if a == "" {
		return merkle.Options{}
	}
	return forceVariant("merkle", a, merkle.Options{})
}

// forceVariant returns o with merkle's variant name of entry forced
// (internal/base/impl); the names come from impl.List, so a failure is a
// change to merkle's registrations, which the tests report.
func forceVariant(entry, name string, o merkle.Options) merkle.Options {
	set, err := impl.Select[func(merkle.Options) merkle.Options](entry, name)
	if err != nil {
		panic(err)
	}
	return set(o)
}

// newRand returns the PCG generator of a seed: every input is drawn from
// one, so that the same seed gives the same input everywhere.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x5e1f7e57c0ffee))
}

// randomBytes returns n bytes from r.
func randomBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, (n+7)&^7)
	for i := 0; i < len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], r.Uint64())
	}
	return b[:n]
}

// element draws a field element (below P) from r.
func element(r *rand.Rand) uint64 { return r.Uint64N(u64emu.P) }

// b3Lengths are the BLAKE3 input lengths: around the block (64 bytes),
// the chunk (1024) and the subtrees of 2 to 1024 chunks, where the GPU's
// lane variants and the host's merging of subtree roots change hands.
var b3Lengths = []int{
	0, 1, 63, 64, 65, 1023, 1024, 1025, 2047, 2048, 2049, 3*1024 + 7,
	4095, 4096, 4097, 8*1024 - 1, 8 * 1024, 8*1024 + 1, 16 * 1024, 16*1024 + 1,
	31*1024 + 500, 32*1024 + 1, 64 * 1024, 64*1024 + 1, 100_000,
	256*1024 + 1, 1 << 20, 1<<20 + 3*1024 + 5,
}

// b3Modes are the BLAKE3 modes, each with the lengths it hashes; xof asks
// for 1000 bytes of extended output (16 output blocks, the last partial).
func b3Modes() []struct {
	name    string
	opts    blake3.Options
	lengths []int
} {
	key := randomBytes(newRand(3), blake3.KeySize)
	return []struct {
		name    string
		opts    blake3.Options
		lengths []int
	}{
		{"hash", blake3.Options{}, b3Lengths},
		{"keyed", blake3.Options{Key: key}, b3Lengths},
		{"derive", blake3.Options{DeriveKey: true, Context: "wgcompute selftest 2026-11-24 derive_key"}, b3Lengths},
		{"xof", blake3.Options{Length: 1000}, []int{0, 1, 1025, 16*1024 + 1, 1<<20 + 3*1024 + 5}},
	}
}

// b3MergePairs is how many pairs the MergeMany case merges.
const b3MergePairs = 1000

// runBLAKE3 hashes every mode at every length with every chunk kernel,
// and merges pairs with MergeMany (which has one kernel, variant
// "merge").
func runBLAKE3(ctx *wgpu.Context) ([]Output, error) {
	data := randomBytes(newRand(1), b3Lengths[len(b3Lengths)-1])
	var outs []Output
	for _, v := range variantsOn(ctx, impl.List("blake3")) {
		name := variantName(ctx, v)
		force := func(o blake3.Options) blake3.Options { return o }
		if ctx != nil {
			f, err := impl.Select[func(blake3.Options) blake3.Options]("blake3", v)
			if err != nil {
				return nil, err
			}
			force = f
		}
		for _, m := range b3Modes() {
			e, err := blake3.NewEngine(ctx, force(m.opts))
			if err != nil {
				outs = append(outs, Output{Variant: name, Case: m.name, Err: err})
				continue
			}
			for _, n := range m.lengths {
				c := fmt.Sprintf("%s/len=%d", m.name, n)
				sum, err := e.Sum(data[:n])
				outs = append(outs, Output{Variant: name, Case: c, Digest: Digest(sum), Err: err})
			}
			e.Release()
		}
	}
	r := newRand(2)
	pairs := make([][64]byte, b3MergePairs)
	for i := range pairs {
		copy(pairs[i][:], randomBytes(r, 64))
	}
	dst := make([][32]byte, len(pairs))
	err := blake3.MergeMany(ctx, dst, pairs, blake3.Options{})
	outs = append(outs, Output{Variant: variantName(ctx, "merge"), Case: fmt.Sprintf("merge/pairs=%d", len(pairs)), Digest: Digest(wgpu.Bytes(dst)), Err: err})
	return outs, nil
}

// u64Edges are field elements where carries and the reduction mod P
// change: every pair of them is an input of the binary operations.
var u64Edges = []uint64{
	0, 1, 2, 3, 1<<31 - 1, 1 << 31, 1<<32 - 1, 1 << 32, 1<<32 + 1,
	1<<63 - 1, 1 << 63, u64emu.P - 1<<32, u64emu.P - 2, u64emu.P - 1,
}

// u64Count is how many elements each operation computes: every pair of
// edges, then random elements, past a multiple of the workgroup size.
const u64Count = 5000

// u64Inputs returns the operands of the u64emu cases.
func u64Inputs() (a, b []uint64) {
	a = make([]uint64, 0, u64Count)
	b = make([]uint64, 0, u64Count)
	for _, x := range u64Edges {
		for _, y := range u64Edges {
			a, b = append(a, x), append(b, y)
		}
	}
	r := newRand(4)
	for len(a) < u64Count {
		a, b = append(a, element(r)), append(b, element(r))
	}
	return a, b
}

// runU64emu runs every batch operation of package u64emu.
func runU64emu(ctx *wgpu.Context) ([]Output, error) {
	a, b := u64Inputs()
	name := variantName(ctx, "wgsl")
	ops := []struct {
		name string
		run  func(dst []uint64) error
	}{
		{"add", func(dst []uint64) error { return u64emu.AddTo(ctx, dst, a, b) }},
		{"sub", func(dst []uint64) error { return u64emu.SubTo(ctx, dst, a, b) }},
		{"mul", func(dst []uint64) error { return u64emu.MulTo(ctx, dst, a, b) }},
		{"pow7", func(dst []uint64) error { return u64emu.Pow7To(ctx, dst, a) }},
		{"invpow7", func(dst []uint64) error { return u64emu.InvPow7To(ctx, dst, a) }},
	}
	var outs []Output
	for _, op := range ops {
		dst := make([]uint64, len(a))
		err := op.run(dst)
		outs = append(outs, Output{Variant: name, Case: op.name, Digest: Digest(wgpu.Bytes(dst)), Err: err})
	}
	return outs, nil
}

// nttCases are the transforms of the ntt family: every field, rows of one
// size up to two passes over memory (2^14), each direction and order,
// on the subgroup and its coset; and Reed-Solomon encoding at rates 2
// and 8.
var nttCases = []struct {
	logN, rows int
	o          ntt.Options
}{
	{1, 7, ntt.Options{}},
	{5, 3, ntt.Options{Inverse: true, Coset: true}},
	{11, 2, ntt.Options{Out: ntt.BitReversed}},
	{12, 1, ntt.Options{Coset: true, In: ntt.BitReversed}},
	{14, 1, ntt.Options{Inverse: true, In: ntt.BitReversed, Out: ntt.BitReversed}},
}

// nttCasesOver appends to outs the digests of nttCases over f on ctx, the
// inputs drawn from r.
func nttCasesOver[E field.Element](ctx *wgpu.Context, outs []Output, variant string, f field.Field[E], r *rand.Rand) []Output {
	for _, c := range nttCases {
		what := fmt.Sprintf("%s 2^%d x %d inverse=%v coset=%v %v to %v", f.Name(), c.logN, c.rows, c.o.Inverse, c.o.Coset, c.o.In, c.o.Out)
		data := make([]E, c.rows<<c.logN)
		for j := range data {
			data[j] = E(r.Uint64N(f.Modulus()))
		}
		err := ntt.Transform(ctx, f, data, c.logN, c.o)
		outs = append(outs, Output{Variant: variant, Case: what, Digest: Digest(wgpu.Bytes(data)), Err: err})
	}
	return outs
}

// runNTT runs the ntt family's cases on ctx: its outputs' digests.
func runNTT(ctx *wgpu.Context) ([]Output, error) {
	name := variantName(ctx, "wgsl")
	var outs []Output
	add := func(c string, b []byte, err error) {
		outs = append(outs, Output{Variant: name, Case: c, Digest: Digest(b), Err: err})
	}
	outs = nttCasesOver(ctx, outs, name, field.BabyBear, newRand(40))
	outs = nttCasesOver(ctx, outs, name, field.KoalaBear, newRand(41))
	outs = nttCasesOver(ctx, outs, name, field.Goldilocks{}, newRand(42))
	r := newRand(43)
	src := make([]uint32, 5<<10)
	for j := range src {
		src[j] = uint32(r.Uint64N(uint64(field.KoalaBear.P())))
	}
	for _, rate := range []int{2, 8} {
		dst := make([]uint32, len(src)*rate)
		err := ntt.EncodeReedSolomon(ctx, field.KoalaBear, dst, src, 10, rate)
		add(fmt.Sprintf("koalabear encode 5x2^10 rate %d", rate), wgpu.Bytes(dst), err)
	}
	return outs, nil
}

// runVortex commits with gnark-crypto's Vortex on ctx (a nil ctx:
// gnark-crypto itself) at two small shapes: the roots, the SIS digests
// and the tree's nodes.
func runVortex(ctx *wgpu.Context) ([]Output, error) {
	name := variantName(ctx, "wgsl")
	var outs []Output
	for i, c := range []struct{ rows, logN, rate, logDeg, logBound int }{{13, 6, 2, 9, 16}, {5, 8, 8, 4, 8}} {
		what := fmt.Sprintf("%dx2^%d rate %d sis %d,%d", c.rows, c.logN, c.rate, c.logDeg, c.logBound)
		r := newRand(uint64(50 + i))
		vals := make([]uint32, c.rows<<c.logN)
		for j := range vals {
			vals[j] = uint32(r.Uint64N(uint64(field.KoalaBear.P())))
		}
		p, err := vortex.NewParams(1<<c.logN, c.rows, c.rate, vortex.SIS{LogTwoDegree: c.logDeg, LogTwoBound: c.logBound}, 1)
		if err != nil {
			return nil, err
		}
		m, err := vortex.FromCanonical(vals, c.rows, 1<<c.logN)
		if err != nil {
			return nil, err
		}
		var root, digests, nodes []byte
		st, err := vortex.Commit(ctx, p, m, vortex.Options{})
		if err == nil {
			rt := vortex.CanonicalRoot(st.Root())
			root = wgpu.Bytes(rt[:])
			var d []koalabear.Element
			if d, err = st.HashedColumns(); err == nil {
				digests = wgpu.Bytes(d)
			}
			var tree *gvortex.MerkleTree
			if err == nil {
				tree, err = st.Tree()
			}
			if err == nil {
				for _, l := range tree.Levels {
					nodes = append(nodes, wgpu.Bytes(l)...)
				}
			}
			st.Release()
		}
		outs = append(outs, Output{Variant: name, Case: what + " root", Digest: Digest(root), Err: err},
			Output{Variant: name, Case: what + " sis digests", Digest: Digest(digests), Err: err},
			Output{Variant: name, Case: what + " tree", Digest: Digest(nodes), Err: err})
	}
	return outs, nil
}

// Sizes of the field hashes' cases (Rescue, RPO, Poseidon2 over
// Goldilocks, BabyBear and KoalaBear): states permuted, pairs merged, and
// inputs of each length hashed (lengths below, at and past the rate of 8).
const (
	rescueStates = 300
	rescuePairs  = 300
	rescueInputs = 129
)

var rescueLengths = []int{1, 7, 8, 9, 16, 23}

// elementInputs are a field hash's cases' inputs: elements E, pairs P,
// states S.
type elementInputs[E field.Element, P, S any] struct {
	states []S
	pairs  []P
	hash   map[int][]E
}

// elems views a slice of arrays of E as its elements, without copying.
func elems[E field.Element, T any](s []T) []E {
	var e E
	return unsafe.Slice((*E)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])/unsafe.Sizeof(e)))
}

// newElementInputs draws a field hash's cases' inputs from seed, each
// element below p: states (the zero state and the all p-1 state first),
// pairs, and inputs of each of rescueLengths.
func newElementInputs[E field.Element, P, S any](seed, p uint64) elementInputs[E, P, S] {
	r := newRand(seed)
	in := elementInputs[E, P, S]{states: make([]S, rescueStates), pairs: make([]P, rescuePairs), hash: map[int][]E{}}
	draw := func(els []E) {
		for i := range els {
			els[i] = E(r.Uint64N(p))
		}
	}
	draw(elems[E](in.states))
	clear(elems[E](in.states[:1]))
	for i, one := 0, elems[E](in.states[1:2]); i < len(one); i++ {
		one[i] = E(p - 1)
	}
	draw(elems[E](in.pairs))
	for _, m := range rescueLengths {
		in.hash[m] = make([]E, m*rescueInputs)
		draw(in.hash[m])
	}
	return in
}

// elementBatcher is what a field hash's family runs a variant with: a
// batch.Batcher (or refBatcher).
type elementBatcher[E field.Element, D, P, S any] interface {
	PermuteMany(states []S) error
	HashElementsMany(dst []D, inputs []E, m int) error
	MergeMany(dst []D, pairs []P) error
	Release()
}

// elementOutputs returns the outputs of every case of in computed by b,
// under the variant name v.
func elementOutputs[E field.Element, D, P, S any](v string, in elementInputs[E, P, S], b elementBatcher[E, D, P, S]) []Output {
	st := append([]S(nil), in.states...)
	err := b.PermuteMany(st)
	outs := []Output{{Variant: v, Case: fmt.Sprintf("permute/states=%d", len(st)), Digest: Digest(wgpu.Bytes(st)), Err: err}}
	for _, m := range rescueLengths {
		dst := make([]D, rescueInputs)
		err := b.HashElementsMany(dst, in.hash[m], m)
		outs = append(outs, Output{Variant: v, Case: fmt.Sprintf("hash/elements=%d", m), Digest: Digest(wgpu.Bytes(dst)), Err: err})
	}
	dst := make([]D, len(in.pairs))
	err = b.MergeMany(dst, in.pairs)
	return append(outs, Output{Variant: v, Case: fmt.Sprintf("merge/pairs=%d", len(in.pairs)), Digest: Digest(wgpu.Bytes(dst)), Err: err})
}

// elementSeeds draw the inputs of the Goldilocks hashes whose golden
// outputs predate the registry; a hash added since draws from its name.
var elementSeeds = map[string]uint64{"rescue": 5, "rpo": 7, "poseidon2": 8}

// elementSeed returns the seed of h's inputs.
func elementSeed(h registry.Hash) uint64 {
	if s, ok := elementSeeds[h.Name]; ok {
		return s
	}
	f := fnv.New64a()
	f.Write([]byte(h.Name))
	return f.Sum64()
}

// elementFamily is the self-test of the field hash h: it permutes, hashes
// and merges the inputs of its seed with every variant (and, over a 31-bit
// field, commits to a matrix); where its CPU path is a faster twin of the
// reference, the golden outputs come from the reference.
func elementFamily(h registry.Hash) Family {
	if r, ok := registry.ReferenceOf[uint32, [8]uint32, [16]uint32](h); ok {
		fam := elementFamilyOf(h, modulus31(h), refBatcher[uint32, [8]uint32, [16]uint32, [16]uint32]{
			permute: r.Permute, hashElements: r.HashElements,
			merge: func(p [16]uint32) [8]uint32 { return r.Merge([8]uint32(p[:8]), [8]uint32(p[8:])) },
		})
		run, ref := fam.Run, fam.Reference
		fam.Run = func(ctx *wgpu.Context) ([]Output, error) {
			outs, err := run(ctx)
			return append(outs, matrixOutputs(ctx, h)...), err
		}
		fam.Reference = func() ([]Output, error) {
			outs, err := ref()
			return append(outs, matrixReference(h)), err
		}
		return fam
	}
	r, _ := registry.ReferenceOf[uint64, [4]uint64, [12]uint64](h)
	return elementFamilyOf(h, u64emu.P, refBatcher[uint64, [4]uint64, [8]uint64, [12]uint64]{
		permute: r.Permute, hashElements: r.HashElements,
		merge: func(p [8]uint64) [4]uint64 { return r.Merge([4]uint64(p[:4]), [4]uint64(p[4:])) },
	})
}

// elementFamilyOf is elementFamily over the elements E of the field of
// prime p, ref its reference; h's batch functions on each kernel variant
// are internal/base/impl's, under h's name.
func elementFamilyOf[E field.Element, D, P, S any](h registry.Hash, p uint64, ref refBatcher[E, D, P, S]) Family {
	variant := impl.Select[*batch.Family[E, D, P, S]]
	fam := Family{Name: h.Name, Run: func(ctx *wgpu.Context) ([]Output, error) {
		in := newElementInputs[E, P, S](elementSeed(h), p)
		var outs []Output
		variants := impl.List(h.Name)
		if ctx == nil {
			variants = variants[:1] // the CPU backend runs the default alone
		}
		for _, v := range variants {
			name := variantName(ctx, v)
			f, err := variant(h.Name, v)
			if err != nil {
				return nil, err
			}
			b, err := f.NewBatcher(ctx, batch.Options{})
			if err != nil {
				outs = append(outs, Output{Variant: name, Case: "batcher", Err: err})
				continue
			}
			outs = append(outs, elementOutputs(name, in, elementBatcher[E, D, P, S](b))...)
			b.Release()
		}
		return outs, nil
	}}
	if h.FastCPU {
		fam.Reference = func() ([]Output, error) {
			return elementOutputs(cpuVariant, newElementInputs[E, P, S](elementSeed(h), p), elementBatcher[E, D, P, S](ref)), nil
		}
	}
	return fam
}

// refBatcher runs a plain-Go reference one item at a time, as an
// elementBatcher.
type refBatcher[E field.Element, D, P, S any] struct {
	permute      func(state *S)
	hashElements func(els []E) D
	merge        func(pair P) D
}

func (r refBatcher[E, D, P, S]) PermuteMany(states []S) error {
	for i := range states {
		r.permute(&states[i])
	}
	return nil
}

func (r refBatcher[E, D, P, S]) HashElementsMany(dst []D, els []E, m int) error {
	for i := range dst {
		dst[i] = r.hashElements(els[i*m : (i+1)*m])
	}
	return nil
}

func (r refBatcher[E, D, P, S]) MergeMany(dst []D, pairs []P) error {
	for i := range dst {
		dst[i] = r.merge(pairs[i])
	}
	return nil
}

func (refBatcher[E, D, P, S]) Release() {}

// The matrix commitment of a 31-bit field's hash: matrixRows rows of
// matrixCols elements (several sponge blocks, the last partial).
const (
	matrixRows = 256
	matrixCols = 23
)

// modulus31 returns the p of h, a hash over a 31-bit field.
func modulus31(h registry.Hash) uint64 {
	return registry.BatchOf[uint32, [8]uint32, [16]uint32, [16]uint32](h).Modulus()
}

// matrixCase names the commitment's case.
var matrixCase = fmt.Sprintf("commit/rows=%d,cols=%d", matrixRows, matrixCols)

// matrix31 draws the matrix of h's commitment, from its seed's successor.
func matrix31(h registry.Hash) merkle.Matrix[uint32] {
	r := newRand(elementSeed(h) + 1)
	p := uint32(modulus31(h))
	m := merkle.Matrix[uint32]{Rows: matrixRows, Cols: matrixCols, Data: make([]uint32, matrixRows*matrixCols)}
	for i := range m.Data {
		m.Data[i] = r.Uint32N(p)
	}
	return m
}

// matrixOutputs commits to h's matrix on ctx (the CPU path where nil) and
// returns the case's output, the digest of every node.
func matrixOutputs(ctx *wgpu.Context, h registry.Hash) []Output {
	var outs []Output
	for _, a := range variantsOn(ctx, merkleApproaches()) {
		t, err := merkle.CommitMatrix(ctx, matrix31(h), h.Merkle.(merkle.RowHash[uint32]), merkleOptions(a))
		o := Output{Variant: variantName(ctx, "commit-"+a), Case: matrixCase, Err: err}
		if err == nil {
			o.Digest = Digest(wgpu.Bytes(t.Nodes()))
		}
		outs = append(outs, o)
	}
	return outs
}

// matrixReference is matrixOutputs by the reference: each row's sponge,
// then the tree's nodes merged level by level (node 0 zero, node 1 the
// root, node i the merge of nodes 2i and 2i+1, node N+j leaf j).
func matrixReference(h registry.Hash) Output {
	m := matrix31(h)
	r, _ := registry.ReferenceOf[uint32, [8]uint32, [16]uint32](h)
	nodes := make([][8]uint32, 2*m.Rows)
	for j := range m.Rows {
		nodes[m.Rows+j] = r.HashElements(m.Data[j*m.Cols : (j+1)*m.Cols])
	}
	for i := m.Rows - 1; i >= 1; i-- {
		nodes[i] = r.Merge(nodes[2*i], nodes[2*i+1])
	}
	return Output{Variant: cpuVariant, Case: matrixCase, Digest: Digest(wgpu.Bytes(nodes[:m.Rows]))}
}

// merkleSizes are the tree sizes, in leaves, ending with the largest: 3
// and 1000 are no powers of two, built by parts.
var merkleSizes = []int{2, 3, 4, 64, 1000, 1024, 4096}

// runMerkle builds trees of every size with every hash by every
// approach; a case's digest covers all of the tree's nodes.
func runMerkle(ctx *wgpu.Context) ([]Output, error) {
	n := merkleSizes[len(merkleSizes)-1]
	r := newRand(6)
	b3Leaves := make([][32]byte, n)
	rpLeaves := make([][32]byte, n)
	for i := range n {
		copy(b3Leaves[i][:], randomBytes(r, 32))
		for j := 0; j < 4; j++ {
			binary.LittleEndian.PutUint64(rpLeaves[i][8*j:], element(r))
		}
	}
	// The leaves of each field: any bytes, or field elements; the 31-bit
	// fields' from generators of their own, so that the others' stay as
	// they were.
	leaves := map[string][][32]byte{registry.Bytes: b3Leaves, registry.Goldilocks: rpLeaves}
	for i, f := range registry.Fields31 {
		r := newRand(uint64(60 + i))
		p := uint32(modulus31(registry.Of(f)[0]))
		leaves[f] = make([][32]byte, n)
		for j := range leaves[f] {
			for k := 0; k < 8; k++ {
				binary.LittleEndian.PutUint32(leaves[f][j][4*k:], r.Uint32N(p))
			}
		}
	}
	var outs []Output
	for _, a := range variantsOn(ctx, merkleApproaches()) {
		name := variantName(ctx, a)
		for _, h := range registry.Hashes() {
			// Every level on the device ("merkle-top" "device"): the
			// kernels are what the self-test checks, and a Goldilocks
			// hash's top levels, or its whole smaller trees, would be
			// merged on the host.
			b, err := merkle.NewCommitter(ctx, merkle.Schedule{{Hash: h.Merkle}}, forceVariant("merkle-top", "device", merkleOptions(a)))
			if err != nil {
				outs = append(outs, Output{Variant: name, Case: h.Name, Err: err})
				continue
			}
			for _, n := range merkleSizes {
				c := fmt.Sprintf("%s/leaves=%d", h.Name, n)
				t, err := merkle.Build(ctx, leaves[h.Field][:n], nil, merkle.Options{Committer: b})
				if err != nil {
					outs = append(outs, Output{Variant: name, Case: c, Err: err})
					continue
				}
				outs = append(outs, Output{Variant: name, Case: c, Digest: Digest(wgpu.Bytes(t.Nodes()))})
			}
			b.Release()
		}
	}
	return outs, nil
}

// EigenTolerance is the largest relative error of the eigen family's
// results against the float64 reference: 1e-5, about 16 of float32's 24
// significand bits. The solver stops once adjacent row sums agree to
// eigenEps, so its float32 results may differ from the reference's by
// about that much even where every operation rounds correctly.
const EigenTolerance = 1e-5

// eigenEps is the stop threshold of the eigen cases.
const eigenEps = 1e-6

// eigenCases are the matrices: random entries (a PCG from a fixed seed),
// with a row count that fills no workgroup exactly, and a Hilbert matrix.
func eigenCases() []struct {
	name string
	n    int
	m    []float32
} {
	const n = 100
	r := newRand(7)
	m := make([]float32, n*n)
	for i := range m {
		m[i] = float32((1 - r.Float64()) / n)
	}
	return []struct {
		name string
		n    int
		m    []float32
	}{{"random-n100", n, m}, {"hilbert-n33", 33, eigen.Hilbert(33)}}
}

// eigenOutputs are a result's outputs: the eigenvalue, then the vector.
func eigenOutputs(variant, c string, res eigen.Result, err error) []Output {
	if err == nil && !res.Converged {
		err = fmt.Errorf("did not converge in %d iterations (spread %.3g, eps %.3g)", res.Iterations, res.Spread, eigenEps)
	}
	if err != nil {
		return []Output{{Variant: variant, Case: c, Err: err}}
	}
	return []Output{
		{Variant: variant, Case: c + "/value", Values: []float64{res.Value}},
		{Variant: variant, Case: c + "/vector", Values: res.Vector},
	}
}

// runEigen solves every case with every variant, with the implicit
// transform and the explicit one, fused and not.
func runEigen(ctx *wgpu.Context) ([]Output, error) {
	type config struct {
		name string
		opts eigen.Options
	}
	configs := []config{{cpuVariant, eigen.Options{}}}
	if ctx != nil {
		configs = nil
		for _, v := range eigen.Variants {
			configs = append(configs,
				config{v.String(), eigen.Options{Variant: v}},
				config{v.String() + "/explicit", eigen.Options{Variant: v, Explicit: true}},
				config{v.String() + "/explicit-unfused", eigen.Options{Variant: v, Explicit: true, Unfused: true}})
		}
	}
	cases := eigenCases()
	var outs []Output
	for _, cfg := range configs {
		for _, c := range cases {
			opts := cfg.opts
			opts.Eps = eigenEps
			res, err := eigen.MaxEigen(ctx, c.m, c.n, opts)
			outs = append(outs, eigenOutputs(cfg.name, c.name, res, err)...)
		}
	}
	return outs, nil
}

// eigenReference is the float64 reference of every case.
func eigenReference() ([]Output, error) {
	var outs []Output
	for _, c := range eigenCases() {
		res, err := eigen.Reference64(c.m, c.n, eigen.Options{Eps: eigenEps})
		outs = append(outs, eigenOutputs("float64", c.name, res, err)...)
	}
	return outs, nil
}
