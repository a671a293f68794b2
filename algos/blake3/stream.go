package blake3

import (
	"errors"
	"io"
)

// cpuRootStream is cpuRoot over everything r yields, read in sequence
// into one buffer of cpuPiece bytes: each full buffer is a complete
// subtree, hashed on up to threads cores (0: all) once a byte after it
// shows that it is not the end of the input. It returns the root node and
// the input's length; on an error, the length read so far.
func cpuRootStream(r io.Reader, key [8]uint32, flags uint32, threads int) (output, int64, error) {
	p := cpuPieces.Get().(*[]byte)
	defer cpuPieces.Put(p)
	buf := *p
	st := cvStack{key: key, flags: flags}
	var total int64 // hashed so far
	fill := 0       // bytes in buf
	for {
		k, err := io.ReadFull(r, buf[fill:])
		fill += k
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return output{}, total + int64(fill), err
		}
		var next [1]byte
		if _, err := io.ReadFull(r, next[:]); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return output{}, total + int64(fill), err
		}
		cpuHashMemory(&st, buf, uint64(len(buf)/ChunkSize), threads)
		total += int64(len(buf))
		buf[0], fill = next[0], 1
	}
	tail := tailOffset(int64(fill))
	cpuHashMemory(&st, buf[:tail], uint64(tail/ChunkSize), threads)
	return st.root(buf[tail:fill]), total + int64(fill), nil
}
