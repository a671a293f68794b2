package cli

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"github.com/wgcompute/wgcompute/cmd/internal/bytesize"
	"github.com/wgcompute/wgcompute/cmd/internal/fileout"
	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/internal/base/rlimit"
	"github.com/wgcompute/wgcompute/wgpu"
)

// OpenInput opens an input file for reading: a regular file, or a pipe,
// FIFO or device, which are read as streams; "-" is standard input (a
// duplicate of its descriptor, which closing leaves open). A directory is
// an error. The error names the path once.
func OpenInput(path string) (*os.File, fs.FileInfo, error) {
	open := os.Open
	if path == "-" {
		open = func(string) (*os.File, error) { return stdinFile() }
	}
	f, err := open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, fileout.Bare(err))
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, fileout.Bare(err))
	}
	if fi.IsDir() {
		f.Close()
		return nil, nil, fmt.Errorf("%s: is a directory", path)
	}
	return f, fi, nil
}

// ReadInput reads all of path, at most limit bytes; a longer input is an
// error naming the limit and what sets it (why), before more than limit+1
// bytes are read or held. The stat size of a regular file only sizes the
// first allocation: /proc files report 0, and a file may change while
// read.
func ReadInput(path string, limit int64, why string) ([]byte, error) {
	return ReadInputStream(path, limit, limit, why)
}

// ReadInputStream is ReadInput where a stream (a pipe, a FIFO, a device,
// a file whose stat size is 0) may hold at most streamLimit bytes: a
// stream is read in pieces, joined once it ends, so that for a moment it
// is held twice.
func ReadInputStream(path string, limit, streamLimit int64, why string) ([]byte, error) {
	end := wgpu.Span("read input")
	b, err := readAll(path, limit, streamLimit, why)
	end(int64(len(b)))
	return b, err
}

// readAll is ReadInputStream without its trace span. The pieces a stream
// is read into never hold more than limit+1 bytes together (the bytes
// read and the room for the next read): a buffer that doubled and copied
// held 1.5 times the limit at its last step, and its earlier copies, not
// yet collected, more again.
func readAll(path string, limit, streamLimit int64, why string) ([]byte, error) {
	f, fi, err := OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sized := fi.Mode().IsRegular() && fi.Size() > 0
	if !sized {
		limit = min(limit, streamLimit)
	}
	tooLong := func() error {
		return fmt.Errorf("%s is larger than %s, the most %s", path, bytesize.Tenths(limit), why)
	}
	if sized && fi.Size() > limit {
		return nil, tooLong()
	}
	// Room for the stat size and one byte more, to find the end without
	// another piece.
	piece := make([]byte, 0, min(max(fi.Size(), 0), limit)+1)
	if sized && fi.Size() >= ParallelRead {
		// A large file is read by every core at once (page cache copies
		// and the page faults of the new buffer alike); what follows the
		// stat size, if the file grew, is read as any stream is.
		n := fi.Size()
		if err := ReadFileAt(path, f, piece[:n], 0, n); err != nil {
			return nil, err
		}
		piece = piece[:n]
		if _, err := f.Seek(n, io.SeekStart); err != nil {
			return nil, fmt.Errorf("%s: %w", path, fileout.Bare(err))
		}
	}
	var full [][]byte // the pieces before piece, each full
	held := int64(len(piece))
	for {
		if len(piece) == cap(piece) {
			full = append(full, piece)
			// Each piece twice the last, up to maxPiece, and never past
			// the limit: held+size ≤ limit+1.
			size := min(max(2*int64(cap(piece)), MinPiece), maxPiece, limit+1-held)
			piece = make([]byte, 0, size)
		}
		n, err := f.Read(piece[len(piece):cap(piece)])
		piece = piece[:len(piece)+n]
		held += int64(n)
		if held > limit {
			return nil, tooLong()
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, fileout.Bare(err))
		}
	}
	if len(full) == 0 {
		return piece, nil
	}
	whole := make([]byte, 0, held)
	for _, p := range full {
		whole = append(whole, p...)
	}
	return append(whole, piece...), nil
}

const (
	// MinPiece and maxPiece bound the pieces a stream is read into.
	MinPiece = 64 << 10
	maxPiece = 64 << 20
)

// readAt fills dst from f at offset off, with every core at once from
// ParallelRead bytes on (page cache copies and the page faults of a new
// buffer alike); a file that ends first is io.ErrUnexpectedEOF.
func readAt(f *os.File, dst []byte, off int64) error {
	grain := readGrain
	if len(dst) < ParallelRead {
		grain = len(dst)
	}
	return par.ForErr(len(dst), grain, func(lo, hi int) error {
		k, err := f.ReadAt(dst[lo:hi], off+int64(lo))
		if k == hi-lo {
			return nil
		}
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return err
	})
}

// ReadFileAt is readAt of the file path, of size bytes, with errors that
// name path once; a file that ends before dst is filled is "shorter than
// its size of size bytes while read".
func ReadFileAt(path string, f *os.File, dst []byte, off, size int64) error {
	if err := readAt(f, dst, off); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%s: shorter than its size of %d bytes while read", path, size)
		}
		return fmt.Errorf("%s: %w", path, fileout.Bare(err))
	}
	return nil
}

const (
	// ParallelRead is the size from which a regular file is read by all
	// cores.
	ParallelRead = 8 << 20
	// readGrain is the least one goroutine reads.
	readGrain = 4 << 20
)

// ReadExactly reads exactly len(dst) bytes of path and checks that nothing
// follows: a file of another size, a regular file whose stat size says
// so, or one that changes while read, is an error naming both sizes
// (size names what the input should hold).
func ReadExactly(path string, dst []byte, size string) error {
	defer wgpu.Span("read input")(int64(len(dst)))
	f, fi, err := OpenInput(path)
	if err != nil {
		return err
	}
	defer f.Close()
	want := int64(len(dst))
	if fi.Mode().IsRegular() && fi.Size() != 0 && fi.Size() != want {
		return fmt.Errorf("%s has %d bytes; %s has %d", path, fi.Size(), size, want)
	}
	if fi.Mode().IsRegular() && fi.Size() == want && want >= ParallelRead {
		// Every core at once, as ReadInput reads a large file.
		if err := ReadFileAt(path, f, dst, 0, want); err != nil {
			return err
		}
		if _, err := f.Seek(want, io.SeekStart); err != nil {
			return fmt.Errorf("%s: %w", path, fileout.Bare(err))
		}
		dst = dst[:0] // read; what follows is checked below
	}
	r := bufio.NewReader(f)
	n, err := io.ReadFull(r, dst)
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s has %d bytes; %s has %d", path, n, size, want)
	case err != nil:
		return fmt.Errorf("%s: %w", path, fileout.Bare(err))
	}
	if _, err := r.ReadByte(); err == nil {
		return fmt.Errorf("%s has more than %d bytes; %s has %d", path, want, size, want)
	} else if !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: %w", path, fileout.Bare(err))
	}
	return nil
}

// AvailableMemory is how many bytes of host memory a command may fill:
// MemAvailable from /proc/meminfo, lowered to what a cgroup v2 memory
// limit leaves and to what the address-space limit (ulimit -v) leaves.
// Where none is known it is 1 TiB: still a bound, far above any input a
// command is meant for.
func AvailableMemory() int64 {
	return min(systemMemory(), addressSpaceLeft())
}

// addressSpaceLeft is what RLIMIT_AS leaves of the process's address
// space: the limit less the virtual memory mapped now (VmSize; the Go
// runtime and the drivers reserve much that they never touch, which
// counts against the limit all the same). Without a limit it is 1 TiB.
func addressSpaceLeft() int64 {
	limit, ok := rlimit.AddressSpace()
	if !ok {
		return 1 << 40
	}
	return spaceLeft(limit, mappedBytes())
}

// spaceLeft is what an address-space limit of limit bytes leaves beside
// used bytes mapped: no less than 0.
func spaceLeft(limit, used uint64) int64 {
	if used >= limit {
		return 0
	}
	return int64(min(limit-used, 1<<40))
}

// mappedBytes is the process's VmSize from /proc/self/status, 0 where it
// cannot be read.
func mappedBytes() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmSize:" && f[2] == "kB" {
			if kb, err := strconv.ParseUint(f[1], 10, 64); err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// systemMemory is MemAvailable lowered to what the cgroup leaves.
func systemMemory() int64 {
	avail := int64(1 << 40)
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) == 3 && f[0] == "MemAvailable:" && f[2] == "kB" {
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					avail = kb << 10
				}
			}
		}
	}
	readInt := func(path string) (int64, bool) {
		b, err := os.ReadFile(path)
		if err != nil {
			return 0, false
		}
		v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		return v, err == nil
	}
	if limit, ok := readInt("/sys/fs/cgroup/memory.max"); ok {
		used, _ := readInt("/sys/fs/cgroup/memory.current")
		avail = min(avail, max(limit-used, 0))
	}
	return avail
}

// EachRecordLine reads the record files names ("-": standard input), each
// at most limit bytes, and calls fn with every line that is not blank (a
// trailing CR removed) and where it is, "file:line"; it stops at fn's
// first error. Both combine commands read their records through it.
func EachRecordLine(stdin io.Reader, names []string, limit int64, fn func(line, at string) error) error {
	for _, name := range names {
		var b []byte
		var err error
		if name == "-" {
			if b, err = io.ReadAll(io.LimitReader(stdin, limit+1)); err == nil && int64(len(b)) > limit {
				err = fmt.Errorf("larger than %s, the most the records can take here", bytesize.Tenths(limit))
			}
			if err != nil {
				return fmt.Errorf("standard input: %w", err)
			}
			name = "standard input"
		} else if b, err = ReadInput(name, limit, "the records can take here"); err != nil {
			return err
		}
		for k, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSuffix(line, "\r")
			if strings.TrimSpace(line) == "" {
				continue
			}
			if err := fn(line, fmt.Sprintf("%s:%d", name, k+1)); err != nil {
				return err
			}
		}
	}
	return nil
}

// AsElements returns raw, whose length is a multiple of E's size, as the
// little-endian values it holds: the same memory where the host is
// little-endian and raw is aligned (as ReadInput's buffers are), a
// converted copy otherwise. Converting 1 GiB into a new slice took its
// page faults and a pass over it before any kernel ran (commit --matrix
// spent a large part of its run between the device and the first
// compile: bench/results/HISTORY.md, "Figures moved from code comments").
func AsElements[E ~uint32 | ~uint64](raw []byte) []E {
	defer wgpu.Span("view input as field elements")(int64(len(raw)))
	size := int(unsafe.Sizeof(E(0)))
	n := len(raw) / size
	if n == 0 {
		return nil
	}
	p := unsafe.Pointer(unsafe.SliceData(raw))
	if binary.NativeEndian.Uint16([]byte{1, 0}) == 1 && uintptr(p)%uintptr(size) == 0 {
		return unsafe.Slice((*E)(p), n)
	}
	els := make([]E, n)
	par.For(n, 1<<16, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if size == 8 {
				els[i] = E(binary.LittleEndian.Uint64(raw[8*i:]))
			} else {
				els[i] = E(binary.LittleEndian.Uint32(raw[4*i:]))
			}
		}
	})
	return els
}

// DigestsAsBytes returns digests, arrays of field elements E (four
// uint64, eight uint32), as their elements' little-endian bytes: their own
// memory on a little-endian host, a converted copy otherwise.
func DigestsAsBytes[E ~uint32 | ~uint64, D any](digests []D) []byte {
	raw := wgpu.Bytes(digests)
	defer wgpu.Span("view digests as bytes")(int64(len(raw)))
	if binary.NativeEndian.Uint16([]byte{1, 0}) == 1 || len(raw) == 0 {
		return raw
	}
	size := int(unsafe.Sizeof(E(0)))
	els := unsafe.Slice((*E)(unsafe.Pointer(unsafe.SliceData(raw))), len(raw)/size)
	out := make([]byte, len(raw))
	for i, e := range els {
		if size == 8 {
			binary.LittleEndian.PutUint64(out[8*i:], uint64(e))
		} else {
			binary.LittleEndian.PutUint32(out[4*i:], uint32(e))
		}
	}
	return out
}

// WriteOutput writes data to the file path, replacing it at once
// (fileout.WriteFile), as a trace phase.
func WriteOutput(path string, data []byte) error {
	defer wgpu.Span("write output")(int64(len(data)))
	return fileout.WriteFile(path, data)
}
