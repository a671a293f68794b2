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

	gpu "github.com/oliverbestmann/webgpu/wgpu"
	"github.com/wgcompute/wgcompute/internal/base/rlimit"
)

// ErrNoAdapter is wrapped by Open's error when no adapter matches.
var ErrNoAdapter = errors.New("wgpu: no GPU adapter found")

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

// Software reports whether the adapter is a renderer on the CPU (Mesa's
// lavapipe and llvmpipe, and SwiftShader, the browser's fallback adapter):
// its kernels run on the host's cores, and each module it compiles costs
// host time and memory.
func (a AdapterInfo) Software() bool { return a.Type == "cpu" }

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
		// (choiceOf), not a second one of the same driver (an instance
		// costs tens of milliseconds: bench/results/HISTORY.md, "Figures
		// moved from code comments").
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
// instance (EGL) costs about as much again as Vulkan's
// (bench/results/HISTORY.md, "Figures moved from code comments"). A named
// adapter is an index into the list of
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
// ranking a's list followed by b's gives the same order and indices. A
// side that could not be listed leaves the other's adapters (a broken GL
// driver must not hide working Vulkan GPUs); both failing is an error
// naming both.
func merged(a, b *enumeration) *enumeration {
	switch {
	case a.err != nil && b.err != nil:
		return &enumeration{err: errors.Join(a.err, b.err)}
	case a.err != nil:
		return b
	case b.err != nil:
		return a
	}
	e := &enumeration{}
	e.adapters, e.infos = ranked(slices.Concat(a.adapters, b.adapters), slices.Concat(a.infos, b.infos))
	return e
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
	e, pick, err := chooseAdapter(opts)
	if err != nil {
		return AdapterInfo{}, err
	}
	return e.infos[pick], nil
}

// chooseAdapter returns the instance and the index in it of the adapter
// Open(opts) opens: the one choice behind ChosenAdapter, Choose and Open.
func chooseAdapter(opts Options) (*enumeration, int, error) {
	if err := opts.check(); err != nil {
		return nil, 0, err
	}
	if opts.CPU() {
		return nil, 0, ErrCPUBackend
	}
	e, err := choiceOf(opts)
	if err != nil {
		return nil, 0, err
	}
	if e.err != nil {
		return nil, 0, e.err
	}
	if len(e.infos) == 0 {
		return nil, 0, noAdapterError(opts)
	}
	pick, err := pickAdapter(e.infos, opts)
	if err != nil {
		return nil, 0, err
	}
	return e, pick, nil
}

// noAdapterError is Open's error when the backend opts name has no
// adapter here.
func noAdapterError(opts Options) error { return NoAdapterError(opts.Backend) }

// NoAdapterError returns the error, wrapping ErrNoAdapter, that Open
// returns when backend (any when empty) has no adapter on this system: it
// names what was tried and why it cannot work here, for callers that find
// Adapters' list empty.
//
// Where the process's address space is limited (ulimit -v, RLIMIT_AS),
// the error says so first: a driver that cannot allocate what it maps at
// start (its libraries, LLVM's heaps for Mesa's software drivers) lists no
// adapter, and the limit, not a missing driver, is then the likely cause.
func NoAdapterError(backend string) error {
	limit, ok := rlimit.AddressSpace()
	return withMemoryLimit(noAdapterFor(backend, runtime.GOOS), limit, ok)
}

// withMemoryLimit returns err, an error of noAdapterFor, with the
// address-space limit of limit bytes named as the likely cause where
// limited.
func withMemoryLimit(err error, limit uint64, limited bool) error {
	if !limited {
		return err
	}
	// " for backend B: why" or ": why" after ErrNoAdapter's text.
	where, why, _ := strings.Cut(strings.TrimPrefix(err.Error(), ErrNoAdapter.Error()), ": ")
	return fmt.Errorf("%w%s: this process's address space is limited to %.1f GiB (ulimit -v), and a driver that "+
		"cannot allocate its memory within the limit lists no adapter: raise the limit or lift it "+
		"(ulimit -v unlimited); where no driver is installed, %s", ErrNoAdapter, where, float64(limit)/(1<<30), why)
}

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
