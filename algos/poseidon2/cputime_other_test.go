//go:build !unix

package poseidon2

import (
	"testing"
	"time"
)

// cpuTime is 0 where the process's CPU time is not read (getrusage is
// Unix's): the benchmarks' cpu-ms/op then reads 0, and their wall time
// stands alone.
func cpuTime(testing.TB) time.Duration { return 0 }
