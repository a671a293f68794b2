package wgpu

// Target is where an algorithm runs: a *Context (one device), a
// *sched.Group (several, the work split over them; package
// github.com/wgcompute/wgcompute/wgpu/sched) or nil, the CPU. A nil
// *Context or *sched.Group inside a Target is the CPU too, so a caller may
// pass the Context it opened, nil where it opened none, without a branch.
// Algorithms take a Target and decide inside (sched.GroupOf,
// sched.Device): one function serves the CPU, one device and many.
//
// A function that splits no work over devices (an NTT, an LDE, a SIS
// hash, a resident object of one device) takes a Target too, and refuses
// a Group of several with an error (sched.OneDevice) rather than run on
// one member: given several devices, a caller expects them all used, and
// one quietly chosen would leave the others idle and the call as slow as
// on one. A Group of one is its member.
//
// Target is declared here, below the scheduling layer, so that the device
// layer's *Context is one without knowing of Groups, and sealed: its one
// method is unexported, so that only types of this package have it. The
// Group gets it by embedding GroupTarget, which exists for that alone;
// package sched reads a Target (GroupOf, Device, OneDevice), and only a
// *Context and a *sched.Group are Targets there.
type Target interface {
	target()
}

func (*Context) target() {}

// GroupTarget makes package sched's Group a Target: Group embeds it, and
// no other type should. It holds nothing and names no device: the
// functions that read a Target (sched.GroupOf, Device) take a value of
// another type that embeds it for the CPU, as they take nil.
type GroupTarget struct{}

func (*GroupTarget) target() {}
