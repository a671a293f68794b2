//go:build !unix

package blake3

import (
	"errors"
	"os"
)

// mapFile is not implemented here: files are read instead.
func mapFile(*os.File, int64) ([]byte, error) {
	return nil, errors.New("blake3: memory-mapped input is not implemented on this system")
}

func unmap([]byte) {}
