//go:build js

package wgpu

import (
	"errors"
	"syscall/js"
	"testing"

	gpu "github.com/oliverbestmann/webgpu/wgpu"
)

// These run under Node (GOOS=js GOARCH=wasm go test -exec go_js_wasm_exec),
// which has no WebGPU; the browser self-test covers the device itself.

// The binding's js structs must hold their JavaScript object as their
// first field: a wrapped object answers the binding's own calls.
func TestJSHandles(t *testing.T) {
	obj := js.Global().Get("Object").New()
	obj.Set("size", 1234)
	buf := wrapJS[gpu.Buffer](obj)
	if got := buf.GetSize(); got != 1234 {
		t.Fatalf("the binding read size %d through a wrapped object, want 1234", got)
	}
	if !jsOf(buf).Equal(obj) {
		t.Fatal("jsOf does not return the wrapped object")
	}
}

// Without navigator.gpu, Open says so, and the CPU backend is the way on.
func TestOpenWithoutWebGPU(t *testing.T) {
	if nav := js.Global().Get("navigator"); nav.Truthy() && nav.Get("gpu").Truthy() {
		t.Skip("this environment has WebGPU")
	}
	ctx, err := Open(Options{})
	if err == nil {
		ctx.Close()
		t.Fatal("Open succeeded without navigator.gpu")
	}
	if !errors.Is(err, ErrNoWebGPU) || !errors.Is(err, ErrNoAdapter) {
		t.Fatalf("Open's error %q wraps neither ErrNoWebGPU nor ErrNoAdapter", err)
	}
	if _, err := Adapters(Options{}); !errors.Is(err, ErrNoWebGPU) {
		t.Fatalf("Adapters' error %v does not wrap ErrNoWebGPU", err)
	}
}
