package wgpu

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	gpu "github.com/oliverbestmann/webgpu/wgpu"
)

// Options choose the adapter and how its device is opened. The zero value
// opens the high-performance default adapter with its own limits and every
// optional feature it has. The library reads no environment variable (but
// XDG_RUNTIME_DIR, see Open): programs that offer the WGCOMPUTE_*
// variables (wgbench, README lists them) translate them into Options.
type Options struct {
	// Backend restricts the choice to one backend: "vulkan", "gl", "metal"
	// or "dx12"; "cpu" chooses the CPU backend (Open returns
	// ErrCPUBackend, Choose says CPU). Empty means any.
	Backend string
	// Adapter picks an adapter among those of the backend, by index in the
	// order Adapters lists them, or by a case-insensitive name substring.
	Adapter string
	// Devices chooses several adapters, one device each, for a Group
	// (package sched); Choose chooses them where it is set, and Open
	// ignores it. It is
	//
	//   - "" or "all": every adapter that is not a CPU (software) adapter;
	//     a machine whose only adapter is a CPU one gets that one alone;
	//   - a count "N": the first N of those, an error if there are fewer;
	//   - a list of adapter indices "0,1", as Adapters lists them for the
	//     backend (the list may name a CPU adapter, but an index only
	//     once: "0,0" is an error, most likely a typing mistake;
	//     sched.NewGroup builds a Group with a Context twice, for tests).
	//
	// The adapters are one backend's: Backend, or the default adapter's
	// backend when that is empty, so that a GPU is never opened twice
	// through its Vulkan and GL twins.
	Devices string
	// Transfer tunes the host-device transfer path; the zero value is the
	// default measured best on our GPU machine.
	Transfer TransferOptions
	// Runner tunes the Context's job runners (sched.Runner); the zero
	// value is the default measured best on each kind of adapter.
	Runner RunnerOptions
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
	// WaitLimitName is what errors call WaitLimit: the setting the user
	// gave it through, such as "WGCOMPUTE_WAIT_LIMIT" where a program read
	// it from that variable. Empty is "Options.WaitLimit".
	WaitLimitName string
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

// ShaderChecks are the runtime checks naga adds to every shader unless told
// not to: clamping every array and buffer index (ChecksBounds) and a counter
// on every loop (ChecksLoops, against the undefined behaviour of an endless
// loop). The kernels here index within bounds by construction (tested on
// every backend, and at the WebGPU limits) and every loop has a bound; the
// checks slow eigen's whole method markedly on NVIDIA
// (bench/results/HISTORY.md, "The gate: kernels, old binding against
// new"), so by default kernels are made without them. They are a debugging
// aid: a kernel that misbehaves only without them indexes out of bounds. A
// browser always clamps, and ignores them.
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
	// (resizable BAR), which bounds uploads well below staging in host
	// memory on NVIDIA (BENCHMARKS.md, "Transfers";
	// bench/results/HISTORY.md, "Upload staging in host memory"). Other
	// backends always use MAP_WRITE staging: they give no such guarantee
	// for writes through a read mapping.
	MapWriteUploads bool
}

// RunnerOptions tune the job runners of a Context (package sched's
// Runner and Run, and the item-parallel jobs of every algorithm run on
// it). They are the device's settings, read when it opens, since they
// choose what memory it keeps (Context.HostPieces).
type RunnerOptions struct {
	// Memory says where a Runner keeps a job's pieces: by default
	// (PiecesAuto) in host memory where the device's memory is the host's,
	// else staged in device memory (see PieceMemory).
	Memory PieceMemory
}

// CPU reports whether o chooses the CPU backend: Open then returns
// ErrCPUBackend and Adapters lists none.
func (o Options) CPU() bool { return strings.EqualFold(o.Backend, "cpu") }

// Backends lists the accepted Options.Backend values.
var Backends = []string{"vulkan", "gl", "metal", "dx12"}

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

// Binding returns the most bytes one storage binding takes: the storage
// binding limit, within one buffer.
func (lim Limits) Binding() uint64 { return min(lim.MaxStorageBindingSize, lim.MaxBufferSize) }

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

// check returns the error Open gives for settings of o it does not
// accept, whatever the adapters.
func (o Options) check() error {
	if o.WaitLimit < 0 {
		return fmt.Errorf("wgpu: %s %v: accepted is 0 (no limit) or a positive duration", o.waitLimitName(), o.WaitLimit)
	}
	if o.ShaderChecks&^ChecksAll != 0 {
		return fmt.Errorf("wgpu: Options.ShaderChecks %d: accepted are 0 (none), ChecksBounds, ChecksLoops and ChecksAll", o.ShaderChecks)
	}
	if o.Runner.Memory < PiecesAuto || o.Runner.Memory > PiecesInHost {
		return fmt.Errorf("wgpu: Options.Runner.Memory %d: accepted are PiecesAuto, PiecesInDevice and PiecesInHost", int(o.Runner.Memory))
	}
	if err := CheckTransferOptions(o.Transfer); err != nil {
		return err
	}
	_, err := glesMinor(o.GLESMinor)
	return err
}

// waitLimitName is what errors call o.WaitLimit.
func (o Options) waitLimitName() string {
	if o.WaitLimitName != "" {
		return o.WaitLimitName
	}
	return "Options.WaitLimit"
}

// The ranges CheckTransferOptions accepts.
const (
	// MinSlotBytes is the smallest TransferOptions.SlotBytes: the smallest
	// staging buffer made.
	MinSlotBytes = minSlot
	// MaxSlotBytes is the largest TransferOptions.SlotBytes: no device's
	// buffers are taken to be larger (a slot is cut to the device's
	// largest buffer anyway).
	MaxSlotBytes = maxBufferClamp
	// MaxSlots is the most staging buffers per direction.
	MaxSlots = 64
)

// CheckTransferOptions returns the error Open gives for t, or nil: it
// accepts a SlotBytes of 0 (the default) or from MinSlotBytes to
// MaxSlotBytes, Slots from 0 (the default) to MaxSlots, and Workers of 0
// (the default) or more. Programs apply it to their flags and variables
// so that both are held to one rule.
func CheckTransferOptions(t TransferOptions) error {
	if t.SlotBytes != 0 && (t.SlotBytes < MinSlotBytes || t.SlotBytes > MaxSlotBytes) {
		return fmt.Errorf("wgpu: TransferOptions.SlotBytes %d: accepted are 0 (the default, 32 MiB) and %d (64 KiB) to %d (64 GiB) bytes", t.SlotBytes, MinSlotBytes, MaxSlotBytes)
	}
	if t.Slots < 0 || t.Slots > MaxSlots {
		return fmt.Errorf("wgpu: TransferOptions.Slots %d: accepted are 0 (the default, 2) to %d", t.Slots, MaxSlots)
	}
	if t.Workers < 0 {
		return fmt.Errorf("wgpu: TransferOptions.Workers %d: accepted are 0 (the default, one per core up to 16) or more", t.Workers)
	}
	return nil
}

// PieceMemory is where a job runner (sched.Runner) keeps the pieces of an
// item-parallel job: in device
// memory, uploaded and read back through the staging ring, or in host
// memory that the kernels read and write in place across the bus (Vulkan
// with mappable primary buffers only; elsewhere pieces are always in
// device memory). wgpu-native has one queue per device, so a staged
// piece's copies and its kernels run one after the other; in host memory
// the host fills one piece's inputs and copies out the last one's output
// while the kernels of the piece between them run, and there are no
// copies on the queue. On a discrete GPU kernels reading host memory
// across the bus are several times slower, and so is the batch end to
// end; on lavapipe, whose memory is the host's, host memory is faster
// (u64emu BenchmarkMulTo for lavapipe; the figures in
// bench/results/HISTORY.md, "Figures moved from code comments").
type PieceMemory int

const (
	// PiecesAuto, the zero value, keeps pieces in host memory on adapters
	// of type "cpu" and "integrated", whose memory is the host's, and in
	// device memory on the others. (Of the first kind only lavapipe was
	// measured; an integrated GPU shares the host's memory as it does.)
	PiecesAuto PieceMemory = iota
	// PiecesInDevice keeps pieces in device memory.
	PiecesInDevice
	// PiecesInHost keeps pieces in host memory wherever the device allows
	// it.
	PiecesInHost
)

var pieceMemoryNames = [...]string{PiecesAuto: "auto", PiecesInDevice: "device", PiecesInHost: "host"}

// String names m as ParsePieceMemory reads it.
func (m PieceMemory) String() string {
	if m >= PiecesAuto && m <= PiecesInHost {
		return pieceMemoryNames[m]
	}
	return fmt.Sprintf("PieceMemory(%d)", int(m))
}

// ParsePieceMemory reads "auto", "device" or "host" (in any case).
func ParsePieceMemory(s string) (PieceMemory, error) {
	for m, name := range pieceMemoryNames {
		if strings.EqualFold(s, name) {
			return PieceMemory(m), nil
		}
	}
	return PiecesAuto, fmt.Errorf("accepted are auto (the default: in host memory where the device's memory is the host's), device (batches staged in device memory) and host (kernels read and write batches in host memory where the device allows it)")
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
