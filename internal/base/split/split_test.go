package split

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestParse: a range "I/M" is read back as written, and what is not a range of M, a power of two, is refused
// with what is accepted.
func TestParse(t *testing.T) {
	for _, c := range []struct {
		s    string
		want Range
	}{{"0/1", Range{Index: 0, Count: 1}}, {"3/16", Range{Index: 3, Count: 16}}, {"15/16", Range{Index: 15, Count: 16}}, {"1023/1024", Range{Index: 1023, Count: 1024}}} {
		r, err := Parse(c.s)
		require.NoError(t, err, c.s)
		require.Equal(t, c.want, r)
		require.Equal(t, c.s, r.String())
	}
	for _, c := range []struct{ s, want string }{
		{"", "want I/M"},
		{"3", "want I/M"},
		{"3:16", "want I/M"},
		{"a/16", "want I/M"},
		{"3/16/2", "want I/M"},
		{" 3/16", "want I/M"},
		{"3/12", "a power of two"},
		{"0/0", "a power of two"},
		{"0/-4", "a power of two"},
		{"16/16", "the index must be 0..15"},
		{"-1/16", "the index must be 0..15"},
	} {
		_, err := Parse(c.s)
		require.ErrorContains(t, err, c.want, "%q", c.s)
	}
}

// TestRangeBounds: a range's leaves in a tree of n, or why it is not a
// range of that tree.
func TestRangeBounds(t *testing.T) {
	for _, c := range []struct {
		r       Range
		n       int
		lo, hi  int
		wantErr string
	}{
		{Range{Index: 0, Count: 1}, 2, 0, 2, ""},
		{Range{Index: 1, Count: 2}, 2, 1, 2, ""},
		{Range{Index: 3, Count: 4}, 4, 3, 4, ""},
		{Range{Index: 3, Count: 16}, 1 << 20, 3 << 16, 4 << 16, ""},
		{Range{Index: 0, Count: 4}, 2, 0, 0, "at most 2 ranges, of one leaf each"},
		{Range{Index: 0, Count: 1}, 1, 0, 1, ""},
		{Range{Index: 0, Count: 2}, 1, 0, 0, "at most 1 ranges, of one leaf each"},
		{Range{Index: 0, Count: 2}, 12, 0, 0, "a tree of 12 leaves: ranges split a tree of a power of two of leaves"},
		{Range{Index: 0, Count: 1}, 0, 0, 0, "a tree of 0 leaves: ranges split a tree of a power of two"},
		{Range{Index: 2, Count: 2}, 8, 0, 0, "the index must be 0..1"},
		{Range{Index: 0, Count: 3}, 8, 0, 0, "a power of two"},
	} {
		what := fmt.Sprintf("%s of %d", c.r, c.n)
		lo, hi, err := c.r.Bounds(c.n)
		if c.wantErr != "" {
			require.ErrorContains(t, err, c.wantErr, what)
			continue
		}
		require.NoError(t, err, what)
		require.Equal(t, [2]int{c.lo, c.hi}, [2]int{lo, hi}, what)
	}
}
