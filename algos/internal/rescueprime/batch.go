package rescueprime

import (
	"fmt"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Kernel is one kernel of a hash: a module whose entry point main runs
// rescue.wgsl's body (its file declares the uniform `params` after
// the storage bindings and defines permute_variant), built with the
// prelude constant RP_SPONGE_RPO that says whose sponge the body follows.
type Kernel struct {
	// Label is the pipeline's label: the entry file's name.
	Label string
	// Module is the entry file with its prelude (spongeConst).
	Module wgsl.Module
	// Ark, when not nil, are the round constants as u32 words, which the
	// kernel reads from a storage buffer at binding 2 (its uniform then at
	// binding 3) or, when ArkParams is set, after the four parameter words
	// in its uniform.
	Ark       []uint32
	ArkParams bool
}

// NewBatch returns the batch functions of the Rescue-Prime hash named
// name (batch.New): its reference functions and its kernel variants, the
// default first, over P, with the digest at state[Width-Rate:].
func NewBatch(name string, permute func(*[Width]uint64), merge func(a, b [DigestSize]uint64) [DigestSize]uint64,
	hashElements func([]uint64) [DigestSize]uint64, variants ...batch.Variant) *batch.Goldilocks {
	return batch.New(batch.Spec[uint64, [DigestSize]uint64, [2 * DigestSize]uint64, [Width]uint64]{
		Name: name, Modulus: P, DigestAt: Width - Rate,
		Permute: permute, Merge: merge, HashElements: hashElements,
		Variants: variants,
	})
}

// NewKernel returns the Kernel of the entry file file of lib, its kernel
// body built for miden-crypto's sponge (rpo) or winterfell's
// (spongeConst), its round constants literals in the code.
func NewKernel(lib *wgsl.Library, file string, rpo bool) Kernel {
	return Kernel{Label: file, Module: wgsl.Module{Library: lib, Files: []string{file}, Consts: []wgsl.Const{spongeConst(rpo)}}}
}

// Variant returns the variant name of the batch functions of hash, which
// runs k (kernels, compiled once per Context).
func Variant(hash, name string, k Kernel) batch.Variant {
	return batch.Variant{Name: name, Kernels: func(ctx *wgpu.Context) (batch.Kernels, error) {
		return kernels(ctx, hash, k)
	}}
}

// spongeConst is the prelude constant RP_SPONGE_RPO of rescue.wgsl:
// false for winterfell's Rp64_256 sponge, true for miden-crypto's RPO256.
func spongeConst(rpo bool) wgsl.Const { return wgsl.Const{Name: "RP_SPONGE_RPO", Value: rpo} }

// Operation codes of params.op in rescue.wgsl.
const (
	opPermute uint32 = 0
	opMerge   uint32 = 1
	opAbsorb  uint32 = 2 // one block of HashElements
)

// workgroup is WG in rescue.wgsl.
const workgroup = 64

// kernels compiles k on ctx (once per Context) and returns it as the
// kernels of a batch.Family of hash, which names its round constants'
// buffer.
func kernels(ctx *wgpu.Context, hash string, k Kernel) (batch.Kernels, error) {
	storage := 2
	if k.Ark != nil && !k.ArkParams {
		storage = 3
	}
	kern, err := ctx.Kernel(wgpu.KernelSpec{Label: k.Label, Module: k.Module, Entry: "main",
		Storage: storage, Uniform: true, ReadOnly: []bool{true, false, true}[:storage]})
	if err != nil {
		return batch.Kernels{}, err
	}
	var arkParams []uint32 // round constants after the parameter words
	ks := batch.Kernels{HashStates: true}
	switch {
	case k.ArkParams:
		arkParams = k.Ark
	case k.Ark != nil:
		// Round constants, bound after the output.
		ark, err := ctx.NewBuffer(hash+" round constants", uint64(4*len(k.Ark)))
		if err != nil {
			return batch.Kernels{}, fmt.Errorf("round constants: %w", err)
		}
		if err := ctx.Upload(ark, 0, wgpu.Bytes(k.Ark)); err != nil {
			ark.Release()
			return batch.Kernels{}, fmt.Errorf("round constants: %w", err)
		}
		ks.Extra, ks.Release = []wgpu.Binding{wgpu.Bind(ark)}, ark.Release
	}
	ks.Dispatches = func(o batch.Op, m int) (func(n int, bind []wgpu.Binding) []wgpu.Dispatch, error) {
		op, blocks := opPermute, 1
		switch o {
		case batch.OpMerge:
			op = opMerge
		case batch.OpHash:
			op, blocks = opAbsorb, (m+Rate-1)/Rate
		}
		// One dispatch per block of Rate elements, all in one submission.
		return func(n int, bind []wgpu.Binding) []wgpu.Dispatch {
			ds := make([]wgpu.Dispatch, blocks)
			for j := range ds {
				p := []uint32{uint32(n), uint32(m), op, uint32(j * Rate)}
				p = append(p, arkParams...)
				ds[j] = wgpu.Dispatch{Kernel: kern, Bindings: bind, Params: p, Groups: ctx.Grid(uint64(n), workgroup)}
			}
			return ds
		}, nil
	}
	return ks, nil
}
