//go:build unix

package blake3

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f (size > 0) read-only into memory;
// unmap undoes it. A file that cannot be mapped (some special files) is an
// error, and its caller reads it instead.
func mapFile(f *os.File, size int64) ([]byte, error) {
	if int64(int(size)) != size {
		return nil, syscall.EFBIG
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var data []byte
	var mapErr error
	if err := rc.Control(func(fd uintptr) {
		data, mapErr = syscall.Mmap(int(fd), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	}); err != nil {
		return nil, err
	}
	return data, mapErr
}

func unmap(data []byte) { syscall.Munmap(data) }
