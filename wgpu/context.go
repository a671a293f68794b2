// Package wgpu is the small context layer every wgcompute algorithm runs on:
// adapter choice, device limits, buffers, a pipeline cache, dispatch,
// transfers between host and device, and GPU kernel timing, over
// github.com/oliverbestmann/webgpu (wgpu-native, linked statically).
//
// A Context is safe for concurrent use: every call that touches the device
// holds the Context's lock, so goroutines may share one Context. Work from
// several goroutines is serialised on the device's single queue.
//
// Errors from wgpu (validation, out of memory, a device that stops
// answering) are returned as Go errors that name the operation; no panic
// escapes the package.
package wgpu

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gpu "github.com/oliverbestmann/webgpu/wgpu"
)

// Options choose the adapter and how its device is opened. The zero value
// opens the high-performance default adapter with its own limits and every
// optional feature it has. The library reads no environment variable:
// FromEnv translates the WGCOMPUTE_* variables into Options for programs
// that offer them.
type Options struct {
	// Backend restricts the choice to one backend: "vulkan", "gl", "metal"
	// or "dx12"; "cpu" chooses the CPU backend (Open returns
	// ErrCPUBackend, Choose says CPU). Empty means any.
	Backend string
	// Adapter picks an adapter among those of the backend, by index in the
	// order Adapters lists them, or by a case-insensitive name substring.
	Adapter string
	// Devices chooses the adapters of a Group (see OpenGroup); Choose
	// chooses a Group where it is set. Open ignores it.
	Devices string
	// Transfer tunes the host-device transfer path; the zero value is the
	// default measured best on our GPU machine.
	Transfer TransferOptions
	// Limits caps the limits the device is opened with: each non-zero
	// field lowers the adapter's limit to its value, and wgpu then rejects
	// any use beyond it, as a smaller GPU would. Every kernel family sizes
	// its pieces and workgroups from the Context's limits, so this is how
	// tests exercise small devices. The zero value grants the adapter's
	// own limits. WebGPULimits is the profile every conformant adapter
	// grants.
	Limits Limits
	// WaitLimit bounds a wait for the device (Run, Pending.Wait, Wait, a
	// transfer's mapping) by the work submitted: the wait gives up when
	// the queue has finished no submission for WaitLimit times the
	// dispatches of the oldest one still running (a copy counts as one
	// dispatch), with an error wrapping ErrWaitLimit that says the device
	// was not reported lost. Zero, the default, sets no bound: a wait
	// ends when its work is done or when the device is lost (the
	// device-lost callback, or a call refused as lost), however slow the
	// device is.
	WaitLimit time.Duration
	// NoShaderInt64 declines the shader-int64 feature where the adapter
	// has it, so the Goldilocks field stays on u32 pairs (the portable
	// kernels); by default a device gets every optional feature its
	// adapter has.
	NoShaderInt64 bool
	// NoSubgroups declines the subgroups feature, so eigen's reductions
	// stay in workgroup memory.
	NoSubgroups bool
	// ShaderChecks are the runtime checks kernels are compiled with; the
	// zero value is none (see ShaderChecks).
	ShaderChecks ShaderChecks
	// GLESMinor asks the GL backend for OpenGL ES 3.GLESMinor where it
	// opens OpenGL ES: "0", "1" or "2", or "auto" to leave it to wgpu.
	// Empty is "1", OpenGL ES 3.1, compute shaders' minimum. Each value
	// has its own instance, made on first use and kept for the process.
	GLESMinor string
}

// ShaderChecks are the runtime checks naga adds to every shader unless
// told not to: clamping every array and buffer index (ChecksBounds) and a
// counter on every loop (ChecksLoops, against the undefined behaviour of
// an endless loop). The kernels here index within bounds by construction
// (tested on every backend, and at the WebGPU limits) and every loop has a
// bound; the checks cost eigen's whole method 1.76x on an H200
// (BENCHMARKS.md), so by default kernels are made without them. They are
// a debugging aid: a kernel that misbehaves only without them indexes out
// of bounds. A browser always clamps, and ignores them.
type ShaderChecks uint8

// The runtime checks, as bits of ShaderChecks; their values are
// WGPUShaderRuntimeChecks' (static consts in wgpu.h, which cgo cannot
// reference).
const (
	ChecksBounds ShaderChecks = 1 << 0
	ChecksLoops  ShaderChecks = 1 << 1
	ChecksAll                 = ChecksBounds | ChecksLoops
)

// TransferOptions tune the staging ring that Upload and Download use.
type TransferOptions struct {
	SlotBytes uint64 // size of one staging buffer; default 32 MiB
	Slots     int    // staging buffers per direction; default 2
	Workers   int    // goroutines copying into or out of one slot; default min(NumCPU, 16)
	// MapWriteUploads keeps upload staging as WebGPU describes it
	// (MAP_WRITE | COPY_SRC) where, by default, Vulkan adapters with the
	// mappable-primary-buffers feature stage uploads in host memory: in
	// buffers made like download staging (MAP_READ | COPY_SRC, which wgpu
	// places in cached host memory), mapped for reading and written
	// through that mapping, which Vulkan's host-coherent memory allows.
	// wgpu-native 29 places MAP_WRITE staging in device memory that the
	// CPU writes across PCIe where the device exposes all of it
	// (resizable BAR): on an H200 that bounds uploads at 28 GB/s, against
	// 40.6-42.4 GB/s staged in host memory (BENCHMARKS.md). Other backends
	// always use MAP_WRITE staging: they give no such guarantee for writes
	// through a read mapping.
	MapWriteUploads bool
	// Batches says where a Batcher keeps its pieces: by default
	// (BatchAuto) in host memory where the device's memory is the host's,
	// else staged in device memory (see BatchMemory).
	Batches BatchMemory
}

// CPU reports whether o chooses the CPU backend: Open then returns
// ErrCPUBackend and Adapters lists none.
func (o Options) CPU() bool { return strings.EqualFold(o.Backend, "cpu") }

// Backends lists the accepted Options.Backend values.
var Backends = []string{"vulkan", "gl", "metal", "dx12"}

// ErrNoAdapter is wrapped by Open's error when no adapter matches.
var ErrNoAdapter = errors.New("wgpu: no GPU adapter found")

// ErrCPUBackend is returned by Open when Options.Backend is "cpu": callers
// use their pure-Go path (a nil Context) instead of a GPU.
var ErrCPUBackend = errors.New("wgpu: the cpu backend selects the CPU reference path")

// Limits are the device limits wgcompute relies on, as granted to the
// device (the adapter's own limits, with maxBufferSize clamped).
type Limits struct {
	MaxBufferSize              uint64 `json:"max_buffer_size"`          // largest single buffer, bytes
	MaxStorageBindingSize      uint64 `json:"max_storage_binding_size"` // largest storage binding, bytes
	MaxWorkgroupStorage        uint32 `json:"max_workgroup_storage"`    // bytes of var<workgroup> per workgroup
	MaxInvocationsPerWorkgroup uint32 `json:"max_invocations_per_workgroup"`
	MaxWorkgroupSizeX          uint32 `json:"max_workgroup_size_x"`
	MaxWorkgroupsPerDimension  uint32 `json:"max_workgroups_per_dimension"`
	MaxStorageBuffersPerStage  uint32 `json:"max_storage_buffers_per_stage"`
}

// AdapterInfo describes one adapter.
type AdapterInfo struct {
	Index      int    `json:"index"`      // position in Adapters' list
	Name       string `json:"name"`       // for example "NVIDIA H200" or "llvmpipe (LLVM 15.0.6, 256 bits)"
	Backend    string `json:"backend"`    // "vulkan", "gl", "metal", "dx12", ...
	Type       string `json:"type"`       // "discrete", "integrated", "cpu" or "unknown"
	Driver     string `json:"driver"`     // driver description, when the backend reports one
	Timestamps bool   `json:"timestamps"` // GPU timestamp queries available (kernel timing)
	Limits     Limits `json:"limits"`
	// Features lists the optional features the kernels can use that the
	// adapter has: "shader-int64" (64-bit integers in WGSL), "subgroups",
	// "timestamp-query".
	Features []string `json:"features"`
	// TimestampPeriod is the nanoseconds per GPU timestamp tick, which
	// kernel times are scaled by; known once a device is open (Context.Info),
	// zero in Adapters' listing.
	TimestampPeriod float64 `json:"timestamp_period_ns,omitempty"`
	// Unusable says why the adapter cannot run compute kernels, if it
	// cannot; such an adapter is listed, never chosen by default, and
	// Open on it returns this reason.
	Unusable string `json:"unusable,omitempty"`
}

// optionalFeatures are the features AdapterInfo.Features reports, by name.
var optionalFeatures = []struct {
	name string
	f    gpu.FeatureName
}{
	{"shader-int64", gpu.NativeFeatureShaderInt64},
	{"subgroups", gpu.NativeFeatureSubgroup},
	{"timestamp-query", gpu.FeatureNameTimestampQuery},
}

// HasFeature reports whether the adapter has the named optional feature.
func (a AdapterInfo) HasFeature(name string) bool { return slices.Contains(a.Features, name) }

// unusableGL returns why a GL adapter whose driver reports version
// cannot run compute shaders: a desktop OpenGL context below 4.3 (what
// wgpu-native 29 opens through NVIDIA's EGL: a 3.3 core context) has
// none. OpenGL ES versions ("OpenGL ES 3.1 ...") are left to wgpu.
func unusableGL(version string) string {
	var major, minor int
	if _, err := fmt.Sscanf(version, "%d.%d", &major, &minor); err != nil {
		return ""
	}
	if major > 4 || major == 4 && minor >= 3 {
		return ""
	}
	return fmt.Sprintf("its OpenGL %d.%d context has no compute shaders (4.3 or OpenGL ES 3.1 is needed; "+
		"wgpu-native 29 opens desktop OpenGL 3.3 through NVIDIA's EGL): use its Vulkan adapter", major, minor)
}

// WebGPULimits are the limits the WebGPU specification guarantees on every
// adapter: a device opened with them behaves as the smallest conformant GPU
// (and every browser) does.
var WebGPULimits = Limits{
	MaxBufferSize:              256 << 20,
	MaxStorageBindingSize:      128 << 20,
	MaxWorkgroupStorage:        16 << 10,
	MaxInvocationsPerWorkgroup: 256,
	MaxWorkgroupSizeX:          256,
	MaxWorkgroupsPerDimension:  65535,
	MaxStorageBuffersPerStage:  8,
}

// LimitProfiles names the values WGCOMPUTE_LIMITS accepts.
var LimitProfiles = map[string]Limits{"webgpu": WebGPULimits}

// capLimits lowers l to the non-zero fields of lim; the WebGPU profile also
// caps what Limits does not name to the specification's defaults.
func capLimits(l gpu.Limits, lim Limits) gpu.Limits {
	low64 := func(v *uint64, c uint64) {
		if c != 0 && c < *v {
			*v = c
		}
	}
	low32 := func(v *uint32, c uint32) {
		if c != 0 && c < *v {
			*v = c
		}
	}
	low64(&l.MaxBufferSize, lim.MaxBufferSize)
	low64(&l.MaxStorageBufferBindingSize, lim.MaxStorageBindingSize)
	low32(&l.MaxComputeWorkgroupStorageSize, lim.MaxWorkgroupStorage)
	low32(&l.MaxComputeInvocationsPerWorkgroup, lim.MaxInvocationsPerWorkgroup)
	low32(&l.MaxComputeWorkgroupSizeX, lim.MaxWorkgroupSizeX)
	low32(&l.MaxComputeWorkgroupsPerDimension, lim.MaxWorkgroupsPerDimension)
	low32(&l.MaxStorageBuffersPerShaderStage, lim.MaxStorageBuffersPerStage)
	if lim.webgpu() {
		// Alignments are minimums: the profile raises them to the
		// specification's 256, which lavapipe (32) would otherwise relax.
		l.MinStorageBufferOffsetAlignment = max(l.MinStorageBufferOffsetAlignment, 256)
		l.MinUniformBufferOffsetAlignment = max(l.MinUniformBufferOffsetAlignment, 256)
		low32(&l.MaxComputeWorkgroupSizeY, 256)
		low32(&l.MaxComputeWorkgroupSizeZ, 64)
		low64(&l.MaxUniformBufferBindingSize, 64<<10)
		low32(&l.MaxUniformBuffersPerShaderStage, 12)
		low32(&l.MaxBindGroups, 4)
	}
	if l.MaxBufferSize < l.MaxStorageBufferBindingSize {
		l.MaxStorageBufferBindingSize = l.MaxBufferSize
	}
	return l
}

// webgpu reports whether lim is at or under the WebGPU profile in every
// field it names: such a device is treated as the profile's throughout.
func (lim Limits) webgpu() bool {
	return lim == lim.Min(WebGPULimits) && lim.MaxBufferSize != 0 && lim.MaxStorageBindingSize != 0 &&
		lim.MaxWorkgroupStorage != 0 && lim.MaxInvocationsPerWorkgroup != 0
}

// Min returns the field-by-field minimum of lim and o, where a zero field
// means "no cap" and loses to any other value.
func (lim Limits) Min(o Limits) Limits {
	m64 := func(a, b uint64) uint64 {
		if a == 0 || (b != 0 && b < a) {
			return b
		}
		return a
	}
	m32 := func(a, b uint32) uint32 {
		if a == 0 || (b != 0 && b < a) {
			return b
		}
		return a
	}
	return Limits{
		MaxBufferSize:              m64(lim.MaxBufferSize, o.MaxBufferSize),
		MaxStorageBindingSize:      m64(lim.MaxStorageBindingSize, o.MaxStorageBindingSize),
		MaxWorkgroupStorage:        m32(lim.MaxWorkgroupStorage, o.MaxWorkgroupStorage),
		MaxInvocationsPerWorkgroup: m32(lim.MaxInvocationsPerWorkgroup, o.MaxInvocationsPerWorkgroup),
		MaxWorkgroupSizeX:          m32(lim.MaxWorkgroupSizeX, o.MaxWorkgroupSizeX),
		MaxWorkgroupsPerDimension:  m32(lim.MaxWorkgroupsPerDimension, o.MaxWorkgroupsPerDimension),
		MaxStorageBuffersPerStage:  m32(lim.MaxStorageBuffersPerStage, o.MaxStorageBuffersPerStage),
	}
}

func publicLimits(l gpu.Limits) Limits {
	return Limits{
		MaxBufferSize:              l.MaxBufferSize,
		MaxStorageBindingSize:      l.MaxStorageBufferBindingSize,
		MaxWorkgroupStorage:        l.MaxComputeWorkgroupStorageSize,
		MaxInvocationsPerWorkgroup: l.MaxComputeInvocationsPerWorkgroup,
		MaxWorkgroupSizeX:          l.MaxComputeWorkgroupSizeX,
		MaxWorkgroupsPerDimension:  l.MaxComputeWorkgroupsPerDimension,
		MaxStorageBuffersPerStage:  l.MaxStorageBuffersPerShaderStage,
	}
}

// maxBufferClamp bounds maxBufferSize when an adapter reports 2^64-1: the C
// API reads that value as "undefined" and would grant the 256 MiB default.
const maxBufferClamp = 1 << 36

// Context is an open device on one adapter.
type Context struct {
	mu sync.Mutex
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
	info            AdapterInfo
	kernels         map[kernelKey]*Kernel
	modules         map[string]*gpu.ShaderModule // by module identity
	// liveBuffers counts Buffers handed out and not yet released.
	liveBuffers int
	closed      bool
	timers      []*timer      // free timestamp sets, one per submission in flight
	uniforms    []*uniformBuf // free parameter buffers
	staging     *stagingPool
	pool        []pooled // released buffers, oldest first
	poolBytes   uint64
	// hostPool holds released host buffers of Batchers (family_host.go).
	hostPool      []*hostBuffer
	hostPoolBytes uint64
	waitLimit     time.Duration // Options.WaitLimit
	// running holds the dispatches of each submission not yet seen
	// finished, oldest first, and retired how many were taken off its
	// front: what a wait's bound scales with (pollUntil).
	running []int
	retired uint64
}

func backendName(b gpu.BackendType) string {
	switch b {
	case gpu.BackendTypeVulkan:
		return "vulkan"
	case gpu.BackendTypeOpenGL, gpu.BackendTypeOpenGLES:
		return "gl"
	case gpu.BackendTypeMetal:
		return "metal"
	case gpu.BackendTypeD3D12:
		return "dx12"
	case gpu.BackendTypeD3D11:
		return "dx11"
	case gpu.BackendTypeWebGPU:
		return "webgpu" // a browser's adapter
	}
	return strings.ToLower(b.String())
}

func typeName(t gpu.AdapterType) string {
	switch t {
	case gpu.AdapterTypeDiscreteGPU:
		return "discrete"
	case gpu.AdapterTypeIntegratedGPU:
		return "integrated"
	case gpu.AdapterTypeCPU:
		return "cpu"
	}
	return "unknown"
}

// The binding defines only InstanceBackendAll; these are wgpu-native's
// WGPUInstanceBackend bits.
const (
	backendVulkan  gpu.InstanceBackend = 1 << 0
	backendGL      gpu.InstanceBackend = 1 << 1
	backendMetal   gpu.InstanceBackend = 1 << 2
	backendDX12    gpu.InstanceBackend = 1 << 3
	backendBrowser gpu.InstanceBackend = 1 << 5
	backendPrimary                     = backendVulkan | backendMetal | backendDX12 | backendBrowser
)

func instanceBackends(name string) (gpu.InstanceBackend, error) {
	switch strings.ToLower(name) {
	case "":
		return backendPrimary | backendGL, nil
	case "vulkan", "vk":
		return backendVulkan, nil
	case "gl", "opengl", "gles":
		return backendGL, nil
	case "metal":
		return backendMetal, nil
	case "dx12", "d3d12":
		return backendDX12, nil
	}
	return 0, fmt.Errorf("wgpu: unknown backend %q: accepted are %s (or cpu for the reference path)", name, strings.Join(Backends, ", "))
}

func adapterLimits(a *gpu.Adapter) (gpu.Limits, Limits) {
	l := a.GetLimits()
	if l.MaxBufferSize > maxBufferClamp {
		l.MaxBufferSize = maxBufferClamp
	}
	if l.MaxBufferSize < l.MaxStorageBufferBindingSize {
		l.MaxStorageBufferBindingSize = l.MaxBufferSize
	}
	return l, publicLimits(l)
}

func describe(i int, a *gpu.Adapter) AdapterInfo {
	p := adapterInfo(a)
	_, lim := adapterLimits(a)
	info := AdapterInfo{
		Index:      i,
		Name:       p.Device,
		Backend:    backendName(p.BackendType),
		Type:       typeName(p.AdapterType),
		Driver:     strings.TrimSpace(p.Description),
		Timestamps: a.HasFeature(gpu.FeatureNameTimestampQuery),
		Limits:     lim,
	}
	for _, f := range optionalFeatures {
		if a.HasFeature(f.f) {
			info.Features = append(info.Features, f.name)
		}
	}
	if info.Backend == "gl" {
		info.Unusable = unusableGL(info.Driver)
	}
	return info
}

// rank orders adapters for the default choice: discrete before integrated
// before CPU, and native backends before GL within a type.
func rank(info AdapterInfo) int {
	r := map[string]int{"discrete": 0, "integrated": 10, "unknown": 20, "cpu": 30}[info.Type]
	if info.Backend == "gl" {
		r += 5
	}
	if info.Unusable != "" {
		r += 100
	}
	return r
}

// check returns the error Open gives for settings of o it does not
// accept, whatever the adapters.
func (o Options) check() error {
	if o.WaitLimit < 0 {
		return fmt.Errorf("wgpu: Options.WaitLimit %v: accepted is 0 (no limit) or a positive duration", o.WaitLimit)
	}
	if o.ShaderChecks&^ChecksAll != 0 {
		return fmt.Errorf("wgpu: Options.ShaderChecks %d: accepted are 0 (none), ChecksBounds, ChecksLoops and ChecksAll", o.ShaderChecks)
	}
	if o.Transfer.Batches < BatchAuto || o.Transfer.Batches > BatchHost {
		return fmt.Errorf("wgpu: Options.Transfer.Batches %d: accepted are BatchAuto, BatchDevice and BatchHost", int(o.Transfer.Batches))
	}
	_, err := glesMinor(o.GLESMinor)
	return err
}

// BatchMemory is where a Batcher keeps the pieces of a batch: in device
// memory, uploaded and read back through the staging ring, or in host
// memory that the kernels read and write in place across the bus (Vulkan
// with mappable primary buffers only; elsewhere pieces are always in
// device memory). wgpu-native has one queue per device, so a staged
// piece's copies and its kernels run one after the other; in host memory
// the host fills one piece's inputs and copies out the last one's output
// while the kernels of the piece between them run, and there are no
// copies on the queue. Measured (BENCHMARKS.md, 2026-11-26): on an H200,
// a discrete GPU, the kernels reading host memory took 112-118 ms for
// 2^24 Poseidon2 merges instead of 23-27, 185-196 ms end to end against
// 81-84 staged; on lavapipe, whose memory is the host's, 2^20 Goldilocks
// products took 18.0-19.1 ms end to end in host memory against 24.0-24.5
// staged (u64emu BenchmarkMulTo).
type BatchMemory int

const (
	// BatchAuto, the zero value, keeps pieces in host memory on adapters
	// of type "cpu" and "integrated", whose memory is the host's, and in
	// device memory on the others. (Of the first kind only lavapipe was
	// measured; an integrated GPU shares the host's memory as it does.)
	BatchAuto BatchMemory = iota
	// BatchDevice keeps pieces in device memory.
	BatchDevice
	// BatchHost keeps pieces in host memory wherever the device allows it.
	BatchHost
)

var batchMemoryNames = [...]string{BatchAuto: "auto", BatchDevice: "device", BatchHost: "host"}

// String names m as ParseBatchMemory reads it.
func (m BatchMemory) String() string {
	if m >= BatchAuto && m <= BatchHost {
		return batchMemoryNames[m]
	}
	return fmt.Sprintf("BatchMemory(%d)", int(m))
}

// ParseBatchMemory reads "auto", "device" or "host" (in any case).
func ParseBatchMemory(s string) (BatchMemory, error) {
	for m, name := range batchMemoryNames {
		if strings.EqualFold(s, name) {
			return BatchMemory(m), nil
		}
	}
	return BatchAuto, fmt.Errorf("accepted are auto (the default: in host memory where the device's memory is the host's), device (batches staged in device memory) and host (kernels read and write batches in host memory where the device allows it)")
}

// glesMinor reads Options.GLESMinor as a WGPUGles3MinorVersion: by
// default 2, Version1.
func glesMinor(v string) (int, error) {
	switch v {
	case "":
		return 2, nil
	case "auto":
		return 0, nil
	case "0", "1", "2":
		return int(v[0]-'0') + 1, nil
	}
	return 0, fmt.Errorf("wgpu: Options.GLESMinor %q: accepted are 0, 1, 2, auto, and empty for 1", v)
}

// enumeration is one instance of a set of backends and its adapters, made
// on first use and kept for the process: instances are never released
// (with the GL backend, releasing an instance terminates the EGL display
// that every GL device of the process shares, and their next call aborts),
// and GPUs do not come and go while a process runs. An instance holds only
// the backends asked for, so opening Vulkan never initialises EGL.
type enumeration struct {
	adapters []*gpu.Adapter
	infos    []AdapterInfo
	err      error
}

var (
	enumMu       sync.Mutex // guards the two maps
	enumerations = map[instanceKey]*enumeration{}
	enumLocks    = map[instanceKey]*sync.Mutex{} // held while that key's instance is made
	logOnce      sync.Once
)

// instanceKey is what an instance is made with: its backends, and the
// OpenGL ES version its GL backend asks for (a WGPUGles3MinorVersion).
type instanceKey struct {
	backends gpu.InstanceBackend
	minor    int
}

// adaptersOf returns the instance of the backends and the GL version
// opts choose, with its adapters.
func adaptersOf(opts Options) (*enumeration, error) {
	key, err := instanceKeyOf(opts)
	if err != nil {
		return nil, err
	}
	return instanceOf(key), nil
}

// instanceKeyOf is the key of the instance opts choose.
func instanceKeyOf(opts Options) (instanceKey, error) {
	backends, err := instanceBackends(opts.Backend)
	if err != nil {
		return instanceKey{}, err
	}
	minor, err := glesMinor(opts.GLESMinor)
	if err != nil {
		return instanceKey{}, err
	}
	return instanceKey{backends, minor}, nil
}

// splitInstances: every backend is listed from two instances (instanceOf).
// In the browser there is one instance, navigator.gpu, whatever the
// backends asked for.
const splitInstances = runtime.GOOS != "js"

// instanceOf returns the instance of key, with its adapters, made once.
func instanceOf(key instanceKey) *enumeration {
	if name := primaryBackendName(key.backends); name != "" && splitInstances {
		// One primary backend is the primary instance's adapters of that
		// backend: the instance that Open's default choice makes anyway
		// (choiceOf), not a second one of the same driver (a Vulkan
		// instance took 45-80 ms on the H200 machine, 2026-11-26).
		return only(instanceOf(instanceKey{backendPrimary, key.minor}), name)
	}
	if key.backends == backendPrimary|backendGL && splitInstances {
		// Every backend is two instances, the primary backends' and GL's,
		// each made once, so that Open's default choice can stop at the
		// first (choiceOf) and a later listing of all does not make it
		// again. They are made at once: each waits on its own driver
		// (Vulkan's loader, EGL).
		var gl *enumeration
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer func() {
				if r := recover(); r != nil {
					gl = &enumeration{err: fmt.Errorf("wgpu: list GL adapters: %v", r)}
				}
			}()
			gl = instanceOf(instanceKey{backendGL, key.minor})
		}()
		primary := instanceOf(instanceKey{backendPrimary, key.minor})
		<-done
		return merged(primary, gl)
	}
	enumMu.Lock()
	mu := enumLocks[key]
	if mu == nil {
		mu = new(sync.Mutex)
		enumLocks[key] = mu
	}
	enumMu.Unlock()
	mu.Lock()
	defer mu.Unlock()
	enumMu.Lock()
	e := enumerations[key]
	enumMu.Unlock()
	if e != nil {
		return e
	}
	logOnce.Do(func() { gpu.SetLogLevel(logLevel.Load().(gpu.LogLevel)) })
	end := Span("create instance")
	inst, err := createInstance(key.backends, key.minor)
	end(0)
	e = &enumeration{err: err}
	if err != nil {
		return e // not kept: the system may be corrected
	}
	end = Span("enumerate adapters")
	e.adapters, e.infos = enumerate(inst, key.backends)
	end(0)
	enumMu.Lock()
	enumerations[key] = e
	enumMu.Unlock()
	return e
}

// choiceOf returns the adapters Open chooses among for opts. Where opts
// name neither a backend nor an adapter, the primary backends (Vulkan,
// Metal, D3D12) are listed first, and every backend only when their
// default choice is not a usable discrete GPU: a GL adapter ranks after a
// native one of its type (rank), so it could not be chosen then, and GL's
// instance (EGL) costs about as much again as Vulkan's (100-195 ms for
// both on the H100 machine). A named adapter is an index into the list of
// every backend, which needs them all.
func choiceOf(opts Options) (*enumeration, error) {
	key, err := instanceKeyOf(opts)
	if err != nil {
		return nil, err
	}
	if opts.Backend == "" && opts.Adapter == "" && splitInstances {
		if e := instanceOf(instanceKey{backendPrimary, key.minor}); e.err == nil && len(e.infos) > 0 && primarySuffices(e.infos[0]) {
			return e, nil
		}
	}
	return instanceOf(key), nil
}

// primarySuffices reports whether the first adapter of the primary
// backends, first is the default choice among every backend's: a usable
// discrete GPU, which no GL adapter outranks.
func primarySuffices(first AdapterInfo) bool {
	return first.Type == "discrete" && first.Unusable == ""
}

// primaryBackendName is the backend name of bits when they are one of the
// primary backends, else "".
func primaryBackendName(bits gpu.InstanceBackend) string {
	switch bits {
	case backendVulkan:
		return "vulkan"
	case backendMetal:
		return "metal"
	case backendDX12:
		return "dx12"
	}
	return ""
}

// only is the enumeration of e's adapters of one backend, in e's order,
// indexed from 0 as an instance of that backend alone would list them.
func only(e *enumeration, backend string) *enumeration {
	if e.err != nil {
		return e
	}
	out := &enumeration{}
	for i, info := range e.infos {
		if info.Backend == backend {
			info.Index = len(out.infos)
			out.adapters = append(out.adapters, e.adapters[i])
			out.infos = append(out.infos, info)
		}
	}
	return out
}

// merged is the enumeration of a's backends and b's together, as one
// instance of both would list them: wgpu enumerates backends in a fixed
// order (Vulkan, Metal, D3D12, then GL), and ranked sorts stably, so
// ranking a's list followed by b's gives the same order and indices.
func merged(a, b *enumeration) *enumeration {
	if a.err != nil {
		return a
	}
	if b.err != nil {
		return b
	}
	e := &enumeration{}
	e.adapters, e.infos = ranked(slices.Concat(a.adapters, b.adapters), slices.Concat(a.infos, b.infos))
	return e
}

// logLevel is wgpu-native's log level, set on the first instance and by
// SetLogLevel.
var logLevel atomic.Value // gpu.LogLevel

func init() { logLevel.Store(gpu.LogLevelError) }

// LogLevels names the levels SetLogLevel accepts, quietest first.
var LogLevels = []string{"error", "warn", "info", "debug"}

// SetLogLevel sets, for the process, what wgpu-native prints on standard
// error: "error" (the default, or empty), "warn", "info" or "debug". wgpu
// warns about normal conditions (EGL's "No config found!" on every GL
// device), which the default keeps quiet.
func SetLogLevel(level string) error {
	l, err := parseLogLevel(level)
	if err != nil {
		return err
	}
	logLevel.Store(l)
	gpu.SetLogLevel(l)
	return nil
}

func parseLogLevel(level string) (gpu.LogLevel, error) {
	switch strings.ToLower(level) {
	case "", "error":
		return gpu.LogLevelError, nil
	case "warn":
		return gpu.LogLevelWarn, nil
	case "info":
		return gpu.LogLevelInfo, nil
	case "debug":
		return gpu.LogLevelDebug, nil
	}
	return 0, fmt.Errorf("wgpu: log level %q: accepted are %s", level, strings.Join(LogLevels, ", "))
}

// enumerate lists the adapters of the given backends in a stable order:
// the default choice first.
func enumerate(inst *gpu.Instance, backends gpu.InstanceBackend) ([]*gpu.Adapter, []AdapterInfo) {
	adapters := inst.EnumerateAdapters(&gpu.InstanceEnumerateAdapterOptons{Backends: backends})
	infos := make([]AdapterInfo, len(adapters))
	for i, a := range adapters {
		infos[i] = describe(i, a)
	}
	return ranked(adapters, infos)
}

// ranked returns adapters and their infos in the order of the default
// choice (rank), stably, with the infos' indices set to their place.
func ranked(adapters []*gpu.Adapter, infos []AdapterInfo) ([]*gpu.Adapter, []AdapterInfo) {
	order := make([]int, len(adapters))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return rank(infos[order[x]]) < rank(infos[order[y]]) })
	sa := make([]*gpu.Adapter, len(adapters))
	si := make([]AdapterInfo, len(adapters))
	for k, i := range order {
		sa[k] = adapters[i]
		si[k] = infos[i]
		si[k].Index = k
	}
	return sa, si
}

// Adapters lists the adapters of the backend named in opts (all backends
// when empty), the default choice first. Adapter selection in opts is
// ignored.
func Adapters(opts Options) ([]AdapterInfo, error) {
	if opts.CPU() {
		return nil, nil
	}
	e, err := adaptersOf(opts)
	if err != nil {
		return nil, err
	}
	if e.err != nil {
		return nil, e.err
	}
	return append([]AdapterInfo(nil), e.infos...), nil
}

// pickAdapter returns the index in infos, which is not empty, of the
// adapter opts.Adapter names: an index, or the first whose name holds it
// in any case; the first, the default choice, when it is empty.
func pickAdapter(infos []AdapterInfo, opts Options) (int, error) {
	if opts.Adapter == "" {
		return 0, nil
	}
	if n, err := strconv.Atoi(opts.Adapter); err == nil {
		if n >= 0 && n < len(infos) {
			return n, nil
		}
	} else {
		for i, info := range infos {
			if strings.Contains(strings.ToLower(info.Name), strings.ToLower(opts.Adapter)) {
				return i, nil
			}
		}
	}
	where := ""
	if opts.Backend != "" {
		where = " for backend " + opts.Backend
	}
	names := make([]string, len(infos))
	for i, info := range infos {
		names[i] = fmt.Sprintf("%d: %s (%s)", i, info.Name, info.Backend)
	}
	return 0, fmt.Errorf("%w: no adapter matches %q%s; adapters are: %s",
		ErrNoAdapter, opts.Adapter, where, strings.Join(names, "; "))
}

// ChosenAdapter returns the adapter Open(opts) would open, without
// opening it: the same backend and adapter matching, and the same
// errors, except that an adapter that cannot run kernels is returned, its
// Unusable saying why.
func ChosenAdapter(opts Options) (AdapterInfo, error) {
	if err := opts.check(); err != nil {
		return AdapterInfo{}, err
	}
	if opts.CPU() {
		return AdapterInfo{}, ErrCPUBackend
	}
	e, err := choiceOf(opts)
	if err != nil {
		return AdapterInfo{}, err
	}
	if e.err != nil {
		return AdapterInfo{}, e.err
	}
	infos := e.infos
	if len(infos) == 0 {
		return AdapterInfo{}, noAdapterError(opts)
	}
	pick, err := pickAdapter(infos, opts)
	if err != nil {
		return AdapterInfo{}, err
	}
	return infos[pick], nil
}

// noAdapterError is Open's error when the backend opts name has no
// adapter here.
func noAdapterError(opts Options) error { return NoAdapterError(opts.Backend) }

// NoAdapterError returns the error, wrapping ErrNoAdapter, that Open
// returns when backend (any when empty) has no adapter on this system: it
// names what was tried and why it cannot work here, for callers that find
// Adapters' list empty.
func NoAdapterError(backend string) error { return noAdapterFor(backend, runtime.GOOS) }

// noAdapterFor says what was tried, the backend named (any when empty),
// and why it found nothing on the system goos: a backend the system does
// not have is named as such, since no driver would bring it.
func noAdapterFor(backend, goos string) error {
	var why string
	switch b := strings.ToLower(backend); {
	case b == "metal" && goos != "darwin" && goos != "ios":
		why = "Metal exists only on macOS and iOS, and this system is " + goos + ": " + otherBackends(goos)
	case (b == "dx12" || b == "d3d12") && goos != "windows":
		why = "D3D12 exists only on Windows, and this system is " + goos + ": " + otherBackends(goos)
	case b == "metal":
		why = "no Metal device found: check that the GPU is supported and enabled"
	case b == "dx12" || b == "d3d12":
		why = "no D3D12 device found: install or update the GPU's driver"
	case (b == "vulkan" || b == "vk") && goos == "darwin":
		why = "no Vulkan driver found: macOS has Vulkan only through MoltenVK; " + otherBackends(goos)
	case (b == "vulkan" || b == "vk") && goos == "linux":
		why = "no Vulkan driver found: install the GPU's Vulkan driver, or Mesa's lavapipe (Debian: apt-get install mesa-vulkan-drivers libvulkan1)"
	case b == "vulkan" || b == "vk":
		why = "no Vulkan driver found: install the GPU's Vulkan driver"
	case b != "" && goos == "linux":
		why = "no OpenGL or OpenGL ES driver found through EGL: install the GPU's driver, or Mesa's llvmpipe (Debian: apt-get install libegl-mesa0 libgl1-mesa-dri libgles2)"
	case b != "":
		why = "no OpenGL or OpenGL ES driver found through EGL: " + otherBackends(goos)
	default:
		return fmt.Errorf("%w: install a GPU driver, or Mesa's software drivers "+
			"(Debian: apt-get install mesa-vulkan-drivers libvulkan1 for Vulkan, "+
			"libegl-mesa0 libgl1-mesa-dri libgles2 for GL); backends accepted: %s",
			ErrNoAdapter, strings.Join(Backends, ", "))
	}
	return fmt.Errorf("%w for backend %s: %s", ErrNoAdapter, backend, why)
}

// otherBackends names the backends worth trying on the system goos.
func otherBackends(goos string) string {
	switch goos {
	case "darwin", "ios":
		return "choose metal, or any backend"
	case "windows":
		return "choose dx12, vulkan or gl, or any backend"
	}
	return "choose vulkan or gl, or any backend"
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
func Open(opts Options) (ctx *Context, err error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	if opts.CPU() {
		return nil, ErrCPUBackend
	}
	defer func() {
		if r := recover(); r != nil {
			ctx, err = nil, fmt.Errorf("wgpu: open: %v", r)
		}
	}()
	e, err := choiceOf(opts)
	if err != nil {
		return nil, err
	}
	if e.err != nil {
		return nil, e.err
	}
	adapters, infos := e.adapters, e.infos
	if len(adapters) == 0 {
		return nil, noAdapterError(opts)
	}
	pick, err := pickAdapter(infos, opts)
	if err != nil {
		return nil, err
	}
	if infos[pick].Unusable != "" {
		return nil, unusableError(infos[pick])
	}
	adapter := adapters[pick]
	limits, _ := adapterLimits(adapter)
	limits = capLimits(limits, opts.Limits)
	int64 := infos[pick].HasFeature("shader-int64") && !opts.NoShaderInt64
	subgroups := infos[pick].HasFeature("subgroups") && !opts.NoSubgroups
	key := idleKey{adapter, limits, int64, subgroups, opts.ShaderChecks}
	if c := reuse(key); c != nil {
		Span("reuse a closed device")(0)
		c.staging = newStagingPool(c, opts.Transfer)
		c.waitLimit = opts.WaitLimit
		return c, nil
	}
	defer Span("request device")(0)
	c := &Context{key: key, info: infos[pick], kernels: map[kernelKey]*Kernel{}, modules: map[string]*gpu.ShaderModule{}}
	c.info.Limits = publicLimits(limits)
	var features []gpu.FeatureName
	if c.info.Timestamps {
		features = append(features, gpu.FeatureNameTimestampQuery)
	}
	if adapter.HasFeature(gpu.NativeFeatureMappablePrimaryBuffers) {
		// Upload staging and the Batcher's host pieces use it
		// (TransferOptions.MapWriteUploads, Batches).
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
	c.waitLimit = opts.WaitLimit
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

// Closed devices are kept for the next Open of the same adapter and
// limits instead of being released: wgpu 0.17 freed a released device only
// when a poll found it unused, which never happened once it was released,
// so each Open/Close cycle leaked about 3 MB and a driver thread (lavapipe,
// 200 cycles grew a process from 85 to 697 MB, 2026-11-23); a parked device
// also keeps its compiled kernels, which makes the next Open cheaper.
// A parked device has no buffers of the caller's and no staging memory; it
// keeps its compiled kernels, so the next Open also skips their compiles.
type idleKey struct {
	adapter   *gpu.Adapter
	limits    gpu.Limits
	int64     bool         // the shader-int64 feature enabled
	subgroups bool         // the subgroups feature enabled
	checks    ShaderChecks // the runtime checks its kernels are compiled with
}

var (
	idleMu sync.Mutex
	idle   = map[idleKey][]*Context{}
)

// park moves c's device into a fresh Context in the idle pool; c stays
// closed. Callers hold c.mu.
func (c *Context) park() {
	p := &Context{key: c.key, device: c.device, native: c.native, queue: c.queue, mappablePrimary: c.mappablePrimary, info: c.info,
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
