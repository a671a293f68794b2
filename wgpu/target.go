package wgpu

import "fmt"

// Target is where an algorithm runs: a *Context (one device), a *Group
// (several, the work split over them) or nil, the CPU. A nil *Context or
// *Group inside a Target is the CPU too, so a caller may pass the Context
// it opened, nil where it opened none, without a branch. Algorithms take
// a Target and decide inside (GroupOf, Device): one function serves the
// CPU, one device and many.
//
// A function that splits no work over devices (an NTT, an LDE, a SIS
// hash, a resident object of one device) takes a Target too, and refuses
// a Group of several with an error (OneDevice) rather than run on one
// member: given several devices, a caller expects them all used, and one
// quietly chosen would leave the others idle and the call as slow as on
// one. A Group of one is its member.
//
// Only *Context and *Group are Targets.
type Target interface {
	group() *Group
}

func (c *Context) group() *Group {
	if c == nil {
		return nil
	}
	return &Group{members: []*Context{c}}
}

func (g *Group) group() *Group { return g }

// GroupOf returns the Group t runs on: nil for the CPU (t nil, or a nil
// *Context or *Group in it), a Group of one for a Context (which closes
// nothing), the Group itself for a Group.
func GroupOf(t Target) *Group {
	if t == nil {
		return nil
	}
	return t.group()
}

// Device returns the one Context t runs on and true where t is one device
// or the CPU: the Context (nil for the CPU) of a nil Target, a Context or
// a Group of one member. It returns nil and false for a Group of several,
// whose work an algorithm splits over its members.
func Device(t Target) (*Context, bool) {
	if t == nil {
		return nil, true
	}
	switch t := t.(type) {
	case *Context:
		return t, true
	case *Group:
		if t == nil {
			return nil, true
		}
		if len(t.members) == 1 {
			return t.members[0], true
		}
	}
	return nil, false
}

// OneDevice is Device for a function of one device: the Context t runs
// on (nil for the CPU), or, for a Group of several, an error that says
// so and what is accepted, for the function to prefix with its name.
func OneDevice(t Target) (*Context, error) {
	ctx, one := Device(t)
	if !one {
		return nil, fmt.Errorf("runs on one device: give a Context, a Group of one or nil (the CPU), not a Group of %d", GroupOf(t).Len())
	}
	return ctx, nil
}
