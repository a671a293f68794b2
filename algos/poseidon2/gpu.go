package poseidon2

import (
	"fmt"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Batch is Poseidon2's batch functions: MergeMany, HashElementsMany and
// PermuteMany compute Merge, HashElements and Permute of many inputs on
// the GPU (each input hashed in one invocation, block after block; at most
// 2^31 elements per input), on all cores when the Context is nil, or split
// over a sched.Group (each given as the target); NewBatcher returns the resident
// object that holds the kernels (compiled on first use) and one piece's
// buffers.
//
// The CPU path is a twin of the reference with field operations that do
// not branch on their data and the internal layer by additions and
// halvings, twice its speed (the tests hold the two equal). The kernels
// hold the state as 12 vec2<u32> values in registers, round constants as
// literals, the external layer by additions, and the internal layer by
// additions for the diagonal's integers and five goldilocks_mul for its fractions
// (1/2, -1/2, 1/4, -1/4, 1/8).
var Batch = batch.New(batch.Spec[uint64, [4]uint64, [8]uint64, [12]uint64]{
	Name: "poseidon2", Modulus: P, MaxElements: maxBatchElements,
	Permute: permuteFast, Merge: mergeFast, HashElements: hashElementsFast,
	Variants: []batch.Variant{
		variant(shaders, "fast"),
		// Kept to be measured against fast: the internal layer as the
		// plain product by its diagonal, twelve goldilocks_mul per partial
		// round (Plonky3's generic matmul_internal).
		variant(measured, "muldiag"),
	},
})

// opEntries are the entry points of poseidon2_main.wgsl, one kernel
// per operation.
var opEntries = [...]string{batch.OpPermute: "permute", batch.OpMerge: "merge", batch.OpHash: "hash_elements"}

// workgroup is P2_WG in poseidon2_main.wgsl.
const workgroup = 64

// maxBatchElements bounds the elements of one hash input: the kernel
// indexes a piece's elements with u32 words.
const maxBatchElements = 1 << 31

// variant describes the kernels of the variant name, of the library lib:
// one per operation, compiled on first use (once per Context), each from
// the entry file poseidon2_main_<name>.wgsl, which includes the kernels
// and defines the permutation they call (see poseidon2_main.wgsl).
func variant(lib *wgsl.Library, name string) batch.Variant {
	file := "poseidon2_main_" + name + ".wgsl"
	return batch.Variant{Name: name, Kernels: func(ctx *wgpu.Context) (batch.Kernels, error) {
		var compiled [len(opEntries)]*wgpu.Kernel
		return batch.Kernels{Dispatches: func(o batch.Op, m int) (func(n int, bind []wgpu.Binding) []wgpu.Dispatch, error) {
			k := compiled[o]
			if k == nil {
				var err error
				k, err = ctx.Kernel(wgpu.KernelSpec{Label: file + ":" + opEntries[o], Module: wgsl.Module{Library: lib, Files: []string{file}},
					Entry: opEntries[o], Storage: 2, Uniform: true, ReadOnly: []bool{true, false}})
				if err != nil {
					return nil, fmt.Errorf("variant %s: %w", name, err)
				}
				compiled[o] = k
			}
			// The kernel hashes each input in one invocation, block after block.
			return func(n int, bind []wgpu.Binding) []wgpu.Dispatch {
				return []wgpu.Dispatch{{Kernel: k, Bindings: bind, Params: []uint32{uint32(n), uint32(m)}, Groups: ctx.Grid(uint64(n), workgroup)}}
			}, nil
		}}, nil
	}}
}
