package blake3

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/internal/base/impl"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

func TestMain(m *testing.M) { os.Exit(gputest.Main(m)) }

func randomBytes(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 99))
	b := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		v := rng.Uint64()
		for k := 0; k < 8; k++ {
			b[i+k] = byte(v >> (8 * k))
		}
	}
	for i := n &^ 7; i < n; i++ {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// eachBackend runs fn on the CPU (a nil Context), on every GPU backend,
// and on every GPU backend with small limits, where inputs of a few
// hundred KiB are split into many pieces.
func eachBackend(t *testing.T, fn func(t *testing.T, ctx *wgpu.Context)) {
	t.Run("cpu", func(t *testing.T) { fn(t, nil) })
	gputest.ForEach(t, fn)
	gputest.ForEachSmall(t, fn)
}

// variantsOf lists the variants to test on ctx: the CPU has one.
func variantsOf(ctx *wgpu.Context) []variant {
	if ctx == nil {
		return []variant{variantDefault}
	}
	return variants
}

// testModes are the three modes, with extended output in two of them.
var testModes = []Options{{}, {Key: []byte("whats the Elvish word for friend"), Length: 65}, {DeriveKey: true, Context: "wgcompute test", Length: 131}}

// refSum is the reference hash of in with opts.
func refSum(t testing.TB, in []byte, opts Options) []byte {
	var h *Hasher
	switch {
	case opts.Key != nil:
		var err error
		h, err = NewKeyed(opts.Key)
		require.NoError(t, err)
	case opts.DeriveKey:
		h = NewDeriveKey(opts.Context)
	default:
		h = New()
	}
	h.Write(in)
	out := make([]byte, 32)
	if opts.Length != 0 {
		out = make([]byte, opts.Length)
	}
	h.XOF(out)
	return out
}

func newEngine(t testing.TB, ctx *wgpu.Context, opts Options) *Engine {
	e, err := NewEngine(ctx, opts)
	require.NoError(t, err)
	t.Cleanup(e.Release)
	return e
}

func TestVectors(t *testing.T) {
	v := loadVectors(t)
	eachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		vs := variantsOf(ctx)
		for ci, c := range v.Cases {
			in := vectorInput(c.InputLen)
			for _, m := range []struct {
				name string
				opts Options
				want string
			}{
				{"hash", Options{}, c.Hash},
				{"keyed_hash", Options{Key: []byte(v.Key)}, c.KeyedHash},
				{"derive_key", Options{DeriveKey: true, Context: v.Context}, c.DeriveKey},
			} {
				m.opts.Length = len(m.want) / 2
				m.opts.variant = vs[ci%len(vs)]
				got, err := SumReader(ctx, bytes.NewReader(in), m.opts)
				require.NoError(t, err)
				require.Equal(t, m.want, hex.EncodeToString(got), "%s len %d variant %v", m.name, c.InputLen, m.opts.variant)
			}
		}
	})
}

func TestSumSmoke(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, n := range []int{0, 1, 1023, 1024, 1025, 2048, 3000, 65536, 65537, 600000} {
			data := randomBytes(uint64(n), n)
			got, err := Sum(ctx, data)
			require.NoError(t, err)
			require.Equal(t, Sum256(data), got, "n=%d", n)
		}
	})
}

// sumBatch hashes many inputs, each no larger than one piece, with one Run
// for the lot: the inputs sit side by side in one buffer and each has its
// own regions of the chaining-value buffers and its own top-node record.
// It serves the sweep of thousands of lengths, where a Run per input would
// dominate on a software GPU.
func sumBatch(t testing.TB, ctx *wgpu.Context, inputs [][]byte, opts Options) [][]byte {
	const recordBytes = 256 // a top node (112 bytes) at the storage offset alignment
	e := newEngine(t, ctx, opts)
	align := func(n uint64) uint64 { return (n + 255) &^ 255 }
	var dataOff, aOff, bOff []uint64
	var dataN, aN, bN uint64
	for _, in := range inputs {
		n := uint64(len(in))
		require.LessOrEqual(t, n, e.maxPiece)
		chunks := max((n+ChunkSize-1)/ChunkSize, 1)
		dataOff, aOff, bOff = append(dataOff, dataN), append(aOff, aN), append(bOff, bN)
		dataN += align(words16(n))
		aN += align(cvBytesFor(chunks))
		bN += align(levelBytes(chunks))
	}
	host := make([]byte, dataN)
	for i, in := range inputs {
		copy(host[dataOff[i]:], in)
	}
	bufs := make([]*wgpu.Buffer, 4)
	for i, size := range []uint64{dataN, aN, bN, recordBytes * uint64(len(inputs))} {
		var err error
		bufs[i], err = ctx.NewBuffer("blake3 batch", size)
		require.NoError(t, err)
		defer bufs[i].Release()
	}
	require.NoError(t, ctx.Upload(bufs[0], 0, host))
	var ds []wgpu.Dispatch
	for i, in := range inputs {
		n := uint64(len(in))
		chunks := max((n+ChunkSize-1)/ChunkSize, 1)
		ds = append(ds, e.plan(wgpu.Binding{Buffer: bufs[0], Offset: dataOff[i], Size: words16(n)},
			wgpu.Binding{Buffer: bufs[1], Offset: aOff[i], Size: cvBytesFor(chunks)},
			wgpu.Binding{Buffer: bufs[2], Offset: bOff[i], Size: levelBytes(chunks)},
			wgpu.Binding{Buffer: bufs[3], Offset: recordBytes * uint64(i), Size: recordBytes}, n, 0)...)
	}
	_, err := ctx.Run(ds...)
	require.NoError(t, err)
	recs := make([]uint32, recordBytes/4*len(inputs))
	require.NoError(t, ctx.Download(wgpu.Bytes(recs), bufs[3], 0))
	out := make([][]byte, len(inputs))
	for i := range inputs {
		out[i] = e.output(recordOutput([28]uint32(recs[i*recordBytes/4:])))
	}
	return out
}

// TestEveryLength compares every backend with the reference for every
// length 0..8192, in every mode and variant: on the GPU batched, so that it
// stays fast on a software GPU.
func TestEveryLength(t *testing.T) {
	data := randomBytes(7, 8192)
	t.Run("cpu", func(t *testing.T) {
		for mi, opts := range testModes {
			e := newEngine(t, nil, opts)
			for n := 0; n <= len(data); n++ {
				got, err := e.Sum(data[:n])
				require.NoError(t, err)
				if want := refSum(t, data[:n], opts); !bytes.Equal(want, got) {
					t.Fatalf("mode %d: length %d: got %x want %x", mi, n, got, want)
				}
			}
		}
	})
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for vi, v := range variants {
			opts := testModes[vi%len(testModes)]
			opts.variant = v
			step := 1
			if vi > 0 {
				step = 7 // every variant sees all lengths mod 1024 over the sweep's odd steps
			}
			var inputs [][]byte
			for n := 0; n <= len(data); n += step {
				inputs = append(inputs, data[:n])
			}
			for lo := 0; lo < len(inputs); lo += 1024 {
				batch := inputs[lo:min(lo+1024, len(inputs))]
				got := sumBatch(t, ctx, batch, opts)
				for i, in := range batch {
					if want := refSum(t, in, opts); !bytes.Equal(want, got[i]) {
						t.Fatalf("variant %v opts %+v: length %d: got %x want %x", v, opts, len(in), got[i], want)
					}
				}
			}
		}
	})
}

// sized is a bytes.Reader that reports the length size to Seek(0,
// io.SeekEnd) and to nothing else: a file whose stat size is wrong.
type sized struct {
	*bytes.Reader
	size int64
}

func (s sized) Seek(off int64, whence int) (int64, error) {
	if whence == io.SeekEnd {
		return s.Reader.Seek(s.size-s.Reader.Size()+off, io.SeekEnd)
	}
	return s.Reader.Seek(off, whence)
}

// partial is a bytes.Reader whose ReadAt returns at most 1000 bytes, with
// no error before the end, which io.ReaderAt does not allow.
type partial struct{ *bytes.Reader }

func (p partial) ReadAt(b []byte, off int64) (int, error) {
	return p.Reader.ReadAt(b[:min(len(b), 1000)], off)
}

// TestPieces hashes lengths around the piece and subtree boundaries
// through every entry point: in memory, a reader read in sequence, readers
// that report a wrong length or read less than asked, and a buffer on the
// device; on the GPU with
// small limits these are inputs of many pieces.
func TestPieces(t *testing.T) {
	const q = 64 << 10 // the small limits' piece, and the first of a reader of unknown length
	data := randomBytes(13, 7*q+5000)
	var lengths []int
	for _, n := range []int{0, 1, 1023, 1024, 1025, q, 2 * q, 3 * q, 4 * q, 5 * q, 7 * q} {
		for _, d := range []int{-1, 0, 1} {
			if n+d >= 0 {
				lengths = append(lengths, n+d)
			}
		}
	}
	lengths = append(lengths, 3*q+5, 200_003, len(data))
	eachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		vs := variantsOf(ctx)
		for li, n := range lengths {
			for mi, opts := range testModes {
				opts.variant = vs[(li+mi)%len(vs)]
				e := newEngine(t, ctx, opts)
				want := refSum(t, data[:n], opts)
				for _, in := range []struct {
					name string
					sum  func() ([]byte, error)
				}{
					{"memory", func() ([]byte, error) { return e.Sum(data[:n]) }},
					{"sequence", func() ([]byte, error) { return e.SumReader(iotest.HalfReader(bytes.NewReader(data[:n]))) }},
					{"longer than reported", func() ([]byte, error) {
						return e.SumReader(sized{bytes.NewReader(data[:n]), int64(n / 3)})
					}},
					{"shorter than reported", func() ([]byte, error) {
						return e.SumReader(sized{bytes.NewReader(data[:n]), int64(n*2 + 5)})
					}},
					{"partial reads", func() ([]byte, error) { return e.SumReader(partial{bytes.NewReader(data[:n])}) }},
					{"device", func() ([]byte, error) { return sumDevice(t, ctx, e, data[:n]) }},
				} {
					if in.name == "device" && (ctx == nil || uint64(n+256) > ctx.Limits().MaxBufferSize) {
						continue
					}
					got, err := in.sum()
					require.NoError(t, err, "%s length %d", in.name, n)
					require.Equal(t, want, got, "%s length %d opts %+v", in.name, n, opts)
				}
			}
		}
	})
}

// sumDevice hashes data with SumBuffer from a buffer that holds it, then
// bytes that must not count up to a 16-byte word, then a guard region, and
// checks that the buffer is untouched.
func sumDevice(t testing.TB, ctx *wgpu.Context, e *Engine, data []byte) ([]byte, error) {
	n := uint64(len(data))
	host := bytes.Repeat([]byte{0xA5}, int(words16(n)+256))
	copy(host, data)
	for i := n; i < words16(n); i++ {
		host[i] = 0x5A
	}
	buf, err := ctx.NewBuffer("test input", uint64(len(host)))
	require.NoError(t, err)
	defer buf.Release()
	require.NoError(t, ctx.Upload(buf, 0, host))
	out, err := e.SumBuffer(buf, n)
	back := make([]byte, len(host))
	require.NoError(t, ctx.Download(back, buf, 0))
	require.Equal(t, host, back, "the input buffer changed")
	return out, err
}

// TestPieceSize checks that the pieces of every input are subtrees of
// the BLAKE3 tree (a power-of-two number of chunks dividing the offset, at
// most the largest piece) and that an input as long as its hint ends in a
// short piece.
func TestPieceSize(t *testing.T) {
	const maxPiece = 64 * ChunkSize
	for _, n := range []uint64{0, 1, 1024, 1025, 3000, maxPiece - 1, maxPiece, maxPiece + 1, 10*maxPiece + 77} {
		for _, hint := range []uint64{0, n / 2, n, 2*n + 1} {
			var pieces []uint64
			off := uint64(0)
			for {
				size := pieceSize(off, hint, maxPiece)
				require.True(t, size >= ChunkSize && size <= maxPiece && size&(size-1) == 0, "size %d", size)
				require.Zero(t, off%size, "piece of %d bytes at %d", size, off)
				pieces = append(pieces, size)
				if off+size > n {
					break
				}
				off += size
			}
			if hint == n {
				require.Greater(t, off+pieces[len(pieces)-1], n, "n %d: the last piece is short", n)
				require.LessOrEqual(t, len(pieces), int(n/maxPiece)+2, "n %d: pieces %v", n, pieces)
			}
		}
	}
	require.Equal(t, uint64(8*ChunkSize), pieceSize(0, 4096, 1<<28), "a 4 KiB input")
	require.Equal(t, uint64(firstPiece), pieceSize(0, 0, 1<<28), "an input of unknown length")
	require.Equal(t, uint64(2*firstPiece), pieceSize(2*firstPiece, 0, 1<<28), "pieces double")
}

// TestSmallInputSmallBuffers checks that a small input allocates buffers
// of its size, whether its length is known or not.
func TestSmallInputSmallBuffers(t *testing.T) {
	data := randomBytes(21, 4096)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, r := range []io.Reader{bytes.NewReader(data), iotest.OneByteReader(bytes.NewReader(data))} {
			e := newEngine(t, ctx, Options{})
			got, err := e.SumReader(r)
			require.NoError(t, err)
			want := Sum256(data)
			require.Equal(t, want[:], got)
			require.LessOrEqual(t, e.in[0].Size(), uint64(firstPiece), "%T", r)
			require.Nil(t, e.in[1], "%T: one piece, one input buffer", r)
			require.LessOrEqual(t, e.cvA.Size(), uint64(64*32))
		}
	})
}

// hooked is a file that runs a function when SumReader asks for its length
// (Seek to the end), so that a test can change the file between stat and
// read.
type hooked struct {
	*os.File
	hook func()
}

func (h hooked) Seek(off int64, whence int) (int64, error) {
	n, err := h.File.Seek(off, whence)
	if whence == io.SeekEnd {
		h.hook()
	}
	return n, err
}

// TestUntrustedSize hashes files whose reported size is wrong: a /proc
// file that reports 0 bytes and has content, a file truncated between the
// size and the read, a file that grows, and one read from the middle.
func TestUntrustedSize(t *testing.T) {
	proc, err := os.ReadFile("/proc/version")
	require.NoError(t, err)
	require.NotEmpty(t, proc)
	data := randomBytes(31, 300_000)
	dir := t.TempDir()
	eachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		f, err := os.Open("/proc/version")
		require.NoError(t, err)
		defer f.Close()
		got, err := SumReader(ctx, f, Options{})
		require.NoError(t, err)
		want := Sum256(proc)
		require.Equal(t, want[:], got, "/proc/version")

		for _, c := range []struct {
			name       string
			before, at int // the file's length when opened, and when read
		}{
			{"truncated", len(data), 100_000},
			{"truncated to nothing", len(data), 0},
			{"growing", 100_000, len(data)},
			{"growing from nothing", 0, 5000},
		} {
			path := filepath.Join(dir, "input")
			require.NoError(t, os.WriteFile(path, data[:c.before], 0o600))
			f, err := os.Open(path)
			require.NoError(t, err)
			got, err := SumReader(ctx, hooked{f, func() {
				require.NoError(t, os.WriteFile(path, data[:c.at], 0o600))
			}}, Options{})
			require.NoError(t, err, c.name)
			want := Sum256(data[:c.at])
			require.Equal(t, want[:], got, c.name)
			pos, err := f.Seek(0, io.SeekCurrent)
			require.NoError(t, err)
			require.Equal(t, int64(c.at), pos, "%s: the file is left at the end of what was hashed", c.name)

			_, err = f.Seek(1000, io.SeekStart)
			require.NoError(t, err)
			got, err = SumReader(ctx, f, Options{})
			require.NoError(t, err)
			want = Sum256(data[min(1000, c.at):c.at])
			require.Equal(t, want[:], got, "%s from byte 1000", c.name)
			f.Close()
		}
	})
}

func TestLargeRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for i := 0; i < 3; i++ {
			n := 1<<20 + rng.IntN(8<<20)
			data := randomBytes(uint64(n), n)
			got, err := Sum(ctx, data)
			require.NoError(t, err)
			require.Equal(t, Sum256(data), got, "length %d", n)
		}
	})
}

// TestAboveBindingLimit hashes one input larger than the storage binding
// limit of the software GPUs (128 MiB), from a file.
func TestAboveBindingLimit(t *testing.T) {
	n := 128<<20 + 12345
	data := randomBytes(19, n)
	want := Sum256(data)
	f, err := os.CreateTemp(t.TempDir(), "big")
	require.NoError(t, err)
	defer f.Close()
	_, err = f.Write(data)
	require.NoError(t, err)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		e := newEngine(t, ctx, Options{})
		if uint64(n) <= e.maxPiece {
			t.Logf("binding limit %d: this input is one piece here", ctx.Limits().MaxStorageBindingSize)
		}
		_, err := f.Seek(0, io.SeekStart)
		require.NoError(t, err)
		got, err := e.SumReader(f)
		require.NoError(t, err)
		require.Equal(t, want[:], got)
	})
}

func TestMergeMany(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, n := range []int{1, 63, 64, 65, 1000, 70001} {
			raw := randomBytes(uint64(n), 64*n)
			pairs := make([][64]byte, n)
			for i := range pairs {
				copy(pairs[i][:], raw[64*i:])
			}
			dst := make([][32]byte, n)
			var tm wgpu.Timing
			require.NoError(t, MergeMany(ctx, dst, pairs, Options{Timing: &tm}))
			require.NotZero(t, tm.Wall)
			for i := range pairs {
				require.Equal(t, Merge([32]byte(pairs[i][:32]), [32]byte(pairs[i][32:])), dst[i], "n=%d pair %d", n, i)
			}
			if ctx != nil {
				// The same batch with a guard item after each piece.
				clear(dst)
				b, err := mergeBatch(ctx, dst, pairs)
				require.NoError(t, err)
				b.Guard = true
				_, err = sched.Run(ctx, b)
				require.NoError(t, err)
				require.Equal(t, Merge([32]byte(pairs[n-1][:32]), [32]byte(pairs[n-1][32:])), dst[n-1])
			}
		}
		require.ErrorContains(t, MergeMany(ctx, make([][32]byte, 2), make([][64]byte, 3), Options{}), "2 outputs for 3 pairs")
		require.ErrorContains(t, MergeMany(ctx, make([][32]byte, 2), make([][64]byte, 2), Options{Length: 64}), "no Key, DeriveKey or Length")
		require.NoError(t, MergeMany(ctx, nil, nil, Options{}))
	})
}

func TestBadInput(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, c := range []struct {
			opts Options
			want string
		}{
			{Options{Key: make([]byte, 16)}, "32-byte key, got 16"},
			{Options{Key: make([]byte, 32), DeriveKey: true}, "pick one"},
			{Options{Length: -1}, "negative"},
			{Options{variant: variant(42)}, "unknown variant 42"},
			{Options{variant: variant(-1)}, "unknown variant -1"},
		} {
			_, err := SumReader(ctx, bytes.NewReader([]byte("x")), c.opts)
			require.ErrorContains(t, err, c.want)
		}
		_, err := SumReader(ctx, nil, Options{})
		require.ErrorContains(t, err, "needs a reader, got nil")
		_, err = SumReader(ctx, (*os.File)(nil), Options{})
		require.Error(t, err)
		_, err = SumReader(ctx, iotest.ErrReader(errors.New("disk on fire")), Options{})
		require.ErrorContains(t, err, "disk on fire")
		_, err = SumReader(ctx, io.MultiReader(bytes.NewReader(make([]byte, 300_000)), iotest.ErrReader(errors.New("disk on fire"))), Options{})
		require.ErrorContains(t, err, "disk on fire")
		e := newEngine(t, ctx, Options{})
		_, err = e.SumBuffer(nil, 20)
		require.ErrorContains(t, err, "needs a buffer")
		if ctx == nil {
			return
		}
		buf, err := ctx.NewBuffer("small", 20)
		require.NoError(t, err)
		defer buf.Release()
		_, err = e.SumBuffer(buf, 30)
		require.ErrorContains(t, err, "30 bytes from a 20-byte buffer")
		_, err = e.SumBuffer(buf, 20)
		require.ErrorContains(t, err, "whole 16-byte words")
		_, err = newEngine(t, nil, Options{}).SumBuffer(buf, 16)
		require.ErrorContains(t, err, "needs the Context")
	})
}

// The variants are registered in internal/base/impl by name, the default
// first, and each registered value forces its variant.
func TestVariantRegistry(t *testing.T) {
	require.Equal(t, []string{"rows", "lanes2", "lanes4", "lanes8", "lanes16"}, impl.List("blake3"))
	for _, v := range variants {
		force, err := impl.Select[func(Options) Options]("blake3", v.String())
		require.NoError(t, err)
		require.Equal(t, v, force(Options{Length: 64}).variant)
		require.Equal(t, 64, force(Options{Length: 64}).Length)
	}
	require.Equal(t, "default", variantDefault.String())
	require.Equal(t, "variant(42)", variant(42).String())
	_, err := impl.Select[func(Options) Options]("blake3", "lanes3")
	require.ErrorContains(t, err, `unknown variant "lanes3": accepted are [rows lanes2 lanes4 lanes8 lanes16]`)
}

// TestTiming checks that Options.Timing receives each call's time.
func TestTiming(t *testing.T) {
	data := randomBytes(41, 300_000)
	eachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		var tm wgpu.Timing
		e := newEngine(t, ctx, Options{Timing: &tm})
		for _, sum := range []func() ([]byte, error){
			func() ([]byte, error) { return e.Sum(data) },
			func() ([]byte, error) { return e.SumReader(bytes.NewReader(data)) },
		} {
			tm = wgpu.Timing{}
			_, err := sum()
			require.NoError(t, err)
			require.NotZero(t, tm.Elapsed())
			require.Equal(t, ctx != nil && ctx.Info().Timestamps, tm.Measured)
		}
		if ctx != nil {
			buf, err := ctx.NewBuffer("timed", 100_000)
			require.NoError(t, err)
			defer buf.Release()
			var bt wgpu.Timing
			be, err := NewEngine(ctx, Options{Timing: &bt})
			require.NoError(t, err)
			defer be.Release()
			_, err = be.SumBuffer(buf, buf.Size())
			require.NoError(t, err)
			require.NotZero(t, bt.Wall)
		}
	})
}

// TestEngineReuse hashes inputs of growing and shrinking sizes with one
// Engine, and checks that calls leave no buffer behind but the Engine's,
// which Release frees.
func TestEngineReuse(t *testing.T) {
	data := randomBytes(43, 400_000)
	eachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		before := ctx.LiveBuffers()
		e, err := NewEngine(ctx, Options{Length: 40})
		require.NoError(t, err)
		for _, n := range []int{5, 300_000, 0, 1025, 400_000, 77} {
			got, err := e.Sum(data[:n])
			require.NoError(t, err)
			require.Equal(t, refSum(t, data[:n], Options{Length: 40}), got, "n=%d", n)
		}
		e.Release()
		require.Equal(t, before, ctx.LiveBuffers())
		got, err := e.Sum(data[:999])
		require.NoError(t, err, "used again after Release")
		require.Equal(t, refSum(t, data[:999], Options{Length: 40}), got)
		e.Release()
		if ctx != nil {
			gputest.NoLeaks(t, ctx, func() error {
				_, err := SumReader(ctx, iotest.ErrReader(errors.New("disk on fire")), Options{})
				return err
			})
			gputest.NoLeaks(t, ctx, func() error {
				_, err := SumReader(ctx, sized{bytes.NewReader(data), 5}, Options{variant: variantLanes8})
				return err
			})
		}
	})
}

// TestCounterCarry hashes a subtree whose chunk counters cross 2^32, which
// only inputs of 4 TiB reach through the public API, and compares it with
// the reference chunk and parent functions.
func TestCounterCarry(t *testing.T) {
	const chunks = 37
	data := randomBytes(23, chunks*ChunkSize-100)
	counter := uint64(1)<<32 - 20
	key := cvWords([32]byte{1, 2, 3})
	// Reference: chunk chaining values, then level-by-level merging.
	var cvs [][8]uint32
	for i := 0; i < chunks; i++ {
		cs := newChunkState(key, counter+uint64(i), flagKeyedHash)
		cs.update(data[i*ChunkSize : min((i+1)*ChunkSize, len(data))])
		cvs = append(cvs, cs.output().chainingValue())
	}
	for len(cvs) > 1 {
		var next [][8]uint32
		for i := 0; i+1 < len(cvs); i += 2 {
			next = append(next, parentOutput(cvs[i], cvs[i+1], key, flagKeyedHash).chainingValue())
		}
		if len(cvs)%2 == 1 {
			next = append(next, cvs[len(cvs)-1])
		}
		cvs = next
	}
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		buf, err := ctx.NewBuffer("carry input", words16(uint64(len(data))))
		require.NoError(t, err)
		defer buf.Release()
		require.NoError(t, ctx.Upload(buf, 0, data))
		keyBytes := cvBytes(key)
		for _, v := range variants {
			e := newEngine(t, ctx, Options{Key: keyBytes[:], variant: v})
			p, err := e.submit(wgpu.Bind(buf), uint64(len(data)), counter)
			require.NoError(t, err)
			o, err := e.topNode(p)
			require.NoError(t, err)
			require.Equal(t, cvs[0], o.chainingValue(), "variant %v", v)
		}
	})
}

func ExampleEngine() {
	// A nil Context hashes on the CPU; a Context from wgpu.Open, on its GPU.
	e, err := NewEngine(nil, Options{DeriveKey: true, Context: "example 2026-01-01 key", Length: 16})
	if err != nil {
		panic(err)
	}
	defer e.Release()
	key, err := e.Sum([]byte("key material"))
	if err != nil {
		panic(err)
	}
	fmt.Println(len(key))
	// Output: 16
}
