package blake3

// The CPU and the GPU hashing one input together. The input's complete
// subtrees before its tail are cut into tasks of hybridTask bytes (aligned
// power-of-two runs of chunks). The CPU's workers take tasks from the
// front at once; the GPU, once it is open, takes runs of tasks from the
// back, each run a power of two of them aligned to its size, so that it is
// one subtree of the BLAKE3 tree. Every task and run leaves one chaining
// value, and the host merges them in input order on a cvStack, as the
// reference Hasher merges chunks; what follows the last whole task (less
// than one task, and the tail) is hashed on the CPU at the end. A run the
// GPU fails on is hashed on the CPU instead, and the GPU is not used again.

import (
	"cmp"
	"io"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
)

const (
	// hybridTask is the CPU's task: small enough that the CPU's last task
	// ends soon after the GPU's last run, and a worker's read buffer, one
	// of cpuPieces', fits in its core's cache.
	hybridTask = cpuPiece
	// hybridGPUMin is the smallest run the GPU takes: below it a
	// submission's fixed cost outweighs its work.
	hybridGPUMin = 4 << 20
	// hybridGPUMax is the largest run the GPU takes (a few milliseconds of
	// upload, so that the CPU waits little for the GPU's last run); the
	// device's binding limit may lower it. hybridGPUCores: once the GPU runs,
	// 1 in hybridGPUCores of the CPU's workers stops, so that the uploads'
	// copies find cores. Measured with `blake3.test -test.bench AutoFile` on
	// a 16-core NVIDIA host: smaller runs with fewer workers stopped were
	// slower than the CPU alone, these were faster (BENCHMARKS.md, "BLAKE3";
	// the figures in bench/results/HISTORY.md, "Figures moved from code
	// comments").
	hybridGPUMax   = 256 << 20
	hybridGPUCores = 2
)

// hybridQueue hands out the tasks not yet taken: [front, back), which
// both sides take, and [rest, end), the tasks after the last whole run of
// the GPU's largest size, which only the CPU takes (first), so that back
// starts aligned to every run the GPU may take.
type hybridQueue struct {
	mu                     sync.Mutex
	front, back, rest, end uint64
	hold                   chan struct{} // when not nil, the CPU waits for it to close
	holdOnce               sync.Once
	gpuOn                  atomic.Bool // the GPU has taken a run
}

// newHybridQueue is the queue of tasks tasks, for runs of at most most
// tasks (a power of two).
func newHybridQueue(tasks, most uint64) *hybridQueue {
	back := tasks / most * most
	return &hybridQueue{back: back, rest: back, end: tasks}
}

// cpuTake takes a task left after the aligned runs, or else the first one.
func (q *hybridQueue) cpuTake() (uint64, bool) {
	if q.hold != nil {
		<-q.hold
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	switch {
	case q.rest < q.end:
		q.rest++
		return q.rest - 1, true
	case q.front < q.back:
		q.front++
		return q.front - 1, true
	}
	return 0, false
}

// gpuTake takes the largest run of tasks at the back that is a power of
// two aligned to its size, of at most most tasks (a power of two), if it
// has least tasks or more.
func (q *hybridQueue) gpuTake(least, most uint64) (start, count uint64, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.front >= q.back {
		return 0, 0, false
	}
	count = min(most, q.back&-q.back, wgpu.PowerOfTwoBelow(q.back-q.front))
	if count < least {
		return 0, 0, false
	}
	q.back -= count
	return q.back, count, true
}

// drain takes every task left, after an error.
func (q *hybridQueue) drain() {
	q.mu.Lock()
	q.front, q.rest = q.back, q.end
	q.mu.Unlock()
}

// release lets the CPU's workers start.
func (q *hybridQueue) release() {
	if q.hold != nil {
		q.holdOnce.Do(func() { close(q.hold) })
	}
}

// hybridRun is a run of tasks the GPU took, and its chaining value or the
// error it failed with.
type hybridRun struct {
	start, count uint64
	cv           [8]uint32
	err          error
}

// hybridInput is what the hybrid hashes: n bytes in memory, or read from
// a file with ReadAt, by the CPU's workers into their buffers and by the
// GPU straight into staging memory. They are a whole input, or the
// subtree of a larger one whose first chunk has counter base.
type hybridInput struct {
	mem  []byte      // the input, when it is in memory
	at   io.ReaderAt // else where it is read from
	n    uint64
	base uint64
}

// buffer returns what read needs to read a task (at most cpuPiece bytes)
// and the function that gives it back: nothing for an input in memory,
// else one of cpuPieces' buffers, which the CPU path's readers share.
func (in hybridInput) buffer() ([]byte, func()) {
	if in.at == nil {
		return nil, func() {}
	}
	p := cpuPieces.Get().(*[]byte)
	return *p, func() { cpuPieces.Put(p) }
}

// read returns the n bytes at off: a part of mem, or read into buf (a new
// one if buf is smaller).
func (in hybridInput) read(buf []byte, off, n uint64) ([]byte, error) {
	if in.at == nil {
		return in.mem[off : off+n], nil
	}
	if uint64(len(buf)) < n {
		buf = make([]byte, n)
	}
	return buf[:n], readAtFull(in.at, buf[:n], int64(off))
}

// upload puts the n bytes at off into dst.
func (in hybridInput) upload(ctx *wgpu.Context, dst *wgpu.Buffer, off, n uint64) error {
	if in.at == nil {
		return ctx.Upload(dst, 0, in.mem[off:off+n])
	}
	return ctx.UploadFrom(dst, 0, io.NewSectionReader(in.at, int64(off), int64(n)), int64(n))
}

// hybridRoot returns the root node of in (the top node of a subtree),
// hashed by the CPU's workers and, once it is open, the GPU; a read error
// stops it.
func (a *Auto) hybridRoot(in hybridInput) (output, error) {
	defer wgpu.Span("blake3 hash on the CPU and the GPU")(int64(in.n))
	task := a.hybridTask / ChunkSize // chunks per task
	tail := uint64(tailOffset(int64(in.n)))
	tasks := tail / a.hybridTask
	q := newHybridQueue(tasks, a.gpuMaxTasks())
	if a.gpuFirst {
		q.hold = make(chan struct{})
	}
	cvs := make([][8]uint32, tasks)
	stop := make(chan struct{})
	gpuRuns := make(chan []hybridRun, 1)
	go func() { gpuRuns <- a.gpuWork(in, q, stop) }()

	// The CPU hashes on one core fewer than the CPU path while the GPU's
	// driver opens the device, and on threads/gpuCores fewer (half, with
	// hybridGPUCores) once the GPU runs: the uploads' copies into staging
	// memory need cores, and with every core hashing they waited for one and
	// ran far below the bus's rate (bench/results/HISTORY.md, "Figures moved
	// from code comments").
	threads := cpuThreads(a.opts.Threads)
	keep := max(threads-threads/a.gpuCores, 1)
	key, flags := a.cpu.key, a.cpu.flags
	hashTask := func(i uint64, buf []byte) ([8]uint32, error) {
		first := i * task
		b, err := in.read(buf, first*ChunkSize, a.hybridTask)
		return subtreeCVSerial(b, in.base+first, &key, flags), err
	}
	var mu sync.Mutex
	var readErr error
	work := func(w int) {
		buf, done := in.buffer()
		defer done()
		for !(w >= keep && q.gpuOn.Load()) {
			i, ok := q.cpuTake()
			if !ok {
				return
			}
			cv, err := hashTask(i, buf)
			if err != nil {
				mu.Lock()
				readErr = cmp.Or(readErr, err)
				mu.Unlock()
				q.drain()
				return
			}
			cvs[i] = cv
		}
	}
	par.Workers(max(threads-1, 1), work)
	close(stop)
	runs := <-gpuRuns
	if readErr != nil {
		return output{}, readErr
	}

	slices.SortFunc(runs, func(x, y hybridRun) int { return cmp.Compare(x.start, y.start) })
	st := cvStack{key: key, flags: flags, base: in.base}
	var buf []byte // for the runs the GPU failed on
	for i := uint64(0); i < tasks; {
		if len(runs) == 0 || runs[0].start != i {
			st.push(cvs[i], task)
			i++
			continue
		}
		r := runs[0]
		runs = runs[1:]
		if r.err == nil {
			a.gpuBytes += r.count * a.hybridTask
			st.push(r.cv, r.count*task)
			i += r.count
			continue
		}
		a.dropGPU(r.err) // its run is hashed here, a task at a time
		if buf == nil {
			var done func()
			buf, done = in.buffer()
			defer done()
		}
		for end := i + r.count; i < end; i++ {
			cv, err := hashTask(i, buf)
			if err != nil {
				return output{}, err
			}
			st.push(cv, task)
		}
	}
	rest := tasks * a.hybridTask
	b, err := in.read(nil, rest, in.n-rest)
	if err != nil {
		return output{}, err
	}
	cpuHashMemory(&st, b[:tail-rest], (tail-rest)/ChunkSize, a.opts.Threads)
	return st.root(b[tail-rest:]), nil
}

// gpuWork waits for the GPU (or for stop, when the CPU has finished
// first), then hashes runs of tasks from the back of q until none is left
// that is worth it, uploading each run while the GPU hashes the one
// before. It returns the runs it took.
func (a *Auto) gpuWork(in hybridInput, q *hybridQueue, stop <-chan struct{}) (runs []hybridRun) {
	defer q.release()
	select {
	case <-a.gpu.ready:
	case <-stop:
		return nil
	}
	e := a.gpu.eng
	if e == nil {
		return nil
	}
	e.timing = wgpu.Timing{}
	end := wgpu.Span("blake3 the GPU's share of a hybrid hash")
	defer func() {
		a.timing = a.timing.Add(e.timing) // a call may hash several subtrees
		var n uint64
		for _, r := range runs {
			n += r.count * a.hybridTask
		}
		end(int64(n))
	}()
	most := min(a.gpuMaxTasks(), wgpu.PowerOfTwoBelow(max(e.maxPiece/a.hybridTask, 1)))
	least := max(a.gpuMin/a.hybridTask, 1)
	var prev *wgpu.Pending
	var prevRun hybridRun
	for slot := 0; ; slot ^= 1 {
		start, count, ok := q.gpuTake(least, most)
		q.gpuOn.Store(ok)
		q.release()
		off, size := start*a.hybridTask, count*a.hybridTask
		var buf *wgpu.Buffer
		var err error
		if ok {
			if buf, err = e.grow(&e.in[slot], "blake3 input", size); err == nil {
				err = in.upload(e.ctx, buf, off, size)
			}
		}
		if prev != nil {
			node, werr := e.topNode(prev)
			prevRun.cv, prevRun.err = node.chainingValue(), werr
			runs = append(runs, prevRun)
			if err == nil {
				err = werr
			}
		}
		if !ok {
			return runs
		}
		if err == nil {
			prev, err = e.submit(wgpu.Binding{Buffer: buf, Size: size}, size, in.base+off/ChunkSize)
		}
		if err != nil {
			return append(runs, hybridRun{start: start, count: count, err: err})
		}
		prevRun = hybridRun{start: start, count: count}
	}
}

// gpuMaxTasks is the most tasks a run of the GPU holds, a power of two.
func (a *Auto) gpuMaxTasks() uint64 {
	return wgpu.PowerOfTwoBelow(max(a.gpuMax/a.hybridTask, 1))
}

// dropGPU gives up the GPU after it failed with err: later calls hash on
// the CPU alone.
func (a *Auto) dropGPU(err error) {
	if a.gpu.eng == nil {
		return
	}
	a.releaseGPU(err)
}
