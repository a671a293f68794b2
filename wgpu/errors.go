package wgpu

import "errors"

// ErrDeviceLost is wrapped by every error of a Context whose device was
// lost (a driver reset, a removed GPU, a hung kernel): the Context can only
// be closed; open a new one.
var ErrDeviceLost = errors.New("wgpu: device lost")

// ErrNoWebGPU is wrapped by Open's error in a JavaScript environment
// without WebGPU (no navigator.gpu: an older browser, Node), with
// ErrNoAdapter: callers that run on the CPU backend (a nil Context) work
// there.
var ErrNoWebGPU = errors.New("wgpu: this JavaScript environment has no WebGPU (navigator.gpu is undefined)")
