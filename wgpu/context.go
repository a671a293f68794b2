// Package wgpu is the device layer every wgcompute algorithm runs on:
// adapter choice, device limits, buffers, a pipeline cache, dispatch,
// transfers between host and device, and GPU kernel timing, over
// github.com/oliverbestmann/webgpu (wgpu-native, linked statically). How
// work is cut into pieces and spread over several devices is the layer
// above, package sched (wgpu/sched: Job, Runner, Group); this package
// never imports it, and declares only the Target that sched reads.
//
// A Context is safe for concurrent use: every call that touches the device
// holds the Context's lock (on GL, one that every Context on the adapter
// shares: deviceLock), so goroutines may share one Context. Work from
// several goroutines is serialised on the device's single queue.
//
// Errors from wgpu (validation, out of memory, a device that stops
// answering) are returned as Go errors that name the operation; no panic
// escapes the package.
package wgpu

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	gpu "github.com/oliverbestmann/webgpu/wgpu"
)

// ErrCPUBackend is returned by Open when Options.Backend is "cpu": callers
// use their pure-Go path (a nil Context) instead of a GPU.
var ErrCPUBackend = errors.New("wgpu: the cpu backend selects the CPU reference path")

// Context is an open device on one adapter.
type Context struct {
	mu deviceLock
	// downloads is held from the start of a download to its end (see
	// download): the download ring serves one transfer at a time. Taken
	// before mu, never while holding it.
	downloads sync.Mutex
	key       idleKey // the adapter and the limits the device was opened with
	device    *gpu.Device
	native    nativeDevice // errors no scope caught, device loss
	queue     *gpu.Queue
	// mappablePrimary: the device may map buffers of any usage
	// (TransferOptions.MapWriteUploads).
	mappablePrimary bool
	// hostPieces: job runners keep their pieces in host memory that
	// kernels read and write in place (RunnerOptions.Memory says where and
	// why; hostbuffer.go).
	hostPieces bool
	info       AdapterInfo
	kernels    map[kernelKey]*Kernel
	modules    map[string]*gpu.ShaderModule // by module identity
	// liveBuffers counts Buffers handed out and not yet released.
	liveBuffers int
	closed      bool
	timers      []*timer      // free timestamp sets, one per submission in flight
	uniforms    []*uniformBuf // free parameter buffers
	staging     *stagingPool
	pool        []pooled // released buffers, oldest first
	poolBytes   uint64
	// hostPool holds released host buffers (hostbuffer.go).
	hostPool      []*HostBuffer
	hostPoolBytes uint64
	waitLimit     time.Duration // Options.WaitLimit
	waitLimitName string        // what errors call it (Options.WaitLimitName)
	// running holds the dispatches of each submission not yet seen
	// finished, oldest first, and retired how many were taken off its
	// front: what a wait's bound scales with (pollUntil).
	running []int
	retired uint64
	// kernelTime is the measured kernel time of every submission waited
	// for, summed in nanoseconds (KernelTime).
	kernelTime atomic.Int64
	// roundTrip is the shortest host time a submission took beyond its
	// kernels, in nanoseconds (RoundTrip).
	roundTrip atomic.Int64
}

// Open opens a device on one adapter and returns the Context that every
// GPU call of the library takes. It lists the adapters of opts.Backend
// (of every backend when empty) in the order Adapters gives, picks the one
// opts.Adapter names (an index, or a name substring) or else the first
// (discrete GPUs, then integrated ones, then software ones; native
// backends before GL), and requests a
// device with the adapter's real limits, capped by opts.Limits, and the
// optional features kernels use where the adapter has them (timestamp
// queries, shader-int64, subgroups). The zero Options open that default
// adapter, as 'wgbench devices' marks it. Close the Context when done: a
// closed device is kept for the next Open of the same adapter and
// settings, with its compiled kernels.
//
// The errors: ErrCPUBackend when the options choose the CPU backend (pass
// a nil Context instead, which every call runs on all cores); ErrNoAdapter,
// wrapped with what was tried and why, when no adapter is found (no
// driver for the backend, an index or a name that matches none, an
// adapter that cannot run compute shaders); an error naming the accepted
// values for a backend or option that is not one; and the driver's error,
// wrapped with the adapter's name, when the device request fails.
//
// Open prints nothing. Where XDG_RUNTIME_DIR is unset (containers, CI,
// services) and the process is on Linux or another Unix, the first listing
// of adapters (Open, Adapters, Choose) sets it for the process to a
// directory of the user's with mode 0700 under the temporary directory
// (wgcompute-runtime-UID), since Mesa's EGL otherwise prints an error on
// standard error for every process that lists GL adapters; a value
// already set is kept.
func Open(opts Options) (ctx *Context, err error) {
	defer func() {
		if r := recover(); r != nil {
			ctx, err = nil, fmt.Errorf("wgpu: open: %v", r)
		}
	}()
	e, pick, err := chooseAdapter(opts)
	if err != nil {
		return nil, err
	}
	return openOn(e, pick, opts)
}

// openOn opens a device on adapter pick of e, the adapter chosen from
// opts (chooseAdapter, Choose), with the rest of opts.
func openOn(e *enumeration, pick int, opts Options) (ctx *Context, err error) {
	defer func() {
		if r := recover(); r != nil {
			ctx, err = nil, fmt.Errorf("wgpu: open: %v", r)
		}
	}()
	infos := e.infos
	if infos[pick].Unusable != "" {
		return nil, unusableError(infos[pick])
	}
	adapter := e.adapters[pick]
	limits, _ := adapterLimits(adapter)
	limits = capLimits(limits, opts.Limits)
	int64 := infos[pick].HasFeature("shader-int64") && !opts.NoShaderInt64
	subgroups := infos[pick].HasFeature("subgroups") && !opts.NoSubgroups
	key := idleKey{adapter, limits, int64, subgroups, opts.ShaderChecks}
	if c := reuse(key); c != nil {
		Span("reuse a closed device")(0)
		c.staging = newStagingPool(c, opts.Transfer)
		c.hostPieces = c.hostPiecesFor(opts.Runner)
		c.waitLimit, c.waitLimitName = opts.WaitLimit, opts.waitLimitName()
		return c, nil
	}
	defer Span("request device")(0)
	c := &Context{mu: lockFor(adapter, infos[pick].Backend), key: key, info: infos[pick], kernels: map[kernelKey]*Kernel{}, modules: map[string]*gpu.ShaderModule{}}
	c.info.Limits = publicLimits(limits)
	var features []gpu.FeatureName
	if c.info.Timestamps {
		features = append(features, gpu.FeatureNameTimestampQuery)
	}
	if adapter.HasFeature(gpu.NativeFeatureMappablePrimaryBuffers) {
		// Upload staging and the job runners' host pieces use it
		// (TransferOptions.MapWriteUploads, RunnerOptions.Memory).
		features = append(features, gpu.NativeFeatureMappablePrimaryBuffers)
		c.mappablePrimary = true
	}
	if int64 {
		features = append(features, gpu.NativeFeatureShaderInt64)
	}
	if subgroups {
		features = append(features, gpu.NativeFeatureSubgroup)
	}
	dev, native, err := requestDevice(adapter, features, limits)
	if err != nil {
		return nil, fmt.Errorf("wgpu: request device on %s (%s): %w", c.info.Name, c.info.Backend, err)
	}
	c.device, c.native = dev, native
	c.queue = dev.GetQueue()
	c.info.TimestampPeriod = float64(c.queue.GetTimestampPeriod())
	if c.info.Timestamps {
		tm, err := newTimer(dev)
		if err != nil {
			c.info.Timestamps = false
		} else {
			c.timers = append(c.timers, tm)
		}
	}
	c.staging = newStagingPool(c, opts.Transfer)
	c.hostPieces = c.hostPiecesFor(opts.Runner)
	c.waitLimit, c.waitLimitName = opts.WaitLimit, opts.waitLimitName()
	return c, nil
}

// CPUInfo describes the CPU backend, the nil *Context: every algorithm
// given a nil Context runs its plain-Go reference on all cores.
var CPUInfo = AdapterInfo{Name: "CPU (pure-Go reference)", Backend: "cpu", Type: "cpu"}

// Info describes the adapter the Context runs on (CPUInfo for nil).
func (c *Context) Info() AdapterInfo {
	if c == nil {
		return CPUInfo
	}
	return c.info
}

// ShaderFeatures lists the optional features enabled on the device that
// kernels use when they have a variant for them ("shader-int64": the
// Goldilocks field on native 64-bit integers; "subgroups": eigen's
// reductions finish inside subgroups). Nil for the nil Context.
// Options.NoShaderInt64 and NoSubgroups leave them off (the portable
// paths).
func (c *Context) ShaderFeatures() []string {
	if c == nil {
		return nil
	}
	return c.shaderFeatures()
}

// shaderFeatures lists the optional features enabled on the device that
// shaders may use (wgsl.Module.Features): those its idle key records.
func (c *Context) shaderFeatures() []string {
	var features []string
	if c.key.int64 {
		features = append(features, "shader-int64")
	}
	if c.key.subgroups {
		features = append(features, "subgroups")
	}
	return features
}

// Limits returns the limits granted to the device (zero for nil).
func (c *Context) Limits() Limits {
	if c == nil {
		return Limits{}
	}
	return c.info.Limits
}

// Close releases the device and everything the Context cached. Buffers the
// caller created must be released first: Close still closes, and reports
// how many were left. Close is idempotent and a nil Context's Close does
// nothing.
func (c *Context) Close() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	defer Span("close")(0)
	c.closed = true
	c.staging.release()
	c.staging = nil
	c.emptyPool()
	if c.liveBuffers == 0 && c.native.lostError() == nil && c.waitIdle() == nil {
		c.park()
		return nil
	}
	for _, k := range c.kernels {
		k.release()
	}
	c.kernels = nil
	for _, m := range c.modules {
		m.Release()
	}
	c.modules = nil
	for _, tm := range c.timers {
		tm.release()
	}
	c.timers = nil
	for _, u := range c.uniforms {
		u.buf.Release()
	}
	c.uniforms = nil
	c.queue.Release()
	c.device.Release()
	if c.liveBuffers > 0 {
		return fmt.Errorf("wgpu: close: %d buffers were not released before Close (they are freed with the device)", c.liveBuffers)
	}
	return nil
}

// Closed devices are kept for the next Open of the same adapter and limits
// instead of being released: wgpu 0.17 freed a released device only when a
// poll found it unused, which never happened once it was released, so each
// Open/Close cycle leaked memory and a driver thread (on lavapipe a process
// grew several times over a few hundred cycles: bench/results/HISTORY.md,
// "Figures moved from code comments"); a parked device also keeps its
// compiled kernels, which makes the next Open cheaper. A parked device has no
// buffers of the caller's and no staging memory; it keeps its compiled
// kernels, so the next Open also skips their compiles.
type idleKey struct {
	adapter   *gpu.Adapter
	limits    gpu.Limits
	int64     bool         // the shader-int64 feature enabled
	subgroups bool         // the subgroups feature enabled
	checks    ShaderChecks // the runtime checks its kernels are compiled with
}

// deviceLock is the lock that every call touching a Context's device
// holds: the Context's own, or one that every Context on the same GL
// adapter shares. wgpu-hal's GL backend makes the devices of an adapter
// take turns on one context, and aborts the process (a panic that no
// recover catches) where a call waits for it more than a second: a
// device compiling a large kernel on a software adapter (llvmpipe) holds
// it longer. Sharing this lock, the other devices' calls wait here
// instead, with no limit.
type deviceLock struct {
	shared *sync.Mutex
	own    sync.Mutex
}

// Lock takes the lock.
func (l *deviceLock) Lock() {
	if l.shared != nil {
		l.shared.Lock()
		return
	}
	l.own.Lock()
}

// Unlock releases it.
func (l *deviceLock) Unlock() {
	if l.shared != nil {
		l.shared.Unlock()
		return
	}
	l.own.Unlock()
}

var (
	glLocksMu sync.Mutex
	glLocks   = map[*gpu.Adapter]*sync.Mutex{}
)

// lockFor returns the device lock of a Context on adapter a of backend:
// on GL, a's lock, the same for every Context on it; elsewhere the
// Context's own.
func lockFor(a *gpu.Adapter, backend string) deviceLock {
	if backend != "gl" {
		return deviceLock{}
	}
	glLocksMu.Lock()
	defer glLocksMu.Unlock()
	if glLocks[a] == nil {
		glLocks[a] = new(sync.Mutex)
	}
	return deviceLock{shared: glLocks[a]}
}

var (
	idleMu sync.Mutex
	idle   = map[idleKey][]*Context{}
)

// park moves c's device into a fresh Context in the idle pool; c stays
// closed. Callers hold c.mu.
func (c *Context) park() {
	p := &Context{mu: deviceLock{shared: c.mu.shared}, key: c.key, device: c.device, native: c.native, queue: c.queue, mappablePrimary: c.mappablePrimary, info: c.info,
		kernels: c.kernels, modules: c.modules, timers: c.timers, uniforms: c.uniforms, running: c.running, retired: c.retired}
	c.device, c.queue, c.kernels, c.modules, c.timers, c.uniforms = nil, nil, nil, nil, nil, nil
	idleMu.Lock()
	idle[p.key] = append(idle[p.key], p)
	idleMu.Unlock()
}

// reuse takes a parked Context for key, if there is one.
func reuse(key idleKey) *Context {
	idleMu.Lock()
	defer idleMu.Unlock()
	list := idle[key]
	if len(list) == 0 {
		return nil
	}
	c := list[len(list)-1]
	idle[key] = list[:len(list)-1]
	return c
}

// errNilContext is what device operations on a nil Context return: nil is
// the CPU backend, which algorithms handle before they reach this layer.
func errNilContext(op string) error {
	return fmt.Errorf("wgpu: %s: nil Context (the CPU backend has no device; open one with wgpu.Open)", op)
}

// check reports a closed context; callers hold c.mu.
func (c *Context) check(op string) error {
	if c.closed {
		return fmt.Errorf("wgpu: %s: context is closed", op)
	}
	if err := c.native.lostError(); err != nil {
		return fmt.Errorf("wgpu: %s: %w", op, err)
	}
	return nil
}

// guard turns a panic inside the binding into an error naming op.
func guard(op string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("wgpu: %s: %v", op, r)
	}
}
