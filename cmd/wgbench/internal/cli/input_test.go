//go:build linux

package cli_test

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/clitest"
)

// TestReadStreamHeld reads /dev/zero, an endless stream, with a limit of
// 8 MiB: it is refused, and the read allocates no more than the limit and
// a little (a buffer that doubled and copied allocated twice the limit,
// and held 1.5 times it at its last step).
func TestReadStreamHeld(t *testing.T) {
	const limit = 8 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := cli.ReadInput("/dev/zero", limit, "the test allows")
	runtime.ReadMemStats(&after)
	require.EqualError(t, err, "/dev/zero is larger than 8.0 MiB, the most the test allows")
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(limit+limit/8), "bytes allocated")
}

// TestReadStreamJoined: a stream of several pieces comes back whole and in
// order, and one of exactly the limit is accepted.
func TestReadStreamJoined(t *testing.T) {
	for _, n := range []int{0, 1, cli.MinPiece - 1, cli.MinPiece, 5*cli.MinPiece + 17} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i*7 + i>>8)
		}
		path := filepath.Join(t.TempDir(), "in")
		clitest.Fifo(t, path, data)
		got, err := cli.ReadInputStream(path, 1<<30, int64(n), "the test allows")
		require.NoError(t, err)
		require.Equal(t, data, got, "%d bytes", n)
	}
	path := filepath.Join(t.TempDir(), "long")
	clitest.Fifo(t, path, make([]byte, cli.MinPiece+1))
	_, err := cli.ReadInputStream(path, 1<<30, cli.MinPiece, "the test allows")
	require.ErrorContains(t, err, "is larger than 64.0 KiB, the most the test allows")
}
