package blake3

// The CPU path: BLAKE3 on every core, with the compression function from
// lukechampine.com/blake3/guts, which compresses 16 chunks at once with
// AVX-512 (8 with AVX2, one at a time elsewhere).
//
// An input of N chunks (the last one partial or empty) is a tail of its
// last 1 to 16 chunks, t = (N-1) mod 16 + 1, preceded by m = N-t whole
// chunks, a multiple of 16. Those m chunks form one complete subtree for
// each 1 bit of m, the largest first: the subtrees the reference Hasher
// holds on its stack after them. Each subtree is cut into tasks
// (power-of-two runs of at least 16 chunks, aligned to their size) that
// workers hash in any order; a cvStack takes their chaining values in input
// order and merges them exactly as the Hasher merges chunk CVs. The tail's
// own BLAKE3 tree is what the Hasher's remaining merges build from its last
// t chunks, so one SIMD call gives its root node, and the root of the input
// is folded from it leftwards with parentOutput. The SIMD code compresses
// no padding, except for a tail or a subtree of fewer than 16 chunks.

import (
	"fmt"
	"io"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"lukechampine.com/blake3/guts"

	"github.com/wgcompute/wgcompute/internal/base/par"
)

const (
	// cpuWorkerBytes is the least input per worker goroutine: a worker
	// that is started for less costs more than it saves: waking an idle
	// thread on a VM takes about as long as hashing this much
	// (bench/results/HISTORY.md, "Figures moved from code comments").
	// Inputs under twice this are hashed on the calling goroutine alone.
	cpuWorkerBytes = 512 << 10
	// cpuTaskMax is the largest task a worker hashes in one go from memory.
	cpuTaskMax = 1 << 20
	// cpuPiece is what a worker reads and hashes at a time in
	// cpuRootReaderAt; each worker holds one such buffer. In a warm
	// process 512 KiB and 2 MiB hash a file in the page cache equally
	// fast, but a fresh process faults its buffers in first, and there the
	// smaller pieces won (BENCHMARKS.md, "The CPU path"; the figures in
	// bench/results/HISTORY.md, "Figures moved from code comments").
	cpuPiece = 512 << 10
	// simdChunks is the most chunks guts compresses in one call.
	simdChunks = guts.MaxSIMD
)

// cpuRoot returns the root output node of the whole input data (any
// length, 0 included) in the given mode, hashing subtrees on up to threads
// cores (0: all); output.rootBytes gives any output length from it. With
// a base other than 0, data is the subtree of a larger input whose first
// chunk has counter base, and the node returned is its top node, whose
// chainingValue is the subtree's.
func cpuRoot(data []byte, base uint64, key [8]uint32, flags uint32, threads int) output {
	tail := tailOffset(int64(len(data)))
	st := cvStack{key: key, flags: flags, base: base}
	cpuHashMemory(&st, data[:tail], uint64(tail/ChunkSize), threads)
	return st.root(data[tail:])
}

// cpuRootReaderAt is cpuRoot over n bytes read from r (a file), reading
// and hashing pieces of cpuPiece bytes on up to threads cores (0: all) with
// bounded memory (O(workers × piece)); a short read is an error.
func cpuRootReaderAt(r io.ReaderAt, n int64, base uint64, key [8]uint32, flags uint32, threads int) (output, error) {
	if n < 0 {
		return output{}, fmt.Errorf("blake3: negative input length %d", n)
	}
	if n <= cpuPiece {
		p := cpuPieces.Get().(*[]byte)
		defer cpuPieces.Put(p)
		buf := (*p)[:n]
		if err := readAtFull(r, buf, 0); err != nil {
			return output{}, err
		}
		return cpuRoot(buf, base, key, flags, threads), nil
	}
	tail := tailOffset(n)
	chunks := uint64(tail / ChunkSize)
	taskChunks := uint64(cpuPiece / ChunkSize)
	workers := min(cpuThreads(threads), int((chunks+taskChunks-1)/taskChunks))
	bufs := make([]*[]byte, workers)
	defer func() {
		for _, p := range bufs {
			if p != nil {
				cpuPieces.Put(p)
			}
		}
	}()
	st := cvStack{key: key, flags: flags, base: base}
	err := cpuRun(&st, chunks, taskChunks, workers, func(w int, first, count uint64) ([8]uint32, error) {
		if bufs[w] == nil {
			bufs[w] = cpuPieces.Get().(*[]byte)
		}
		b := (*bufs[w])[:count*ChunkSize]
		if err := readAtFull(r, b, int64(first*ChunkSize)); err != nil {
			return [8]uint32{}, err
		}
		return subtreeCVSerial(b, base+first, &key, flags), nil
	})
	if err != nil {
		return output{}, err
	}
	var buf [simdChunks * ChunkSize]byte
	t := buf[:n-tail]
	if err := readAtFull(r, t, tail); err != nil {
		return output{}, err
	}
	return st.root(t), nil
}

// cpuPieces holds the buffers of cpuRootReaderAt's workers between calls.
var cpuPieces = sync.Pool{New: func() any {
	b := make([]byte, cpuPiece)
	return &b
}}

// tailOffset is where the tail of an n-byte input starts: its last 1 to
// 16 chunks, preceded by a multiple of 16 whole chunks.
func tailOffset(n int64) int64 {
	const batch = simdChunks * ChunkSize
	if n == 0 {
		return 0
	}
	return (n - 1) / ChunkSize / simdChunks * batch
}

// readAtFull fills b from r at off; fewer bytes than len(b), or an error
// other than io.EOF, is an error.
func readAtFull(r io.ReaderAt, b []byte, off int64) error {
	got, err := r.ReadAt(b, off)
	if got == len(b) && (err == nil || err == io.EOF) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("blake3: read %d bytes at offset %d: got %d: %w", len(b), off, got, err)
}

// cpuThreads is the number of cores a CPU hash with the threads option
// runs on: threads, or all of them (GOMAXPROCS) for 0.
func cpuThreads(threads int) int {
	if threads > 0 {
		return threads
	}
	return runtime.GOMAXPROCS(0)
}

// cpuHashMemory pushes into st the chaining values of the complete
// subtrees of data (chunks whole chunks, the first being the chunk after
// those st holds), on up to threads cores (0: all) when data is large
// enough to pay for them.
func cpuHashMemory(st *cvStack, data []byte, chunks uint64, threads int) {
	base := st.base + st.chunks // the counter of data's first chunk
	workers := min(cpuThreads(threads), len(data)/cpuWorkerBytes)
	if workers <= 1 {
		// No goroutine and no allocation: each subtree is one task.
		eachTask(chunks, chunks, func(first, count uint64) bool {
			st.push(subtreeCVSerial(data[first*ChunkSize:(first+count)*ChunkSize], base+first, &st.key, st.flags), count)
			return true
		})
		return
	}
	// Eight tasks per worker or more balance the load; a task is at least
	// one SIMD batch of chunks.
	taskChunks := uint64(cpuTaskMax / ChunkSize)
	if per := chunks / uint64(8*workers); per < taskChunks {
		taskChunks = simdChunks
		if per > simdChunks {
			taskChunks = uint64(1) << (bits.Len64(per) - 1)
		}
	}
	key, flags := st.key, st.flags // not st: the workers would move it to the heap
	cpuRun(st, chunks, taskChunks, workers, func(_ int, first, count uint64) ([8]uint32, error) {
		return subtreeCVSerial(data[first*ChunkSize:(first+count)*ChunkSize], base+first, &key, flags), nil
	})
}

// cpuBatchTasks is how many tasks cpuRun hands its workers at a time: the
// memory it holds for their CVs (48 KiB), and the number of waits for the
// slowest worker (one per batch, at most a task long), are small.
const cpuBatchTasks = 1024

// cpuRun hashes the complete subtrees of the first chunks chunks (one for
// each 1 bit of chunks, largest first), cut into tasks of at most
// taskChunks chunks (a power of two), on workers goroutines (this one
// among them), and pushes the tasks' chaining values into st in input
// order. hash(w, first, count) returns the CV of count chunks starting at
// chunk first; w names the worker (0 ≤ w < workers), so that each may own
// a buffer. Workers take the tasks of a batch of cpuBatchTasks in order
// from a shared counter, and need no other hand-off: on a VM, waking a
// parked thread costs as much as hashing hundreds of KiB (cpuWorkerBytes).
// The first error stops the work and
// is returned.
func cpuRun(st *cvStack, chunks, taskChunks uint64, workers int, hash func(w int, first, count uint64) ([8]uint32, error)) error {
	type task struct{ first, count uint64 }
	batch := make([]task, 0, min(cpuBatchTasks, bits.OnesCount64(chunks)+int(chunks/taskChunks)))
	cvs := make([][8]uint32, cap(batch))
	var (
		mu       sync.Mutex
		firstErr error
	)
	run := func() {
		var next atomic.Int64
		work := func(w int) {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(batch) {
					return
				}
				cv, err := hash(w, batch[i].first, batch[i].count)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					next.Store(int64(len(batch))) // the others take no more
					return
				}
				cvs[i] = cv
			}
		}
		par.Workers(min(workers, len(batch)), work)
		if firstErr == nil {
			for i, t := range batch {
				st.push(cvs[i], t.count)
			}
		}
		batch = batch[:0]
	}
	eachTask(chunks, taskChunks, func(first, count uint64) bool {
		batch = append(batch, task{first, count})
		if len(batch) == cap(batch) {
			run()
		}
		return firstErr == nil
	})
	if len(batch) > 0 && firstErr == nil {
		run()
	}
	return firstErr
}

// eachTask calls fn(first, count) for the tasks covering the complete
// subtrees of the first chunks chunks, in input order, until fn returns
// false: each subtree of at most taskChunks chunks is one task, a larger
// one is cut into tasks of taskChunks.
func eachTask(chunks, taskChunks uint64, fn func(first, count uint64) bool) {
	var first uint64
	for h := bits.Len64(chunks) - 1; h >= 0; h-- {
		size := uint64(1) << h
		if chunks&size == 0 {
			continue
		}
		step := min(size, taskChunks)
		for end := first + size; first < end; first += step {
			if !fn(first, step) {
				return
			}
		}
	}
}

// cvStack merges the chaining values of aligned power-of-two runs of
// chunks, pushed in input order, into the subtrees the reference Hasher
// would hold after as many chunks: cv[h] is the subtree of 2^h chunks for
// every 1 bit h of chunks. The chunks pushed start at chunk counter base:
// 0 for a whole input, or the first chunk of a subtree of a larger one
// (whose alignment makes the merges the same).
type cvStack struct {
	key    [8]uint32
	flags  uint32
	base   uint64
	chunks uint64
	cv     [64][8]uint32
}

// push adds the CV of the next count chunks (a power of two dividing the
// chunks pushed so far).
func (s *cvStack) push(cv [8]uint32, count uint64) {
	h := bits.TrailingZeros64(count)
	for ; s.chunks&(1<<h) != 0; h++ {
		cv = guts.ChainingValue(guts.ParentNode(s.cv[h], cv, &s.key, s.flags))
	}
	s.cv[h] = cv
	s.chunks += count
}

// root returns the root node of the input made of the chunks pushed and
// then tail (at most 16 chunks, the last one partial or whole; empty only
// when nothing was pushed).
func (s *cvStack) root(tail []byte) output {
	var n guts.Node
	if len(tail) <= ChunkSize {
		n = guts.CompressChunk(tail, &s.key, s.base+s.chunks, s.flags)
	} else {
		// guts reads a whole batch; give it one.
		var buf [simdChunks * ChunkSize]byte
		copy(buf[:], tail)
		n = guts.CompressBuffer(&buf, len(tail), &s.key, s.base+s.chunks, s.flags)
	}
	return s.rootOver(output{cv: n.CV, block: n.Block, counter: n.Counter, blockLen: n.BlockLen, flags: n.Flags})
}

// rootOver returns the root node of the input made of the chunks pushed
// and then the subtree (or tail) whose top node is last.
func (s *cvStack) rootOver(last output) output {
	if s.chunks == 0 {
		return last
	}
	return s.rootOverCV(last.chainingValue())
}

// rootOverCV returns the root node of the input made of the chunks pushed
// (at least one) and then the subtree whose chaining value is cv: the
// Hasher's final merges, from the smallest subtree on its stack to the
// largest, the last of them the root.
func (s *cvStack) rootOverCV(cv [8]uint32) output {
	var o output
	for h := range 64 {
		if s.chunks&(1<<h) != 0 {
			if h > bits.TrailingZeros64(s.chunks) {
				cv = o.chainingValue()
			}
			o = parentOutput(s.cv[h], cv, s.key, s.flags)
		}
	}
	return o
}

// subtreeCVSerial is the CV of data (a power-of-two number of whole
// chunks, the first with counter counter) on the calling goroutine, 16
// chunks per SIMD call.
func subtreeCVSerial(data []byte, counter uint64, key *[8]uint32, flags uint32) [8]uint32 {
	const batch = simdChunks * ChunkSize
	switch {
	case len(data) == ChunkSize:
		return guts.ChainingValue(guts.CompressChunk(data, key, counter, flags))
	case len(data) < batch:
		// guts reads a whole batch; give it one.
		var buf [batch]byte
		copy(buf[:], data)
		return guts.ChainingValue(guts.CompressBuffer(&buf, len(data), key, counter, flags))
	}
	// guts gathers a word of each of the 16 chunks of a batch at a time:
	// 16 streams 1 KiB apart, which the hardware prefetcher follows poorly
	// from memory. Copying each batch first (one sequential stream, into
	// L1) about doubled one core's rate on data in memory, for little lost
	// on data already in cache (BENCHMARKS.md, "The CPU path"; the figures
	// in bench/results/HISTORY.md, "Figures moved from code comments").
	st := cvStack{key: *key, flags: flags}
	var buf [batch]byte
	for off := 0; off < len(data); off += batch {
		copy(buf[:], data[off:off+batch])
		n := guts.CompressBuffer(&buf, batch, key, counter+uint64(off/ChunkSize), flags)
		st.push(guts.ChainingValue(n), simdChunks)
	}
	return st.cv[bits.TrailingZeros64(st.chunks)]
}
