package bench

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// TestBenchLinea runs the linea suite's --quick shapes on the CPU and on
// a GPU backend: every root and opening is checked against the CPU
// path's, and the openings with VerifyLinea.
func TestBenchLinea(t *testing.T) {
	shapes := lineaBenchShapes(true)
	tables, err := benchLinea(nil, newBenchConfig(true, 1))
	require.NoError(t, err)
	require.Len(t, tables, 2)
	require.Len(t, tables[0].Rows, 2*len(shapes))
	require.Len(t, tables[1].Rows, len(shapes))
	for _, r := range tables[0].Rows {
		require.Equal(t, "CPU backend", r[len(r)-1])
		require.NotEqual(t, "-", r[len(r)-3], "the CPU path's time")
	}

	ctx := gputest.Context(t, gputest.Backends()[0])
	tables, err = benchLinea(ctx, newBenchConfig(true, 1))
	require.NoError(t, err)
	require.Len(t, tables, 2)
	require.Len(t, tables[0].Rows, 2*len(shapes))
	for _, r := range tables[0].Rows {
		require.Len(t, r, len(tables[0].Columns))
		require.Equal(t, "root equal to the CPU path's", r[len(r)-1], "%q", r)
	}
	require.Len(t, tables[1].Rows, len(shapes))
	for _, r := range tables[1].Rows {
		require.Len(t, r, len(tables[1].Columns))
		require.Equal(t, "proof equal to the CPU path's, verified", r[len(r)-1], "%q", r)
	}
	require.Len(t, tables[0].Points, len(shapes))
}
