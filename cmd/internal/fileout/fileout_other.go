//go:build !unix

package fileout

import (
	"errors"
	"io/fs"
	"os"
)

// dupFD returns standard output or standard error, which closing the
// File leaves open (File.Commit closes nothing it did not open); elsewhere
// a descriptor by number is not supported.
func dupFD(fd int) (*os.File, error) {
	switch fd {
	case 1:
		return os.Stdout, nil
	case 2:
		return os.Stderr, nil
	}
	return nil, errors.New("an open file descriptor by number is not supported here")
}

// shared reports whether a rename over the file fi would be seen as a
// change of file; without link counts and owners, never.
func shared(fs.FileInfo) bool { return false }

// alive reports whether process pid exists; without a way to ask, every
// process is taken to be, and no temporary file is removed as stale.
func alive(int) bool { return true }

// ours reports whether the file fi belongs to this process's user.
func ours(fs.FileInfo) bool { return true }
