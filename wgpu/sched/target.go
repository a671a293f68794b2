package sched

import (
	"fmt"

	"github.com/wgcompute/wgcompute/wgpu"
)

// GroupOf returns the Group t runs on: nil for the CPU (t nil, or a nil
// *wgpu.Context or *Group in it), a Group of one for a Context (which
// closes nothing), the Group itself for a Group. Any other Target (a type
// that embeds wgpu.GroupTarget outside this package) is the CPU too.
func GroupOf(t wgpu.Target) *Group {
	switch t := t.(type) {
	case *wgpu.Context:
		if t == nil {
			return nil
		}
		return &Group{members: []*wgpu.Context{t}}
	case *Group:
		return t
	}
	return nil
}

// Device returns the one Context t runs on and true where t is one device
// or the CPU: the Context (nil for the CPU) of a nil Target, a Context or
// a Group of one member. It returns nil and false for a Group of several,
// whose work an algorithm splits over its members.
func Device(t wgpu.Target) (*wgpu.Context, bool) {
	switch t := t.(type) {
	case *wgpu.Context:
		return t, true
	case *Group:
		if t == nil {
			return nil, true
		}
		if len(t.members) == 1 {
			return t.members[0], true
		}
		return nil, false
	}
	return nil, true // nil, or a Target this package does not know: the CPU
}

// OneDevice is Device for a function of one device: the Context t runs
// on (nil for the CPU), or, for a Group of several, an error that says
// so and what is accepted, for the function to prefix with its name.
func OneDevice(t wgpu.Target) (*wgpu.Context, error) {
	ctx, one := Device(t)
	if !one {
		return nil, fmt.Errorf("runs on one device: give a Context, a Group of one or nil (the CPU), not a Group of %d", GroupOf(t).Len())
	}
	return ctx, nil
}
