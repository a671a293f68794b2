//go:build unix

package fileout

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"syscall"
)

// dupFD returns a new *os.File on a duplicate of descriptor fd, which
// shares its offset and flags (O_APPEND of >>); closing it leaves fd open.
func dupFD(fd int) (*os.File, error) {
	d, err := syscall.Dup(fd)
	if err != nil {
		return nil, err
	}
	syscall.CloseOnExec(d)
	return os.NewFile(uintptr(d), "/dev/fd/"+strconv.Itoa(fd)), nil
}

// shared reports whether a rename over the file fi would be seen as a
// change of file: it has other names (hard links), which would keep the
// old bytes, or another owner, which would become ours.
func shared(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	return st.Nlink > 1 || int(st.Uid) != os.Geteuid()
}

// alive reports whether process pid exists: signal 0 finds it, or finds it
// is another user's.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// ours reports whether the file fi belongs to this process's user.
func ours(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
