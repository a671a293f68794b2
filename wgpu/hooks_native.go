//go:build !js

package wgpu

// The few calls whose browser form differs (native_js.go has that form),
// on wgpu-native.

import gpu "github.com/oliverbestmann/webgpu/wgpu"

// adapterInfo describes a.
func adapterInfo(a *gpu.Adapter) gpu.AdapterInfo { return a.GetInfo() }

// createPipeline makes a compute pipeline of module's entry point.
func createPipeline(dev *gpu.Device, label string, layout *gpu.PipelineLayout, module *gpu.ShaderModule, entry string) (*gpu.ComputePipeline, error) {
	return dev.TryCreateComputePipeline(&gpu.ComputePipelineDescriptor{
		Label:   label,
		Layout:  layout,
		Compute: gpu.ProgrammableStageDescriptor{Module: module, EntryPoint: entry},
	})
}

// mappedStaging: uploads are written through mapped staging buffers.
const mappedStaging = true

// poll polls the device without blocking and reports whether its queue is
// empty.
func (c *Context) poll() bool { return c.device.Poll(false, nil) }

// writeBuffer copies data into buf at offset through the queue.
func (c *Context) writeBuffer(buf *gpu.Buffer, offset uint64, data []byte) error {
	return c.queue.TryWriteBuffer(buf, offset, data)
}
