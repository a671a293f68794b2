package wgpu

// Target is where an algorithm runs: a *Context (one device), a *Group
// (several, the work split over them) or nil, the CPU. A nil *Context or
// *Group inside a Target is the CPU too, so a caller may pass the Context
// it opened, nil where it opened none, without a branch. Algorithms take
// a Target and decide inside (GroupOf, Device): one function serves the
// CPU, one device and many.
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
