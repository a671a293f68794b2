// Package blake3 computes BLAKE3 (hash, keyed hash, key derivation and
// extended output) with a plain-Go reference and on the GPU through package
// wgpu, and provides the 2-to-1 merge used by Merkle trees.
//
// The Go code in this file is the reference: it follows the BLAKE3
// specification's reference implementation word for word, and every GPU
// result is tested against it. Hasher is a hash.Hash that runs on the CPU;
// the GPU entry points (Sum, SumReader, SumMany, MergeMany, and an Engine for
// repeated calls) return errors, take a wgpu.Target and run on all CPU
// cores when it is nil. Sum and SumReader split an input over a Group's
// devices; the others run on one device and refuse a Group of several
// (see wgpu.Target). SumPieces hashes a range of an input into the chaining values of
// its subtrees, and Combine merges the pieces of a whole input, hashed on
// any number of machines, into its hash (see Piece).
package blake3

import (
	"encoding/binary"
	"fmt"
	"hash"
	"math/bits"
)

// Sizes of the BLAKE3 units, in bytes.
const (
	// Size is the default digest length.
	Size = 32
	// KeySize is the length of a keyed_hash key.
	KeySize = 32
	// BlockSize is the compression function's input block.
	BlockSize = 64
	// ChunkSize is a leaf of the tree: 16 blocks.
	ChunkSize = 1024
)

// Domain flags of the compression function.
const (
	flagChunkStart        = 1 << 0
	flagChunkEnd          = 1 << 1
	flagParent            = 1 << 2
	flagRoot              = 1 << 3
	flagKeyedHash         = 1 << 4
	flagDeriveKeyContext  = 1 << 5
	flagDeriveKeyMaterial = 1 << 6
)

var iv = [8]uint32{
	0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
	0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19,
}

var msgPermutation = [16]int{2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8}

func g(s *[16]uint32, a, b, c, d int, mx, my uint32) {
	s[a] = s[a] + s[b] + mx
	s[d] = bits.RotateLeft32(s[d]^s[a], -16)
	s[c] = s[c] + s[d]
	s[b] = bits.RotateLeft32(s[b]^s[c], -12)
	s[a] = s[a] + s[b] + my
	s[d] = bits.RotateLeft32(s[d]^s[a], -8)
	s[c] = s[c] + s[d]
	s[b] = bits.RotateLeft32(s[b]^s[c], -7)
}

func round(s *[16]uint32, m *[16]uint32) {
	g(s, 0, 4, 8, 12, m[0], m[1])
	g(s, 1, 5, 9, 13, m[2], m[3])
	g(s, 2, 6, 10, 14, m[4], m[5])
	g(s, 3, 7, 11, 15, m[6], m[7])
	g(s, 0, 5, 10, 15, m[8], m[9])
	g(s, 1, 6, 11, 12, m[10], m[11])
	g(s, 2, 7, 8, 13, m[12], m[13])
	g(s, 3, 4, 9, 14, m[14], m[15])
}

// compress is the BLAKE3 compression function; it returns all 16 output
// words (the first 8 are the chaining value).
func compress(cv *[8]uint32, block *[16]uint32, counter uint64, blockLen, flags uint32) [16]uint32 {
	s := [16]uint32{
		cv[0], cv[1], cv[2], cv[3], cv[4], cv[5], cv[6], cv[7],
		iv[0], iv[1], iv[2], iv[3],
		uint32(counter), uint32(counter >> 32), blockLen, flags,
	}
	m := *block
	for r := 0; r < 7; r++ {
		round(&s, &m)
		if r < 6 {
			var p [16]uint32
			for i := range p {
				p[i] = m[msgPermutation[i]]
			}
			m = p
		}
	}
	for i := 0; i < 8; i++ {
		s[i] ^= s[i+8]
		s[i+8] ^= cv[i]
	}
	return s
}

func first8(w [16]uint32) (cv [8]uint32) {
	copy(cv[:], w[:8])
	return cv
}

// wordsLE reads up to 64 bytes as 16 little-endian words, zero-padded.
func wordsLE(b []byte) (m [16]uint32) {
	var buf [BlockSize]byte
	copy(buf[:], b)
	for i := range m {
		m[i] = binary.LittleEndian.Uint32(buf[4*i:])
	}
	return m
}

func cvBytes(cv [8]uint32) (out [32]byte) {
	for i, w := range cv {
		binary.LittleEndian.PutUint32(out[4*i:], w)
	}
	return out
}

func cvWords(b [32]byte) (cv [8]uint32) {
	for i := range cv {
		cv[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return cv
}

// output is a node whose compression has not been done yet: the root node
// is compressed with the ROOT flag and an output-block counter for every 64
// bytes of extended output.
type output struct {
	cv       [8]uint32
	block    [16]uint32
	counter  uint64
	blockLen uint32
	flags    uint32
}

func (o output) chainingValue() [8]uint32 {
	return first8(compress(&o.cv, &o.block, o.counter, o.blockLen, o.flags))
}

// rootBytes fills dst with extended output starting at byte offset seek.
func (o *output) rootBytes(dst []byte, seek uint64) {
	counter := seek / BlockSize
	skip := int(seek % BlockSize)
	for len(dst) > 0 {
		w := compress(&o.cv, &o.block, counter, o.blockLen, o.flags|flagRoot)
		var blk [BlockSize]byte
		for i, x := range w {
			binary.LittleEndian.PutUint32(blk[4*i:], x)
		}
		n := copy(dst, blk[skip:])
		dst = dst[n:]
		skip = 0
		counter++
	}
}

func parentOutput(left, right [8]uint32, key [8]uint32, flags uint32) output {
	o := output{cv: key, blockLen: BlockSize, flags: flagParent | flags}
	copy(o.block[:8], left[:])
	copy(o.block[8:], right[:])
	return o
}

type chunkState struct {
	cv               [8]uint32
	chunkCounter     uint64
	block            [BlockSize]byte
	blockLen         int
	blocksCompressed int
	flags            uint32
}

func newChunkState(key [8]uint32, counter uint64, flags uint32) chunkState {
	return chunkState{cv: key, chunkCounter: counter, flags: flags}
}

func (c *chunkState) len() int { return BlockSize*c.blocksCompressed + c.blockLen }

func (c *chunkState) startFlag() uint32 {
	if c.blocksCompressed == 0 {
		return flagChunkStart
	}
	return 0
}

func (c *chunkState) update(in []byte) {
	for len(in) > 0 {
		if c.blockLen == BlockSize {
			m := wordsLE(c.block[:])
			c.cv = first8(compress(&c.cv, &m, c.chunkCounter, BlockSize, c.flags|c.startFlag()))
			c.blocksCompressed++
			c.block = [BlockSize]byte{}
			c.blockLen = 0
		}
		n := copy(c.block[c.blockLen:], in)
		c.blockLen += n
		in = in[n:]
	}
}

func (c *chunkState) output() output {
	return output{
		cv:       c.cv,
		block:    wordsLE(c.block[:c.blockLen]),
		counter:  c.chunkCounter,
		blockLen: uint32(c.blockLen),
		flags:    c.flags | c.startFlag() | flagChunkEnd,
	}
}

// Hasher is an incremental BLAKE3 hash on the CPU: a hash.Hash whose Sum
// appends the 32-byte digest, plus XOF for output of any length. Create it
// with New, NewKeyed or NewDeriveKey.
type Hasher struct {
	key     [8]uint32
	flags   uint32
	chunk   chunkState
	stack   [54][8]uint32 // 2^54 chunks is BLAKE3's input limit
	stackN  int
	written uint64
}

var _ hash.Hash = (*Hasher)(nil)

func newHasher(key [8]uint32, flags uint32) *Hasher {
	return &Hasher{key: key, flags: flags, chunk: newChunkState(key, 0, flags)}
}

// New returns a Hasher for BLAKE3's default (unkeyed) mode.
func New() *Hasher { return newHasher(iv, 0) }

// NewKeyed returns a Hasher for the keyed_hash mode. The key must be
// exactly 32 bytes.
func NewKeyed(key []byte) (*Hasher, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("blake3: keyed hash needs a %d-byte key, got %d bytes", KeySize, len(key))
	}
	var k [32]byte
	copy(k[:], key)
	return newHasher(cvWords(k), flagKeyedHash), nil
}

// NewDeriveKey returns a Hasher for the derive_key mode: the context string
// (hard-coded, globally unique, application specific) is hashed first, and
// the key material is what the caller then writes.
func NewDeriveKey(context string) *Hasher {
	return newHasher(deriveKeyWords(context), flagDeriveKeyMaterial)
}

// deriveKeyWords hashes the context string in DERIVE_KEY_CONTEXT mode.
func deriveKeyWords(context string) [8]uint32 {
	h := newHasher(iv, flagDeriveKeyContext)
	h.Write([]byte(context))
	var k [32]byte
	h.XOF(k[:])
	return cvWords(k)
}

func (h *Hasher) addChunkCV(cv [8]uint32, totalChunks uint64) {
	// Every 1 bit trailing in the chunk count marks a completed subtree
	// on the stack to merge with.
	for totalChunks&1 == 0 {
		h.stackN--
		o := parentOutput(h.stack[h.stackN], cv, h.key, h.flags)
		cv = o.chainingValue()
		totalChunks >>= 1
	}
	h.stack[h.stackN] = cv
	h.stackN++
}

// Write absorbs p; it never fails.
func (h *Hasher) Write(p []byte) (int, error) {
	n := len(p)
	h.written += uint64(n)
	for len(p) > 0 {
		if h.chunk.len() == ChunkSize {
			cv := h.chunk.output().chainingValue()
			total := h.chunk.chunkCounter + 1
			h.addChunkCV(cv, total)
			h.chunk = newChunkState(h.key, total, h.flags)
		}
		want := ChunkSize - h.chunk.len()
		if want > len(p) {
			want = len(p)
		}
		h.chunk.update(p[:want])
		p = p[want:]
	}
	return n, nil
}

// rootOutput is the root node of what has been written so far.
func (h *Hasher) rootOutput() output {
	o := h.chunk.output()
	for i := h.stackN - 1; i >= 0; i-- {
		o = parentOutput(h.stack[i], o.chainingValue(), h.key, h.flags)
	}
	return o
}

// Sum appends the 32-byte digest of what was written to b; the state is
// unchanged.
func (h *Hasher) Sum(b []byte) []byte {
	var d [Size]byte
	h.XOF(d[:])
	return append(b, d[:]...)
}

// XOF fills dst with the first len(dst) bytes of the extended output (the
// first 32 are the digest); the state is unchanged.
func (h *Hasher) XOF(dst []byte) {
	o := h.rootOutput()
	o.rootBytes(dst, 0)
}

// Reset forgets everything written, keeping the mode and key.
func (h *Hasher) Reset() {
	h.chunk = newChunkState(h.key, 0, h.flags)
	h.stackN = 0
	h.written = 0
}

// Size is the default digest length, 32.
func (h *Hasher) Size() int { return Size }

// BlockSize is BLAKE3's block size, 64.
func (h *Hasher) BlockSize() int { return BlockSize }

// Sum256 is the 32-byte BLAKE3 hash of data (default mode).
func Sum256(data []byte) [32]byte {
	h := New()
	h.Write(data)
	var d [32]byte
	h.XOF(d[:])
	return d
}

// Merge is the 2-to-1 merge of Merkle trees: the BLAKE3 hash of the 64-byte
// concatenation left||right, which is one chunk of one block compressed
// with the flags CHUNK_START|CHUNK_END|ROOT, the IV as key and counter 0.
// It equals Sum256(append(left[:], right[:]...)).
func Merge(left, right [32]byte) [32]byte {
	var m [16]uint32
	l, r := cvWords(left), cvWords(right)
	copy(m[:8], l[:])
	copy(m[8:], r[:])
	w := compress(&iv, &m, 0, BlockSize, flagChunkStart|flagChunkEnd|flagRoot)
	return cvBytes(first8(w))
}
