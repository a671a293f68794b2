package blake3

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync/atomic"
	"time"

	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Options choose the BLAKE3 mode, the output length and the kernel. The
// zero value is the default hash with a 32-byte digest.
type Options struct {
	// Key, when non-nil, selects keyed_hash; it must be 32 bytes.
	Key []byte
	// DeriveKey selects derive_key with Context as the context string
	// (the input is then the key material). It excludes Key.
	DeriveKey bool
	Context   string
	// Length is the output length in bytes (extended output past 32);
	// 0 means 32.
	Length int
	// variant picks the chunk kernel (forced through internal/base/impl); the
	// zero value is the fastest.
	variant variant
	// Threads bounds the goroutines that hash on the CPU (a nil Context,
	// or the CPU's share of an Auto's work); 0 means GOMAXPROCS.
	Threads int
	// Timing, when not nil, receives each call's timing: on the GPU, its
	// submissions' summed; on the CPU (a nil Context), the wall time.
	Timing *wgpu.Timing
}

func (o Options) mode() (key [8]uint32, flags uint32, err error) {
	switch {
	case o.Key != nil && o.DeriveKey:
		return key, 0, errors.New("blake3: options ask for both keyed_hash (Key) and derive_key (DeriveKey): pick one")
	case o.Key != nil:
		if len(o.Key) != KeySize {
			return key, 0, fmt.Errorf("blake3: keyed hash needs a %d-byte key, got %d bytes", KeySize, len(o.Key))
		}
		return cvWords([32]byte(o.Key)), flagKeyedHash, nil
	case o.DeriveKey:
		return deriveKeyWords(o.Context), flagDeriveKeyMaterial, nil
	}
	return iv, 0, nil
}

func (o Options) length() (int, error) {
	switch {
	case o.Length < 0:
		return 0, fmt.Errorf("blake3: output length %d is negative: accepted are 0 (32 bytes) or more", o.Length)
	case o.Length == 0:
		return Size, nil
	}
	return o.Length, nil
}

// Engine hashes whole inputs, or ranges of them into pieces (SumPieces),
// in one mode, output length and variant, keeping its kernels and device
// buffers from one call to the next; Release frees the buffers. On a nil
// Context it hashes on the CPU, on all cores. An Engine is not safe for
// concurrent use; the functions Sum and SumReader make one per call.
//
// On the GPU an input is hashed in pieces, each a power-of-two run of whole
// chunks aligned to its size (one subtree of the BLAKE3 tree), the last
// one shorter: the GPU reduces each piece to its top node, and the host
// merges the pieces' chaining values as the reference Hasher merges chunks.
type Engine struct {
	ctx    *wgpu.Context
	opts   Options
	key    [8]uint32
	flags  uint32
	length int
	perInv int
	// maxPiece is the largest piece, in bytes, the device's limits allow.
	maxPiece uint64

	chunk, tail, parents *wgpu.Kernel
	in                   [2]*wgpu.Buffer // a piece is uploaded into one while the GPU hashes the other
	cvA, cvB, rec        *wgpu.Buffer    // chaining values, the parent level, the top node
	timing               wgpu.Timing     // the current call's, summed over its pieces
}

// NewEngine checks opts and returns an Engine on t's one device (nil: the
// CPU; a Group of several is refused, see wgpu.Target).
func NewEngine(t wgpu.Target, opts Options) (*Engine, error) {
	ctx, err := sched.OneDevice(t)
	if err != nil {
		return nil, fmt.Errorf("blake3: an Engine %w", err)
	}
	key, flags, err := opts.mode()
	if err != nil {
		return nil, err
	}
	length, err := opts.length()
	if err != nil {
		return nil, err
	}
	spec, err := opts.variant.spec()
	if err != nil {
		return nil, err
	}
	e := &Engine{ctx: ctx, opts: opts, key: key, flags: flags, length: length, perInv: spec.perInv}
	if ctx == nil {
		return e, nil
	}
	chunks := uint64(sched.PieceItems(ctx.Limits(), ChunkSize))
	if chunks == 0 {
		return nil, fmt.Errorf("blake3: the device's storage binding limit of %d bytes is below one %d-byte chunk", ctx.Limits().MaxStorageBindingSize, ChunkSize)
	}
	e.maxPiece = wgpu.PowerOfTwoBelow(chunks) * ChunkSize
	for _, k := range []struct {
		dst   **wgpu.Kernel
		entry string
	}{{&e.chunk, spec.entry}, {&e.tail, "chunk_tail"}, {&e.parents, "parents"}} {
		if *k.dst, err = ctx.Kernel(wgpu.KernelSpec{Label: "blake3.wgsl:" + k.entry, Module: spec.module, Entry: k.entry,
			Storage: 3, Uniform: true, ReadOnly: []bool{true}}); err != nil {
			return nil, fmt.Errorf("blake3: %w", err)
		}
	}
	return e, nil
}

// Release frees the Engine's device buffers; it may be used again after.
func (e *Engine) Release() {
	for _, b := range []**wgpu.Buffer{&e.in[0], &e.in[1], &e.cvA, &e.cvB, &e.rec} {
		(*b).Release()
		*b = nil
	}
}

// Sum hashes data and returns the Engine's output length of bytes.
func (e *Engine) Sum(data []byte) ([]byte, error) {
	if e.ctx == nil {
		defer e.report(time.Now())
		return e.output(cpuRoot(data, 0, e.key, e.flags, e.opts.Threads)), nil
	}
	return e.SumReader(bytes.NewReader(data))
}

// SumReader hashes everything r yields from its position on. A file, or
// any reader that is also an io.ReaderAt and an io.Seeker, is read with
// ReadAt on several goroutines straight into staging memory; other readers
// are read in sequence. The length a file reports is only a hint: what
// reading yields until the end is hashed, whether the file is shorter
// (truncated while read), longer (growing) or reports no size at all
// (/proc). The reader is left at the end of what was hashed.
func (e *Engine) SumReader(r io.Reader) ([]byte, error) {
	if r == nil {
		return nil, errors.New("blake3: SumReader needs a reader, got nil")
	}
	e.timing = wgpu.Timing{}
	defer e.report(time.Now())
	o, err := e.readerRoot(r)
	if err != nil {
		return nil, err
	}
	return e.output(o), nil
}

// readerRoot is SumReader's root node, for callers that read any length of
// output from it.
func (e *Engine) readerRoot(r io.Reader) (output, error) {
	src, err := newSource(r)
	if err != nil {
		return output{}, err
	}
	var o output
	var n uint64
	if e.ctx == nil {
		o, n, err = e.cpuSum(src)
	} else {
		o, n, err = e.sourceTree(src, 0)
	}
	if err != nil {
		return output{}, err
	}
	if src.seeker != nil {
		if _, err := src.seeker.Seek(src.base+int64(n), io.SeekStart); err != nil {
			return output{}, fmt.Errorf("blake3: seek past the input: %w", err)
		}
	}
	return o, nil
}

// sourceTree hashes src on the GPU, uploading it piece by piece, as the
// subtree whose first chunk has counter base (0: a whole input), and
// returns its top node and length.
func (e *Engine) sourceTree(src *source, base uint64) (output, uint64, error) {
	return e.tree(base, uint64(src.hint), min(e.maxPiece, uploadPiece), func(slot int, off, size uint64) (wgpu.Binding, uint64, error) {
		if int64(off) >= src.hint { // past the reported length: upload a piece only if there is more
			if more, err := src.more(int64(off)); !more {
				return wgpu.Binding{}, 0, readError(off, err)
			}
		}
		buf, err := e.grow(&e.in[slot], "blake3 input", size)
		if err != nil {
			return wgpu.Binding{}, 0, err
		}
		got, err := src.upload(e.ctx, buf, int64(off), int64(size))
		return wgpu.Binding{Buffer: buf, Size: words16(uint64(got))}, uint64(got), readError(off, err)
	})
}

// SumBuffer hashes the first n bytes of buf, already on the Engine's
// device. buf must hold n bytes rounded up to a multiple of 16.
func (e *Engine) SumBuffer(buf *wgpu.Buffer, n uint64) ([]byte, error) {
	if err := e.checkBuffer("SumBuffer", buf, n); err != nil {
		return nil, err
	}
	e.timing = wgpu.Timing{}
	defer e.report(time.Now())
	nodes, err := e.bufferNodes(buf, []bufRange{{n: n}})
	if err != nil {
		return nil, err
	}
	return e.output(nodes[0]), nil
}

// checkBuffer checks the arguments of the Engine's method fn (SumBuffer,
// SumPiecesBuffer): buf, on the Engine's device, holds n bytes of input in
// whole 16-byte words.
func (e *Engine) checkBuffer(fn string, buf *wgpu.Buffer, n uint64) error {
	switch {
	case buf == nil:
		return fmt.Errorf("blake3: %s needs a buffer, got nil", fn)
	case e.ctx == nil:
		return fmt.Errorf("blake3: %s needs the Context that holds the buffer, got nil (the CPU)", fn)
	case words16(n) > buf.Size():
		return fmt.Errorf("blake3: %s of %d bytes from a %d-byte buffer: they need %d bytes of the buffer (whole 16-byte words)", fn, n, buf.Size(), words16(n))
	}
	return nil
}

// bufRange is n bytes at byte off of a buffer on the device: a subtree whose
// first chunk has counter base, or, with base 0, a whole input.
type bufRange struct{ off, n, base uint64 }

// recStride is the distance between the top nodes of bufferNodes' pieces
// in rec, an offset every device binds at; recBytes is one top node.
const (
	recStride = bindAlign
	recBytes  = 4 * 28
)

// bufferNodes returns the top nodes of spans of buf, on the Engine's
// device. Data already there has no uploads to overlap, so every piece of
// every span (pieceSize) is hashed in one submission, each writing its top
// node to a slot of rec of its own, and the nodes are read back at once; a
// span of several pieces is merged from theirs on the host.
func (e *Engine) bufferNodes(buf *wgpu.Buffer, spans []bufRange) ([]output, error) {
	type piece struct {
		span  int
		at, n uint64 // bytes [at, at+n) of the span
	}
	var pieces []piece
	var most uint64 // the largest piece
	nodes := make([]output, len(spans))
	for i, s := range spans {
		if s.n == 0 { // the empty input, which has no piece
			empty := newChunkState(e.key, 0, e.flags)
			nodes[i] = empty.output()
		}
		for at := uint64(0); at < s.n; {
			size := pieceSize(at, s.n, e.maxPiece)
			pieces = append(pieces, piece{i, at, min(size, s.n-at)})
			most = max(most, min(size, s.n-at))
			at += size
		}
	}
	if len(pieces) == 0 {
		return nodes, nil
	}
	// The scratch buffers at their largest first: growing one later would
	// release it under the dispatches planned before.
	if err := e.growScratch(most); err != nil {
		return nil, err
	}
	rec, err := e.grow(&e.rec, "blake3 top nodes", recStride*uint64(len(pieces)))
	if err != nil {
		return nil, err
	}
	var ds []wgpu.Dispatch
	for j, p := range pieces {
		s := spans[p.span]
		data := wgpu.Binding{Buffer: buf, Offset: s.off + p.at, Size: words16(p.n)}
		ds = append(ds, e.planPiece(data, wgpu.Binding{Buffer: rec, Offset: uint64(j) * recStride, Size: recBytes}, p.n, s.base+p.at/ChunkSize)...)
	}
	t, err := e.ctx.Run(ds...)
	e.timing = e.timing.Add(t)
	if err != nil {
		return nil, fmt.Errorf("blake3: %w", err)
	}
	w := make([]uint32, recStride/4*len(pieces))
	if err := e.ctx.Download(wgpu.Bytes(w), rec, 0); err != nil {
		return nil, fmt.Errorf("blake3: read the top nodes: %w", err)
	}
	var st cvStack
	for j, p := range pieces {
		node := recordOutput([28]uint32(w[j*recStride/4:]))
		if p.at == 0 {
			st = cvStack{key: e.key, flags: e.flags, base: spans[p.span].base}
		}
		if j+1 < len(pieces) && pieces[j+1].span == p.span { // a whole subtree: not the span's last piece
			st.push(node.chainingValue(), p.n/ChunkSize)
		} else {
			nodes[p.span] = st.rootOver(node)
		}
	}
	return nodes, nil
}

func (e *Engine) output(o output) []byte {
	out := make([]byte, e.length)
	o.rootBytes(out, 0)
	return out
}

// report hands the timing of the call that started at start to
// Options.Timing.
func (e *Engine) report(start time.Time) {
	if e.opts.Timing == nil {
		return
	}
	t := e.timing
	if e.ctx == nil {
		t = wgpu.Timing{Wall: time.Since(start)}
	}
	*e.opts.Timing = t
}

// cpuSum hashes src on the CPU: on all cores from a ReaderAt of the length
// it reports, and, when it turns out shorter or longer than that, or for a
// reader read in sequence, block by block as it is read.
func (e *Engine) cpuSum(src *source) (output, uint64, error) {
	if src.at != nil {
		o, err := cpuRootReaderAt(src.at, src.hint, 0, e.key, e.flags, e.opts.Threads)
		if err == nil {
			more, err := src.more(src.hint)
			if err != nil {
				return o, 0, readError(uint64(src.hint), err)
			}
			if !more {
				return o, uint64(src.hint), nil
			}
		} else if !errors.Is(err, io.ErrUnexpectedEOF) {
			return o, 0, err
		}
	}
	var r io.Reader = src.seq
	if src.at != nil {
		r = src.at
	}
	o, n, err := cpuRootStream(r, e.key, e.flags, e.opts.Threads)
	return o, uint64(n), readError(uint64(n), err)
}

func readError(off uint64, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("blake3: read input at byte %d: %w", off, err)
}

// words16 is n rounded up to whole 16-byte words (vec4<u32>), at least one.
func words16(n uint64) uint64 { return max((n+15)&^15, 16) }

// uploadPiece caps the pieces SumReader uploads: two such buffers are
// allocated at most.
const uploadPiece = 256 << 20

// firstPiece is the first piece of an input whose length is not known.
const firstPiece = 64 << 10

// pieceSize is the capacity of the piece at byte off of the input: a
// power-of-two number of whole chunks that divides off, so that a full
// piece is one subtree of the BLAKE3 tree, and at most maxPiece (itself
// such a number). While the hint (the length the input reports) says bytes
// are left, it is the smallest that holds one byte more than them, so that
// an input as long as its hint ends in a short piece, known to be the last;
// past the hint, pieces double.
func pieceSize(off, hint, maxPiece uint64) uint64 {
	size := maxPiece
	if off > 0 {
		size = min(size, off&-off)
	}
	switch {
	case hint > off:
		chunks := (hint-off)/ChunkSize + 1
		size = min(size, wgpu.PowerOfTwoBelow(2*chunks-1)*ChunkSize)
	case off == 0:
		size = min(size, firstPiece)
	}
	return size
}

// tree hashes the input that load yields piece by piece and returns its
// root node and length. load(slot, off, size) puts up to size bytes of the
// input from byte off on the device and returns where they lie and how
// many there were: fewer than size only at the end. slot alternates, so
// that piece i+1 is uploaded while the GPU hashes piece i. With a base
// other than 0, the input is the subtree of a larger one whose first chunk
// has counter base, and the node returned is its top node.
func (e *Engine) tree(base, hint, maxPiece uint64, load func(slot int, off, size uint64) (wgpu.Binding, uint64, error)) (root output, total uint64, err error) {
	st := cvStack{key: e.key, flags: e.flags, base: base}
	var last output // the top node of the latest piece
	var prev *wgpu.Pending
	var prevSize uint64
	defer func() {
		if prev != nil {
			prev.Wait() // every submission is waited for, even after an error
		}
	}()
	for i, off := 0, uint64(0); ; i++ {
		size := pieceSize(off, hint, maxPiece)
		data, n, err := load(i%2, off, size)
		if err != nil {
			return root, total, err
		}
		if prev != nil {
			p := prev
			prev = nil
			if last, err = e.topNode(p); err != nil {
				return root, total, err
			}
			if n > 0 { // the previous piece was full and not the last
				st.push(last.chainingValue(), prevSize/ChunkSize)
			}
		}
		if n == 0 {
			break
		}
		if prev, err = e.submit(data, n, base+off/ChunkSize); err != nil {
			return root, total, err
		}
		prevSize, total, off = size, total+n, off+size
		if n < size {
			p := prev
			prev = nil
			if last, err = e.topNode(p); err != nil {
				return root, total, err
			}
			break
		}
	}
	if total == 0 {
		empty := newChunkState(e.key, 0, e.flags)
		return empty.output(), 0, nil
	}
	return st.rootOver(last), total, nil
}

// grow makes *b hold at least size bytes (wgpu.Context.Grow).
func (e *Engine) grow(b **wgpu.Buffer, label string, size uint64) (*wgpu.Buffer, error) {
	if err := e.ctx.Grow(b, label, size); err != nil {
		return nil, fmt.Errorf("blake3: %w", err)
	}
	return *b, nil
}

func (e *Engine) params(count, lastLen uint32, counter uint64) []uint32 {
	return append([]uint32{count, lastLen, uint32(counter), uint32(counter >> 32), e.flags}, e.key[:]...)
}

// cvBytesFor is the size of the first chaining-value level of n chunks.
func cvBytesFor(chunks uint64) uint64 { return 32 * max(chunks, 1) }

// levelBytes is the size of the second (ping-pong) level.
func levelBytes(chunks uint64) uint64 { return 32 * max((chunks+511)/512, 1) }

// growScratch makes the chaining-value levels hold a piece of n bytes.
func (e *Engine) growScratch(n uint64) error {
	chunks := (n + ChunkSize - 1) / ChunkSize
	if _, err := e.grow(&e.cvA, "blake3 chaining values", cvBytesFor(chunks)); err != nil {
		return err
	}
	_, err := e.grow(&e.cvB, "blake3 parent level", levelBytes(chunks))
	return err
}

// plan returns the dispatches that hash the n bytes at data (a subtree
// whose first chunk has the given counter, or the tail of an input) down to
// its top node in rec.
func (e *Engine) plan(data, cvA, cvB, rec wgpu.Binding, n, counter uint64) (ds []wgpu.Dispatch) {
	chunks := max((n+ChunkSize-1)/ChunkSize, 1)
	lastLen := uint32(n - (chunks-1)*ChunkSize)
	if chunks >= 2 {
		inv := (chunks - 1 + uint64(e.perInv) - 1) / uint64(e.perInv)
		ds = append(ds, wgpu.Dispatch{Kernel: e.chunk, Bindings: []wgpu.Binding{data, cvA, rec},
			Params: e.params(uint32(chunks), lastLen, counter), Groups: e.ctx.Grid(inv, 64)})
	}
	ds = append(ds, wgpu.Dispatch{Kernel: e.tail, Bindings: []wgpu.Binding{data, cvA, rec},
		Params: e.params(uint32(chunks), lastLen, counter), Groups: [3]uint32{1, 1, 1}})
	return append(ds, e.planParents(cvA, cvB, rec, chunks)...)
}

// planParents returns the dispatches of the parent levels: the count
// chaining values at cvA (none when count is 1) merged 512 to one per
// level, through cvB and back (cvA holds the third level), down to the top
// node in rec.
func (e *Engine) planParents(cvA, cvB, rec wgpu.Binding, count uint64) (ds []wgpu.Dispatch) {
	src, dst := cvA, cvB
	for ; count > 1; count = (count + 511) / 512 {
		groups := (count + 511) / 512
		ds = append(ds, wgpu.Dispatch{Kernel: e.parents, Bindings: []wgpu.Binding{src, dst, rec},
			Params: e.params(uint32(count), 0, 0), Groups: e.ctx.Grid(groups*256, 256)})
		src, dst = dst, src
	}
	return ds
}

// planPiece is plan through the Engine's chaining-value levels, which must
// hold the piece (growScratch).
func (e *Engine) planPiece(data, rec wgpu.Binding, n, counter uint64) []wgpu.Dispatch {
	chunks := (n + ChunkSize - 1) / ChunkSize
	return e.plan(data, wgpu.Binding{Buffer: e.cvA, Size: cvBytesFor(chunks)}, wgpu.Binding{Buffer: e.cvB, Size: levelBytes(chunks)}, rec, n, counter)
}

// submit queues the hash of the n bytes at data (1 or more), the first
// with chunk counter counter, down to its top node; topNode waits for it.
func (e *Engine) submit(data wgpu.Binding, n, counter uint64) (*wgpu.Pending, error) {
	if err := e.growScratch(n); err != nil {
		return nil, err
	}
	rec, err := e.grow(&e.rec, "blake3 top nodes", recBytes)
	if err != nil {
		return nil, err
	}
	p, err := e.ctx.Submit(e.planPiece(data, wgpu.Binding{Buffer: rec, Size: recBytes}, n, counter)...)
	if err != nil {
		return nil, fmt.Errorf("blake3: hash %d bytes: %w", n, err)
	}
	return p, nil
}

// topNode waits for p and returns the top node it wrote.
func (e *Engine) topNode(p *wgpu.Pending) (output, error) {
	t, err := p.Wait()
	e.timing = e.timing.Add(t)
	if err != nil {
		return output{}, fmt.Errorf("blake3: %w", err)
	}
	var w [28]uint32
	if err := e.ctx.Download(wgpu.Bytes(w[:]), e.rec, 0); err != nil {
		return output{}, fmt.Errorf("blake3: read the top node: %w", err)
	}
	return recordOutput(w), nil
}

func recordOutput(w [28]uint32) output {
	o := output{counter: uint64(w[24]) | uint64(w[25])<<32, blockLen: w[26], flags: w[27]}
	copy(o.block[:], w[:16])
	copy(o.cv[:], w[16:24])
	return o
}

// source is SumReader's input: read with ReadAt from its position when the
// reader is an io.ReaderAt and an io.Seeker (a file, a bytes.Reader), else
// in sequence.
type source struct {
	at     *io.SectionReader // nil: read in sequence from seq
	seq    *bufio.Reader
	hint   int64 // the length the reader reports (0 if none): a guess
	seeker io.Seeker
	base   int64 // the reader's position when the hash started
}

func newSource(r io.Reader) (*source, error) {
	if ra, sk, base, end, ok := seekEnd(r); ok {
		if _, err := sk.Seek(base, io.SeekStart); err != nil {
			return nil, fmt.Errorf("blake3: seek back to byte %d: %w", base, err)
		}
		return &source{at: io.NewSectionReader(ra, base, math.MaxInt64-base), hint: max(end-base, 0), seeker: sk, base: base}, nil
	}
	return &source{seq: bufio.NewReaderSize(r, 64<<10)}, nil
}

// sizedReader returns the rest of r, from its position to its end, as an
// io.ReaderAt of n bytes, and leaves r at its end, if r is a regular file
// or another reader with ReadAt and Seek; ok reports whether it is.
func sizedReader(r io.Reader) (at io.ReaderAt, n int64, ok bool) {
	if f, isFile := r.(*os.File); isFile {
		if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
			return nil, 0, false
		}
	}
	ra, _, pos, end, ok := seekEnd(r)
	if !ok {
		return nil, 0, false
	}
	return io.NewSectionReader(ra, pos, end-pos), end - pos, true
}

// seekEnd returns r as an io.ReaderAt and an io.Seeker, its position pos
// and the end it reports, and leaves it at that end; ok is false when r is
// not both or cannot seek.
func seekEnd(r io.Reader) (ra io.ReaderAt, sk io.Seeker, pos, end int64, ok bool) {
	ra, isAt := r.(io.ReaderAt)
	sk, isSeeker := r.(io.Seeker)
	if !isAt || !isSeeker {
		return nil, nil, 0, 0, false
	}
	pos, err := sk.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, nil, 0, 0, false
	}
	if end, err = sk.Seek(0, io.SeekEnd); err != nil {
		return nil, nil, 0, 0, false
	}
	return ra, sk, pos, end, true
}

// more reports whether the input has a byte at off (for a reader read in
// sequence: at the next byte).
func (s *source) more(off int64) (bool, error) {
	if s.at == nil {
		_, err := s.seq.Peek(1)
		if err == io.EOF {
			return false, nil
		}
		return err == nil, err
	}
	var b [1]byte
	k, err := s.at.ReadAt(b[:], off)
	if k == 1 || err == io.EOF {
		err = nil
	}
	return k == 1, err
}

// upload puts the input's bytes from off, up to size, into buf and returns
// how many there were.
func (s *source) upload(ctx *wgpu.Context, buf *wgpu.Buffer, off, size int64) (int64, error) {
	p := &padded{s: s, off: off}
	p.end.Store(size)
	var r io.Reader = struct{ io.Reader }{p} // in sequence: no ReadAt
	if s.at != nil {
		r = p
	}
	if err := ctx.UploadFrom(buf, 0, r, size); err != nil {
		return 0, err
	}
	return p.end.Load(), nil
}

// padded gives UploadFrom the size bytes it asks for: past the input's end
// a read reports bytes that it leaves as they were (the kernels never read
// past a piece's length), and end records where the input ended.
type padded struct {
	s   *source
	off int64 // where the upload starts in the input
	pos int64 // read in sequence so far
	end atomic.Int64
}

func (p *padded) ended(at int64) {
	for cur := p.end.Load(); at < cur && !p.end.CompareAndSwap(cur, at); cur = p.end.Load() {
	}
}

func (p *padded) ReadAt(b []byte, at int64) (int, error) {
	for k := 0; k < len(b); {
		n, err := p.s.at.ReadAt(b[k:], p.off+at+int64(k))
		k += n
		if err == io.EOF || (err == nil && n == 0) {
			p.ended(at + int64(k))
			break
		}
		if err != nil {
			return k, err
		}
	}
	return len(b), nil
}

func (p *padded) Read(b []byte) (int, error) {
	k, err := io.ReadFull(p.s.seq, b)
	p.pos += int64(k)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		p.ended(p.pos)
		return len(b), nil
	}
	return k, err
}

// Sum is the 32-byte BLAKE3 hash of data (default mode), computed on t: a
// Context's GPU, the devices of a Group (as SumReader splits an input it
// can read at offsets) or, with a nil t, all CPU cores: it equals
// Sum256(data). For other modes and lengths, use an Engine or SumReader.
func Sum(t wgpu.Target, data []byte) ([32]byte, error) {
	var d [32]byte
	ctx, one := sched.Device(t)
	if !one {
		out, err := sumOn(sched.GroupOf(t), bytes.NewReader(data), int64(len(data)), Options{})
		copy(d[:], out)
		return d, err
	}
	e, err := NewEngine(ctx, Options{})
	if err != nil {
		return d, err
	}
	defer e.Release()
	out, err := e.Sum(data)
	copy(d[:], out)
	return d, err
}

// SumReader hashes everything r yields (see Engine.SumReader) on t, in the
// mode, output length and variant that opts choose; the output has
// opts.Length bytes. It runs on a Context's GPU, or on the CPU when t is
// nil. On a Group of several devices, an input it can read at offsets (a
// regular file, a bytes.Reader: an io.ReaderAt and io.Seeker) is hashed
// on all of them at once (sumOn), and any other reader in sequence on the
// first. The reader is left at its end.
func SumReader(t wgpu.Target, r io.Reader, opts Options) ([]byte, error) {
	ctx, one := sched.Device(t)
	if !one {
		g := sched.GroupOf(t)
		if at, n, ok := sizedReader(r); ok {
			return sumOn(g, at, n, opts)
		}
		ctx = g.Contexts()[0]
	}
	e, err := NewEngine(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer e.Release()
	return e.SumReader(r)
}

var mergeModule = wgsl.Module{Library: shaders, Files: []string{"blake3_merge.wgsl"}}

// MergeMany is `for i := range dst { dst[i] = Merge(pairs[i][:32], pairs[i][32:]) }`:
// the 2-to-1 Merkle merge of many pairs at once, on the GPU, or on all
// CPU cores when t is nil. Of opts, only Timing applies.
func MergeMany(t wgpu.Target, dst [][32]byte, pairs [][64]byte, opts Options) error {
	ctx, err := sched.OneDevice(t)
	if err != nil {
		return fmt.Errorf("blake3: MergeMany %w", err)
	}
	if len(dst) != len(pairs) {
		return fmt.Errorf("blake3: MergeMany has %d outputs for %d pairs: they must be equal", len(dst), len(pairs))
	}
	if opts.Key != nil || opts.DeriveKey || (opts.Length != 0 && opts.Length != Size) {
		return errors.New("blake3: MergeMany computes the unkeyed 32-byte Merge: its options take no Key, DeriveKey or Length")
	}
	var tm wgpu.Timing
	if ctx == nil {
		start := time.Now()
		par.For(len(pairs), 1<<12, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				dst[i] = Merge([32]byte(pairs[i][:32]), [32]byte(pairs[i][32:]))
			}
		})
		tm.Wall = time.Since(start)
	} else {
		var b sched.Job
		if b, err = mergeBatch(ctx, dst, pairs); err == nil {
			tm, err = sched.Run(ctx, b)
		}
	}
	if opts.Timing != nil {
		*opts.Timing = tm
	}
	if err != nil {
		return fmt.Errorf("blake3: MergeMany: %w", err)
	}
	return nil
}

// mergeBatch is MergeMany's job for the GPU.
func mergeBatch(ctx *wgpu.Context, dst [][32]byte, pairs [][64]byte) (sched.Job, error) {
	k, err := ctx.Kernel(wgpu.KernelSpec{Label: "blake3_merge.wgsl:merge_many", Module: mergeModule, Entry: "merge_many",
		Storage: 2, Uniform: true, ReadOnly: []bool{true}})
	if err != nil {
		return sched.Job{}, err
	}
	return sched.Job{
		Label:  "blake3 merge",
		Count:  len(pairs),
		Inputs: []sched.Input{{Data: wgpu.Bytes(pairs), ItemBytes: 64}},
		Output: sched.Output{Data: wgpu.Bytes(dst), ItemBytes: 32},
		Dispatches: func(n int, bind []wgpu.Binding) []wgpu.Dispatch {
			return []wgpu.Dispatch{{Kernel: k, Bindings: bind, Params: []uint32{uint32(n)}, Groups: ctx.Grid(uint64(n), 64)}}
		},
	}, nil
}
