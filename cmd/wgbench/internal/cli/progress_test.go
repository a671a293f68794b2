package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestBarLines checks the progress line's text for a count, for bytes and
// for a spinner, and that a shorter line and clear overwrite a longer one.
func TestBarLines(t *testing.T) {
	var out strings.Builder
	b := NewBar(&out, "rescue merge", 4000, "records")
	b.done = 1000
	require.Equal(t, "rescue merge  25% |███████                       | (1000/4000, 500 records/s) [2s:6s]", b.line(b.start.Add(2*time.Second)))
	by := NewBar(&out, "read", 64<<20, "B")
	by.done = 16 << 20
	require.Equal(t, "read  25% |███████                       | (16 MiB/64 MiB, 8 MiB/s) [2s:6s]", by.line(by.start.Add(2*time.Second)))
	// Before the first report: the work and the time taken, turning.
	b0 := NewBar(&out, "merkle: rescue tree", 2097151, "merges")
	require.Equal(t, "⠙ merkle: rescue tree (2097151 merges) [40s]", b0.line(b0.start.Add(40*time.Second)))
	by0 := NewBar(&out, "read", 64<<20, "B")
	require.Equal(t, "⠙ read (64 MiB) [1s]", by0.line(by0.start.Add(time.Second)))
	sp := NewBar(&out, "merkle: building the tree", -1, "")
	require.Equal(t, "⠙ merkle: building the tree [1m5s]", sp.line(sp.start.Add(65*time.Second)))
	sp.done = 3
	require.Equal(t, "⠹ merkle: building the tree (3) [1m5s]", sp.line(sp.start.Add(65*time.Second)))

	b.draw("a longer line")
	b.draw("short")
	b.Clear()
	require.Equal(t, "\ra longer line\rshort        \r             \r", out.String()[len(out.String())-len("\ra longer line\rshort        \r             \r"):])
}
