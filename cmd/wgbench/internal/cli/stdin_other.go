//go:build !unix && !windows

package cli

import (
	"errors"
	"os"
)

// stdinFile: standard input by "-" is not offered here.
func stdinFile() (*os.File, error) {
	return nil, errors.New("standard input as - is not supported on this system")
}
