package u64emu

import (
	"fmt"

	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
	"github.com/wgcompute/wgcompute/wgsl"
)

// workgroupSize matches @workgroup_size in u64emu.wgsl.
const workgroupSize = 256

// elemBytes is the size of one field element on the device.
const elemBytes = 8

// op is one batch operation: a kernel of u64emu.wgsl and its Go
// reference, binary or unary.
type op struct {
	name  string // the Go function, for errors
	entry string // the WGSL entry point
	bin   func(a, b uint64) uint64
	un    func(a uint64) uint64
}

var (
	opAdd     = op{"AddTo", "k_add", Add, nil}
	opSub     = op{"SubTo", "k_sub", Sub, nil}
	opMul     = op{"MulTo", "k_mul", Mul, nil}
	opPow7    = op{"Pow7To", "k_pow7", nil, Pow7}
	opInvPow7 = op{"InvPow7To", "k_inv_pow7", nil, InvPow7}
)

func (o op) unary() bool { return o.un != nil }

// module is u64emu.wgsl with the library it includes.
var module = wgsl.Module{Library: shaders, Files: []string{"u64emu.wgsl"}}

// kernel compiles (once per Context) an entry point of u64emu.wgsl.
// Binary entry points bind a, b (read), dst and params; unary ones a
// (read), dst and params.
func kernel(ctx *wgpu.Context, entry string, unary bool) (*wgpu.Kernel, error) {
	spec := wgpu.KernelSpec{Label: "u64emu.wgsl:" + entry, Module: module, Entry: entry, Storage: 3, Uniform: true, ReadOnly: []bool{true, true, false}}
	if unary {
		spec.Storage, spec.ReadOnly = 2, []bool{true, false}
	}
	return ctx.Kernel(spec)
}

// AddKernel returns AddTo's kernel, k_add, compiled once per Context, for
// measurements of what a dispatch costs (it is the smallest kernel there
// is): it binds a and b (read) and dst at 0..2, and a uniform of the
// element count at 3, and adds elements i < count, one per invocation in
// workgroups of 256.
func AddKernel(ctx *wgpu.Context) (*wgpu.Kernel, error) {
	return kernel(ctx, opAdd.entry, false)
}

// AddTo runs, on t's GPU (a Context or a Group of one) or on all cores
// when t is nil,
//
//	for i := range dst { dst[i] = a[i] + b[i] mod P }
//
// All slices must have the same length and every input must be canonical
// (< P); otherwise AddTo returns an error and leaves dst unspecified.
func AddTo(t wgpu.Target, dst, a, b []uint64) error {
	return runOn(t, "AddTo", opAdd, dst, a, b)
}

// SubTo runs, on t's GPU (a Context or a Group of one) or on all cores
// when t is nil,
//
//	for i := range dst { dst[i] = a[i] - b[i] mod P }
//
// with the same requirements as AddTo.
func SubTo(t wgpu.Target, dst, a, b []uint64) error {
	return runOn(t, "SubTo", opSub, dst, a, b)
}

// MulTo runs, on t's GPU (a Context or a Group of one) or on all cores
// when t is nil,
//
//	for i := range dst { dst[i] = a[i] * b[i] mod P }
//
// with the same requirements as AddTo.
func MulTo(t wgpu.Target, dst, a, b []uint64) error {
	return runOn(t, "MulTo", opMul, dst, a, b)
}

// Pow7To runs, on t's GPU (a Context or a Group of one) or on all cores
// when t is nil,
//
//	for i := range dst { dst[i] = Pow7(a[i]) }  // a[i]^7 mod P
//
// dst and a must have the same length and every a[i] must be < P.
func Pow7To(t wgpu.Target, dst, a []uint64) error {
	return runOn(t, "Pow7To", opPow7, dst, a, nil)
}

// InvPow7To runs, on t's GPU (a Context or a Group of one) or on all cores
// when t is nil,
//
//	for i := range dst { dst[i] = InvPow7(a[i]) }  // a[i]^InvAlpha mod P, the 7th root
//
// dst and a must have the same length and every a[i] must be < P.
func InvPow7To(t wgpu.Target, dst, a []uint64) error {
	return runOn(t, "InvPow7To", opInvPow7, dst, a, nil)
}

// checkInputs reports mismatched lengths and the first non-canonical
// input.
func checkInputs(o op, dst, a, b []uint64) error {
	if len(a) != len(dst) || (!o.unary() && len(b) != len(dst)) {
		if o.unary() {
			return fmt.Errorf("u64emu: %s: len(dst) = %d, len(a) = %d: the lengths must be equal", o.name, len(dst), len(a))
		}
		return fmt.Errorf("u64emu: %s: len(dst) = %d, len(a) = %d, len(b) = %d: the lengths must be equal", o.name, len(dst), len(a), len(b))
	}
	for _, in := range []struct {
		name string
		s    []uint64
	}{{"a", a}, {"b", b}} {
		if i := par.First(len(in.s), 1<<20, func(i int) bool { return in.s[i] >= P }); i >= 0 {
			return fmt.Errorf("u64emu: %s: %s[%d] = %#x is not a canonical field element: inputs must be < p = %#x", o.name, in.name, i, in.s[i], P)
		}
	}
	return nil
}

// runOn is run on t's one device (nil: the CPU) for the exported
// functions, which report no timing; a Group of several is refused, the
// error naming the function called.
func runOn(t wgpu.Target, name string, o op, dst, a, b []uint64) error {
	ctx, err := sched.OneDevice(t)
	if err != nil {
		return fmt.Errorf("u64emu: %s %w", name, err)
	}
	_, err = run(ctx, o, dst, a, b)
	return err
}

// run checks the inputs, then runs o over [0, len(dst)): on the GPU as a
// sched.Job, or with the Go reference on all cores when ctx is nil. It
// returns the summed timing of the dispatches (benchmarks report kernel
// time apart).
func run(ctx *wgpu.Context, o op, dst, a, b []uint64) (wgpu.Timing, error) {
	if err := checkInputs(o, dst, a, b); err != nil {
		return wgpu.Timing{}, err
	}
	if ctx == nil {
		par.For(len(dst), 1<<14, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				if o.unary() {
					dst[i] = o.un(a[i])
				} else {
					dst[i] = o.bin(a[i], b[i])
				}
			}
		})
		return wgpu.Timing{}, nil
	}
	k, err := kernel(ctx, o.entry, o.unary())
	if err != nil {
		return wgpu.Timing{}, fmt.Errorf("u64emu: %s: %w", o.name, err)
	}
	inputs := []sched.Input{{Data: wgpu.Bytes(a), ItemBytes: elemBytes}}
	if !o.unary() {
		inputs = append(inputs, sched.Input{Data: wgpu.Bytes(b), ItemBytes: elemBytes})
	}
	t, err := sched.Run(ctx, sched.Job{
		Label:  "u64emu " + o.name,
		Count:  len(dst),
		Inputs: inputs,
		Output: sched.Output{Data: wgpu.Bytes(dst), ItemBytes: elemBytes},
		Dispatches: func(n int, bind []wgpu.Binding) []wgpu.Dispatch {
			return []wgpu.Dispatch{{Kernel: k, Bindings: bind, Params: []uint32{uint32(n)}, Groups: ctx.Grid(uint64(n), workgroupSize)}}
		},
	})
	if err != nil {
		return t, fmt.Errorf("u64emu: %s: %w", o.name, err)
	}
	return t, nil
}
