package poseidon2

import (
	"unsafe"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/wgpu"
)

var (
	// BabyBearBatch is the batch functions of BabyBearMerkle's hash:
	// MergeMany is TruncatedPermutation<BabyBear16, 2, 8, 16> of many
	// pairs, HashElementsMany PaddingFreeSponge<BabyBear16, 16, 8, 8> of
	// many inputs, PermuteMany BabyBear16 of many states, on the GPU, on
	// all cores when the Context is nil, or split over a wgpu.Group (the
	// *On forms). Elements are canonical uint32 values below BabyBear's p.
	BabyBearBatch = newBatch31(BabyBearMerkle)
	// KoalaBearBatch is BabyBearBatch over KoalaBear16: KoalaBearMerkle's
	// hash.
	KoalaBearBatch = newBatch31(KoalaBearMerkle)
)

// Batch returns the hash's batch functions: BabyBearBatch or
// KoalaBearBatch.
func (m MerkleMerge31) Batch() *batch.Monty31 {
	if m.perm() == KoalaBear16 {
		return KoalaBearBatch
	}
	return BabyBearBatch
}

// batch31Entries are the entry file and entry point of each operation,
// each a module of its own over the permutation (Mesa's compilers inline
// every call, and one module holds one call of the permutation).
var batch31Entries = [...]struct{ file, entry string }{
	batch.OpPermute: {"permute31.wgsl", "permute_many"},
	batch.OpMerge:   {"merge31_many.wgsl", "merge_many"},
	batch.OpHash:    {"hash31_many.wgsl", "hash_many"},
}

// newBatch31 returns the Family of m's merge and sponge, named as m is
// ("poseidon2-babybear"), with one kernel variant, "fast". Its CPU path
// computes in Montgomery form as the kernels do (permuteMonty), held
// equal to the reference by the tests.
func newBatch31(m MerkleMerge31) *batch.Monty31 {
	p := m.perm()
	return batch.New(batch.Spec[uint32, [Digest31]uint32, [2 * Digest31]uint32, [16]uint32]{
		Name: m.Name(), Modulus: uint64(p.Field().P()), MaxElements: maxBatchElements,
		Permute:      func(s *[16]uint32) { _ = reducing31{p}.Permute(s[:]) }, // cannot fail: 16 elements
		Merge:        p.merge8,
		HashElements: p.hash8,
		// The CPU path: blocks of states side by side (p31_vec.go).
		PermuteRange: func(s [][16]uint32) {
			p.permuteMany(unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(s))), 16*len(s)))
		},
		MergeRange:        p.merge8Many,
		HashElementsRange: p.hash8Many,
		Variants: []batch.Variant{{Name: "fast", Kernels: func(ctx *wgpu.Context) (batch.Kernels, error) {
			var compiled [len(batch31Entries)]*wgpu.Kernel
			return batch.Kernels{Dispatches: func(o batch.Op, n int) (func(int, []wgpu.Binding) []wgpu.Dispatch, error) {
				e := batch31Entries[o]
				k := compiled[o]
				if k == nil {
					var err error
					if k, err = p.kernel(ctx, e.file, e.entry); err != nil {
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
