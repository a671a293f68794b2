//go:build unix

package cli

import "syscall"

// addressSpaceLimit is the soft RLIMIT_AS (ulimit -v), and whether there
// is one.
func addressSpaceLimit() (uint64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur >= 1<<62 { // RLIM_INFINITY: all ones on Linux, 2^63-1 on BSDs
		return 0, false
	}
	return uint64(r.Cur), true
}

// threadStack is the stack glibc gives each thread it starts for cgo: the
// soft RLIMIT_STACK (ulimit -s), or defaultStack where there is none.
func threadStack() uint64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_STACK, &r); err != nil || r.Cur >= 1<<62 {
		return defaultStack
	}
	return uint64(r.Cur)
}
