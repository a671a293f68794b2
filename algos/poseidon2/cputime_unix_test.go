//go:build unix

package poseidon2

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the CPU time the process has used: on a loaded machine
// it measures a benchmark's work where its wall time also counts the
// other processes'.
func cpuTime(tb testing.TB) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
