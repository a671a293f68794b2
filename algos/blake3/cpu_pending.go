package blake3

// Temporary: the reference Hasher stands in for cpuRoot and cpuRootReaderAt
// (cpu.go, the multi-threaded CPU path) until they are committed; this file
// goes then, and the Engine calls them.

import (
	"fmt"
	"io"
)

func pendingRoot(data []byte, key [8]uint32, flags uint32) output {
	h := newHasher(key, flags)
	h.Write(data)
	return h.rootOutput()
}

func pendingRootReaderAt(r io.ReaderAt, n int64, key [8]uint32, flags uint32) (output, error) {
	h := newHasher(key, flags)
	got, err := io.Copy(h, io.NewSectionReader(r, 0, n))
	if err == nil && got < n {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return output{}, fmt.Errorf("blake3: read %d bytes: got %d: %w", n, got, err)
	}
	return h.rootOutput(), nil
}
