//go:build unix

package cli

import (
	"os"
	"syscall"
)

// stdinFile returns a new *os.File on a duplicate of standard input's
// descriptor: an input named "-" is closed after reading like any other,
// and the process's standard input stays open.
func stdinFile() (*os.File, error) {
	d, err := syscall.Dup(0)
	if err != nil {
		return nil, err
	}
	syscall.CloseOnExec(d)
	return os.NewFile(uintptr(d), "-"), nil
}
