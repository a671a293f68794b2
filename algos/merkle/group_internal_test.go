package merkle

import "testing"

// TestGroupRanges: alike devices, a power of two of them, take one range
// each; others about four a device; never fewer than two leaves a range.
func TestGroupRanges(t *testing.T) {
	for _, c := range []struct {
		n, k  int
		alike bool
		want  int
	}{
		{1 << 24, 1, true, 1}, {1 << 24, 2, true, 2}, {1 << 24, 4, true, 4}, {1 << 24, 8, true, 8},
		{1 << 24, 3, true, 16}, {1 << 24, 2, false, 8}, {1 << 24, 3, false, 16}, {1 << 24, 1, false, 4},
		{4, 4, false, 2}, {2, 2, true, 1}, {1, 2, true, 1},
	} {
		if got := groupRanges(c.n, c.k, c.alike); got != c.want {
			t.Errorf("groupRanges(%d, %d, %v) = %d, want %d", c.n, c.k, c.alike, got, c.want)
		}
	}
}
