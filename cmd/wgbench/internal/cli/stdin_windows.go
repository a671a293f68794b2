//go:build windows

package cli

import (
	"os"
	"syscall"
)

// stdinFile returns a new *os.File on a duplicate of standard input's
// handle: an input named "-" is closed after reading like any other, and
// the process's standard input stays open.
func stdinFile() (*os.File, error) {
	p, err := syscall.GetCurrentProcess()
	if err != nil {
		return nil, err
	}
	var h syscall.Handle
	if err := syscall.DuplicateHandle(p, syscall.Handle(os.Stdin.Fd()), p, &h, 0, false, syscall.DUPLICATE_SAME_ACCESS); err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(h), "-"), nil
}
