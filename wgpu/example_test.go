package wgpu_test

import (
	"errors"
	"log"

	"github.com/wgcompute/wgcompute/wgpu"
)

// The README's first step: open the default adapter, or run on the CPU
// when WGCOMPUTE_BACKEND=cpu asks for it. It has no output to check, so
// go test compiles it without opening a device.
func ExampleOpen() {
	ctx, err := wgpu.Open(wgpu.Options{}) // or Options{Backend: "vulkan", Adapter: "H100"}
	if errors.Is(err, wgpu.ErrCPUBackend) {
		ctx, err = nil, nil // WGCOMPUTE_BACKEND=cpu: a nil Context is the CPU, all cores, in every call
	}
	if err != nil {
		log.Fatal(err) // says what was tried and why no adapter was found
	}
	defer ctx.Close()
}
