package poseidon2

import (
	"fmt"
	"sync"
	"time"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/symmetric"
	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// gnark-crypto's Poseidon2 instances (v0.22.0's defaults, the hashes of
// its Vortex commitment and of Linea's prover). They are Permutation31
// values: the permutation is Plonky3's (the same external layer, and the
// same internal diagonals, which gnark-crypto takes from Plonky3), with
// other round counts and round keys derived from Keccak-256 of gnark's
// parameter string ("Poseidon2-koalabear[t=16,rF=6,rP=21,d=3]"), taken
// from gnark-crypto's own Parameters (rows of params31's table that name
// the derivation, params31.Gnark). Elements are canonical here; gnark-crypto's
// koalabear.Element holds the Montgomery form x·2^32 mod p in memory.
var (
	// GnarkKoalaBear16 is gnark-crypto's koalabear poseidon2.NewPermutation(16, 6, 21):
	// width 16, 6 full and 21 partial rounds, its compression's.
	GnarkKoalaBear16 = table31["gnark-koalabear16"]
	// GnarkKoalaBear24 is NewPermutation(24, 6, 21), its sponge's.
	GnarkKoalaBear24 = table31["gnark-koalabear24"]
	// GnarkBabyBear16 is gnark-crypto's babybear poseidon2.NewPermutation(16, 8, 13).
	GnarkBabyBear16 = table31["gnark-babybear16"]
	// GnarkBabyBear24 is babybear NewPermutation(24, 8, 21).
	GnarkBabyBear24 = table31["gnark-babybear24"]
)

// GnarkPermutations31 lists gnark-crypto's instances.
var GnarkPermutations31 = []*Permutation31{GnarkKoalaBear16, GnarkKoalaBear24, GnarkBabyBear16, GnarkBabyBear24}

// GnarkHash is gnark-crypto's Poseidon2 hashing over one field, as its
// Vortex commitment uses it (field/koalabear/vortex): two digests merge by
// its compression (CompressPoseidon2: the width-16 permutation of a || b,
// the second half fed forward with b), and a sequence of elements hashes
// by its width-24 sponge (HashPoseidon2: rate 16 in lanes 8..24, the
// digest lanes 0..8), or by its Merkle-Damgard hasher
// (NewMerkleDamgardHasher, over the compression). A digest is 8 canonical
// elements. It is a merkle.Hash (the compression) and a merkle.RowHash32
// (the sponge).
//
// gnark-crypto has the sponge only in koalabear/vortex; over BabyBear the
// sponge is the same construction over its width-24 permutation (which
// gnark-crypto's parameters name "for sponge").
//
// Its zero value is GnarkKoalaBear.
type GnarkHash struct{ compress, sponge *Permutation31 }

var (
	// GnarkKoalaBear is gnark-crypto's hashing over KoalaBear,
	// "poseidon2-gnark-koalabear": Vortex's and Linea's.
	GnarkKoalaBear = GnarkHash{GnarkKoalaBear16, GnarkKoalaBear24}
	// GnarkBabyBear is GnarkHash over BabyBear, "poseidon2-gnark-babybear".
	GnarkBabyBear = GnarkHash{GnarkBabyBear16, GnarkBabyBear24}
)

// NewGnarkHash returns gnark-crypto's hashing over the permutations
// compress, of width 16, and sponge, of width 24, of one field (as
// GnarkKoalaBear is over GnarkKoalaBear16 and GnarkKoalaBear24), or an
// error saying which does not fit.
func NewGnarkHash(compress, sponge *Permutation31) (GnarkHash, error) {
	switch {
	case compress == nil || sponge == nil:
		return GnarkHash{}, fmt.Errorf("poseidon2: a GnarkHash needs a compression's and a sponge's permutation")
	case compress.Width() != 16 || sponge.Width() != 24:
		return GnarkHash{}, fmt.Errorf("poseidon2: a GnarkHash takes a compression of width 16 and a sponge of width 24, given %s (%d) and %s (%d)", compress.Name(), compress.Width(), sponge.Name(), sponge.Width())
	case compress.Field() != sponge.Field():
		return GnarkHash{}, fmt.Errorf("poseidon2: a GnarkHash's permutations are over one field, given %s over %s and %s over %s", compress.Name(), compress.Field().Name(), sponge.Name(), sponge.Field().Name())
	}
	return GnarkHash{compress, sponge}, nil
}

func (g GnarkHash) perms() (compress, sponge *Permutation31) {
	if g.compress == nil {
		return GnarkKoalaBear16, GnarkKoalaBear24
	}
	return g.compress, g.sponge
}

// Name returns "poseidon2-gnark-koalabear" or "poseidon2-gnark-babybear".
func (g GnarkHash) Name() string {
	c, _ := g.perms()
	return "poseidon2-gnark-" + c.Field().Name()
}

// Permutation returns the width-16 permutation of the compression.
func (g GnarkHash) Permutation() *Permutation31 {
	c, _ := g.perms()
	return c
}

// SpongePermutation returns the width-24 permutation of the sponge.
func (g GnarkHash) SpongePermutation() *Permutation31 {
	_, s := g.perms()
	return s
}

// gnarkCompression returns gnark-crypto's compression over
// permutation p (the width-16 one): symmetric.FeedForwardCompression.
func gnarkCompression(p symmetric.Permutation[uint32], f field.Monty31) symmetric.FeedForwardCompression[uint32] {
	return symmetric.FeedForwardCompression[uint32]{Perm: p, Chunk: Digest31, Add: f.Add}
}

// gnarkSponge is vortex.HashPoseidon2's sponge over p (width 24).
func gnarkSponge(p symmetric.Permutation[uint32]) symmetric.PaddingFreeSponge[uint32] {
	return gnarkConstruction.sponge(p)
}

// Compress returns gnark-crypto's compression of a and b
// (vortex.CompressPoseidon2, poseidon2.Permutation.Compress), by the
// reference permutation. Elements must be canonical.
func (g GnarkHash) Compress(a, b [Digest31]uint32) ([Digest31]uint32, error) {
	c, _ := g.perms()
	out, err := gnarkCompression(c, c.Field()).Compress(a[:], b[:])
	if err != nil {
		return [Digest31]uint32{}, fmt.Errorf("poseidon2: %s: %w", g.Name(), err)
	}
	return [Digest31]uint32(out), nil
}

// Sponge returns gnark-crypto's sponge hash of els (vortex.HashPoseidon2:
// zero-padded, so for inputs of one length only), by the reference
// permutation. Elements must be canonical.
func (g GnarkHash) Sponge(els []uint32) ([Digest31]uint32, error) {
	_, s := g.perms()
	out, err := gnarkSponge(s).Hash(els)
	if err != nil {
		return [Digest31]uint32{}, fmt.Errorf("poseidon2: %s: %w", g.Name(), err)
	}
	return [Digest31]uint32(out), nil
}

// MerkleDamgard returns the hash of els by gnark-crypto's Merkle-Damgard
// hasher (poseidon2.NewMerkleDamgardHasher, gnark's hash.POSEIDON2_KOALABEAR
// and _BABYBEAR) fed the elements' bytes, by the reference permutation:
// each block of 8 elements compressed into the state, a partial last
// block padded with zeros in front. Elements must be canonical.
func (g GnarkHash) MerkleDamgard(els []uint32) ([Digest31]uint32, error) {
	c, _ := g.perms()
	out, err := symmetric.MerkleDamgard[uint32]{Compression: gnarkCompression(c, c.Field())}.Hash(els)
	if err != nil {
		return [Digest31]uint32{}, fmt.Errorf("poseidon2: %s: %w", g.Name(), err)
	}
	return [Digest31]uint32(out), nil
}

// merge8, hash8 and md8 are Compress, Sponge and MerkleDamgard computed
// as the kernels do (in Montgomery form, any uint32 reduced first).
func (g GnarkHash) merge8(a, b [Digest31]uint32) [Digest31]uint32 {
	c, _ := g.perms()
	out, _ := gnarkCompression(reducing31{c}, c.Field()).Compress(a[:], b[:]) // cannot fail: 8 and 8 of 16
	return [Digest31]uint32(out)
}

func (g GnarkHash) hash8(els []uint32) [Digest31]uint32 {
	_, s := g.perms()
	out, _ := gnarkSponge(reducing31{s}).Hash(els) // cannot fail: 8 + 16 of 24
	return [Digest31]uint32(out)
}

func (g GnarkHash) md8(els []uint32) [Digest31]uint32 {
	c, _ := g.perms()
	out, _ := symmetric.MerkleDamgard[uint32]{Compression: gnarkCompression(reducing31{c}, c.Field())}.Hash(els) // cannot fail
	return [Digest31]uint32(out)
}

// Merge returns Compress of the digests' elements, as a digest.
func (g GnarkHash) Merge(left, right [32]byte) [32]byte {
	return Digest31Bytes(g.merge8(Digest31Elements(left), Digest31Elements(right)))
}

// HashRow returns Sponge of row as a digest: the leaf of a row in
// package merkle's matrix commitments (Vortex's leaf of a column's SIS
// digest). The elements must be below the field's p, as merkle checks.
func (g GnarkHash) HashRow(row []uint32) [32]byte {
	return Digest31Bytes(g.hash8(row))
}

// CheckDigest returns an error naming the first element of d that is not
// below the field's p.
func (g GnarkHash) CheckDigest(d [32]byte) error {
	c, _ := g.perms()
	return MerkleMerge31{c}.CheckDigest(d)
}

// Modulus returns the field's p.
func (g GnarkHash) Modulus() uint32 { return g.Permutation().Field().P() }

// FieldName returns the field's name, "koalabear" or "babybear".
func (g GnarkHash) FieldName() string { return g.Permutation().Field().Name() }

// MergeModule returns compress31.wgsl over the width-16 permutation and
// gnark-crypto's construction, which defines merge_node as Merge does.
func (g GnarkHash) MergeModule() wgpu.Module {
	return g.Permutation().module(gnarkConstruction, "compress31.wgsl")
}

// RowModule returns sponge31.wgsl over the width-24 permutation and
// gnark-crypto's construction, which defines hash_row as HashRow does.
func (g GnarkHash) RowModule() wgpu.Module {
	return g.SpongePermutation().module(gnarkConstruction, "sponge31.wgsl")
}

// RowModuleIn returns RowModule for rows whose elements are held in form
// f: for field.Montgomery (gnark-crypto's koalabear.Element in memory)
// the sponge absorbs the words as they are, the same digests as
// RowModule's of their values. Package merkle takes it (an optional
// method of merkle.RowHash) to commit to a matrix of Form
// field.Montgomery.
func (g GnarkHash) RowModuleIn(f field.Form) (wgpu.Module, error) {
	c, err := gnarkConstruction.in(g.Name(), f)
	if err != nil {
		return nil, err
	}
	return g.SpongePermutation().module(c, "sponge31.wgsl"), nil
}

var (
	// GnarkKoalaBearBatch is the batch functions of GnarkKoalaBear, on the
	// GPU, on all cores when the Context is nil, or split over a
	// sched.Group (the target): MergeMany is CompressPoseidon2 of many
	// pairs, HashElementsMany HashPoseidon2 (the width-24 sponge) of many
	// inputs, PermuteMany GnarkKoalaBear16 of many states. Elements are
	// canonical uint32 values below KoalaBear's p.
	GnarkKoalaBearBatch = GnarkKoalaBear.Batch()
	// GnarkBabyBearBatch is GnarkKoalaBearBatch over BabyBear.
	GnarkBabyBearBatch = GnarkBabyBear.Batch()
	// GnarkKoalaBearMDBatch is GnarkKoalaBearBatch with HashElementsMany
	// gnark-crypto's Merkle-Damgard hasher (GnarkHash.MerkleDamgard) of
	// many inputs, named "poseidon2-gnark-koalabear-md".
	GnarkKoalaBearMDBatch = GnarkKoalaBear.MDBatch()
	// GnarkBabyBearMDBatch is GnarkKoalaBearMDBatch over BabyBear.
	GnarkBabyBearMDBatch = GnarkBabyBear.MDBatch()
)

// Batch returns the hash's batch functions (GnarkKoalaBearBatch for
// GnarkKoalaBear, GnarkBabyBearBatch for GnarkBabyBear), the same value on
// every call.
func (g GnarkHash) Batch() *batch.Monty31 { return g.batchOf(false) }

// MDBatch returns the batch functions whose HashElementsMany is the
// Merkle-Damgard hasher (GnarkKoalaBearMDBatch, GnarkBabyBearMDBatch), the
// same value on every call.
func (g GnarkHash) MDBatch() *batch.Monty31 { return g.batchOf(true) }

// gnarkFamilies holds the batch functions of each GnarkHash, by its
// permutations and hasher: made by the first call, so a hash over any
// rows has them without a list to extend.
var gnarkFamilies = struct {
	sync.Mutex
	m map[gnarkFamily]*batch.Monty31
}{m: map[gnarkFamily]*batch.Monty31{}}

// gnarkFamily names one GnarkHash's batch functions.
type gnarkFamily struct {
	compress, sponge *Permutation31
	md               bool
}

func (g GnarkHash) batchOf(md bool) *batch.Monty31 {
	c, s := g.perms()
	gnarkFamilies.Lock()
	defer gnarkFamilies.Unlock()
	k := gnarkFamily{c, s, md}
	f, ok := gnarkFamilies.m[k]
	if !ok {
		f = newGnarkBatch(g, md)
		gnarkFamilies.m[k] = f
	}
	return f
}

func newGnarkBatch(g GnarkHash, md bool) *batch.Monty31 {
	c, s := g.perms()
	ops := [...]batch31Op{
		batch.OpPermute: {c, construction31{}, "permute_many", []string{"permute31.wgsl"}},
		batch.OpMerge:   {c, gnarkConstruction, "merge_many", []string{"compress31.wgsl", "merge31_many.wgsl"}},
		batch.OpHash:    {s, gnarkConstruction, "hash_many", []string{"sponge31.wgsl", "hash31_many.wgsl"}},
	}
	name, hash := g.Name(), g.hash8
	if md {
		name, hash = name+"-md", g.md8
		ops[batch.OpHash] = batch31Op{c, gnarkConstruction, "hash_many", []string{"compress31.wgsl", "md31_gnark.wgsl", "hash31_many.wgsl"}}
	}
	return newBatch31Of(name, c, g.merge8, hash, batch31Ranges{}, ops)
}

// SpongeMontgomeryMany is
//
//	for k := range n { dst[8k : 8k+8] = Sponge(in[k*m : (k+1)*m]) }
//
// on Montgomery forms (x·2^32 mod p, as gnark-crypto's koalabear.Element
// and babybear.Element hold elements in memory) in and out, n =
// len(dst)/8: vortex.HashPoseidon2 of many inputs, and with m a multiple
// of 16 its HashPoseidon2x16 (Vortex's leaves of SIS digests), without
// converting the caller's elements. On t's GPU (a Context or a Group of
// one), or on all cores when t is nil. len(in) must be n*m, and every
// word a reduced Montgomery form (below p; the error names the first
// that is not).
func (g GnarkHash) SpongeMontgomeryMany(t wgpu.Target, dst, in []uint32, m int, opts batch.Options) error {
	ctx, err := sched.OneDevice(t)
	if err != nil {
		return fmt.Errorf("poseidon2: %s sponge %w", g.Name(), err)
	}
	_, s := g.perms()
	f := s.Field()
	if m < 1 || len(dst)%Digest31 != 0 || len(in) != len(dst)/Digest31*m {
		return fmt.Errorf("poseidon2: %s sponge of inputs of %d elements: give m >= 1, %d words of digests (8 an input) and %d of inputs", g.Name(), m, len(dst), len(dst)/Digest31*max(m, 0))
	}
	n := len(dst) / Digest31
	if i := batch.FirstNonCanonical(in, uint64(f.P())); i >= 0 {
		return fmt.Errorf("poseidon2: %s sponge: input %d element %d is %d in memory: a Montgomery form is below p = %d", g.Name(), i/m, i%m, in[i], f.P())
	}
	if ctx == nil {
		start := time.Now()
		par.For(n, 256, func(lo, hi int) {
			els := make([]uint32, m)
			for k := lo; k < hi; k++ {
				for j, x := range in[k*m : (k+1)*m] {
					els[j] = f.FromMonty(x)
				}
				d := g.hash8(els)
				for j, x := range d {
					dst[Digest31*k+j] = f.ToMonty(x)
				}
			}
		})
		if opts.Timing != nil {
			*opts.Timing = wgpu.Timing{Wall: time.Since(start)}
		}
		return nil
	}
	k, err := g.spongeMontyKernel(ctx)
	if err != nil {
		return err
	}
	tm, err := sched.Run(ctx, sched.Job{
		Label:    "poseidon2 " + g.Name() + " sponge (Montgomery)",
		Count:    n,
		Inputs:   []sched.Input{{Data: wgpu.Bytes(in), ItemBytes: 4 * m}},
		Output:   sched.Output{Data: wgpu.Bytes(dst), ItemBytes: 4 * Digest31},
		MaxItems: (1<<32 - 1) / m,
		Dispatches: func(c int, bind []wgpu.Binding) []wgpu.Dispatch {
			return []wgpu.Dispatch{{Kernel: k, Bindings: bind, Params: []uint32{uint32(c), uint32(m)}, Groups: ctx.Grid(uint64(c), permuteWG)}}
		},
	})
	if opts.Timing != nil {
		*opts.Timing = tm
	}
	if err != nil {
		return fmt.Errorf("poseidon2: %s: %w", g.Name(), err)
	}
	return nil
}

// spongeMontyKernel is hash31_many_monty.wgsl over gnark-crypto's sponge
// reading Montgomery words as they are (S31_MONTY_IN).
func (g GnarkHash) spongeMontyKernel(ctx *wgpu.Context) (*wgpu.Kernel, error) {
	_, s := g.perms()
	c, err := gnarkConstruction.in(g.Name(), field.Montgomery)
	if err != nil {
		return nil, err
	}
	return s.kernelOf(ctx, c, "hash_many_monty", "sponge31.wgsl", "hash31_many_monty.wgsl")
}

// SpongeMontgomeryDispatch returns the work of SpongeMontgomeryMany on
// buffers already on ctx's device (Vortex's SIS digests, say): n inputs of
// m Montgomery forms each, input k at words k*m .. (k+1)*m of in, its
// digest at words 8k .. 8k+8 of out. Run it with wgpu.Context.Run. The
// words are not checked: they must be reduced Montgomery forms.
func (g GnarkHash) SpongeMontgomeryDispatch(ctx *wgpu.Context, in, out wgpu.Binding, n, m int) (wgpu.Dispatch, error) {
	if n < 1 || m < 1 || uint64(n)*uint64(m) > 1<<32 || uint64(n)*Digest31 > 1<<32 {
		return wgpu.Dispatch{}, fmt.Errorf("poseidon2: %s sponge dispatch of %d inputs of %d elements: give at least one of one, and at most 2^32 words", g.Name(), n, m)
	}
	k, err := g.spongeMontyKernel(ctx)
	if err != nil {
		return wgpu.Dispatch{}, err
	}
	return wgpu.Dispatch{Kernel: k, Bindings: []wgpu.Binding{in, out}, Params: []uint32{uint32(n), uint32(m)}, Groups: ctx.Grid(uint64(n), permuteWG)}, nil
}

// MergeDispatch returns the work of MergeMany on buffers already on ctx's
// device (a level of a Merkle tree, to make the next): n pairs of
// canonical digests, pair k at words 16k .. 16k+16 of in, Compress of its
// halves at words 8k .. 8k+8 of out. Run it with wgpu.Context.Run. The
// words are not checked: they must be canonical.
func (g GnarkHash) MergeDispatch(ctx *wgpu.Context, in, out wgpu.Binding, n int) (wgpu.Dispatch, error) {
	if n < 1 || uint64(n)*2*Digest31 > 1<<32 {
		return wgpu.Dispatch{}, fmt.Errorf("poseidon2: %s merge dispatch of %d pairs: give at least one, and at most 2^32 words", g.Name(), n)
	}
	c, _ := g.perms()
	k, err := c.kernelOf(ctx, gnarkConstruction, "merge_many", "compress31.wgsl", "merge31_many.wgsl")
	if err != nil {
		return wgpu.Dispatch{}, err
	}
	return wgpu.Dispatch{Kernel: k, Bindings: []wgpu.Binding{in, out}, Params: []uint32{uint32(n)}, Groups: ctx.Grid(uint64(n), permuteWG)}, nil
}
