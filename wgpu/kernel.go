package wgpu

import (
	"encoding/binary"
	"fmt"
	"time"

	gpu "github.com/oliverbestmann/webgpu/wgpu"
)

// Kernel is a compiled compute pipeline: one WGSL entry point. Kernels are
// cached by the Context and released by Close.
//
// Binding convention: the entry point's storage buffers are
// @group(0) @binding(0..n-1), in the order a Dispatch lists them, declared
// var<storage, read> or var<storage, read_write>; an optional uniform of
// u32 parameters follows at @binding(n).
type Kernel struct {
	name     string
	storage  int
	uniform  bool
	layout   *gpu.BindGroupLayout
	playout  *gpu.PipelineLayout
	pipeline *gpu.ComputePipeline
}

type kernelKey struct {
	module, entry string
	storage       int
	uniform       bool
	readOnly      uint64 // bit i: binding i is read-only
}

// Module is a WGSL module a kernel is compiled from: package wgsl's
// Module. ID names it; Source, called only the first time a Context meets
// the ID, returns its text.
type Module interface {
	ID() string
	Source() (string, error)
}

// FeatureModule is a Module with variants for optional device features
// (package wgsl's Module is one): Kernel compiles ForFeatures(the device's
// shader features) instead of Source, labelled with the ID it returns.
type FeatureModule interface {
	Module
	ForFeatures(features []string) (id, src string, err error)
}

// ModuleFor returns m's ID and text on a device with the given shader
// features: ForFeatures for a FeatureModule, else ID and Source. A module
// made of others (a Merkle kernel joins its hash's module to its own)
// implements ForFeatures with it.
func ModuleFor(m Module, features []string) (id, src string, err error) {
	if fm, ok := m.(FeatureModule); ok && len(features) > 0 {
		return fm.ForFeatures(features)
	}
	src, err = m.Source()
	return m.ID(), src, err
}

// KernelSpec names one entry point of a module and its bindings.
type KernelSpec struct {
	Label    string // shown in errors, for example "blake3.wgsl:chunks"
	Module   Module // the compiled module; one shader module per ID and Context
	Entry    string // entry point name
	Storage  int    // storage buffers at bindings 0..Storage-1
	Uniform  bool   // a uniform of u32 params at binding Storage
	ReadOnly []bool // optional: ReadOnly[i] marks binding i var<storage, read>
}

// Kernel compiles spec once per Context and returns the cached pipeline on
// later calls.
func (c *Context) Kernel(spec KernelSpec) (k *Kernel, err error) {
	if c == nil {
		return nil, errNilContext("compile " + spec.Label)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	op := "compile " + spec.Label
	defer guard(op, &err)
	if err := c.check(op); err != nil {
		return nil, err
	}
	if spec.Module == nil {
		return nil, fmt.Errorf("wgpu: %s: no module", op)
	}
	// A Context's shader features are fixed, so the module's own ID names
	// the variant compiled for them too.
	id := spec.Module.ID()
	if len(spec.ReadOnly) > 64 {
		return nil, fmt.Errorf("wgpu: %s: %d read-only flags: at most 64 bindings are accepted", op, len(spec.ReadOnly))
	}
	var readOnly uint64
	for i, ro := range spec.ReadOnly {
		if ro {
			readOnly |= 1 << i
		}
	}
	key := kernelKey{id, spec.Entry, spec.Storage, spec.Uniform, readOnly}
	if k := c.kernels[key]; k != nil {
		return k, nil
	}
	module := c.modules[id]
	if module == nil {
		variant, src, err := ModuleFor(spec.Module, c.shaderFeatures())
		if err != nil {
			return nil, fmt.Errorf("wgpu: %s: %w", op, err)
		}
		defer Span("compile " + variant)(0)
		if module, err = createShaderModule(c.device, variant, src, c.key.checks); err != nil {
			return nil, fmt.Errorf("wgpu: %s: %w", op, err)
		}
		c.modules[id] = module
	}
	defer Span("pipeline " + spec.Label)(0)
	k = &Kernel{name: spec.Label, storage: spec.Storage, uniform: spec.Uniform}
	built := k
	ok := false
	defer func() {
		if !ok {
			built.release()
		}
	}()
	var entries []gpu.BindGroupLayoutEntry
	for i := 0; i < spec.Storage; i++ {
		t := gpu.BufferBindingTypeStorage
		if i < len(spec.ReadOnly) && spec.ReadOnly[i] {
			t = gpu.BufferBindingTypeReadOnlyStorage
		}
		entries = append(entries, gpu.BindGroupLayoutEntry{
			Binding: uint32(i), Visibility: gpu.ShaderStageCompute,
			Buffer: gpu.BufferBindingLayout{Type: t},
		})
	}
	if spec.Uniform {
		entries = append(entries, gpu.BindGroupLayoutEntry{
			Binding: uint32(spec.Storage), Visibility: gpu.ShaderStageCompute,
			Buffer: gpu.BufferBindingLayout{Type: gpu.BufferBindingTypeUniform},
		})
	}
	k.layout, err = c.device.TryCreateBindGroupLayout(&gpu.BindGroupLayoutDescriptor{Label: spec.Label, Entries: entries})
	if err != nil {
		return nil, fmt.Errorf("wgpu: %s: bind group layout: %w", op, err)
	}
	k.playout, err = c.device.TryCreatePipelineLayout(&gpu.PipelineLayoutDescriptor{Label: spec.Label, BindGroupLayouts: []*gpu.BindGroupLayout{k.layout}})
	if err != nil {
		return nil, fmt.Errorf("wgpu: %s: pipeline layout: %w", op, err)
	}
	k.pipeline, err = createPipeline(c.device, spec.Label, k.playout, module, spec.Entry)
	if err != nil {
		return nil, fmt.Errorf("wgpu: %s: pipeline: %w", op, err)
	}
	ok = true
	c.kernels[key] = k
	return k, nil
}

func (k *Kernel) release() {
	if k.pipeline != nil {
		k.pipeline.Release()
	}
	if k.playout != nil {
		k.playout.Release()
	}
	if k.layout != nil {
		k.layout.Release()
	}
}

// Binding is a range of a Buffer bound to a kernel. Size 0 means to the end.
type Binding struct {
	Buffer *Buffer
	Offset uint64
	Size   uint64
}

// Bind binds the whole buffer.
func Bind(b *Buffer) Binding { return Binding{Buffer: b} }

// Holds reports whether b binds at least n bytes: a buffer, with n bytes
// of it from the offset, and a Size (where not 0, to the end) of n or
// more.
func (b Binding) Holds(n uint64) bool {
	return b.Buffer != nil && b.Offset <= b.Buffer.Size() && n <= b.Buffer.Size()-b.Offset && (b.Size == 0 || n <= b.Size)
}

// Dispatch is one kernel launch.
type Dispatch struct {
	Kernel   *Kernel
	Bindings []Binding // one per storage binding, in binding order
	Params   []uint32  // the uniform's words, when the kernel has one
	Groups   [3]uint32 // workgroup counts (see Grid)
}

// Timing reports how long a Run took.
type Timing struct {
	// Kernel is the GPU time between the start and the end of the run's
	// compute work, from timestamp queries; zero when Measured is false
	// (adapters without TimestampQuery). Transfers still
	// copying when the run starts (Upload returns before its last copy is
	// done) are counted in it: call Context.Wait first when timing a
	// kernel.
	Kernel   time.Duration
	Measured bool
	// Wall is the host time from submission to completion.
	Wall time.Duration
}

// Add returns the timing of t and u one after the other: the times
// summed, Measured only if both were. The zero Timing is no work on
// either side, so sums can start from it and a part that ran nothing
// does not make the sum unmeasured.
func (t Timing) Add(u Timing) Timing {
	return combine(t, u, func(a, b time.Duration) time.Duration { return a + b })
}

// Parallel returns the timing of t and u run side by side, on two
// devices at once: the longer of each time, Measured as Add says (a
// device that ran nothing is the zero Timing).
func (t Timing) Parallel(u Timing) Timing {
	return combine(t, u, func(a, b time.Duration) time.Duration { return max(a, b) })
}

// combine is Add and Parallel: times joined by join, the zero Timing
// neutral.
func combine(t, u Timing, join func(a, b time.Duration) time.Duration) Timing {
	switch {
	case t == Timing{}:
		return u
	case u == Timing{}:
		return t
	}
	return Timing{Kernel: join(t.Kernel, u.Kernel), Measured: t.Measured && u.Measured, Wall: join(t.Wall, u.Wall)}
}

// Elapsed is the kernel time when it was measured, else the wall time:
// the figure to report for "how long the GPU took".
func (t Timing) Elapsed() time.Duration {
	if t.Measured {
		return t.Kernel
	}
	return t.Wall
}

// Run records the dispatches into one compute pass, submits them as one
// submission and waits for the GPU to finish. wgpu orders dispatches that
// share buffers, so a later dispatch sees an earlier one's writes.
func (c *Context) Run(ds ...Dispatch) (Timing, error) {
	p, err := c.submit(false, ds)
	if err != nil {
		return Timing{}, err
	}
	return p.Wait()
}

// RunPasses is Run with one compute pass per dispatch, still one submission.
// It exists to measure what a pass costs; Run is the faster default.
func (c *Context) RunPasses(ds ...Dispatch) (Timing, error) {
	p, err := c.submit(true, ds)
	if err != nil {
		return Timing{}, err
	}
	return p.Wait()
}

// Submit is Run without the wait: it returns once the work is queued, so
// the host can prepare the next piece (fill a staging buffer, say) while
// the GPU computes. Work submitted later, uploads included, runs after it.
// Every Pending must be waited for.
func (c *Context) Submit(ds ...Dispatch) (*Pending, error) { return c.submit(false, ds) }

// Pending is submitted work that has not been waited for.
type Pending struct {
	c       *Context
	timer   *timer
	uniform *uniformBuf // returned to the pool once the work is done
	start   time.Time
	done    bool
}

// uniformAlign is the largest minUniformBufferOffsetAlignment WebGPU lets a
// device require: offsets aligned to it are valid everywhere.
const uniformAlign = 256

// uniformBuf is a pooled uniform buffer for a submission's parameters.
type uniformBuf struct {
	buf  *gpu.Buffer
	size uint64
}

// takeUniform returns a free uniform buffer of at least size bytes,
// reusing the pool's (the smallest that fits) or making one. Callers hold
// c.mu.
func (c *Context) takeUniform(size uint64) (*uniformBuf, error) {
	best := -1
	for i, u := range c.uniforms {
		if u.size >= size && (best < 0 || u.size < c.uniforms[best].size) {
			best = i
		}
	}
	if best >= 0 {
		u := c.uniforms[best]
		c.uniforms = append(c.uniforms[:best], c.uniforms[best+1:]...)
		return u, nil
	}
	size = max(size, 4096)
	buf, err := c.device.TryCreateBuffer(&gpu.BufferDescriptor{Label: "params", Usage: gpu.BufferUsageUniform | gpu.BufferUsageCopyDst, Size: size})
	if err != nil {
		return nil, err
	}
	return &uniformBuf{buf: buf, size: size}, nil
}

// Wait blocks until the submission has finished and reports its timing.
func (p *Pending) Wait() (t Timing, err error) {
	c := p.c
	defer Span("wait for kernels")(0)
	c.mu.Lock()
	defer c.mu.Unlock()
	defer guard("wait", &err)
	if p.done {
		return t, fmt.Errorf("wgpu: wait: already waited for")
	}
	p.done = true
	if err := c.check("wait"); err != nil {
		return t, err
	}
	// The pools take the submission's buffers back even if the wait gives
	// up (ErrWaitLimit): the queue orders their next use after it.
	if p.uniform != nil {
		c.uniforms = append(c.uniforms, p.uniform)
	}
	if err := c.waitIdle(); err != nil {
		if p.timer != nil {
			c.timers = append(c.timers, p.timer)
		}
		return t, fmt.Errorf("wgpu: wait: %w", err)
	}
	t.Wall = time.Since(p.start)
	if p.timer != nil {
		d, err := p.timer.read(c)
		c.timers = append(c.timers, p.timer)
		if err != nil {
			return t, fmt.Errorf("wgpu: run: timestamps: %w", err)
		}
		t.Kernel, t.Measured = d, true
		c.kernelTime.Add(int64(d))
		c.noteRoundTrip(t.Wall - d)
	}
	return t, nil
}

func (c *Context) submit(passEach bool, ds []Dispatch) (p *Pending, err error) {
	if c == nil {
		return nil, errNilContext("run")
	}
	defer Span("encode and submit")(0)
	c.mu.Lock()
	defer c.mu.Unlock()
	defer guard("run", &err)
	if err := c.check("run"); err != nil {
		return nil, err
	}
	var groups []*gpu.BindGroup
	defer func() {
		for _, g := range groups {
			g.Release()
		}
	}()
	// Every dispatch's parameters go into one pooled uniform buffer,
	// written once, each at an offset aligned as any device allows.
	var params []byte
	offsets, sizes := make([]uint64, len(ds)), make([]uint64, len(ds))
	for i, d := range ds {
		if d.Kernel == nil || !d.Kernel.uniform {
			continue
		}
		words := d.Params
		if len(words) == 0 {
			words = []uint32{0}
		}
		offsets[i] = uint64(len(params)+uniformAlign-1) &^ (uniformAlign - 1)
		// Uniform buffers are read in 16-byte units.
		sizes[i] = uint64(len(words)*4+15) &^ 15
		params = append(params, make([]byte, offsets[i]+sizes[i]-uint64(len(params)))...)
		for j, w := range words {
			binary.LittleEndian.PutUint32(params[int(offsets[i])+4*j:], w)
		}
	}
	var uniform *uniformBuf
	if len(params) > 0 {
		if uniform, err = c.takeUniform(uint64(len(params))); err != nil {
			return nil, fmt.Errorf("wgpu: run: params: %w", err)
		}
		defer func() {
			if p == nil {
				c.uniforms = append(c.uniforms, uniform)
			}
		}()
		if err := c.writeBuffer(uniform.buf, 0, params); err != nil {
			return nil, fmt.Errorf("wgpu: run: params: %w", err)
		}
	}
	for i, d := range ds {
		if d.Kernel == nil {
			return nil, fmt.Errorf("wgpu: run: dispatch %d has no kernel", i)
		}
		k := d.Kernel
		if len(d.Bindings) != k.storage {
			return nil, fmt.Errorf("wgpu: run %s: %d buffers bound, the kernel takes %d", k.name, len(d.Bindings), k.storage)
		}
		if (d.Params != nil) != k.uniform {
			return nil, fmt.Errorf("wgpu: run %s: params given=%v, kernel takes a uniform=%v", k.name, d.Params != nil, k.uniform)
		}
		for _, g := range d.Groups {
			if g > c.info.Limits.MaxWorkgroupsPerDimension {
				return nil, fmt.Errorf("wgpu: run %s: %v workgroups exceeds %d per dimension (use Grid)", k.name, d.Groups, c.info.Limits.MaxWorkgroupsPerDimension)
			}
		}
		entries := make([]gpu.BindGroupEntry, 0, k.storage+1)
		for j, b := range d.Bindings {
			if b.Buffer == nil || b.Buffer.buf == nil {
				return nil, fmt.Errorf("wgpu: run %s: binding %d has no (or a released) buffer", k.name, j)
			}
			size := b.Size
			if size == 0 {
				size = b.Buffer.size - b.Offset
			}
			if b.Offset+size > b.Buffer.size {
				return nil, fmt.Errorf("wgpu: run %s: binding %d range [%d, %d) is outside %s's %d bytes", k.name, j, b.Offset, b.Offset+size, b.Buffer.label, b.Buffer.size)
			}
			if size > c.info.Limits.MaxStorageBindingSize {
				return nil, fmt.Errorf("wgpu: run %s: binding %d is %d bytes, over the device's storage binding limit of %d bytes", k.name, j, size, c.info.Limits.MaxStorageBindingSize)
			}
			entries = append(entries, gpu.BindGroupEntry{Binding: uint32(j), Buffer: b.Buffer.buf, Offset: b.Offset, Size: size})
		}
		if k.uniform {
			entries = append(entries, gpu.BindGroupEntry{Binding: uint32(k.storage), Buffer: uniform.buf, Offset: offsets[i], Size: sizes[i]})
		}
		g, err := c.device.TryCreateBindGroup(&gpu.BindGroupDescriptor{Label: k.name, Layout: k.layout, Entries: entries})
		if err != nil {
			return nil, fmt.Errorf("wgpu: run %s: bind group: %w", k.name, c.lostFrom(err))
		}
		groups = append(groups, g)
	}
	enc, err := c.device.TryCreateCommandEncoder(nil)
	if err != nil {
		return nil, fmt.Errorf("wgpu: run: %w", c.lostFrom(err))
	}
	defer enc.Release()
	var tm *timer
	if c.info.Timestamps {
		if n := len(c.timers); n > 0 {
			tm, c.timers = c.timers[n-1], c.timers[:n-1]
		} else if tm, err = newTimer(c.device); err != nil {
			return nil, fmt.Errorf("wgpu: run: timestamps: %w", err)
		}
		defer func() {
			if p == nil {
				c.timers = append(c.timers, tm)
			}
		}()
	}
	var pass *gpu.ComputePassEncoder
	for i, d := range ds {
		if pass == nil {
			// The first pass writes the start time, the last the end.
			var desc *gpu.ComputePassDescriptor
			if tm != nil && (i == 0 || passEach && i == len(ds)-1) {
				w := &gpu.PassTimestampWrites{QuerySet: tm.set,
					BeginningOfPassWriteIndex: gpu.QuerySetIndexUndefined, EndOfPassWriteIndex: gpu.QuerySetIndexUndefined}
				if i == 0 {
					w.BeginningOfPassWriteIndex = 0
				}
				if i == len(ds)-1 || !passEach {
					w.EndOfPassWriteIndex = 1
				}
				desc = &gpu.ComputePassDescriptor{TimestampWrites: w}
			}
			pass = enc.BeginComputePass(desc)
		}
		pass.SetPipeline(d.Kernel.pipeline)
		pass.SetBindGroup(0, groups[i], nil)
		if d.Groups[0] > 0 && d.Groups[1] > 0 && d.Groups[2] > 0 {
			pass.DispatchWorkgroups(d.Groups[0], d.Groups[1], d.Groups[2])
		}
		if passEach || i == len(ds)-1 {
			err := pass.TryEnd()
			pass.Release()
			pass = nil
			if err != nil {
				return nil, fmt.Errorf("wgpu: run %s: %w", d.Kernel.name, err)
			}
		}
	}
	if tm != nil {
		if err := tm.resolve(enc); err != nil {
			return nil, fmt.Errorf("wgpu: run: timestamps: %w", err)
		}
	}
	cmd, err := enc.TryFinish(nil)
	if err != nil {
		return nil, fmt.Errorf("wgpu: run: %w", err)
	}
	defer cmd.Release()
	start := time.Now()
	c.queue.Submit(cmd)
	c.submitted(len(ds))
	if err := c.native.takeError(); err != nil {
		return nil, fmt.Errorf("wgpu: run: %w", err)
	}
	return &Pending{c: c, timer: tm, uniform: uniform, start: start}, nil
}
