package blake3

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"lukechampine.com/blake3/guts"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// Device says where an Auto hashes. The zero value, DeviceAuto, is the
// default.
type Device int

const (
	// DeviceAuto hashes on the CPU, on all cores, and adds the GPU for an
	// input in memory or a regular file of HybridBytes or more, when the
	// machine has a GPU that is not the CPU in disguise (an adapter of
	// type "cpu", such as lavapipe or llvmpipe): the GPU is opened while
	// the CPU hashes and takes subtrees once it is ready. Below
	// HybridBytes the GPU is never opened.
	DeviceAuto Device = iota
	// DeviceCPU hashes on the CPU only.
	DeviceCPU
	// DeviceGPU hashes every input on the GPU that AutoOptions.GPU opens,
	// whatever its type, as an Engine does. The CPU backend
	// (AutoOptions.GPU.Backend "cpu") still means the CPU.
	DeviceGPU
)

// Devices lists the accepted Device values.
var Devices = []Device{DeviceAuto, DeviceCPU, DeviceGPU}

// String names the device as flags do: "auto", "cpu" or "gpu".
func (d Device) String() string {
	if d >= 0 && int(d) < len(deviceNames) {
		return deviceNames[d]
	}
	return fmt.Sprintf("Device(%d)", int(d))
}

var deviceNames = [...]string{DeviceAuto: "auto", DeviceCPU: "cpu", DeviceGPU: "gpu"}

// ParseDevice is the inverse of Device.String.
func ParseDevice(s string) (Device, error) {
	for _, d := range Devices {
		if d.String() == s {
			return d, nil
		}
	}
	return DeviceAuto, fmt.Errorf("blake3: unknown device %q: accepted are %v", s, Devices)
}

// HybridBytes is the crossover of DeviceAuto: the smallest input for which
// the GPU is opened to hash beside the CPU; below it, the GPU is never
// opened. The GPU is ready only after its set-up in a new process (instance
// and device, opened while every core hashes) and its first staging buffers,
// and then takes what the copies into staging memory, made by the CPU's
// cores, allow, while those cores would have hashed almost as much. On a
// 16-core NVIDIA host, a 16 GiB file hashed faster with the GPU added in a
// process whose device was already open, but slower in `wgbench b3sum`, a new
// process each time, the device's set-up included. So a one-shot hash gains
// from the GPU only above 16 GiB; 32 GiB is where it was measured to gain
// (BENCHMARKS.md, "BLAKE3"; the figures in bench/results/HISTORY.md, "Figures
// moved from code comments"). On a CI machine whose only GPU is lavapipe,
// DeviceAuto never uses it.
const HybridBytes = 32 << 30

// AutoOptions choose an Auto's hash (Options: mode, output length, CPU
// threads, GPU variant, timing) and where it runs.
type AutoOptions struct {
	Options
	// Device picks the CPU, the GPU or, by default, the CPU with the GPU
	// added for large inputs.
	Device Device
	// GPU chooses the adapter when the GPU is used (see wgpu.Options).
	// With DeviceGPU, GPU.Devices asks for several
	// GPUs: files and other inputs read with ReadAt are then hashed on
	// all of them at once (SumReader on the Group), inputs read in sequence on the first.
	GPU wgpu.Options
	// Group, with DeviceGPU, is the devices to hash on instead of those
	// GPU chooses, as GPU.Devices's are used; it stays the caller's to
	// close. A Group of one device several times (sched.NewGroup) splits
	// inputs as several GPUs do.
	Group *sched.Group
}

// Auto hashes inputs on the CPU, the GPU or both, as AutoOptions.Device
// chooses, in one mode and output length. It opens the GPU only when an input
// needs it and keeps it, with its kernels and buffers, until Close. Files are
// read with parallel reads, into small buffers for the CPU and straight into
// staging memory for the GPU. That measured faster than mapping them into
// memory, whose page faults and unmapping cost more than the copies of read,
// on a 2-core CI machine and on an NVIDIA host alike
// (bench/results/HISTORY.md, "Figures moved from code comments"). An Auto is
// not safe for concurrent use.
type Auto struct {
	opts   AutoOptions
	cpu    *Engine // the CPU backend, for inputs read in sequence or by ReadAt; its key, flags and length are the Auto's
	timing wgpu.Timing
	gpu    struct {
		started bool
		ready   chan struct{} // closed once the GPU is open, or known to be absent
		ctx     *wgpu.Context
		eng     *Engine
		own     bool         // group was opened by the Auto, which closes it
		group   *sched.Group // the devices, one or several: ctx is its first
		err     error        // why there is no GPU
	}
	// The hybrid's sizes (see hybridRoot), which tests lower; software
	// lets DeviceAuto use an adapter of type "cpu" (tests on lavapipe),
	// and gpuFirst holds the CPU's workers until the GPU claims its first
	// subtree, so that tests know it takes part.
	hybridMin          int64
	hybridTask         uint64
	gpuMin, gpuMax     uint64
	gpuCores           int // once the GPU runs, 1 in gpuCores of the CPU's workers stops (hybridGPUCores)
	software, gpuFirst bool
	gpuBytes           uint64 // what the GPU hashed in the hybrid in the last call
}

// NewAuto checks opts and returns an Auto; it opens nothing.
func NewAuto(opts AutoOptions) (*Auto, error) {
	if !slices.Contains(Devices, opts.Device) {
		return nil, fmt.Errorf("blake3: unknown device %d: accepted are %v", int(opts.Device), Devices)
	}
	if opts.Threads < 0 {
		return nil, fmt.Errorf("blake3: %d threads: accepted are 0 (all cores) or more", opts.Threads)
	}
	if _, err := opts.variant.spec(); err != nil {
		return nil, err
	}
	inner := opts.Options
	inner.Timing = nil // the Auto reports its calls' timing itself; its GPU Engine takes these options too
	cpu, err := NewEngine(nil, inner)
	if err != nil {
		return nil, err
	}
	a := &Auto{opts: opts, cpu: cpu,
		hybridMin: HybridBytes, hybridTask: hybridTask, gpuMin: hybridGPUMin, gpuMax: hybridGPUMax, gpuCores: hybridGPUCores}
	a.gpu.ready = make(chan struct{})
	return a, nil
}

// Close releases the GPU, if the Auto opened one, after waiting for it to
// finish opening. The Auto may be used again after.
func (a *Auto) Close() error {
	if !a.gpu.started {
		return nil
	}
	<-a.gpu.ready
	err := a.releaseGPU(nil)
	a.gpu.started, a.gpu.ready = false, make(chan struct{})
	return err
}

// releaseGPU releases the GPU's Engine and closes the devices the Auto
// opened, keeping why as the reason there is no GPU now, and returns what
// closing reported.
func (a *Auto) releaseGPU(why error) error {
	var err error
	if a.gpu.eng != nil {
		a.gpu.eng.Release()
	}
	if a.gpu.own {
		err = a.gpu.group.Close()
	}
	a.gpu.ctx, a.gpu.eng, a.gpu.own, a.gpu.group, a.gpu.err = nil, nil, false, nil, why
	return err
}

// Sum hashes data and returns Options.Length bytes of output (32 for 0).
func (a *Auto) Sum(data []byte) ([]byte, error) {
	o, err := a.call(func(e *Engine) (output, error) {
		if e != nil {
			return e.readerRoot(bytes.NewReader(data))
		}
		return a.memRoot(data), nil
	})
	return a.output(o, err)
}

// SumReader hashes everything r yields from its position on and returns
// Options.Length bytes of output, reading r as Engine.SumReader does. The
// reader is left at the end of what was hashed.
func (a *Auto) SumReader(r io.Reader) ([]byte, error) {
	o, err := a.call(func(e *Engine) (output, error) { return a.readerRoot(e, r) })
	return a.output(o, err)
}

// Output is SumReader with the output as a reader of any length, from
// which Options.Length does not apply: b3sum's --length of terabytes.
func (a *Auto) Output(r io.Reader) (*OutputReader, error) {
	o, err := a.call(func(e *Engine) (output, error) { return a.readerRoot(e, r) })
	if err != nil {
		return nil, err
	}
	return &OutputReader{root: o}, nil
}

func (a *Auto) output(o output, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	return a.cpu.output(o), nil
}

// call runs one hash: on the GPU's Engine for DeviceGPU (unless the
// options choose the CPU backend), else with a nil Engine, and
// reports its timing.
func (a *Auto) call(hash func(e *Engine) (output, error)) (output, error) {
	start := time.Now()
	a.timing, a.gpuBytes = wgpu.Timing{}, 0
	var e *Engine
	if a.opts.Device == DeviceGPU {
		a.startGPU(false)
		<-a.gpu.ready
		if a.gpu.err != nil && !errors.Is(a.gpu.err, wgpu.ErrCPUBackend) {
			return output{}, fmt.Errorf("blake3: open the GPU: %w", a.gpu.err)
		}
		if e = a.gpu.eng; e != nil {
			e.timing = wgpu.Timing{}
		}
	}
	o, err := hash(e)
	if e != nil {
		a.timing = e.timing
	}
	if a.opts.Timing != nil {
		t := a.timing
		if t == (wgpu.Timing{}) {
			t.Wall = time.Since(start)
		}
		*a.opts.Timing = t
	}
	return o, err
}

// readerRoot hashes r on e, or where DeviceAuto or DeviceCPU chooses: a
// regular file large enough with the GPU's help, everything else on the
// CPU.
func (a *Auto) readerRoot(e *Engine, r io.Reader) (output, error) {
	if r == nil {
		return output{}, errors.New("blake3: SumReader needs a reader, got nil")
	}
	if e != nil {
		if a.gpu.group != nil && a.gpu.group.Len() > 1 {
			if o, ok, err := a.groupRoot(r); ok || err != nil {
				return o, err
			}
		}
		return e.readerRoot(r)
	}
	if f, ok := r.(*os.File); ok && a.opts.Device == DeviceAuto {
		if o, ok, err := a.fileRoot(f); ok || err != nil {
			return o, err
		}
	}
	defer wgpu.Span("blake3 read and hash on the CPU")(0)
	return a.cpu.readerRoot(r)
}

// fileRoot hashes f with the GPU's help, if it is a regular file of
// HybridBytes or more and a GPU may help; ok reports whether it did. A
// file found shorter or longer than its size is left to the CPU.
func (a *Auto) fileRoot(f *os.File) (o output, ok bool, err error) {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return o, false, nil
	}
	pos, err := f.Seek(0, io.SeekCurrent)
	if err != nil || !a.hybrid(fi.Size()-pos) {
		return o, false, nil
	}
	n := fi.Size() - pos
	o, err = a.hybridRoot(hybridInput{at: io.NewSectionReader(f, pos, n), n: uint64(n)})
	var more [1]byte
	if k, _ := f.ReadAt(more[:], fi.Size()); errors.Is(err, io.ErrUnexpectedEOF) || k > 0 {
		_, err = f.Seek(pos, io.SeekStart) // the file changed: read it in sequence
		return o, false, err
	}
	if err == nil {
		_, err = f.Seek(fi.Size(), io.SeekStart)
	}
	return o, true, err
}

// groupRoot hashes r on every device of the Auto's Group (sumOn), if r is
// a regular file or another reader with ReadAt and a size; ok reports
// whether it did. The reader is left at its end, as SumReader leaves it.
func (a *Auto) groupRoot(r io.Reader) (o output, ok bool, err error) {
	at, n, ok := sizedReader(r)
	if !ok {
		return o, false, nil
	}
	var t wgpu.Timing
	opts := a.cpu.opts
	opts.Timing = &t
	o, err = sumOnRoot(a.gpu.group, at, n, opts)
	a.gpu.eng.timing = t
	return o, true, err
}

// memRoot hashes data on the CPU, or with the GPU's help when DeviceAuto
// finds data large enough and a GPU that may help.
func (a *Auto) memRoot(data []byte) output {
	if a.hybrid(int64(len(data))) {
		o, _ := a.hybridRoot(hybridInput{mem: data, n: uint64(len(data))}) // memory cannot fail to read
		return o
	}
	defer wgpu.Span("blake3 hash on the CPU")(int64(len(data)))
	return cpuRoot(data, 0, a.cpu.key, a.cpu.flags, a.opts.Threads)
}

// hybrid reports whether an input of n bytes is hashed by the CPU and the
// GPU together: with DeviceAuto, from HybridBytes (hybridMin) on, when a
// GPU may help, which starts opening it.
func (a *Auto) hybrid(n int64) bool {
	return a.opts.Device == DeviceAuto && n >= max(a.hybridMin, 1) && a.gpuMayHelp()
}

// gpuMayHelp starts opening the GPU for DeviceAuto, if that has not begun,
// and reports whether it is open or opening.
func (a *Auto) gpuMayHelp() bool {
	a.startGPU(!a.software)
	select {
	case <-a.gpu.ready:
		return a.gpu.eng != nil
	default:
		return true
	}
}

// errSoftwareGPU is why DeviceAuto uses no GPU where the only adapters are
// the CPU in disguise.
var errSoftwareGPU = errors.New("blake3: the only GPU adapters are software renderers (type cpu), which DeviceAuto does not use")

// startGPU opens the GPU in the background, once: where wgpu.Choose
// chooses (the Group given instead, for DeviceGPU), and for DeviceAuto
// (requireHardware) one device, and only if it is not a software one.
func (a *Auto) startGPU(requireHardware bool) {
	if a.gpu.started {
		return
	}
	a.gpu.started = true
	go func() {
		defer close(a.gpu.ready)
		defer wgpu.Span("blake3 open the GPU")(0)
		group, own, err := a.opts.Group, false, error(nil)
		if group == nil || requireHardware {
			o := a.opts.GPU
			if requireHardware {
				o.Devices = "" // the hybrid runs on one device
			}
			var ch wgpu.Choice
			if ch, err = wgpu.Choose(o); err == nil && requireHardware && (ch.CPU || ch.Software()) {
				err = errSoftwareGPU
			}
			if err == nil {
				group, err = sched.Open(ch)
				own = err == nil
			}
		}
		if err == nil {
			a.gpu.group, a.gpu.own = group, own
			if a.gpu.ctx = group.Contexts()[0]; a.gpu.ctx == nil {
				err = wgpu.ErrCPUBackend
			}
		}
		if err == nil {
			a.gpu.eng, err = NewEngine(a.gpu.ctx, a.cpu.opts)
		}
		if err != nil {
			a.releaseGPU(err) // closes what was opened
		}
	}()
}

// OutputReader reads a hash's extended output: every Read continues where
// the previous one stopped, without end.
type OutputReader struct {
	root output
	pos  uint64
}

// Read fills p with the next len(p) bytes of output; it never fails.
func (r *OutputReader) Read(p []byte) (int, error) {
	const batch = guts.MaxSIMD * BlockSize
	n := len(p)
	for len(p) > 0 {
		if r.pos%batch == 0 && len(p) >= batch {
			guts.CompressBlocks((*[batch]byte)(p), guts.Node{CV: r.root.cv, Block: r.root.block,
				Counter: r.pos / BlockSize, BlockLen: r.root.blockLen, Flags: r.root.flags | flagRoot})
			p, r.pos = p[batch:], r.pos+batch
			continue
		}
		k := min(len(p), int(batch-r.pos%batch))
		r.root.rootBytes(p[:k], r.pos)
		p, r.pos = p[k:], r.pos+uint64(k)
	}
	return n, nil
}
