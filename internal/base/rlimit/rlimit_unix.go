//go:build unix

package rlimit

import "syscall"

// AddressSpace returns the soft RLIMIT_AS (ulimit -v), and whether there
// is one.
func AddressSpace() (uint64, bool) { return soft(syscall.RLIMIT_AS) }

// Stack returns the soft RLIMIT_STACK (ulimit -s), the stack glibc gives
// each thread it starts, and whether there is one.
func Stack() (uint64, bool) { return soft(syscall.RLIMIT_STACK) }

func soft(resource int) (uint64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(resource, &r); err != nil || r.Cur >= 1<<62 { // RLIM_INFINITY: all ones on Linux, 2^63-1 on BSDs
		return 0, false
	}
	return uint64(r.Cur), true
}
