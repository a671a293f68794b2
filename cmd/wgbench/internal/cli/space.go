package cli

import (
	"fmt"
	"runtime"

	"github.com/wgcompute/wgcompute/cmd/internal/bytesize"
	"github.com/wgcompute/wgcompute/internal/base/rlimit"
	"github.com/wgcompute/wgcompute/wgpu"
)

// The least address space (ulimit -v, RLIMIT_AS) from which up every
// command ran, with a margin, on a machine of two cores: on the CPU, and
// with a GPU driver (Mesa's lavapipe, Vulkan on the CPU). README, "Memory
// limits", has each command's. Below them the Go runtime, or a driver,
// aborts the process with a stack dump ("pthread_create failed", "fatal
// error: out of memory", "memory allocation of 12 bytes failed") instead
// of saying why, at some limits before main runs (then nothing here can
// speak), at others later.
const (
	cpuSpace = 1792 << 20
	gpuSpace = 3 << 30
	// defaultStack is the stack glibc gives each thread cgo starts where
	// ulimit -s is 8 MiB, as it was where cpuSpace and gpuSpace were
	// found; otherwise it is the soft ulimit -s (threadStack).
	defaultStack = 8 << 20
	// baseThreads is the threads the runtime and a driver start besides
	// one for each core: sysmon, cgo's, the driver's own.
	baseThreads = 6
)

// spaceError says, before the Go runtime or a GPU driver aborts the
// process, that the address-space limit is below what wgbench needs on
// the CPU, or with a GPU driver where gpu is set; nil without a limit.
func spaceError(gpu bool) error {
	limit, ok := rlimit.AddressSpace()
	if !ok {
		return nil
	}
	return spaceErrorFor(limit, gpu, runtime.GOMAXPROCS(0), threadStack())
}

// SpaceNeeded is the address space wgbench needs on this machine (its
// cores, its ulimit -s): on the CPU, or with a GPU driver where gpu is set.
func SpaceNeeded(gpu bool) uint64 { return spaceNeed(gpu, runtime.GOMAXPROCS(0), threadStack()) }

// spaceNeed is the address space wgbench needs on the CPU, or with a GPU
// driver where gpu is set, with procs threads running Go code whose
// stacks are stack bytes each: the space found on two cores with 8 MiB
// stacks, less those stacks, plus a stack for each thread here. Many
// cores, or a large ulimit -s, and the runtime aborts at startup
// ("pthread_create failed") above the limits found on two cores.
func spaceNeed(gpu bool, procs int, stack uint64) uint64 {
	base := uint64(cpuSpace)
	if gpu {
		base = gpuSpace
	}
	base -= (2 + baseThreads) * defaultStack
	return base + uint64(max(procs, 2)+baseThreads)*max(stack, defaultStack)
}

// spaceErrorFor is spaceError for a limit of limit bytes, procs threads
// running Go code and stacks of stack bytes.
func spaceErrorFor(limit uint64, gpu bool, procs int, stack uint64) error {
	cpu := spaceNeed(false, procs, stack)
	need, what := cpu, "wgbench needs on the CPU"
	if gpu {
		need, what = spaceNeed(true, procs, stack), "a GPU driver and wgbench need"
	}
	if limit >= need {
		return nil
	}
	msg := fmt.Sprintf("the address space is limited to %s (ulimit -v), below the %s %s (README, \"Memory limits\"): raise the limit, or lift it (ulimit -v unlimited)",
		bytesize.Tenths(int64(limit)), bytesize.Tenths(int64(need)), what)
	if gpu && limit >= cpu {
		msg += "; or run on the CPU (--backend cpu)"
	}
	return fmt.Errorf("%s", msg)
}

// GPUSpaceError is spaceError(true) for a command of the process about
// to list or open the adapters o names; nil for the CPU backend and for
// commands run in another program (tests).
func (g *Globals) GPUSpaceError(o wgpu.Options) error {
	if !g.Process || o.CPU() {
		return nil
	}
	return spaceError(true)
}

// threadStack is the stack glibc gives each thread it starts for cgo: the
// soft ulimit -s, or defaultStack where there is none.
func threadStack() uint64 {
	if s, ok := rlimit.Stack(); ok {
		return s
	}
	return defaultStack
}
