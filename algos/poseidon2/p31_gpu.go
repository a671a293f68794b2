package poseidon2

import (
	"fmt"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// permuteWG matches @workgroup_size in permute31.wgsl,
// merge31_many.wgsl, hash31_many.wgsl and hash31_many_monty.wgsl.
const permuteWG = 64

// kernel returns the entry point entry of file over the permutation on
// ctx (compiled once per Context), bound as every batch kernel of the
// permutation is: the input, the output, the parameters' uniform.
func (p *Permutation31) kernel(ctx *wgpu.Context, file, entry string) (*wgpu.Kernel, error) {
	return p.kernelOf(ctx, construction31{}, entry, file)
}

// kernelOf is kernel of a module of several files over the permutation
// and construction c (a construction's file, then the entry file, last).
func (p *Permutation31) kernelOf(ctx *wgpu.Context, c construction31, entry string, files ...string) (*wgpu.Kernel, error) {
	if err := p.addFiles(); err != nil {
		return nil, err
	}
	k, err := ctx.Kernel(wgpu.KernelSpec{
		Label: files[len(files)-1] + ":" + entry + " (" + p.Name() + ")", Module: p.module(c, files...),
		Entry: entry, Storage: 2, Uniform: true, ReadOnly: []bool{true, false},
	})
	if err != nil {
		return nil, fmt.Errorf("poseidon2: %s: %w", p.Name(), err)
	}
	return k, nil
}

// permuteMany31 permutes each state of states (len a multiple of Width,
// every element canonical) in place on ctx's GPU, as a sched.Job, and
// returns the kernels' timing. It is the kernel's runner for the tests and
// benchmarks of every width; the width-16 permutations' batch functions
// (BabyBearBatch, KoalaBearBatch) run the same kernel through p.kernel.
func (p *Permutation31) permuteMany31(ctx *wgpu.Context, states []uint32) (wgpu.Timing, error) {
	w := p.Width()
	if len(states)%w != 0 {
		return wgpu.Timing{}, fmt.Errorf("poseidon2: %s states of %d elements: want a multiple of %d", p.Name(), len(states), w)
	}
	for i, x := range states {
		if err := p.f.Check(x); err != nil {
			return wgpu.Timing{}, fmt.Errorf("poseidon2: %s state %d, element %d: %w", p.Name(), i/w, i%w, err)
		}
	}
	k, err := p.kernel(ctx, "permute31.wgsl", "permute_many")
	if err != nil {
		return wgpu.Timing{}, err
	}
	data := wgpu.Bytes(states)
	t, err := sched.Run(ctx, sched.Job{
		Label:  "poseidon2 " + p.Name() + " permute",
		Count:  len(states) / w,
		Inputs: []sched.Input{{Data: data, ItemBytes: 4 * w}},
		Output: sched.Output{Data: data, ItemBytes: 4 * w},
		Dispatches: func(n int, bind []wgpu.Binding) []wgpu.Dispatch {
			return []wgpu.Dispatch{{Kernel: k, Bindings: bind, Params: []uint32{uint32(n)}, Groups: ctx.Grid(uint64(n), permuteWG)}}
		},
	})
	if err != nil {
		return t, fmt.Errorf("poseidon2: %s: %w", p.Name(), err)
	}
	return t, nil
}
