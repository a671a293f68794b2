//go:build js

package wgpu

// The browser's counterpart of native.go: what the binding's js layer does
// not expose, called on WebGPU's JavaScript API (navigator.gpu) directly.
// The device is requested with the limits and features chosen here, its
// uncaptured errors and its loss are recorded from the browser's
// "uncapturederror" event and device.lost promise, buffers are created
// inside error scopes, shader modules report their compilation messages,
// and pipelines are made with createComputePipelineAsync, whose rejection
// carries Tint's message. Every promise is awaited by blocking the calling
// goroutine (jsx.Await), which Go's wasm scheduler allows: the algorithms'
// synchronous code runs unchanged, and a page calls it from a goroutine.

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall/js"
	"unsafe"

	"github.com/oliverbestmann/webgpu/jsx"
	gpu "github.com/oliverbestmann/webgpu/wgpu"
)

// jsOf returns a binding object's JavaScript object: the binding's js
// structs keep it as their first (and only) field, unexported.
// TestJSHandles checks the assumption against the binding in use.
func jsOf[T any](obj *T) js.Value {
	return *(*js.Value)(unsafe.Pointer(obj))
}

// wrapJS makes a binding object of a JavaScript object made here.
func wrapJS[T any](v js.Value) *T {
	obj := new(T)
	*(*js.Value)(unsafe.Pointer(obj)) = v
	return obj
}

// createInstance returns the browser's navigator.gpu; there are no
// backends, or GL versions, to choose in a browser.
func createInstance(gpu.InstanceBackend, int) (*gpu.Instance, error) {
	if nav := js.Global().Get("navigator"); !nav.Truthy() || !nav.Get("gpu").Truthy() {
		return nil, fmt.Errorf("%w: %w; use a browser with WebGPU, or the CPU backend (a nil Context)", ErrNoAdapter, ErrNoWebGPU)
	}
	inst := gpu.CreateInstance(nil)
	if inst == nil {
		return nil, ErrNoWebGPU
	}
	return inst, nil
}

// adapterInfo describes a browser adapter from its GPUAdapterInfo: the
// binding's Adapter.GetInfo returns nothing in the browser.
func adapterInfo(a *gpu.Adapter) gpu.AdapterInfo {
	info := jsOf(a).Get("info")
	str := func(name string) string {
		if !info.Truthy() {
			return ""
		}
		if v := info.Get(name); v.Type() == js.TypeString {
			return v.String()
		}
		return ""
	}
	p := gpu.AdapterInfo{
		Vendor:       str("vendor"),
		Architecture: str("architecture"),
		Device:       str("device"),
		Description:  str("description"),
		BackendType:  gpu.BackendTypeWebGPU,
		AdapterType:  gpu.AdapterTypeUnknown,
	}
	if info.Truthy() && info.Get("isFallbackAdapter").Truthy() {
		p.AdapterType = gpu.AdapterTypeCPU
	}
	if p.Device == "" {
		// Browsers hide the device's name; vendor and architecture
		// ("google swiftshader") are what they tell.
		p.Device = strings.TrimSpace(p.Vendor + " " + p.Architecture)
	}
	if p.Device == "" {
		p.Device = "WebGPU adapter"
	}
	return p
}

// browserDevice is one device's state that the browser's callbacks write:
// errors nobody captured and the device's loss. The callbacks run on the
// JavaScript event loop, so the fields are read and written under mu,
// which is never held across an await.
type browserDevice struct {
	mu         sync.Mutex
	errors     int
	errorType  string
	errorText  string
	lost       bool
	lostReason string
	lostText   string
	// The callbacks, kept for the device's life (the Go functions must
	// outlive every call from JavaScript).
	funcs []js.Func
	// Submissions made, and those whose onSubmittedWorkDone promise has
	// resolved (native.go's wgc_submitted counts the same).
	submitted, finished uint64
}

// nativeDevice is the browser-side state of one device (errors nobody
// captured, loss); the name is native.go's.
type nativeDevice struct{ d *browserDevice }

// submitted counts a submission just made on queue and has its end
// counted when the queue's onSubmittedWorkDone promise resolves, which
// the browser's event loop runs while a wait sleeps. Callers hold the
// Context's lock.
func (n nativeDevice) submitted(queue *gpu.Queue) {
	if n.d == nil {
		return
	}
	n.d.mu.Lock()
	n.d.submitted++
	n.d.mu.Unlock()
	var done js.Func
	done = js.FuncOf(func(js.Value, []js.Value) any {
		n.d.mu.Lock()
		n.d.finished++
		n.d.mu.Unlock()
		done.Release()
		return nil
	})
	jsOf(queue).Call("onSubmittedWorkDone").Call("then", done, done)
}

// progress returns how many submissions were made and how many of them
// the queue has reported finished.
func (n nativeDevice) progress() (submitted, finished uint64) {
	if n.d == nil {
		return 0, 0
	}
	n.d.mu.Lock()
	defer n.d.mu.Unlock()
	return n.d.submitted, n.d.finished
}

// jsLimits are the limits a device is requested with, by their WebGPU
// names: those wgcompute reads or caps (capLimits). Others keep WebGPU's
// defaults, which every browser grants.
func jsLimits(l gpu.Limits) map[string]any {
	return map[string]any{
		"maxBufferSize":                     l.MaxBufferSize,
		"maxStorageBufferBindingSize":       l.MaxStorageBufferBindingSize,
		"maxComputeWorkgroupStorageSize":    l.MaxComputeWorkgroupStorageSize,
		"maxComputeInvocationsPerWorkgroup": l.MaxComputeInvocationsPerWorkgroup,
		"maxComputeWorkgroupSizeX":          l.MaxComputeWorkgroupSizeX,
		"maxComputeWorkgroupSizeY":          l.MaxComputeWorkgroupSizeY,
		"maxComputeWorkgroupSizeZ":          l.MaxComputeWorkgroupSizeZ,
		"maxComputeWorkgroupsPerDimension":  l.MaxComputeWorkgroupsPerDimension,
		"maxStorageBuffersPerShaderStage":   l.MaxStorageBuffersPerShaderStage,
		"maxUniformBufferBindingSize":       l.MaxUniformBufferBindingSize,
		"maxUniformBuffersPerShaderStage":   l.MaxUniformBuffersPerShaderStage,
		"maxBindGroups":                     l.MaxBindGroups,
		"minStorageBufferOffsetAlignment":   l.MinStorageBufferOffsetAlignment,
		"minUniformBufferOffsetAlignment":   l.MinUniformBufferOffsetAlignment,
	}
}

// jsText is the message of a rejected promise's value or a thrown error.
func jsText(v js.Value) string {
	if v.Type() == js.TypeObject {
		if m := v.Get("message"); m.Type() == js.TypeString {
			return m.String()
		}
	}
	return v.String()
}

// requestDevice opens a device on a with the given features and limits,
// with the handlers installed.
func requestDevice(a *gpu.Adapter, features []gpu.FeatureName, limits gpu.Limits) (*gpu.Device, nativeDevice, error) {
	names := make([]any, len(features))
	for i, f := range features {
		names[i] = f.String()
	}
	desc := map[string]any{"label": "wgcompute", "requiredFeatures": names, "requiredLimits": jsLimits(limits)}
	v, ok := jsx.Await(jsOf(a).Call("requestDevice", desc))
	if !ok {
		return nil, nativeDevice{}, fmt.Errorf("request device: %s", jsText(v))
	}
	if !v.Truthy() {
		return nil, nativeDevice{}, errors.New("the adapter did not answer the device request")
	}
	d := &browserDevice{}
	onError := js.FuncOf(func(_ js.Value, args []js.Value) any {
		e := args[0].Get("error")
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.errors++; d.errors == 1 {
			d.errorType = errorTypeName(e)
			d.errorText = jsText(e)
		}
		return nil
	})
	onLost := js.FuncOf(func(_ js.Value, args []js.Value) any {
		d.mu.Lock()
		defer d.mu.Unlock()
		d.markLost(args[0].Get("reason").String(), args[0].Get("message").String())
		return nil
	})
	d.funcs = []js.Func{onError, onLost}
	v.Call("addEventListener", "uncapturederror", onError)
	v.Get("lost").Call("then", onLost)
	return wrapJS[gpu.Device](v), nativeDevice{d}, nil
}

// markLost records the first loss. Callers hold d.mu.
func (d *browserDevice) markLost(reason, text string) {
	if d.lost {
		return
	}
	d.lost, d.lostReason, d.lostText = true, reason, text
}

// errorTypeName names a GPUError by its class.
func errorTypeName(e js.Value) string {
	switch e.Get("constructor").Get("name").String() {
	case "GPUValidationError":
		return "validation"
	case "GPUOutOfMemoryError":
		return "out-of-memory"
	case "GPUInternalError":
		return "internal"
	}
	return "device"
}

// lostError returns an error wrapping ErrDeviceLost if the device was
// lost, else nil.
func (n nativeDevice) lostError() error {
	if n.d == nil {
		return nil
	}
	n.d.mu.Lock()
	defer n.d.mu.Unlock()
	if !n.d.lost {
		return nil
	}
	reason := n.d.lostReason
	if reason == "" || reason == "undefined" {
		reason = "unknown reason"
	}
	return fmt.Errorf("%w (%s): %s; close the Context and open a new one", ErrDeviceLost, reason, n.d.lostText)
}

// takeError returns the errors no scope captured since the last call (the
// first one's text and how many), and the loss of the device, as one
// error; nil if there were none. The browser reports them from its event
// loop, so an error of a call is seen at the first wait after it at the
// latest.
func (n nativeDevice) takeError() error {
	if n.d == nil {
		return nil
	}
	if err := n.lostError(); err != nil {
		return err
	}
	n.d.mu.Lock()
	defer n.d.mu.Unlock()
	count := n.d.errors
	if count == 0 {
		return nil
	}
	n.d.errors = 0
	text := strings.TrimSpace(n.d.errorText)
	if count > 1 {
		text += fmt.Sprintf(" (and %d more errors)", count-1)
	}
	return fmt.Errorf("%s error: %s", n.d.errorType, text)
}

// inErrorScope runs fn inside error scopes of the given filters
// ("validation", "out-of-memory") and returns fn's error or the first
// error a scope caught.
func inErrorScope(dev *gpu.Device, filters []string, fn func() error) error {
	d := jsOf(dev)
	for _, f := range filters {
		d.Call("pushErrorScope", f)
	}
	err := fn()
	for range filters {
		v, ok := jsx.Await(d.Call("popErrorScope"))
		switch {
		case err != nil:
		case !ok:
			err = fmt.Errorf("error scope could not be popped: %s", jsText(v))
		case v.Truthy():
			err = errors.New(strings.TrimSpace(jsText(v)))
		}
	}
	return err
}

// createBuffer creates a buffer inside out-of-memory and validation error
// scopes, so that memory the device cannot give is an error here.
func (c *Context) createBuffer(desc *gpu.BufferDescriptor) (buf *gpu.Buffer, err error) {
	defer guard("create buffer", &err)
	err = inErrorScope(c.device, []string{"validation", "out-of-memory"}, func() (err error) {
		buf, err = c.device.TryCreateBuffer(desc)
		return err
	})
	if err == nil {
		err = c.native.takeError()
	}
	if err != nil {
		if buf != nil {
			buf.Destroy()
			buf = nil
		}
		err = c.lostFrom(err)
	}
	return buf, err
}

// createShaderModule compiles WGSL source; a shader the browser's compiler
// (Tint, in Chromium) rejects returns its messages with their lines. The
// browser offers no choice of runtime checks: its robustness (bounds
// clamping) is always on.
func createShaderModule(dev *gpu.Device, label, src string, _ ShaderChecks) (m *gpu.ShaderModule, err error) {
	defer guard("create shader module", &err)
	var module js.Value
	err = inErrorScope(dev, []string{"validation"}, func() error {
		module = jsOf(dev).Call("createShaderModule", map[string]any{"label": label, "code": src})
		info, ok := jsx.Await(module.Call("getCompilationInfo"))
		if !ok {
			return fmt.Errorf("compilation info: %s", jsText(info))
		}
		var msgs []string
		list := info.Get("messages")
		for i := 0; i < list.Length(); i++ {
			msg := list.Index(i)
			if msg.Get("type").String() != "error" {
				continue
			}
			msgs = append(msgs, fmt.Sprintf("%s:%d:%d: %s", label, msg.Get("lineNum").Int(), msg.Get("linePos").Int(), msg.Get("message").String()))
		}
		if len(msgs) > 0 {
			return fmt.Errorf("shader %s does not compile: %s", label, strings.Join(msgs, "; "))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return wrapJS[gpu.ShaderModule](module), nil
}

// createPipeline makes a compute pipeline with createComputePipelineAsync:
// its rejection carries the browser's reason (the binding's synchronous
// call has no Label field and reports errors only to the uncaptured
// handler).
func createPipeline(dev *gpu.Device, label string, layout *gpu.PipelineLayout, module *gpu.ShaderModule, entry string) (p *gpu.ComputePipeline, err error) {
	defer guard("create pipeline", &err)
	desc := map[string]any{
		"label":   label,
		"layout":  jsOf(layout),
		"compute": map[string]any{"module": jsOf(module), "entryPoint": entry},
	}
	v, ok := jsx.Await(jsOf(dev).Call("createComputePipelineAsync", desc))
	if !ok {
		return nil, fmt.Errorf("pipeline %s (%s): %s", label, entry, jsText(v))
	}
	return wrapJS[gpu.ComputePipeline](v), nil
}

// badBufferForTest makes an uncaptured validation error on c's device.
func (c *Context) badBufferForTest() {
	jsOf(c.device).Call("createBuffer", map[string]any{"size": 64, "usage": 0})
}

// destroyForTest destroys c's device as a lost GPU would be: every later
// call on c must return ErrDeviceLost.
func (c *Context) destroyForTest() {
	jsOf(c.device).Call("destroy")
}

// lostFrom returns an ErrDeviceLost error if c's device was lost (the
// browser settles device.lost on every loss), else err.
func (c *Context) lostFrom(err error) error {
	if err == nil {
		return nil
	}
	if lost := c.native.lostError(); lost != nil {
		return lost
	}
	return err
}

// mappedStaging is false in the browser: a mapped range is a copy of the
// buffer there (the binding's GetMappedRange), so writes through it are
// lost, and uploads use queue.writeBuffer (uploadByWrites).
const mappedStaging = false

// poll waits for the queue to finish its work: Device.Poll does nothing in
// the browser, which runs the queue on its own.
func (c *Context) poll() bool {
	c.queue.OnSubmittedWorkDone(func(gpu.QueueWorkDoneStatus) {})
	return true
}

// writeBuffer copies data into buf at offset through the queue. The
// binding's Queue.WriteBuffer reads Go's memory through a global the page
// would have to define; a copy into a JavaScript array needs nothing.
func (c *Context) writeBuffer(buf *gpu.Buffer, offset uint64, data []byte) (err error) {
	if len(data) == 0 {
		return nil
	}
	defer guard("write buffer", &err)
	arr := js.Global().Get("Uint8Array").New(len(data))
	js.CopyBytesToJS(arr, data)
	jsOf(c.queue).Call("writeBuffer", jsOf(buf), offset, arr)
	return nil
}
