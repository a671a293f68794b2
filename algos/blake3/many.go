package blake3

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/wgcompute/wgcompute/internal/base/checked"
	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Many inputs of one length, each its own hash: Merkle leaves from
// records, a batch of messages, the rows of a table. On the GPU each input
// is one invocation, which hashes its chunks in order and merges their
// chaining values on a stack of its own (blake3_many_lib.wgsl), so the
// parallelism is across inputs: the GPU pays off for many inputs (tens of
// thousands), not for a few large ones (Sum hashes one large input with
// every chunk in parallel).

var manyModule = wgsl.Module{Library: shaders, Files: []string{"blake3_many.wgsl"}}

// manyWG is MANY_WG in blake3_many.wgsl.
const manyWG = 64

// bindAlign is the alignment of a bound range's offset that every WebGPU
// device accepts (minStorageBufferOffsetAlignment is at most 256).
const bindAlign = 256

// manyMode returns the key words and flags SumMany hashes with, checking
// that opts ask for 32-byte digests.
func manyMode(fn string, opts Options) ([8]uint32, uint32, error) {
	key, flags, err := opts.mode()
	if err != nil {
		return key, 0, err
	}
	if opts.Length != 0 && opts.Length != Size {
		return key, 0, fmt.Errorf("blake3: %s returns %d-byte digests: Options.Length must be 0 or %d, not %d", fn, Size, Size, opts.Length)
	}
	return key, flags, nil
}

// SumMany is
//
//	for i := range dst { dst[i] = Sum256(data[i*size : (i+1)*size]) }
//
// (in the mode that opts choose: Key for keyed_hash, DeriveKey with
// Context for derive_key): len(dst) inputs of size bytes each (size 0 or
// more), concatenated in data, each hashed on its own. With a Context
// (or a Group of one) it hashes on the GPU, one invocation per input;
// with nil on all CPU cores (at most opts.Threads). Of opts, Length must be 0 or 32 (the
// chunk kernel does not apply), and Timing receives the call's timing.
func SumMany(t wgpu.Target, dst [][32]byte, data []byte, size int, opts Options) error {
	ctx, err := sched.OneDevice(t)
	if err != nil {
		return fmt.Errorf("blake3: SumMany %w", err)
	}
	key, flags, err := manyMode("SumMany", opts)
	if err != nil {
		return err
	}
	n := len(dst)
	if size < 0 {
		return fmt.Errorf("blake3: SumMany: inputs of %d bytes: the size is 0 or more", size)
	}
	want, err := checked.Mul(n, size)
	if err != nil {
		return fmt.Errorf("blake3: SumMany: %d inputs of %d bytes: %w bytes", n, size, err)
	}
	if len(data) != want {
		return fmt.Errorf("blake3: SumMany: %d bytes for %d inputs of %d bytes: need exactly inputs × size, the inputs one after the other", len(data), n, size)
	}
	start := time.Now()
	var tm wgpu.Timing
	switch {
	case ctx == nil || size == 0 || n == 0:
		// Inputs of no bytes all hash to one digest: no device work.
		sumManyCPU(dst, data, size, key, flags, opts.Threads)
		tm.Wall = time.Since(start)
	default:
		tm, err = sumManyGPU(ctx, dst, data, size, key, flags)
	}
	if opts.Timing != nil {
		*opts.Timing = tm
	}
	if err != nil {
		return fmt.Errorf("blake3: SumMany: %w", err)
	}
	return nil
}

// sumOne is the digest of one input on the calling goroutine.
func sumOne(in []byte, key [8]uint32, flags uint32, threads int) [32]byte {
	var d [32]byte
	o := cpuRoot(in, 0, key, flags, threads)
	o.rootBytes(d[:], 0)
	return d
}

// sumManyCPU is SumMany on the CPU: inputs spread over the cores, or,
// when they are fewer than the cores, each hashed by all of them.
func sumManyCPU(dst [][32]byte, data []byte, size int, key [8]uint32, flags uint32, threads int) {
	n := len(dst)
	if n == 0 {
		return
	}
	if size == 0 {
		d := sumOne(nil, key, flags, 1)
		for i := range dst {
			dst[i] = d
		}
		return
	}
	workers := cpuThreads(threads)
	if n < workers {
		for i := range dst {
			dst[i] = sumOne(data[i*size:(i+1)*size], key, flags, threads)
		}
		return
	}
	grain := max(1, min(n/workers, (256<<10)/size))
	par.ForErrWorkers(n, grain, min(workers, runtime.GOMAXPROCS(0)), func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			dst[i] = sumOne(data[i*size:(i+1)*size], key, flags, 1)
		}
		return nil
	})
}

// manyKernel compiles the SumMany kernel on ctx.
func manyKernel(ctx *wgpu.Context) (*wgpu.Kernel, error) {
	return ctx.Kernel(wgpu.KernelSpec{Label: "blake3_many.wgsl:sum_many", Module: manyModule, Entry: "sum_many",
		Storage: 2, Uniform: true, ReadOnly: []bool{true, false}})
}

// manyParams are the kernel's parameters for count inputs.
func manyParams(count, size int, shift, first uint64, key [8]uint32, flags uint32) []uint32 {
	p := []uint32{uint32(count), uint32(size), uint32(shift), uint32(first), flags}
	return append(p, key[:]...)
}

// maxPieceBytes bounds the bytes one piece binds: the kernel's byte
// offsets are u32.
const maxPieceBytes = 1<<32 - bindAlign - 4

// sumManyGPU runs SumMany's batches: inputs grouped so that an item is a
// whole number of 4-byte words (1, 2 or 4 inputs), and the inputs left
// over in a last batch of one padded item.
func sumManyGPU(ctx *wgpu.Context, dst [][32]byte, data []byte, size int, key [8]uint32, flags uint32) (wgpu.Timing, error) {
	k, err := manyKernel(ctx)
	if err != nil {
		return wgpu.Timing{}, err
	}
	group := 1
	for size*group%4 != 0 {
		group *= 2
	}
	n := len(dst)
	items := n / group
	var total wgpu.Timing
	run := func(count int, in []byte, itemBytes, perItem int, out [][32]byte) error {
		t, err := sched.Run(ctx, sched.Job{
			Label:    "blake3 sum many",
			Count:    count,
			Inputs:   []sched.Input{{Data: in, ItemBytes: itemBytes}},
			Output:   sched.Output{Data: wgpu.Bytes(out), ItemBytes: Size * perItem},
			MaxItems: maxPieceBytes / itemBytes,
			Dispatches: func(m int, bind []wgpu.Binding) []wgpu.Dispatch {
				inputs := min(m*perItem, len(out))
				return []wgpu.Dispatch{{Kernel: k, Bindings: bind, Params: manyParams(inputs, size, 0, 0, key, flags), Groups: ctx.Grid(uint64(inputs), manyWG)}}
			},
		})
		total = total.Add(t)
		return err
	}
	if items > 0 {
		if sched.PieceItems(ctx.Limits(), group*size) == 0 {
			return total, fmt.Errorf("%d inputs of %d bytes do not fit the device's storage binding limit of %d bytes", group, size, ctx.Limits().MaxStorageBindingSize)
		}
		if err := run(items, data[:items*group*size], group*size, group, dst[:items*group]); err != nil {
			return total, err
		}
	}
	if rest := n - items*group; rest > 0 {
		tail := make([]byte, (rest*size+3)&^3)
		copy(tail, data[items*group*size:])
		if err := run(1, tail, len(tail), rest, dst[items*group:]); err != nil {
			return total, err
		}
	}
	return total, nil
}

// SumManyBuffer is SumMany on device memory: it hashes the n inputs of
// size bytes at the start of src, one after the other, into n 32-byte
// digests at the start of dst, with nothing uploaded or read back, so the
// inputs can come from another kernel and the digests go on to one (as
// Merkle leaves, say). src must hold n*size bytes rounded up to a
// multiple of 4, and dst n*32 bytes; both must be buffers of t (a Context,
// or a Group of one). Of
// opts, Length must be 0 or 32, and Timing receives the kernels' timing.
func SumManyBuffer(t wgpu.Target, dst, src *wgpu.Buffer, n, size int, opts Options) error {
	ctx, err := sched.OneDevice(t)
	if err != nil {
		return fmt.Errorf("blake3: SumManyBuffer %w", err)
	}
	key, flags, err := manyMode("SumManyBuffer", opts)
	if err != nil {
		return err
	}
	switch {
	case ctx == nil:
		return errors.New("blake3: SumManyBuffer needs the Context that holds the buffers, got nil (the CPU: use SumMany)")
	case dst == nil || src == nil:
		return errors.New("blake3: SumManyBuffer needs a source and a destination buffer, got nil")
	case n < 0 || size < 0:
		return fmt.Errorf("blake3: SumManyBuffer: %d inputs of %d bytes: both are 0 or more", n, size)
	case size > 0 && uint64(n) > src.Size()/uint64(size):
		return fmt.Errorf("blake3: SumManyBuffer: %d inputs of %d bytes do not fit the %d-byte source", n, size, src.Size())
	case (uint64(n)*uint64(size)+3)&^3 > src.Size():
		return fmt.Errorf("blake3: SumManyBuffer: %d inputs of %d bytes need a source of %d bytes (whole words), not %d", n, size, (uint64(n)*uint64(size)+3)&^3, src.Size())
	case uint64(n) > dst.Size()/Size:
		need, err := checked.Mul(uint64(n), Size)
		if err != nil {
			return fmt.Errorf("blake3: SumManyBuffer: %d digests need a destination of %w bytes", n, err)
		}
		return fmt.Errorf("blake3: SumManyBuffer: %d digests need a destination of %d bytes, not %d", n, need, dst.Size())
	}
	var total wgpu.Timing
	defer func() {
		if opts.Timing != nil {
			*opts.Timing = total
		}
	}()
	if n == 0 {
		return nil
	}
	k, err := manyKernel(ctx)
	if err != nil {
		return fmt.Errorf("blake3: SumManyBuffer: %w", err)
	}
	binding := min(ctx.Limits().MaxStorageBindingSize, maxPieceBytes)
	// A piece binds its inputs from the 256-aligned offset at or below
	// its first, and its digests likewise.
	per := int(min(uint64(n), (binding-bindAlign-4)/uint64(max(size, 1)), (binding-bindAlign)/Size))
	if per < 1 || binding < bindAlign+Size+4 {
		return fmt.Errorf("blake3: SumManyBuffer: an input of %d bytes does not fit the device's storage binding limit of %d bytes", size, ctx.Limits().MaxStorageBindingSize)
	}
	var ds []wgpu.Dispatch
	for lo := 0; lo < n; lo += per {
		m := min(per, n-lo)
		inOff := uint64(lo) * uint64(size)
		inBase := inOff &^ (bindAlign - 1)
		inEnd := (inOff + uint64(m)*uint64(size) + 3) &^ 3
		outOff := uint64(lo) * Size
		outBase := outOff &^ (bindAlign - 1)
		bind := []wgpu.Binding{
			{Buffer: src, Offset: inBase, Size: max(4, inEnd-inBase)},
			{Buffer: dst, Offset: outBase, Size: outOff + uint64(m)*Size - outBase},
		}
		ds = append(ds, wgpu.Dispatch{Kernel: k, Bindings: bind, Params: manyParams(m, size, inOff-inBase, (outOff-outBase)/Size, key, flags), Groups: ctx.Grid(uint64(m), manyWG)})
	}
	// Pieces in submissions of bounded size: a piece is at most one
	// binding of input.
	for len(ds) > 0 {
		batch := ds[:min(len(ds), 8)]
		ds = ds[len(batch):]
		t, err := ctx.Run(batch...)
		total = total.Add(t)
		if err != nil {
			return fmt.Errorf("blake3: SumManyBuffer: %w", err)
		}
	}
	return nil
}
