package wgpu

import "testing"

// TestBindingHolds: a binding holds n bytes where its buffer has them
// past the offset and its Size, where given, covers them; a huge n or
// offset does not wrap around.
func TestBindingHolds(t *testing.T) {
	buf := &Buffer{size: 1024}
	for _, c := range []struct {
		b    Binding
		n    uint64
		want bool
	}{
		{Bind(buf), 1024, true},
		{Bind(buf), 1025, false},
		{Binding{Buffer: buf, Offset: 256}, 768, true},
		{Binding{Buffer: buf, Offset: 256}, 769, false},
		{Binding{Buffer: buf, Offset: 256, Size: 16}, 16, true},
		{Binding{Buffer: buf, Offset: 256, Size: 16}, 17, false},
		{Binding{Buffer: buf, Offset: 2048}, 0, false},
		{Binding{Buffer: buf, Offset: 8}, ^uint64(0) - 4, false},
		{Binding{}, 0, false},
	} {
		if got := c.b.Holds(c.n); got != c.want {
			t.Errorf("%+v holds %d: %v, want %v", c.b, c.n, got, c.want)
		}
	}
}
