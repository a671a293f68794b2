package blake3

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Design selects the chunk kernel. Both compute the same chaining values;
// they differ in how the 16 state words map onto vector registers.
type Design int

const (
	// DesignDefault is the fastest design measured on the GPU machine.
	DesignDefault Design = iota
	// DesignRows hashes one chunk per invocation with the state held as
	// four vec4<u32> rows and swizzles for the diagonal step.
	DesignRows
	// DesignLanes2 hashes 2 chunks per invocation, one per vec2 lane.
	DesignLanes2
	// DesignLanes4 hashes 4 chunks per invocation, one per vec4 lane.
	DesignLanes4
	// DesignLanes8 hashes 8 chunks per invocation: two groups of vec4 lanes.
	DesignLanes8
	// DesignLanes16 hashes 16 chunks per invocation: four groups of vec4 lanes.
	DesignLanes16
)

// defaultDesign is what DesignDefault runs. BenchmarkDesigns on an H200,
// whole hash of 1 GiB resident: rows 0.746 ms, lanes2 0.781, lanes4 0.897,
// lanes8 0.978, lanes16 1.098. The rows kernel keeps the fewest registers
// live, so the most warps hide the loads.
var defaultDesign = DesignRows

// Designs lists the selectable designs (DesignDefault excluded).
var Designs = []Design{DesignRows, DesignLanes2, DesignLanes4, DesignLanes8, DesignLanes16}

// String names the design as benchmarks and flags do ("rows", "lanes4", ...).
func (d Design) String() string {
	switch d {
	case DesignDefault:
		return "default"
	case DesignRows:
		return "rows"
	case DesignLanes2:
		return "lanes2"
	case DesignLanes4:
		return "lanes4"
	case DesignLanes8:
		return "lanes8"
	case DesignLanes16:
		return "lanes16"
	}
	return fmt.Sprintf("Design(%d)", int(d))
}

// header is the WGSL that parametrises blake3.wgsl's lane kernel, and the
// number of chunks one invocation of the design's chunk kernel hashes.
func (d Design) header() (string, int, error) {
	const vec4 = "alias lane = vec4<u32>;\nconst LANE_W = 4u;\nfn to_lane(v: vec4<u32>) -> lane { return v; }\nfn lane_x4(v: lane) -> vec4<u32> { return v; }\n"
	switch d {
	case DesignRows:
		return vec4 + "const GROUPS = 1u;\n", 1, nil
	case DesignLanes2:
		return "alias lane = vec2<u32>;\nconst LANE_W = 2u;\nconst GROUPS = 1u;\n" +
			"fn to_lane(v: vec4<u32>) -> lane { return v.xy; }\nfn lane_x4(v: lane) -> vec4<u32> { return vec4<u32>(v, 0u, 0u); }\n", 2, nil
	case DesignLanes4:
		return vec4 + "const GROUPS = 1u;\n", 4, nil
	case DesignLanes8:
		return vec4 + "const GROUPS = 2u;\n", 8, nil
	case DesignLanes16:
		return vec4 + "const GROUPS = 4u;\n", 16, nil
	}
	return "", 0, fmt.Errorf("blake3: unknown kernel design %d: accepted are %v", int(d), Designs)
}

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
	// Design picks the chunk kernel; DesignDefault is the fastest.
	Design Design
}

func (o Options) mode() (key [8]uint32, flags uint32, err error) {
	switch {
	case o.Key != nil && o.DeriveKey:
		return key, 0, errors.New("blake3: options ask for both keyed_hash (Key) and derive_key (DeriveKey): pick one")
	case o.Key != nil:
		if len(o.Key) != KeySize {
			return key, 0, fmt.Errorf("blake3: keyed hash needs a %d-byte key, got %d bytes", KeySize, len(o.Key))
		}
		var k [32]byte
		copy(k[:], o.Key)
		return cvWords(k), flagKeyedHash, nil
	case o.DeriveKey:
		return deriveKeyWords(o.Context), flagDeriveKeyMaterial, nil
	}
	return iv, 0, nil
}

// engine checks the options and returns the compiled kernels for their
// design and mode, with the output length they ask for.
func (o Options) engine(ctx *wgpu.Context) (*engine, int, error) {
	key, flags, err := o.mode()
	if err != nil {
		return nil, 0, err
	}
	length, err := o.length()
	if err != nil {
		return nil, 0, err
	}
	e, err := newEngine(ctx, o.Design, key, flags)
	if err != nil {
		return nil, 0, err
	}
	return e, length, nil
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

// maxPieceKnob, when non-zero, caps the bytes one GPU subtree covers, so
// that tests exercise the split of large inputs with small ones.
var maxPieceKnob uint64

// streamPiece is the piece SumReader uploads and hashes at a time.
const streamPiece = 256 << 20

// pieceBytes is the largest power-of-two number of whole chunks that one
// storage binding (and one buffer) holds: the unit the GPU hashes as one
// subtree.
func pieceBytes(l wgpu.Limits) uint64 {
	limit := l.MaxStorageBindingSize
	if l.MaxBufferSize < limit {
		limit = l.MaxBufferSize
	}
	if maxPieceKnob != 0 && maxPieceKnob < limit {
		limit = maxPieceKnob
	}
	chunks := limit / ChunkSize
	if chunks == 0 {
		chunks = 1
	}
	return (uint64(1) << (63 - bits.LeadingZeros64(chunks))) * ChunkSize
}

// splitPieces returns how many pieces of size piece an input of n bytes
// is hashed as: all full except the last, which has 1..piece bytes (an
// empty input is one empty piece).
func splitPieces(n, piece uint64) uint64 {
	if n == 0 {
		return 1
	}
	return (n + piece - 1) / piece
}

// engine holds the compiled kernels of one design and one mode.
type engine struct {
	ctx     *wgpu.Context
	chunk   *wgpu.Kernel
	tail    *wgpu.Kernel
	parents *wgpu.Kernel
	perInv  int
	key     [8]uint32
	flags   uint32
}

func kernelSource(d Design) (string, int, error) {
	hdr, per, err := d.header()
	if err != nil {
		return "", 0, err
	}
	src, err := wgsl.Compose("blake3_lib.wgsl", "blake3.wgsl")
	if err != nil {
		return "", 0, err
	}
	return "// ---- design " + d.String() + " ----\n" + hdr + src, per, nil
}

func newEngine(ctx *wgpu.Context, d Design, key [8]uint32, flags uint32) (*engine, error) {
	if d == DesignDefault {
		d = defaultDesign
	}
	src, per, err := kernelSource(d)
	if err != nil {
		return nil, err
	}
	spec := func(entry string) wgpu.KernelSpec {
		return wgpu.KernelSpec{Label: "blake3.wgsl:" + entry, Source: src, Entry: entry, Storage: 3, Uniform: true, ReadOnly: []bool{true}}
	}
	e := &engine{ctx: ctx, perInv: per, key: key, flags: flags}
	entry := "chunks"
	if d != DesignRows {
		entry = "chunks_lanes"
	}
	if e.chunk, err = ctx.Kernel(spec(entry)); err != nil {
		return nil, fmt.Errorf("blake3: %w", err)
	}
	if e.tail, err = ctx.Kernel(spec("chunk_tail")); err != nil {
		return nil, fmt.Errorf("blake3: %w", err)
	}
	if e.parents, err = ctx.Kernel(spec("parents")); err != nil {
		return nil, fmt.Errorf("blake3: %w", err)
	}
	return e, nil
}

func (e *engine) params(count, lastLen uint32, counter uint64, root bool) []uint32 {
	p := []uint32{count, lastLen, uint32(counter), uint32(counter >> 32), e.flags, 0}
	if root {
		p[5] = 1
	}
	return append(p, e.key[:]...)
}

// recordBytes is the size of a root node record (28 words), padded to the
// storage offset alignment so that records of a batch can sit side by side.
const recordBytes = 256

// cvBytesFor is the size of the first chaining-value level of n chunks.
func cvBytesFor(chunks uint64) uint64 { return 32 * max(chunks, 1) }

// levelBytes is the size of the second (ping-pong) level.
func levelBytes(chunks uint64) uint64 { return 32 * max((chunks+511)/512, 1) }

// plan returns the dispatches that hash n bytes at data (a subtree whose
// first chunk has the given counter) into a chaining value, or, when root
// is set, into a root record in rec. It reports where the chaining value
// ends up: cvA or cvB at its offset 0.
func (e *engine) plan(data, cvA, cvB, rec wgpu.Binding, n uint64, counter uint64, root bool) (ds []wgpu.Dispatch, inB bool) {
	chunks := max((n+ChunkSize-1)/ChunkSize, 1)
	lastLen := uint32(n - (chunks-1)*ChunkSize)
	if chunks >= 2 {
		inv := (chunks - 1 + uint64(e.perInv) - 1) / uint64(e.perInv)
		ds = append(ds, wgpu.Dispatch{Kernel: e.chunk, Bindings: []wgpu.Binding{data, cvA, rec},
			Params: e.params(uint32(chunks), lastLen, counter, root), Groups: e.ctx.Grid(inv, 64)})
	}
	ds = append(ds, wgpu.Dispatch{Kernel: e.tail, Bindings: []wgpu.Binding{data, cvA, rec},
		Params: e.params(uint32(chunks), lastLen, counter, root), Groups: [3]uint32{1, 1, 1}})
	src, dst := cvA, cvB
	for count := chunks; count > 1; count = (count + 511) / 512 {
		groups := (count + 511) / 512
		ds = append(ds, wgpu.Dispatch{Kernel: e.parents, Bindings: []wgpu.Binding{src, dst, rec},
			Params: e.params(uint32(count), 0, 0, root), Groups: e.ctx.Grid(groups*256, 256)})
		src, dst = dst, src
		inB = !inB
	}
	return ds, inB
}

// scratch is the device memory for hashing pieces of up to piece bytes.
type scratch struct {
	cvA, cvB, rec *wgpu.Buffer
}

func newScratch(ctx *wgpu.Context, piece uint64) (*scratch, error) {
	chunks := (piece + ChunkSize - 1) / ChunkSize
	s := &scratch{}
	var err error
	if s.cvA, err = ctx.NewBuffer("blake3 chaining values", cvBytesFor(chunks)); err != nil {
		return nil, fmt.Errorf("blake3: %w", err)
	}
	if s.cvB, err = ctx.NewBuffer("blake3 parent level", levelBytes(chunks)); err != nil {
		s.release()
		return nil, fmt.Errorf("blake3: %w", err)
	}
	if s.rec, err = ctx.NewBuffer("blake3 root record", recordBytes); err != nil {
		s.release()
		return nil, fmt.Errorf("blake3: %w", err)
	}
	return s, nil
}

func (s *scratch) release() {
	s.rec.Release()
	s.cvB.Release()
	s.cvA.Release()
}

// dataBinding binds n bytes of buf at off, rounded up to whole vec4s.
func dataBinding(buf *wgpu.Buffer, off, n uint64) (wgpu.Binding, error) {
	size := max((n+15)&^15, 16)
	if off+size > buf.Size() {
		return wgpu.Binding{}, fmt.Errorf("blake3: %d bytes at offset %d need %d bytes of the buffer (whole 16-byte words), it has %d", n, off, off+size, buf.Size())
	}
	return wgpu.Binding{Buffer: buf, Offset: off, Size: size}, nil
}

// subtree submits the hash of n bytes of buf at off to the GPU and
// returns a function that waits for it: with root set, it yields the root
// node; otherwise the subtree's chaining value.
func (e *engine) subtree(s *scratch, buf *wgpu.Buffer, off, n, counter uint64, root bool) (func() ([8]uint32, output, wgpu.Timing, error), error) {
	data, err := dataBinding(buf, off, n)
	if err != nil {
		return nil, err
	}
	chunks := max((n+ChunkSize-1)/ChunkSize, 1)
	cvA := wgpu.Binding{Buffer: s.cvA, Size: cvBytesFor(chunks)}
	cvB := wgpu.Binding{Buffer: s.cvB, Size: levelBytes(chunks)}
	ds, inB := e.plan(data, cvA, cvB, wgpu.Bind(s.rec), n, counter, root)
	p, err := e.ctx.Submit(ds...)
	if err != nil {
		return nil, fmt.Errorf("blake3: hash %d bytes: %w", n, err)
	}
	return func() (cv [8]uint32, o output, t wgpu.Timing, err error) {
		if t, err = p.Wait(); err != nil {
			return cv, o, t, fmt.Errorf("blake3: hash %d bytes: %w", n, err)
		}
		if root {
			var w [28]uint32
			if err := e.ctx.Download(wgpu.Bytes(w[:]), s.rec, 0); err != nil {
				return cv, o, t, fmt.Errorf("blake3: read root node: %w", err)
			}
			return cv, recordOutput(w), t, nil
		}
		from := s.cvA
		if inB {
			from = s.cvB
		}
		if err := e.ctx.Download(wgpu.Bytes(cv[:]), from, 0); err != nil {
			return cv, o, t, fmt.Errorf("blake3: read chaining value: %w", err)
		}
		return cv, o, t, nil
	}, nil
}

func recordOutput(w [28]uint32) output {
	var o output
	copy(o.block[:], w[:16])
	copy(o.cv[:], w[16:24])
	o.counter = uint64(w[24]) | uint64(w[25])<<32
	o.blockLen = w[26]
	o.flags = w[27]
	return o
}

// rootOf merges the chaining values of consecutive power-of-two subtrees
// (the last one may be smaller) level by level, carrying an odd last node
// up, and returns the root node: the tree BLAKE3 defines. len(cvs) >= 2.
func rootOf(cvs [][8]uint32, key [8]uint32, flags uint32) output {
	for len(cvs) > 2 {
		next := make([][8]uint32, 0, (len(cvs)+1)/2)
		for i := 0; i+1 < len(cvs); i += 2 {
			o := parentOutput(cvs[i], cvs[i+1], key, flags)
			next = append(next, o.chainingValue())
		}
		if len(cvs)%2 == 1 {
			next = append(next, cvs[len(cvs)-1])
		}
		cvs = next
	}
	return parentOutput(cvs[0], cvs[1], key, flags)
}

// hashPieces drives the split of an n-byte input into subtrees of piece
// bytes: load(i, off, size) puts piece i on the device and returns the
// buffer and offset where it lies.
func (e *engine) hashPieces(n, piece uint64, load func(i, off, size uint64) (*wgpu.Buffer, uint64, error)) (output, wgpu.Timing, error) {
	var total wgpu.Timing
	pieces := splitPieces(n, piece)
	s, err := newScratch(e.ctx, min(max(n, 1), piece))
	if err != nil {
		return output{}, total, err
	}
	defer s.release()
	var cvs [][8]uint32
	var wait func() ([8]uint32, output, wgpu.Timing, error)
	// collect waits for the piece in flight; the next piece's upload
	// (load) runs before it, while the GPU hashes.
	collect := func() (output, error) {
		cv, o, t, err := wait()
		wait = nil
		total.Kernel += t.Kernel
		total.Wall += t.Wall
		total.Measured = t.Measured
		if err == nil && pieces > 1 {
			cvs = append(cvs, cv)
		}
		return o, err
	}
	defer func() {
		if wait != nil {
			wait() // every submission is waited for, even after an error
		}
	}()
	for i := uint64(0); i < pieces; i++ {
		off := i * piece
		size := min(piece, n-off)
		buf, at, err := load(i, off, size)
		if err != nil {
			return output{}, total, err
		}
		if wait != nil {
			if _, err := collect(); err != nil {
				return output{}, total, err
			}
		}
		if wait, err = e.subtree(s, buf, at, size, off/ChunkSize, pieces == 1); err != nil {
			return output{}, total, err
		}
	}
	o, err := collect()
	if err != nil || pieces == 1 {
		return o, total, err
	}
	return rootOf(cvs, e.key, e.flags), total, nil
}

func finish(o output, length int) []byte {
	out := make([]byte, length)
	o.rootBytes(out, 0)
	return out
}

// Sum is the 32-byte BLAKE3 hash of data (default mode), computed on the
// GPU: it equals Sum256(data).
func Sum(ctx *wgpu.Context, data []byte) ([32]byte, error) {
	var d [32]byte
	out, err := SumOptions(ctx, data, Options{})
	copy(d[:], out)
	return d, err
}

// SumOptions hashes data on the GPU in the mode, output length and design
// that opts choose.
func SumOptions(ctx *wgpu.Context, data []byte, opts Options) ([]byte, error) {
	return SumReader(ctx, &sized{data: data}, opts)
}

// sized is an in-memory reader whose length is known up front.
type sized struct {
	data []byte
	pos  int
}

func (s *sized) Read(p []byte) (int, error) {
	if s.pos >= len(s.data) {
		return 0, io.EOF
	}
	n := copy(p, s.data[s.pos:])
	s.pos += n
	return n, nil
}

// ReadAt lets the upload read with several goroutines at once.
func (s *sized) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(s.data)) {
		return 0, io.EOF
	}
	n := copy(p, s.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (s *sized) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
		s.pos = int(off)
	case io.SeekCurrent:
		s.pos += int(off)
	case io.SeekEnd:
		s.pos = len(s.data) + int(off)
	}
	return int64(s.pos), nil
}

func (s *sized) remaining() int64 { return int64(len(s.data) - s.pos) }

// knownLength reports how many bytes r will still yield, when that is
// known without reading: an in-memory reader or a regular file.
func knownLength(r io.Reader) (int64, bool) {
	switch v := r.(type) {
	case *sized:
		return v.remaining(), true
	case *os.File:
		st, err := v.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return 0, false
		}
		pos, err := v.Seek(0, io.SeekCurrent)
		if err != nil {
			return 0, false
		}
		return st.Size() - pos, true
	case interface{ Len() int }:
		return int64(v.Len()), true
	}
	return 0, false
}

// SumReader hashes everything r yields on the GPU, in pieces: a regular
// file or an in-memory reader goes straight into staging memory through
// ctx.UploadFrom; any other reader is buffered a piece at a time. Each
// piece is a power-of-two subtree of chunks hashed on the GPU, and the
// subtree roots are merged on the CPU. The output has opts.Length bytes.
func SumReader(ctx *wgpu.Context, r io.Reader, opts Options) ([]byte, error) {
	e, length, err := opts.engine(ctx)
	if err != nil {
		return nil, err
	}
	piece := min(pieceBytes(ctx.Limits()), streamPiece)
	if n, ok := knownLength(r); ok {
		// Two input buffers: piece i+1 is read into one while the GPU
		// hashes piece i from the other.
		var bufs [2]*wgpu.Buffer
		defer func() {
			for _, b := range bufs {
				b.Release()
			}
		}()
		o, _, err := e.hashPieces(uint64(n), piece, func(i, off, size uint64) (*wgpu.Buffer, uint64, error) {
			buf := bufs[i%2]
			if buf == nil {
				var err error
				if buf, err = ctx.NewBuffer("blake3 input", max((min(uint64(n), piece)+15)&^15, 16)); err != nil {
					return nil, 0, fmt.Errorf("blake3: %w", err)
				}
				bufs[i%2] = buf
			}
			if err := ctx.UploadFrom(buf, 0, r, int64(size)); err != nil {
				return nil, 0, fmt.Errorf("blake3: read input at byte %d: %w", off, err)
			}
			return buf, 0, nil
		})
		if err != nil {
			return nil, err
		}
		return finish(o, length), nil
	}
	return sumStream(ctx, e, r, piece, length)
}

// sumStream hashes a reader of unknown length: a piece is only known to be
// the last (and, if also the first, the whole tree's root) once the next
// read finds nothing more.
func sumStream(ctx *wgpu.Context, e *engine, r io.Reader, piece uint64, length int) ([]byte, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	host := make([]byte, piece)
	buf, err := ctx.NewBuffer("blake3 input", piece)
	if err != nil {
		return nil, fmt.Errorf("blake3: %w", err)
	}
	defer buf.Release()
	s, err := newScratch(ctx, piece)
	if err != nil {
		return nil, err
	}
	defer s.release()
	var cvs [][8]uint32
	for i := uint64(0); ; i++ {
		n, err := io.ReadFull(br, host)
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("blake3: read input at byte %d: %w", i*piece, err)
		}
		last := uint64(n) < piece
		if !last {
			if _, perr := br.Peek(1); perr == io.EOF {
				last = true
			} else if perr != nil {
				return nil, fmt.Errorf("blake3: read input at byte %d: %w", (i+1)*piece, perr)
			}
		}
		if n == 0 && i > 0 {
			break // a full previous piece already ended the input
		}
		if err := ctx.Upload(buf, 0, host[:n]); err != nil {
			return nil, fmt.Errorf("blake3: %w", err)
		}
		root := last && i == 0
		wait, err := e.subtree(s, buf, 0, uint64(n), i*piece/ChunkSize, root)
		if err != nil {
			return nil, err
		}
		cv, o, _, err := wait()
		if err != nil {
			return nil, err
		}
		if root {
			return finish(o, length), nil
		}
		cvs = append(cvs, cv)
		if last {
			break
		}
	}
	return finish(rootOf(cvs, e.key, e.flags), length), nil
}

// SumBuffer hashes the first n bytes of buf, already on the device, and
// returns opts.Length bytes of output and the GPU time of the hash (kernel
// time summed over the subtrees when n exceeds one storage binding). buf
// must hold n bytes rounded up to a multiple of 16.
func SumBuffer(ctx *wgpu.Context, buf *wgpu.Buffer, n uint64, opts Options) ([]byte, wgpu.Timing, error) {
	var t wgpu.Timing
	if buf == nil {
		return nil, t, errors.New("blake3: SumBuffer needs a buffer, got nil")
	}
	if n > buf.Size() {
		return nil, t, fmt.Errorf("blake3: SumBuffer of %d bytes from a %d-byte buffer", n, buf.Size())
	}
	e, length, err := opts.engine(ctx)
	if err != nil {
		return nil, t, err
	}
	if n == 0 && buf.Size() < 16 {
		// Nothing is read, but the kernels bind at least one vec4.
		empty, err := ctx.NewBuffer("blake3 empty input", 16)
		if err != nil {
			return nil, t, fmt.Errorf("blake3: %w", err)
		}
		defer empty.Release()
		buf = empty
	}
	o, t, err := e.hashPieces(n, pieceBytes(ctx.Limits()), func(i, off, size uint64) (*wgpu.Buffer, uint64, error) {
		return buf, off, nil
	})
	if err != nil {
		return nil, t, err
	}
	return finish(o, length), t, nil
}

// MergeMany is `for i := range dst { dst[i] = Merge(pairs[i][:32], pairs[i][32:]) }`
// on the GPU: the 2-to-1 Merkle merge of many pairs at once.
func MergeMany(ctx *wgpu.Context, dst [][32]byte, pairs [][64]byte) error {
	if len(dst) != len(pairs) {
		return fmt.Errorf("blake3: MergeMany has %d outputs for %d pairs: they must be equal", len(dst), len(pairs))
	}
	if len(pairs) == 0 {
		return nil
	}
	src, err := kernelSourceDefault()
	if err != nil {
		return err
	}
	k, err := ctx.Kernel(wgpu.KernelSpec{Label: "blake3.wgsl:merge_many", Source: src, Entry: "merge_many", Storage: 3, Uniform: true, ReadOnly: []bool{true}})
	if err != nil {
		return fmt.Errorf("blake3: %w", err)
	}
	batch := int(min(ctx.Limits().MaxStorageBindingSize/64, 1<<22))
	batch = min(batch, len(pairs))
	in, err := ctx.NewBuffer("blake3 merge pairs", uint64(64*batch))
	if err != nil {
		return fmt.Errorf("blake3: %w", err)
	}
	defer in.Release()
	out, err := ctx.NewBuffer("blake3 merge digests", uint64(32*batch))
	if err != nil {
		return fmt.Errorf("blake3: %w", err)
	}
	defer out.Release()
	rec, err := ctx.NewBuffer("blake3 unused", 16)
	if err != nil {
		return fmt.Errorf("blake3: %w", err)
	}
	defer rec.Release()
	for lo := 0; lo < len(pairs); lo += batch {
		hi := min(lo+batch, len(pairs))
		m := hi - lo
		if err := ctx.Upload(in, 0, wgpu.Bytes(pairs[lo:hi])); err != nil {
			return fmt.Errorf("blake3: MergeMany upload: %w", err)
		}
		_, err := ctx.Run(wgpu.Dispatch{Kernel: k, Bindings: []wgpu.Binding{wgpu.Bind(in), wgpu.Bind(out), wgpu.Bind(rec)},
			Params: mergeParams(uint32(m)), Groups: ctx.Grid(uint64(m), 64)})
		if err != nil {
			return fmt.Errorf("blake3: MergeMany pairs %d..%d: %w", lo, hi, err)
		}
		if err := ctx.Download(wgpu.Bytes(dst[lo:hi]), out, 0); err != nil {
			return fmt.Errorf("blake3: MergeMany download: %w", err)
		}
	}
	return nil
}

func mergeParams(count uint32) []uint32 {
	p := make([]uint32, 14)
	p[0] = count
	return p
}

func kernelSourceDefault() (string, error) {
	src, _, err := kernelSource(defaultDesign)
	return src, err
}

// sumBatch hashes many inputs, each no larger than one piece, with one Run
// for the lot: the inputs sit side by side in one buffer and each has its
// own regions of the chaining-value buffers. It serves tests that sweep
// thousands of lengths, where a Run per input would dominate.
func sumBatch(ctx *wgpu.Context, inputs [][]byte, opts Options) ([][]byte, error) {
	e, length, err := opts.engine(ctx)
	if err != nil {
		return nil, err
	}
	align := func(n uint64) uint64 { return (n + 255) &^ 255 }
	var dataOff, aOff, bOff []uint64
	var dataN, aN, bN uint64
	for _, in := range inputs {
		n := uint64(len(in))
		if n > pieceBytes(ctx.Limits()) {
			return nil, fmt.Errorf("blake3: batch input of %d bytes exceeds one piece", n)
		}
		chunks := max((n+ChunkSize-1)/ChunkSize, 1)
		dataOff, aOff, bOff = append(dataOff, dataN), append(aOff, aN), append(bOff, bN)
		dataN += align(max(n, 16))
		aN += align(cvBytesFor(chunks))
		bN += align(levelBytes(chunks))
	}
	host := make([]byte, dataN)
	for i, in := range inputs {
		copy(host[dataOff[i]:], in)
	}
	bufs := make([]*wgpu.Buffer, 4)
	for i, size := range []uint64{dataN, aN, bN, recordBytes * uint64(len(inputs))} {
		if bufs[i], err = ctx.NewBuffer("blake3 batch", size); err != nil {
			return nil, fmt.Errorf("blake3: %w", err)
		}
		defer bufs[i].Release()
	}
	if err := ctx.Upload(bufs[0], 0, host); err != nil {
		return nil, fmt.Errorf("blake3: %w", err)
	}
	var ds []wgpu.Dispatch
	for i, in := range inputs {
		n := uint64(len(in))
		chunks := max((n+ChunkSize-1)/ChunkSize, 1)
		d, _ := e.plan(wgpu.Binding{Buffer: bufs[0], Offset: dataOff[i], Size: max((n+15)&^15, 16)},
			wgpu.Binding{Buffer: bufs[1], Offset: aOff[i], Size: cvBytesFor(chunks)},
			wgpu.Binding{Buffer: bufs[2], Offset: bOff[i], Size: levelBytes(chunks)},
			wgpu.Binding{Buffer: bufs[3], Offset: recordBytes * uint64(i), Size: recordBytes}, n, 0, true)
		ds = append(ds, d...)
	}
	if _, err := ctx.Run(ds...); err != nil {
		return nil, fmt.Errorf("blake3: batch: %w", err)
	}
	recs := make([]uint32, recordBytes/4*len(inputs))
	if err := ctx.Download(wgpu.Bytes(recs), bufs[3], 0); err != nil {
		return nil, fmt.Errorf("blake3: batch: %w", err)
	}
	out := make([][]byte, len(inputs))
	for i := range inputs {
		var w [28]uint32
		copy(w[:], recs[i*recordBytes/4:])
		out[i] = finish(recordOutput(w), length)
	}
	return out, nil
}
