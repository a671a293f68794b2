package blake3

// Pieces: one input hashed in ranges, on several machines or at several
// times, and the ranges' results combined into its hash, as the Rust
// blake3 crate's hazmat module allows. A range is cut into complete
// subtrees of the input's BLAKE3 tree (Subtrees); each is hashed to its
// chaining value by the same CPU, GPU or hybrid hashers that hash whole
// inputs, started at the subtree's first chunk counter (SumPieces); and
// Combine pushes the chaining values, in input order, on a cvStack, which
// merges them as the reference Hasher merges chunks, and folds the stack
// into the root node.
//
// Every aligned power-of-two run of chunks that lies inside the input (its
// last chunk counting as one, however short) is a node of the tree,
// except the whole input, which is the root: the root's chaining value is
// never computed, as the root is compressed with the ROOT flag instead.
// An input of one chunk or less is its own root and has no subtree, so
// its one piece records the root node itself (see Piece).

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// Mode is the BLAKE3 mode a piece was hashed in. A chaining value depends
// on the key (ModeKeyed) or the context string (ModeDeriveKey) as well,
// which a piece does not record: pieces hashed with different keys or
// contexts cannot be told apart, and combine into a wrong hash.
type Mode uint8

const (
	// ModeHash is the default hash.
	ModeHash Mode = iota
	// ModeKeyed is keyed_hash.
	ModeKeyed
	// ModeDeriveKey is derive_key's hash of the key material.
	ModeDeriveKey
)

var modeNames = [...]string{ModeHash: "hash", ModeKeyed: "keyed", ModeDeriveKey: "derive-key"}

// String names the mode as piece records do: "hash", "keyed" or
// "derive-key".
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// modeOf is the Mode of the domain flags of a hash's chunks.
func modeOf(flags uint32) Mode {
	switch {
	case flags&flagKeyedHash != 0:
		return ModeKeyed
	case flags&flagDeriveKeyMaterial != 0:
		return ModeDeriveKey
	}
	return ModeHash
}

// Piece is one piece of an input hashed in pieces: the chaining value of a
// complete subtree of the input's BLAKE3 tree, which Combine merges with
// the other pieces into the input's hash.
//
// The subtree is the Length bytes at byte Offset of an input of Total
// bytes: a power-of-two number of 1024-byte chunks (the input's last chunk
// counting as one, however short), starting at a multiple of that number
// of chunks, and not the whole input. Its chunks are hashed with their
// counters in the whole input, so a piece belongs to its place in one
// input.
//
// An input of one chunk or less (Total ≤ ChunkSize) has no subtree but
// itself, the root, whose output no chaining value gives. Its one piece
// covers it all (Offset 0, Length Total) and holds its root node instead:
// Last is the input's last block (its last 1 to 64 bytes; none for the
// empty input), and CV the chaining value that block is compressed with,
// all zero when the block is the first (the mode's key stands for it then,
// and a piece never holds a key). Such a piece shows up to 64 bytes of the
// input; every other piece shows only a hash of its bytes.
type Piece struct {
	// Mode is the mode the piece was hashed in.
	Mode Mode
	// Total is the length of the whole input, in bytes.
	Total uint64
	// Offset and Length are the subtree's bytes in the input.
	Offset, Length uint64
	// CV is the subtree's chaining value (see Piece for an input of one
	// chunk or less).
	CV [32]byte
	// Last is set only in the piece of an input of one chunk or less.
	Last []byte
}

// describe names the piece in messages.
func (p Piece) describe() string {
	if p.Offset <= p.Total && p.Length <= p.Total-p.Offset {
		return fmt.Sprintf("piece [%d, %d) of a %d-byte input", p.Offset, p.Offset+p.Length, p.Total)
	}
	return fmt.Sprintf("piece of %d bytes at byte %d of a %d-byte input", p.Length, p.Offset, p.Total)
}

// lastBlockLen is the length of the last block of an n-byte input: 1 to
// 64, or 0 for the empty input.
func lastBlockLen(n uint64) int {
	if n == 0 {
		return 0
	}
	return int((n-1)%BlockSize) + 1
}

// chunksOf is the number of chunks of n bytes, a short last one included.
func chunksOf(n uint64) uint64 {
	c := n / ChunkSize
	if n%ChunkSize != 0 {
		c++
	}
	return c
}

// check reports whether p is a piece of some input, and if not, why.
func (p Piece) check() error {
	if int(p.Mode) >= len(modeNames) {
		return fmt.Errorf("blake3: %s has the unknown mode %d: accepted are %v", p.describe(), int(p.Mode), modeNames)
	}
	if p.Offset > p.Total || p.Length > p.Total-p.Offset {
		return fmt.Errorf("blake3: %s passes the input's end", p.describe())
	}
	if p.Total <= ChunkSize {
		switch {
		case p.Offset != 0 || p.Length != p.Total:
			return fmt.Errorf("blake3: %s: an input of one chunk or less has one piece, all of it", p.describe())
		case len(p.Last) != lastBlockLen(p.Total):
			return fmt.Errorf("blake3: %s has a last block of %d bytes: the input's has %d", p.describe(), len(p.Last), lastBlockLen(p.Total))
		case p.Total <= BlockSize && p.CV != [32]byte{}:
			return fmt.Errorf("blake3: %s: an input of one block has no chaining value before its block, and its CV must be zero", p.describe())
		}
		return nil
	}
	end := p.Offset + p.Length
	chunks := chunksOf(p.Length)
	switch {
	case len(p.Last) != 0:
		return fmt.Errorf("blake3: %s has a last block: only the piece of an input of one chunk or less has one", p.describe())
	case p.Offset%ChunkSize != 0:
		return fmt.Errorf("blake3: %s starts inside a chunk: pieces start at a multiple of %d", p.describe(), ChunkSize)
	case p.Length == 0:
		return fmt.Errorf("blake3: %s is empty: only the empty input has an empty piece", p.describe())
	case end != p.Total && end%ChunkSize != 0:
		return fmt.Errorf("blake3: %s ends inside a chunk: pieces end at a multiple of %d or at the input's end", p.describe(), ChunkSize)
	case chunks&(chunks-1) != 0:
		return fmt.Errorf("blake3: %s has %d chunks: a piece has a power of two", p.describe(), chunks)
	case (p.Offset/ChunkSize)%chunks != 0:
		return fmt.Errorf("blake3: %s starts at chunk %d, not at a multiple of its %d chunks", p.describe(), p.Offset/ChunkSize, chunks)
	case p.Offset == 0 && end == p.Total:
		return fmt.Errorf("blake3: %s is the whole input, whose top node is the root: its pieces are its two halves or smaller", p.describe())
	}
	return nil
}

// setNode fills in p's chaining value (and, for an input of one chunk or
// less, its root node) from o, the top node of its subtree.
func (p *Piece) setNode(o output) {
	if p.Total > ChunkSize {
		p.CV = cvBytes(o.chainingValue())
		return
	}
	if o.flags&flagChunkStart == 0 {
		p.CV = cvBytes(o.cv)
	}
	var b [BlockSize]byte
	for i, w := range o.block {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	p.Last = append([]byte{}, b[:o.blockLen]...)
}

// rootNode is the root node that the piece of an input of one chunk or
// less records, in the mode of key and flags.
func (p Piece) rootNode(key [8]uint32, flags uint32) output {
	o := output{cv: key, block: wordsLE(p.Last), blockLen: uint32(len(p.Last)), flags: flags | flagChunkEnd}
	if p.Total <= BlockSize {
		o.flags |= flagChunkStart
	} else {
		o.cv = cvWords(p.CV)
	}
	return o
}

// Subtrees returns the pieces of the byte range [off, off+n) of a
// total-byte input, without their Mode, CV and Last: from left to right,
// at each place the largest subtree that fits in the rest of the range
// (see Piece). off and off+n must each be a multiple of ChunkSize or
// total. An empty range has no pieces, except all of an empty input, whose
// one piece is empty. Ranges that cover an input without gaps or overlaps
// give pieces that do, as Combine needs; Part cuts an input into such
// ranges.
func Subtrees(total, off, n uint64) ([]Piece, error) {
	switch {
	case off > total || n > total-off:
		return nil, fmt.Errorf("blake3: the range of %d bytes at byte %d passes the end of the %d-byte input", n, off, total)
	case off%ChunkSize != 0 && off != total:
		return nil, fmt.Errorf("blake3: the range starts at byte %d, inside a chunk: a range starts at a multiple of %d or at the input's end, %d", off, ChunkSize, total)
	case off+n != total && (off+n)%ChunkSize != 0:
		return nil, fmt.Errorf("blake3: the range [%d, %d) ends inside a chunk: a range ends at a multiple of %d or at the input's end, %d", off, off+n, ChunkSize, total)
	}
	if total <= ChunkSize {
		if off == 0 && n == total {
			return []Piece{{Total: total, Length: total}}, nil
		}
		return nil, nil
	}
	all := chunksOf(total)
	c, end := chunksOf(off), chunksOf(off+n) // each at a chunk's start, or the input's end
	var ps []Piece
	for c < end {
		size := wgpu.PowerOfTwoBelow(end - c)
		if c > 0 {
			size = min(size, c&-c)
		}
		if size == all { // the whole input, a power of two of chunks: its halves
			size /= 2
		}
		start := c * ChunkSize
		ps = append(ps, Piece{Total: total, Offset: start, Length: min(size*ChunkSize, total-start)})
		c += size
	}
	return ps, nil
}

// Part is the range [off, off+n) of part i of k (0 ≤ i < k) of a
// total-byte input: k ranges that cover it in order, each starting at a
// multiple of ChunkSize, whose numbers of chunks differ by one at most.
// Some are empty when k exceeds the input's chunks.
func Part(total, i, k uint64) (off, n uint64, err error) {
	if k == 0 || i >= k {
		return 0, 0, fmt.Errorf("blake3: part %d of %d: accepted are parts 0 to k-1 of k ≥ 1 parts", i, k)
	}
	chunks := chunksOf(total)
	start := func(j uint64) uint64 { // floor(j*chunks/k) chunks, in bytes
		hi, lo := bits.Mul64(j, chunks)
		q, _ := bits.Div64(hi, lo, k) // j ≤ k, so the quotient fits
		if q == chunks {
			return total
		}
		return q * ChunkSize
	}
	off = start(i)
	return off, start(i+1) - off, nil
}

// SumPieces hashes the byte range [off, off+n) of a total-byte input into
// its pieces (see Subtrees), in the mode opts choose, on t's GPU, or on
// all CPU cores when t is nil; opts.Length does not apply. r reads the
// whole input, at its offsets, and must hold exactly total bytes: a short
// read is an error, and so is a byte at total when the range ends there.
func SumPieces(t wgpu.Target, r io.ReaderAt, total, off, n uint64, opts Options) ([]Piece, error) {
	ctx, err := sched.OneDevice(t)
	if err != nil {
		return nil, fmt.Errorf("blake3: SumPieces %w", err)
	}
	e, err := NewEngine(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer e.Release()
	return e.SumPieces(r, total, off, n)
}

// SumPieces is the function SumPieces in the Engine's mode, on its
// Context, keeping its kernels and buffers.
func (e *Engine) SumPieces(r io.ReaderAt, total, off, n uint64) ([]Piece, error) {
	e.timing = wgpu.Timing{}
	defer e.report(time.Now())
	return sumPieces(r, total, off, n, e.flags, e.node)
}

// SumPiecesBuffer is SumPieces for a range already on the Engine's
// device: buf holds bytes [off, off+n) of a total-byte input from its
// start (n rounded up to whole 16-byte words). Each GPU of a Group can so
// hash its share of data its kernels made, in place, and Combine merges
// the pieces of all of them; nothing crosses to the host but the pieces.
func (e *Engine) SumPiecesBuffer(buf *wgpu.Buffer, total, off, n uint64) ([]Piece, error) {
	if err := e.checkBuffer("SumPiecesBuffer", buf, n); err != nil {
		return nil, err
	}
	e.timing = wgpu.Timing{}
	defer e.report(time.Now())
	return hashPieces(total, off, n, e.flags, func(ps []Piece) ([]output, error) {
		spans := make([]bufRange, len(ps))
		for i, p := range ps {
			spans[i] = bufRange{off: p.Offset - off, n: p.Length, base: p.Offset / ChunkSize}
		}
		return e.bufferNodes(buf, spans)
	})
}

// SumPieces is the function SumPieces where the Auto's Device chooses:
// each piece is hashed as an input of its size would be (DeviceAuto adds
// the GPU to the CPU for a piece of HybridBytes or more). With DeviceGPU
// on several devices, the pieces are hashed on the first: a range's
// pieces are the unit a distributed job hashes, and SumReader on a Group is the call
// that spreads one input over every GPU of a machine.
func (a *Auto) SumPieces(r io.ReaderAt, total, off, n uint64) ([]Piece, error) {
	var ps []Piece
	_, err := a.call(func(e *Engine) (output, error) {
		var err error
		ps, err = sumPieces(r, total, off, n, a.cpu.flags, func(sec *io.SectionReader, base uint64) (output, error) {
			switch {
			case e != nil:
				return e.node(sec, base)
			case a.hybrid(sec.Size()):
				return a.hybridRoot(hybridInput{at: sec, n: uint64(sec.Size()), base: base})
			}
			return a.cpu.node(sec, base)
		})
		return output{}, err
	})
	return ps, err
}

// node returns the top node of the subtree that sec holds, whose first
// chunk has counter base; a short read is an error.
func (e *Engine) node(sec *io.SectionReader, base uint64) (output, error) {
	n := sec.Size()
	if e.ctx == nil {
		return cpuRootReaderAt(sec, n, base, e.key, e.flags, e.opts.Threads)
	}
	o, got, err := e.sourceTree(&source{at: sec, hint: n}, base)
	if err == nil && got != uint64(n) {
		err = readError(got, io.ErrUnexpectedEOF)
	}
	return o, err
}

// sumPieces is SumPieces, with node(sec, base) hashing the subtree that
// sec holds, whose first chunk has counter base, to its top node.
func sumPieces(r io.ReaderAt, total, off, n uint64, flags uint32, node func(sec *io.SectionReader, base uint64) (output, error)) ([]Piece, error) {
	if r == nil {
		return nil, errors.New("blake3: SumPieces needs a reader, got nil")
	}
	if total > math.MaxInt64 {
		return nil, fmt.Errorf("blake3: SumPieces of a %d-byte input: it reads at most %d bytes", total, int64(math.MaxInt64))
	}
	ps, err := hashPieces(total, off, n, flags, func(ps []Piece) ([]output, error) {
		nodes := make([]output, len(ps))
		for i, p := range ps {
			var err error
			if nodes[i], err = node(io.NewSectionReader(r, int64(p.Offset), int64(p.Length)), p.Offset/ChunkSize); err != nil {
				return nil, fmt.Errorf("blake3: hash the %s: %w", p.describe(), err)
			}
		}
		return nodes, nil
	})
	if err != nil {
		return nil, err
	}
	if len(ps) > 0 && off+n == total {
		var b [1]byte
		if k, err := r.ReadAt(b[:], int64(total)); k > 0 {
			return nil, fmt.Errorf("blake3: the input has a byte at %d, past the %d bytes it was said to hold", total, total)
		} else if err != nil && err != io.EOF {
			return nil, fmt.Errorf("blake3: read past the input's end at byte %d: %w", total, err)
		}
	}
	return ps, nil
}

// hashPieces returns the pieces of the range [off, off+n) of a total-byte
// input (Subtrees), filled in from nodes(ps), the top nodes of their
// subtrees hashed in the mode of flags.
func hashPieces(total, off, n uint64, flags uint32, nodes func(ps []Piece) ([]output, error)) ([]Piece, error) {
	ps, err := Subtrees(total, off, n)
	if err != nil {
		return nil, err
	}
	os, err := nodes(ps)
	if err != nil {
		return nil, err
	}
	for i := range ps {
		ps[i].Mode = modeOf(flags)
		ps[i].setNode(os[i])
	}
	return ps, nil
}

// Combine merges the pieces of an input into its hash: opts.Length bytes
// of output (32 for 0), in the mode opts choose, which must be the one the
// pieces were hashed in, with the same key or context. The pieces may come
// in any order, but must be of one input (one Total and Mode) and cover it
// without gaps or overlaps; a piece listed twice, identical, counts once
// (a piece hashed again by a retried job). It equals the hash of the whole
// input when the pieces are that input's.
func Combine(pieces []Piece, opts Options) ([]byte, error) {
	length, err := opts.length()
	if err != nil {
		return nil, err
	}
	o, err := combineRoot(pieces, opts)
	if err != nil {
		return nil, err
	}
	out := make([]byte, length)
	o.rootBytes(out, 0)
	return out, nil
}

// CombineOutput is Combine with the output as a reader of any length, from
// which Options.Length does not apply.
func CombineOutput(pieces []Piece, opts Options) (*OutputReader, error) {
	o, err := combineRoot(pieces, opts)
	if err != nil {
		return nil, err
	}
	return &OutputReader{root: o}, nil
}

// combineRoot checks pieces as Combine does and returns the root node.
func combineRoot(pieces []Piece, opts Options) (output, error) {
	key, flags, err := opts.mode()
	if err != nil {
		return output{}, err
	}
	if len(pieces) == 0 {
		return output{}, errors.New("blake3: no pieces to combine: they must cover the input")
	}
	mode := modeOf(flags)
	for _, p := range pieces {
		if err := p.check(); err != nil {
			return output{}, err
		}
		if p.Mode != mode {
			return output{}, fmt.Errorf("blake3: the %s was hashed in %s mode, and the options ask for %s: combine in the pieces' mode, with their key or context", p.describe(), p.Mode, mode)
		}
		if p.Total != pieces[0].Total {
			return output{}, fmt.Errorf("blake3: pieces of inputs of different lengths: %s and %s", pieces[0].describe(), p.describe())
		}
	}
	ps := slices.Clone(pieces)
	slices.SortFunc(ps, func(a, b Piece) int {
		return cmp.Or(cmp.Compare(a.Offset, b.Offset), cmp.Compare(a.Length, b.Length), bytes.Compare(a.CV[:], b.CV[:]), bytes.Compare(a.Last, b.Last))
	})
	ps = slices.CompactFunc(ps, func(a, b Piece) bool {
		return a.Offset == b.Offset && a.Length == b.Length && a.CV == b.CV && bytes.Equal(a.Last, b.Last)
	})
	total := ps[0].Total
	var next uint64 // the end of the pieces so far
	for i, p := range ps {
		switch {
		case i > 0 && p.Offset == ps[i-1].Offset && p.Length == ps[i-1].Length:
			return output{}, fmt.Errorf("blake3: two different pieces hold bytes [%d, %d) of the %d-byte input: they are of different inputs, or were hashed with different keys or contexts", p.Offset, p.Offset+p.Length, total)
		case p.Offset > next:
			return output{}, fmt.Errorf("blake3: bytes [%d, %d) of the %d-byte input are in no piece", next, p.Offset, total)
		case p.Offset < next:
			return output{}, fmt.Errorf("blake3: the %s overlaps the piece [%d, %d)", p.describe(), ps[i-1].Offset, next)
		}
		next = p.Offset + p.Length
	}
	if next != total {
		return output{}, fmt.Errorf("blake3: bytes [%d, %d) of the %d-byte input are in no piece", next, total, total)
	}
	if total <= ChunkSize {
		return ps[0].rootNode(key, flags), nil
	}
	// Every piece but the last is whole chunks aligned to their number,
	// as cvStack.push needs; the last one's CV is merged in by the
	// Hasher's final merges, the last of them the root.
	st := cvStack{key: key, flags: flags}
	for _, p := range ps[:len(ps)-1] {
		st.push(cvWords(p.CV), p.Length/ChunkSize)
	}
	return st.rootOverCV(cvWords(ps[len(ps)-1].CV)), nil
}

// pieceTag starts every piece record; a later format would take another.
const pieceTag = "b3piece"

// MarshalText writes the piece as one line of text, without its newline:
//
//	b3piece MODE TOTAL OFFSET LENGTH CV [LAST]
//
// MODE is hash, keyed or derive-key; TOTAL, OFFSET and LENGTH are decimal
// numbers of bytes; CV is the chaining value in 64 lowercase hex digits;
// LAST, only in the piece of an input of one chunk or less, is its last
// block in lowercase hex, or "-" for the empty input. One space separates
// the fields. An invalid piece is an error.
func (p Piece) MarshalText() ([]byte, error) { return p.AppendText(nil) }

// AppendText appends the text MarshalText writes to b.
func (p Piece) AppendText(b []byte) ([]byte, error) {
	if err := p.check(); err != nil {
		return b, err
	}
	b = append(b, pieceTag+" "+p.Mode.String()+" "...)
	b = strconv.AppendUint(b, p.Total, 10)
	b = append(b, ' ')
	b = strconv.AppendUint(b, p.Offset, 10)
	b = append(b, ' ')
	b = strconv.AppendUint(b, p.Length, 10)
	b = append(b, ' ')
	b = hex.AppendEncode(b, p.CV[:])
	switch {
	case p.Total == 0:
		b = append(b, " -"...)
	case p.Total <= ChunkSize:
		b = append(b, ' ')
		b = hex.AppendEncode(b, p.Last)
	}
	return b, nil
}

// UnmarshalText reads a piece from one record exactly as MarshalText
// writes it (single spaces, lowercase hex, numbers without signs or
// leading zeros, no newline), and checks that it is a valid piece.
func (p *Piece) UnmarshalText(text []byte) error {
	s := string(text)
	f := strings.Split(s, " ")
	if f[0] != pieceTag {
		return fmt.Errorf("blake3: not a piece record: it starts with %q, not %q", clip(f[0]), pieceTag)
	}
	if len(f) != 6 && len(f) != 7 || slices.Contains(f, "") {
		return fmt.Errorf("blake3: a piece record is 6 or 7 fields separated by single spaces: %q is not", clip(s))
	}
	var q Piece
	if i := slices.Index(modeNames[:], f[1]); i >= 0 {
		q.Mode = Mode(i)
	} else {
		return fmt.Errorf("blake3: piece record: unknown mode %q: accepted are %v", clip(f[1]), modeNames)
	}
	for i, dst := range []*uint64{&q.Total, &q.Offset, &q.Length} {
		v, err := strconv.ParseUint(f[2+i], 10, 64)
		if err != nil || strconv.FormatUint(v, 10) != f[2+i] {
			return fmt.Errorf("blake3: piece record: the %s %q is not a decimal number of bytes", [...]string{"total", "offset", "length"}[i], clip(f[2+i]))
		}
		*dst = v
	}
	cv, err := lowerHex(f[5])
	if err != nil || len(cv) != len(q.CV) {
		return fmt.Errorf("blake3: piece record: the chaining value %q is not %d lowercase hex digits", clip(f[5]), 2*len(q.CV))
	}
	copy(q.CV[:], cv)
	root := q.Total <= ChunkSize
	switch {
	case root && len(f) != 7:
		return fmt.Errorf("blake3: piece record of a %d-byte input: it must end with the input's last block (- for none), as the input is one chunk or less", q.Total)
	case !root && len(f) != 6:
		return fmt.Errorf("blake3: piece record of a %d-byte input: it has a 7th field, which only the piece of an input of one chunk or less has", q.Total)
	case root && q.Total == 0 && f[6] != "-":
		return fmt.Errorf("blake3: piece record of the empty input: its last field must be -, got %q", clip(f[6]))
	case root && q.Total > 0:
		if q.Last, err = lowerHex(f[6]); err != nil {
			return fmt.Errorf("blake3: piece record: the last block %q is not lowercase hex", clip(f[6]))
		}
	}
	if err := q.check(); err != nil {
		return err
	}
	*p = q
	return nil
}

// lowerHex decodes s, which must be lowercase hex.
func lowerHex(s string) ([]byte, error) {
	b, err := hex.DecodeString(s)
	if err == nil && hex.EncodeToString(b) != s {
		err = errors.New("not lowercase")
	}
	return b, err
}

// clip shortens s for a message.
func clip(s string) string {
	if len(s) > 70 {
		return s[:67] + "..."
	}
	return s
}
