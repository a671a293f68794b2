//go:build !js

package wgpu

// What the Go binding does not expose, called on wgpu-native directly: a
// device with an uncaptured-error handler and a device-lost callback (since
// wgpu-native 27 an error nobody captures is fatal: a Rust panic that aborts
// the process, beyond recover), and shader modules created without the
// runtime checks naga would insert (see ShaderChecks). The headers in
// include/ are wgpu-native v29.0.1.1's, the version the binding links.

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include <stdlib.h>
#include <string.h>
#include "webgpu.h"
#include "wgpu.h"

// wgc_device is one device's C-side state. It is allocated in C, so the
// callbacks may keep it as userdata, and it is never freed: wgpu may call
// the lost callback while it drops the device, after our last call.
typedef struct {
	// Uncaptured errors since the Go side last took them; the first one's
	// type and message.
	int errors;
	int error_type;
	char error[2048];
	// Set once the device is lost.
	int lost;
	int lost_reason;
	char lost_message[1024];
	// Submissions made, and those whose work the queue reported done
	// (wgc_submitted), counted so that a wait can tell a device that is
	// slow from one that stopped answering.
	unsigned long long submitted, finished;
	// The answer to the device request.
	int request_done;
	int request_status;
	char request_message[1024];
	WGPUDevice device;
} wgc_device;

static void wgc_copy(char *dst, size_t cap, WGPUStringView m) {
	size_t n = 0;
	if (m.data != NULL) {
		n = m.length == WGPU_STRLEN ? strlen(m.data) : m.length;
		if (n > cap - 1) n = cap - 1;
		memcpy(dst, m.data, n);
	}
	dst[n] = 0;
}

static void wgc_uncaptured(WGPUDevice const *device, WGPUErrorType type, WGPUStringView message, void *u1, void *u2) {
	wgc_device *d = u1;
	if (d->errors++ == 0) {
		d->error_type = type;
		wgc_copy(d->error, sizeof d->error, message);
	}
}

static void wgc_lost(WGPUDevice const *device, WGPUDeviceLostReason reason, WGPUStringView message, void *u1, void *u2) {
	wgc_device *d = u1;
	d->lost_reason = reason;
	wgc_copy(d->lost_message, sizeof d->lost_message, message);
	__atomic_store_n(&d->lost, 1, __ATOMIC_SEQ_CST);
}

static void wgc_requested(WGPURequestDeviceStatus status, WGPUDevice device, WGPUStringView message, void *u1, void *u2) {
	wgc_device *d = u1;
	d->request_status = status;
	d->device = device;
	wgc_copy(d->request_message, sizeof d->request_message, message);
	d->request_done = 1;
}

static wgc_device *wgc_request_device(WGPUAdapter adapter, WGPUFeatureName const *features, size_t nfeatures, WGPULimits const *limits) {
	wgc_device *d = calloc(1, sizeof *d);
	if (d == NULL) return NULL;
	WGPUDeviceDescriptor desc = WGPU_DEVICE_DESCRIPTOR_INIT;
	desc.label.data = "wgcompute";
	desc.label.length = WGPU_STRLEN;
	desc.requiredFeatureCount = nfeatures;
	desc.requiredFeatures = features;
	desc.requiredLimits = limits;
	desc.deviceLostCallbackInfo.mode = WGPUCallbackMode_AllowSpontaneous;
	desc.deviceLostCallbackInfo.callback = wgc_lost;
	desc.deviceLostCallbackInfo.userdata1 = d;
	desc.uncapturedErrorCallbackInfo.callback = wgc_uncaptured;
	desc.uncapturedErrorCallbackInfo.userdata1 = d;
	WGPURequestDeviceCallbackInfo cb = WGPU_REQUEST_DEVICE_CALLBACK_INFO_INIT;
	cb.mode = WGPUCallbackMode_AllowSpontaneous;
	cb.callback = wgc_requested;
	cb.userdata1 = d;
	wgpuAdapterRequestDevice(adapter, &desc, cb);
	return d;
}

static void wgc_work_done(WGPUQueueWorkDoneStatus status, WGPUStringView message, void *u1, void *u2) {
	wgc_device *d = u1;
	__atomic_add_fetch(&d->finished, 1, __ATOMIC_SEQ_CST);
}

// wgc_submitted counts a submission just made on queue and asks to be
// told when the queue has finished it: wgpu-native 29's non-blocking poll
// reports an empty queue while lavapipe still runs a kernel, so the
// work-done callback is the evidence that submitted work is done.
static void wgc_submitted(WGPUQueue queue, wgc_device *d) {
	WGPUQueueWorkDoneCallbackInfo cb = WGPU_QUEUE_WORK_DONE_CALLBACK_INFO_INIT;
	cb.mode = WGPUCallbackMode_AllowSpontaneous;
	cb.callback = wgc_work_done;
	cb.userdata1 = d;
	__atomic_add_fetch(&d->submitted, 1, __ATOMIC_SEQ_CST);
	wgpuQueueOnSubmittedWorkDone(queue, cb);
}

// wgc_count reads the count of submissions made (which 0) or finished (1).
static unsigned long long wgc_count(wgc_device *d, int which) {
	return __atomic_load_n(which ? &d->finished : &d->submitted, __ATOMIC_SEQ_CST);
}

static int wgc_lost_now(wgc_device *d) { return __atomic_load_n(&d->lost, __ATOMIC_SEQ_CST); }

typedef struct {
	int failed;
	char message[4096];
} wgc_scope;

static void wgc_popped(WGPUPopErrorScopeStatus status, WGPUErrorType type, WGPUStringView message, void *u1, void *u2) {
	wgc_scope *s = u1;
	if (status != WGPUPopErrorScopeStatus_Success) {
		s->failed = 1;
		strcpy(s->message, "error scope could not be popped");
		return;
	}
	if (type == WGPUErrorType_NoError) return;
	s->failed = 1;
	wgc_copy(s->message, sizeof s->message, message);
}

// wgc_shader_module compiles WGSL with the given runtime checks.
static WGPUShaderModule wgc_shader_module(WGPUDevice device, char const *label, char const *code, WGPUShaderRuntimeChecks checks) {
	WGPUShaderSourceWGSL wgsl = WGPU_SHADER_SOURCE_WGSL_INIT;
	wgsl.code.data = code;
	wgsl.code.length = WGPU_STRLEN;
	WGPUShaderModuleDescriptor desc = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
	desc.nextInChain = &wgsl.chain;
	desc.label.data = label;
	desc.label.length = WGPU_STRLEN;
	return wgpuDeviceCreateShaderModuleTrusted(device, &desc, checks);
}

static void wgc_pop_scope(WGPUDevice device, wgc_scope *scope) {
	WGPUPopErrorScopeCallbackInfo cb = WGPU_POP_ERROR_SCOPE_CALLBACK_INFO_INIT;
	cb.mode = WGPUCallbackMode_AllowSpontaneous;
	cb.callback = wgc_popped;
	cb.userdata1 = scope;
	wgpuDevicePopErrorScope(device, cb);
}

// wgc_instance creates an instance of the given backends; on GL it asks
// for an OpenGL ES 3.x context of the given minor version code.
static WGPUInstance wgc_instance(WGPUInstanceBackend backends, int gles_minor) {
	WGPUInstanceExtras extras = {0};
	extras.chain.sType = (WGPUSType)WGPUSType_InstanceExtras;
	extras.backends = backends;
	extras.gles3MinorVersion = (WGPUGles3MinorVersion)gles_minor;
	WGPUInstanceDescriptor desc = WGPU_INSTANCE_DESCRIPTOR_INIT;
	desc.nextInChain = &extras.chain;
	return wgpuCreateInstance(&desc);
}

// wgc_bad_buffer creates a buffer with no usage, outside any error scope:
// a validation error only the uncaptured handler sees (a test of that
// handler; usages WebGPU forbids together would do only on devices without
// the mappable-primary-buffers feature).
static void wgc_bad_buffer(WGPUDevice device) {
	WGPUBufferDescriptor desc = WGPU_BUFFER_DESCRIPTOR_INIT;
	desc.usage = WGPUBufferUsage_None;
	desc.size = 64;
	wgpuBufferRelease(wgpuDeviceCreateBuffer(device, &desc));
}

static void wgc_mark_lost(wgc_device *d, char const *msg) {
	if (__atomic_load_n(&d->lost, __ATOMIC_SEQ_CST)) return;
	d->lost_reason = WGPUDeviceLostReason_Unknown;
	strncpy(d->lost_message, msg, sizeof d->lost_message - 1);
	__atomic_store_n(&d->lost, 1, __ATOMIC_SEQ_CST);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

	gpu "github.com/oliverbestmann/webgpu/wgpu"
)

// The binding keeps each object's C handle as the first field of its Go
// struct, unexported: ref reads it and wrap makes a binding object of a
// handle we created (with no finalizer: the Context releases it).
// TestNativeHandles checks the assumption against the binding in use.
func ref[T any](obj *T) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(obj))
}

func wrap[T any](handle unsafe.Pointer) *T {
	obj := new(T)
	*(*unsafe.Pointer)(unsafe.Pointer(obj)) = handle
	return obj
}

func deviceRef(d *gpu.Device) C.WGPUDevice { return C.WGPUDevice(ref(d)) }

// createInstance creates an instance of the given backends. The GL
// backend is asked for the OpenGL ES 3.x context of minor, a
// WGPUGles3MinorVersion (Options.GLESMinor).
func createInstance(backends gpu.InstanceBackend, minor int) (*gpu.Instance, error) {
	setRuntimeDir()
	inst := C.wgc_instance(C.WGPUInstanceBackend(backends), C.int(minor))
	if inst == nil {
		return nil, errors.New("wgpu: could not create an instance")
	}
	return wrap[gpu.Instance](unsafe.Pointer(inst)), nil
}

// nativeDevice is the C-side state of one device (errors nobody captured,
// loss, submissions finished).
type nativeDevice struct{ d *C.wgc_device }

// submitted counts a submission just made on queue and has its end
// counted (see wgc_submitted). Callers hold the Context's lock.
func (n nativeDevice) submitted(queue *gpu.Queue) {
	if n.d != nil {
		C.wgc_submitted(C.WGPUQueue(ref(queue)), n.d)
	}
}

// progress returns how many submissions were made and how many of them
// the queue has reported finished.
func (n nativeDevice) progress() (submitted, finished uint64) {
	if n.d == nil {
		return 0, 0
	}
	return uint64(C.wgc_count(n.d, 0)), uint64(C.wgc_count(n.d, 1))
}

// requestDevice opens a device on a with the given features and limits,
// with the handlers installed.
func requestDevice(a *gpu.Adapter, features []gpu.FeatureName, limits gpu.Limits) (*gpu.Device, nativeDevice, error) {
	var cf *C.WGPUFeatureName
	if len(features) > 0 {
		cf = (*C.WGPUFeatureName)(C.calloc(C.size_t(len(features)), C.size_t(unsafe.Sizeof(C.WGPUFeatureName(0)))))
		defer C.free(unsafe.Pointer(cf))
		fs := unsafe.Slice(cf, len(features))
		for i, f := range features {
			fs[i] = C.WGPUFeatureName(f)
		}
	}
	cl := (*C.WGPULimits)(C.calloc(1, C.size_t(unsafe.Sizeof(C.WGPULimits{}))))
	defer C.free(unsafe.Pointer(cl))
	*cl = cLimits(limits)
	d := C.wgc_request_device(C.WGPUAdapter(ref(a)), cf, C.size_t(len(features)), cl)
	if d == nil {
		return nil, nativeDevice{}, errors.New("out of host memory")
	}
	// wgpu-native answers a device request before returning.
	if d.request_done == 0 {
		return nil, nativeDevice{}, errors.New("the adapter did not answer the device request")
	}
	if d.request_status != C.WGPURequestDeviceStatus_Success || d.device == nil {
		return nil, nativeDevice{}, fmt.Errorf("request device: %s", C.GoString(&d.request_message[0]))
	}
	return wrap[gpu.Device](unsafe.Pointer(d.device)), nativeDevice{d}, nil
}

func cLimits(l gpu.Limits) C.WGPULimits {
	return C.WGPULimits{
		maxTextureDimension1D:                     C.uint32_t(l.MaxTextureDimension1D),
		maxTextureDimension2D:                     C.uint32_t(l.MaxTextureDimension2D),
		maxTextureDimension3D:                     C.uint32_t(l.MaxTextureDimension3D),
		maxTextureArrayLayers:                     C.uint32_t(l.MaxTextureArrayLayers),
		maxBindGroups:                             C.uint32_t(l.MaxBindGroups),
		maxBindGroupsPlusVertexBuffers:            C.WGPU_LIMIT_U32_UNDEFINED, // the binding does not read it
		maxBindingsPerBindGroup:                   C.uint32_t(l.MaxBindingsPerBindGroup),
		maxDynamicUniformBuffersPerPipelineLayout: C.uint32_t(l.MaxDynamicUniformBuffersPerPipelineLayout),
		maxDynamicStorageBuffersPerPipelineLayout: C.uint32_t(l.MaxDynamicStorageBuffersPerPipelineLayout),
		maxSampledTexturesPerShaderStage:          C.uint32_t(l.MaxSampledTexturesPerShaderStage),
		maxSamplersPerShaderStage:                 C.uint32_t(l.MaxSamplersPerShaderStage),
		maxStorageBuffersPerShaderStage:           C.uint32_t(l.MaxStorageBuffersPerShaderStage),
		maxStorageTexturesPerShaderStage:          C.uint32_t(l.MaxStorageTexturesPerShaderStage),
		maxUniformBuffersPerShaderStage:           C.uint32_t(l.MaxUniformBuffersPerShaderStage),
		maxUniformBufferBindingSize:               C.uint64_t(l.MaxUniformBufferBindingSize),
		maxStorageBufferBindingSize:               C.uint64_t(l.MaxStorageBufferBindingSize),
		minUniformBufferOffsetAlignment:           C.uint32_t(l.MinUniformBufferOffsetAlignment),
		minStorageBufferOffsetAlignment:           C.uint32_t(l.MinStorageBufferOffsetAlignment),
		maxVertexBuffers:                          C.uint32_t(l.MaxVertexBuffers),
		maxBufferSize:                             C.uint64_t(l.MaxBufferSize),
		maxVertexAttributes:                       C.uint32_t(l.MaxVertexAttributes),
		maxVertexBufferArrayStride:                C.uint32_t(l.MaxVertexBufferArrayStride),
		maxInterStageShaderVariables:              C.uint32_t(l.MaxInterStageShaderVariables),
		maxColorAttachments:                       C.uint32_t(l.MaxColorAttachments),
		maxColorAttachmentBytesPerSample:          C.uint32_t(l.MaxColorAttachmentBytesPerSample),
		maxComputeWorkgroupStorageSize:            C.uint32_t(l.MaxComputeWorkgroupStorageSize),
		maxComputeInvocationsPerWorkgroup:         C.uint32_t(l.MaxComputeInvocationsPerWorkgroup),
		maxComputeWorkgroupSizeX:                  C.uint32_t(l.MaxComputeWorkgroupSizeX),
		maxComputeWorkgroupSizeY:                  C.uint32_t(l.MaxComputeWorkgroupSizeY),
		maxComputeWorkgroupSizeZ:                  C.uint32_t(l.MaxComputeWorkgroupSizeZ),
		maxComputeWorkgroupsPerDimension:          C.uint32_t(l.MaxComputeWorkgroupsPerDimension),
		maxImmediateSize:                          C.uint32_t(l.MaxImmediateSize),
	}
}

// lostError returns an error wrapping ErrDeviceLost if the device was
// lost, else nil.
func (n nativeDevice) lostError() error {
	if n.d == nil || C.wgc_lost_now(n.d) == 0 {
		return nil
	}
	return fmt.Errorf("%w (%s): %s; close the Context and open a new one", ErrDeviceLost,
		lostReason(int(n.d.lost_reason)), C.GoString(&n.d.lost_message[0]))
}

func lostReason(r int) string {
	switch r {
	case C.WGPUDeviceLostReason_Destroyed:
		return "destroyed"
	case C.WGPUDeviceLostReason_CallbackCancelled:
		return "released"
	case C.WGPUDeviceLostReason_FailedCreation:
		return "creation failed"
	}
	return "unknown reason"
}

// takeError returns the errors no scope captured since the last call (the
// first one's text and how many), and the loss of the device, as one
// error; nil if there were none.
func (n nativeDevice) takeError() error {
	if n.d == nil {
		return nil
	}
	if err := n.lostError(); err != nil {
		return err
	}
	// Read in place: the handler runs inside the device calls of the
	// goroutine that holds the Context's lock, as this does.
	count := int(n.d.errors)
	if count == 0 {
		return nil
	}
	n.d.errors = 0
	text := strings.TrimSpace(C.GoString(&n.d.error[0]))
	if count > 1 {
		text += fmt.Sprintf(" (and %d more errors)", count-1)
	}
	return fmt.Errorf("%s error: %s", errorTypeName(int(n.d.error_type)), text)
}

func errorTypeName(t int) string {
	switch t {
	case C.WGPUErrorType_Validation:
		return "validation"
	case C.WGPUErrorType_OutOfMemory:
		return "out-of-memory"
	case C.WGPUErrorType_Internal:
		return "internal"
	}
	return "device"
}

// inErrorScope runs fn inside an error scope of the given filter and
// returns fn's error or what the scope caught: buffer creation that the
// device cannot satisfy (out-of-memory), a shader that does not compile
// (validation), which would otherwise be fatal uncaptured errors. The
// filter is validation or out-of-memory: wgpu-native aborts on an internal
// one (such errors reach the uncaptured handler).
func inErrorScope(dev *gpu.Device, filter C.WGPUErrorFilter, fn func() error) error {
	ref := deviceRef(dev)
	C.wgpuDevicePushErrorScope(ref, filter)
	err := fn()
	var s C.wgc_scope
	C.wgc_pop_scope(ref, &s)
	if err == nil && s.failed != 0 {
		err = errors.New(strings.TrimSpace(C.GoString(&s.message[0])))
	}
	return err
}

// createBuffer creates a buffer inside an out-of-memory error scope, so that memory the
// device cannot give is an error here rather than a fatal uncaptured one.
func (c *Context) createBuffer(desc *gpu.BufferDescriptor) (*gpu.Buffer, error) {
	var buf *gpu.Buffer
	err := inErrorScope(c.device, C.WGPUErrorFilter_OutOfMemory, func() (err error) {
		buf, err = c.device.TryCreateBuffer(desc)
		return err
	})
	if err == nil {
		err = c.native.takeError() // what reached the uncaptured handler meanwhile
	}
	if err != nil {
		if buf != nil {
			buf.Release()
			buf = nil
		}
		err = c.lostFrom(err)
	}
	return buf, err
}

// createShaderModule compiles WGSL source with the given runtime checks;
// a shader that does not compile returns naga's message.
func createShaderModule(dev *gpu.Device, label, src string, checks ShaderChecks) (*gpu.ShaderModule, error) {
	cl, cs := C.CString(label), C.CString(src)
	defer C.free(unsafe.Pointer(cl))
	defer C.free(unsafe.Pointer(cs))
	var m C.WGPUShaderModule
	err := inErrorScope(dev, C.WGPUErrorFilter_Validation, func() error {
		m = C.wgc_shader_module(deviceRef(dev), cl, cs, C.WGPUShaderRuntimeChecks(checks))
		return nil
	})
	if err != nil {
		if m != nil {
			C.wgpuShaderModuleRelease(m)
		}
		return nil, err
	}
	if m == nil {
		return nil, errors.New("the device returned no shader module")
	}
	return wrap[gpu.ShaderModule](unsafe.Pointer(m)), nil
}

// badBufferForTest makes an uncaptured validation error on c's device.
func (c *Context) badBufferForTest() {
	C.wgc_bad_buffer(deviceRef(c.device))
}

// destroyForTest destroys c's device as a lost GPU would be: every later
// call on c must return ErrDeviceLost.
func (c *Context) destroyForTest() {
	C.wgpuDeviceDestroy(deviceRef(c.device))
}

// lostFrom returns an ErrDeviceLost error if err (from a call on c's
// device) says that the device is lost, marking the device lost for every
// later call; else err. wgpu reports a loss to the callback only from some
// paths (not after a destroy), and a blocking poll of a lost device aborts
// the process, so the text of a failed call is evidence too.
func (c *Context) lostFrom(err error) error {
	if err == nil {
		return nil
	}
	if lost := c.native.lostError(); lost != nil {
		return lost
	}
	if !strings.Contains(strings.ToLower(err.Error()), "device is lost") || c.native.d == nil {
		return err
	}
	msg := C.CString(strings.TrimSpace(err.Error()))
	defer C.free(unsafe.Pointer(msg))
	C.wgc_mark_lost(c.native.d, msg)
	return c.native.lostError()
}
