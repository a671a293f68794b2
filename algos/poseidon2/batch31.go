package poseidon2

import (
	"sync"
	"unsafe"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/wgpu"
)

var (
	// BabyBearBatch is the batch functions of BabyBearMerkle's hash:
	// MergeMany is TruncatedPermutation<BabyBear16, 2, 8, 16> of many
	// pairs, HashElementsMany PaddingFreeSponge<BabyBear16, 16, 8, 8> of
	// many inputs, PermuteMany BabyBear16 of many states, on the GPU, on
	// all cores when the Context is nil, or split over a sched.Group (the
	// target). Elements are canonical uint32 values below BabyBear's p.
	BabyBearBatch = BabyBearMerkle.Batch()
	// KoalaBearBatch is BabyBearBatch over KoalaBear16: KoalaBearMerkle's
	// hash.
	KoalaBearBatch = KoalaBearMerkle.Batch()
)

// familyOf31 holds the batch functions of each MerkleMerge31, by its
// permutation: made by its first Batch call, so a hash over any width-16
// permutation has them without a list of permutations to extend.
var familyOf31 = struct {
	sync.Mutex
	m map[*Permutation31]*batch.Monty31
}{m: map[*Permutation31]*batch.Monty31{}}

// Batch returns the hash's batch functions (BabyBearBatch for
// BabyBearMerkle, KoalaBearBatch for KoalaBearMerkle), the same value on
// every call.
func (m MerkleMerge31) Batch() *batch.Monty31 {
	familyOf31.Lock()
	defer familyOf31.Unlock()
	p := m.perm()
	f, ok := familyOf31.m[p]
	if !ok {
		f = newBatch31(m)
		familyOf31.m[p] = f
	}
	return f
}

// batch31Op is one operation's kernel: the entry point of the module of
// files (a construction, then the entry file) over the permutation p and
// construction c (its prelude constants). Each
// operation is a module of its own (Mesa's compilers inline every call,
// and one module holds one call of the permutation).
type batch31Op struct {
	p     *Permutation31
	c     construction31
	entry string
	files []string
}

// batch31Ops are the operations' kernels of a hash whose permutation,
// merge and sponge are Plonky3's over p.
func batch31Ops(p *Permutation31) [3]batch31Op {
	return [...]batch31Op{
		batch.OpPermute: {p, construction31{}, "permute_many", []string{"permute31.wgsl"}},
		batch.OpMerge:   {p, plonky3Construction, "merge_many", []string{"compress31.wgsl", "merge31_many.wgsl"}},
		batch.OpHash:    {p, plonky3Construction, "hash_many", []string{"sponge31.wgsl", "hash31_many.wgsl"}},
	}
}

// newBatch31 returns the Family of m's merge and sponge, named as m is
// ("poseidon2-babybear"), with one kernel variant, "fast". Its CPU path
// computes in Montgomery form as the kernels do (permuteMonty), held
// equal to the reference by the tests.
func newBatch31(m MerkleMerge31) *batch.Monty31 {
	p := m.perm()
	return newBatch31Of(m.Name(), p, p.merge8, p.hash8, batch31Ranges{p.merge8Many, p.hash8Many}, batch31Ops(p))
}

// batch31Ranges are a construction's CPU paths over many items at once
// (batch.Spec's MergeRange and HashElementsRange); nil ones run the
// one-item functions item by item.
type batch31Ranges struct {
	merge func(dst [][Digest31]uint32, pairs [][2 * Digest31]uint32)
	hash  func(dst [][Digest31]uint32, inputs []uint32, m int)
}

// newBatch31Of returns the Family named name of the width-16 permutation
// p, merge and hashElements (the CPU path, with ranges where the
// construction has them), with the kernels ops.
func newBatch31Of(name string, p *Permutation31, merge func(a, b [Digest31]uint32) [Digest31]uint32, hashElements func([]uint32) [Digest31]uint32, ranges batch31Ranges, ops [3]batch31Op) *batch.Monty31 {
	return batch.New(batch.Spec[uint32, [Digest31]uint32, [2 * Digest31]uint32, [16]uint32]{
		Name: name, Modulus: uint64(p.Field().P()), MaxElements: maxBatchElements,
		Permute:      func(s *[16]uint32) { _ = reducing31{p}.Permute(s[:]) }, // cannot fail: 16 elements
		Merge:        merge,
		HashElements: hashElements,
		// The CPU path: blocks of states side by side (p31_vec.go).
		PermuteRange: func(s [][16]uint32) {
			p.permuteMany(unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(s))), 16*len(s)))
		},
		MergeRange:        ranges.merge,
		HashElementsRange: ranges.hash,
		Variants: []batch.Variant{{Name: "fast", Kernels: func(ctx *wgpu.Context) (batch.Kernels, error) {
			var compiled [len(ops)]*wgpu.Kernel
			return batch.Kernels{Dispatches: func(o batch.Op, n int) (func(int, []wgpu.Binding) []wgpu.Dispatch, error) {
				e := ops[o]
				k := compiled[o]
				if k == nil {
					var err error
					if k, err = e.p.kernelOf(ctx, e.c, e.entry, e.files...); err != nil {
						return nil, err
					}
					compiled[o] = k
				}
				m := uint32(n)
				return func(count int, bind []wgpu.Binding) []wgpu.Dispatch {
					params := []uint32{uint32(count)}
					if o == batch.OpHash {
						params = append(params, m)
					}
					return []wgpu.Dispatch{{Kernel: k, Bindings: bind, Params: params, Groups: ctx.Grid(uint64(count), permuteWG)}}
				}, nil
			}}, nil
		}}},
	})
}

// merge8 is TruncatedPermutation<p, 2, 8, Width> of a and b, computed as
// the kernels do.
func (p *Permutation31) merge8(a, b [Digest31]uint32) [Digest31]uint32 {
	c := p.Compression()
	c.Perm = reducing31{p}
	out, _ := c.Compress(a[:], b[:]) // cannot fail: two chunks of 8 in a width of 16 or more
	return [Digest31]uint32(out)
}

// hash8 is PaddingFreeSponge<p, Width, 8, 8> of els, computed as the
// kernels do.
func (p *Permutation31) hash8(els []uint32) [Digest31]uint32 {
	s := p.Sponge()
	s.Perm = reducing31{p}
	out, _ := s.Hash(els) // cannot fail: rate and output 8 of a width of 16 or more
	return [Digest31]uint32(out)
}
