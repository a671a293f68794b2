package wgpu_test

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// procStatus reads a numeric field ("VmRSS" in kB, "Threads") of this
// process.
func procStatus(t *testing.T, field string) int {
	b, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.Atoi(strings.Fields(rest)[0])
			require.NoError(t, err)
			return n
		}
	}
	t.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// A service that opens a Context per request must not grow: after 20
// cycles of warm-up, 1000 Open/Close cycles, each with a buffer, a kernel
// and a transfer, keep the process's memory and thread count flat.
func TestOpenCloseIsFlat(t *testing.T) {
	for _, backend := range gputest.Backends() {
		cycle := func() {
			ctx, err := wgpu.Open(gputest.Options(t, backend))
			require.NoError(t, err)
			b, err := ctx.NewBuffer("b", 4096)
			require.NoError(t, err)
			_, err = ctx.Kernel(wgpu.KernelSpec{Label: "addone", Module: text{"addOne", addOne}, Entry: "main", Storage: 2, Uniform: true, ReadOnly: []bool{true}})
			require.NoError(t, err)
			require.NoError(t, ctx.Upload(b, 0, make([]byte, 4096)))
			require.NoError(t, ctx.Download(make([]byte, 4096), b, 0))
			b.Release()
			require.NoError(t, ctx.Close())
			_, err = ctx.NewBuffer("after close", 4)
			require.ErrorContains(t, err, "closed")
		}
		for i := 0; i < 20; i++ {
			cycle()
		}
		debug.FreeOSMemory()
		rss, threads := procStatus(t, "VmRSS"), procStatus(t, "Threads")
		for i := 0; i < 1000; i++ {
			cycle()
		}
		debug.FreeOSMemory()
		rss2, threads2 := procStatus(t, "VmRSS"), procStatus(t, "Threads")
		// Each cycle used to keep about 3 MB and a thread (3 GB and 1000
		// threads over 1000); the RSS bound leaves room for the race
		// detector's shadow memory and the allocator's slack. The Go
		// runtime adds threads (Ms) of its own while cgo calls hold theirs,
		// up to a level set by GOMAXPROCS, and then stops: on NVIDIA's
		// Vulkan with 32 cores 4000 cycles took the process from 12 threads
		// to 18 after 250 cycles and 20 from 1500 on, every new thread the
		// runtime's (the driver's three named threads came once), and 10
		// threads flat with GOMAXPROCS=2. So the bound is a few threads
		// plus half of GOMAXPROCS: 3 on 2 cores, 18 on 32, either far below
		// the one per cycle that a leak would add.
		slack := 2 + runtime.GOMAXPROCS(0)/2
		require.LessOrEqual(t, threads2, threads+slack, "%s: threads grew from %d to %d over 1000 cycles (GOMAXPROCS %d allows %d)", backend, threads, threads2, runtime.GOMAXPROCS(0), slack)
		require.Less(t, rss2-rss, 64<<10, "%s: RSS grew from %d to %d kB over 1000 cycles", backend, rss, rss2)
	}
}

// Close reports buffers the caller did not release.
func TestCloseReportsLiveBuffers(t *testing.T) {
	ctx, err := wgpu.Open(gputest.Options(t, gputest.Backends()[0]))
	require.NoError(t, err)
	_, err = ctx.NewBuffer("forgotten", 16)
	require.NoError(t, err)
	require.ErrorContains(t, ctx.Close(), "1 buffers were not released")
	require.NoError(t, ctx.Close())
}
