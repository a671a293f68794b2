package u64emu

import (
	"fmt"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgsl"
)

// workgroupSize matches @workgroup_size in wgsl/u64emu.wgsl.
const workgroupSize = 256

// elemBytes is the size of one field element on the device.
const elemBytes = 8

// op is one batch kernel of wgsl/u64emu.wgsl.
type op struct {
	name  string // the Go function, for errors
	entry string // the WGSL entry point
	unary bool
}

var (
	opAdd     = op{"AddTo", "k_add", false}
	opSub     = op{"SubTo", "k_sub", false}
	opMul     = op{"MulTo", "k_mul", false}
	opPow7    = op{"Pow7To", "k_pow7", true}
	opInvPow7 = op{"InvPow7To", "k_inv_pow7", true}
)

// source is the kernel file composed after the library it uses.
func source() (string, error) { return wgsl.Compose("goldilocks.wgsl", "u64emu.wgsl") }

// kernel compiles (once per Context) the entry point of wgsl/u64emu.wgsl.
// Every entry point shares one layout: a, b (read), dst, params.
func kernel(ctx *wgpu.Context, entry string) (*wgpu.Kernel, error) {
	src, err := source()
	if err != nil {
		return nil, err
	}
	return ctx.Kernel(wgpu.KernelSpec{
		Label:    "u64emu.wgsl:" + entry,
		Source:   src,
		Entry:    entry,
		Storage:  3,
		Uniform:  true,
		ReadOnly: []bool{true, true, false},
	})
}

// AddTo runs on the GPU
//
//	for i := range dst { dst[i] = a[i] + b[i] mod P }
//
// All slices must have the same length and every input must be canonical
// (< P); otherwise AddTo returns an error and leaves dst unspecified.
func AddTo(ctx *wgpu.Context, dst, a, b []uint64) error {
	_, err := batch(ctx, opAdd, dst, a, b, 0)
	return err
}

// SubTo runs on the GPU
//
//	for i := range dst { dst[i] = a[i] - b[i] mod P }
//
// with the same requirements as AddTo.
func SubTo(ctx *wgpu.Context, dst, a, b []uint64) error {
	_, err := batch(ctx, opSub, dst, a, b, 0)
	return err
}

// MulTo runs on the GPU
//
//	for i := range dst { dst[i] = a[i] * b[i] mod P }
//
// with the same requirements as AddTo.
func MulTo(ctx *wgpu.Context, dst, a, b []uint64) error {
	_, err := batch(ctx, opMul, dst, a, b, 0)
	return err
}

// Pow7To runs on the GPU
//
//	for i := range dst { dst[i] = Pow7(a[i]) }  // a[i]^7 mod P
//
// dst and a must have the same length and every a[i] must be < P.
func Pow7To(ctx *wgpu.Context, dst, a []uint64) error {
	_, err := batch(ctx, opPow7, dst, a, nil, 0)
	return err
}

// InvPow7To runs on the GPU
//
//	for i := range dst { dst[i] = InvPow7(a[i]) }  // a[i]^InvAlpha mod P, the 7th root
//
// dst and a must have the same length and every a[i] must be < P.
func InvPow7To(ctx *wgpu.Context, dst, a []uint64) error {
	_, err := batch(ctx, opInvPow7, dst, a, nil, 0)
	return err
}

// checkInputs reports mismatched lengths and the first non-canonical
// input.
func checkInputs(o op, dst, a, b []uint64) error {
	if len(a) != len(dst) || (!o.unary && len(b) != len(dst)) {
		if o.unary {
			return fmt.Errorf("u64emu: %s: len(dst) = %d, len(a) = %d: the lengths must be equal", o.name, len(dst), len(a))
		}
		return fmt.Errorf("u64emu: %s: len(dst) = %d, len(a) = %d, len(b) = %d: the lengths must be equal", o.name, len(dst), len(a), len(b))
	}
	for _, in := range []struct {
		name string
		s    []uint64
	}{{"a", a}, {"b", b}} {
		for i, v := range in.s {
			if v >= P {
				return fmt.Errorf("u64emu: %s: %s[%d] = %#x is not a canonical field element: inputs must be < p = %#x", o.name, in.name, i, v, P)
			}
		}
	}
	return nil
}

// pieceElems is how many elements one dispatch handles: as many as fit one
// storage binding and one buffer of the device, capped by limit when
// limit > 0 (tests use it to exercise the piecewise path at small sizes).
func pieceElems(l wgpu.Limits, n int, limit int) int {
	m := l.MaxStorageBindingSize
	if l.MaxBufferSize < m {
		m = l.MaxBufferSize
	}
	// Keep the invocation count below 2^32: the kernel indexes with u32.
	piece := min(m/elemBytes, 1<<31)
	if limit > 0 && uint64(limit) < piece {
		piece = uint64(limit)
	}
	if uint64(n) < piece {
		piece = uint64(n)
	}
	return int(piece)
}

// batch checks the inputs, then runs o over [0, len(dst)) in pieces of at
// most one storage binding each: upload, dispatch, download. It returns the
// summed timing of the dispatches (benchmarks report kernel time apart).
func batch(ctx *wgpu.Context, o op, dst, a, b []uint64, limit int) (total wgpu.Timing, err error) {
	if err := checkInputs(o, dst, a, b); err != nil {
		return total, err
	}
	n := len(dst)
	if n == 0 {
		return total, nil
	}
	if ctx == nil {
		return total, fmt.Errorf("u64emu: %s: no GPU context", o.name)
	}
	k, err := kernel(ctx, o.entry)
	if err != nil {
		return total, fmt.Errorf("u64emu: %s: %w", o.name, err)
	}
	piece := pieceElems(ctx.Limits(), n, limit)
	size := uint64(piece) * elemBytes
	bufA, err := ctx.NewBuffer("u64emu a", size)
	if err != nil {
		return total, fmt.Errorf("u64emu: %s: %w", o.name, err)
	}
	defer bufA.Release()
	bufB := bufA
	if !o.unary {
		bufB, err = ctx.NewBuffer("u64emu b", size)
		if err != nil {
			return total, fmt.Errorf("u64emu: %s: %w", o.name, err)
		}
		defer bufB.Release()
	}
	bufD, err := ctx.NewBuffer("u64emu dst", size)
	if err != nil {
		return total, fmt.Errorf("u64emu: %s: %w", o.name, err)
	}
	defer bufD.Release()
	for lo := 0; lo < n; lo += piece {
		hi := min(lo+piece, n)
		m := hi - lo
		if err := ctx.Upload(bufA, 0, wgpu.Bytes(a[lo:hi])); err != nil {
			return total, fmt.Errorf("u64emu: %s: upload a[%d:%d]: %w", o.name, lo, hi, err)
		}
		if !o.unary {
			if err := ctx.Upload(bufB, 0, wgpu.Bytes(b[lo:hi])); err != nil {
				return total, fmt.Errorf("u64emu: %s: upload b[%d:%d]: %w", o.name, lo, hi, err)
			}
		}
		t, err := ctx.Run(wgpu.Dispatch{
			Kernel:   k,
			Bindings: []wgpu.Binding{wgpu.Bind(bufA), wgpu.Bind(bufB), wgpu.Bind(bufD)},
			Params:   []uint32{uint32(m), 0},
			Groups:   ctx.Grid(uint64(m), workgroupSize),
		})
		if err != nil {
			return total, fmt.Errorf("u64emu: %s: elements [%d, %d): %w", o.name, lo, hi, err)
		}
		total.Kernel += t.Kernel
		total.Wall += t.Wall
		total.Measured = t.Measured
		if err := ctx.Download(wgpu.Bytes(dst[lo:hi]), bufD, 0); err != nil {
			return total, fmt.Errorf("u64emu: %s: download dst[%d:%d]: %w", o.name, lo, hi, err)
		}
	}
	return total, nil
}

// MulThroughput runs the mulmod throughput kernel: invocation i seeds four
// accumulators and four multipliers from a[i] and b[i] and performs
// 4*steps multiplications; dst[i] is the sum of the accumulators (see
// MulThroughputRef). schoolbook selects the straightforward 16-bit
// partial-product multiplication instead of gl_mul, for comparison. The
// buffers must hold count elements each. It returns the run's timing.
func MulThroughput(ctx *wgpu.Context, dst, a, b *wgpu.Buffer, count, steps uint32, schoolbook bool) (wgpu.Timing, error) {
	for _, buf := range []*wgpu.Buffer{dst, a, b} {
		if buf == nil || buf.Size() < uint64(count)*elemBytes {
			return wgpu.Timing{}, fmt.Errorf("u64emu: throughput: every buffer must hold count = %d elements (%d bytes)", count, uint64(count)*elemBytes)
		}
	}
	entry := "mul_throughput"
	if schoolbook {
		entry = "mul_throughput_schoolbook"
	}
	k, err := kernel(ctx, entry)
	if err != nil {
		return wgpu.Timing{}, fmt.Errorf("u64emu: throughput: %w", err)
	}
	t, err := ctx.Run(wgpu.Dispatch{
		Kernel:   k,
		Bindings: []wgpu.Binding{wgpu.Bind(a), wgpu.Bind(b), wgpu.Bind(dst)},
		Params:   []uint32{count, steps},
		Groups:   ctx.Grid(uint64(count), workgroupSize),
	})
	if err != nil {
		return t, fmt.Errorf("u64emu: throughput: %w", err)
	}
	return t, nil
}

// MulThroughputRef is the plain-Go meaning of one invocation of MulThroughput.
func MulThroughputRef(a, b uint64, steps uint32) uint64 {
	acc := [4]uint64{a, b, Add(a, b), Sub(a, b)}
	m := [4]uint64{b, Neg(a), Sub(b, a), Add(b, b)}
	for range steps {
		for j := range acc {
			acc[j] = Mul(acc[j], m[j])
		}
	}
	return Add(Add(acc[0], acc[1]), Add(acc[2], acc[3]))
}
