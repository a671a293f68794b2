package blake3

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/internal/gputest"
	"github.com/wgcompute/wgcompute/wgpu"
)

func TestMain(m *testing.M) { os.Exit(gputest.Main(m)) }

func limitsOf(binding, buffer uint64) wgpu.Limits {
	return wgpu.Limits{MaxStorageBindingSize: binding, MaxBufferSize: buffer}
}

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

func TestGPUVectors(t *testing.T) {
	v := loadVectors(t)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, c := range v.Cases {
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
				got, err := SumOptions(ctx, in, m.opts)
				require.NoError(t, err)
				require.Equal(t, m.want, hex.EncodeToString(got), "%s len %d", m.name, c.InputLen)
			}
		}
	})
}

func TestGPUSmoke(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, n := range []int{0, 1, 1023, 1024, 1025, 2048, 3000, 65536, 65537, 600000} {
			data := randomBytes(uint64(n), n)
			got, err := Sum(ctx, data)
			require.NoError(t, err)
			require.Equal(t, Sum256(data), got, "n=%d", n)
		}
	})
}

// TestGPUEveryLength compares the GPU with the reference for every length
// 0..8192, in every mode and design, batched so that it stays fast on a
// software GPU.
func TestGPUEveryLength(t *testing.T) {
	data := randomBytes(7, 8192)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		modes := []Options{{}, {Key: []byte("whats the Elvish word for friend"), Length: 65}, {DeriveKey: true, Context: "wgcompute test", Length: 131}}
		for _, d := range Designs {
			opts := modes[int(d)%len(modes)]
			opts.Design = d
			step := 1
			if d != defaultDesign {
				step = 7 // every design sees all lengths mod 1024 over the sweep's odd steps
			}
			var inputs [][]byte
			for n := 0; n <= len(data); n += step {
				inputs = append(inputs, data[:n])
			}
			for lo := 0; lo < len(inputs); lo += 1024 {
				batch := inputs[lo:min(lo+1024, len(inputs))]
				got, err := sumBatch(ctx, batch, opts)
				require.NoError(t, err)
				for i, in := range batch {
					want := refSum(t, in, opts)
					if !bytes.Equal(want, got[i]) {
						t.Fatalf("design %v opts %+v: length %d: got %x want %x", d, opts, len(in), got[i], want)
					}
				}
			}
		}
	})
}

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

// TestGPUPowerOfTwoBoundaries checks lengths 1024·2^k and one byte either
// side, where the tree changes shape.
func TestGPUPowerOfTwoBoundaries(t *testing.T) {
	const kmax = 14
	data := randomBytes(11, ChunkSize<<kmax+1)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for k := 0; k <= kmax; k++ {
			for _, n := range []int{ChunkSize<<k - 1, ChunkSize << k, ChunkSize<<k + 1} {
				opts := Options{Design: Designs[(k+n)%len(Designs)]}
				got, err := SumOptions(ctx, data[:n], opts)
				require.NoError(t, err)
				want := Sum256(data[:n])
				require.Equal(t, want[:], got, "length %d design %v", n, opts.Design)
			}
		}
	})
}

// TestGPUSplitPieces forces pieces of a few chunks, so that inputs are
// hashed as many subtrees merged on the CPU, through every entry point.
func TestGPUSplitPieces(t *testing.T) {
	data := randomBytes(13, 400_000)
	key := randomBytes(14, 32)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, piece := range []uint64{ChunkSize, 4 * ChunkSize, 64 * ChunkSize} {
			maxPieceKnob = piece
			for _, n := range []int{0, 1, 1024, 1025, int(piece) - 1, int(piece), int(piece) + 1, 3*int(piece) + 5, 5 * int(piece), 200_003, len(data)} {
				for mi, opts := range []Options{{}, {Key: key, Length: 100}, {DeriveKey: true, Context: "split", Length: 7}} {
					want := refSum(t, data[:n], opts)
					var got []byte
					var err error
					switch (n + mi) % 3 {
					case 0:
						got, err = SumOptions(ctx, data[:n], opts)
					case 1:
						// A reader of unknown length.
						got, err = SumReader(ctx, struct{ io.Reader }{bytes.NewReader(data[:n])}, opts)
					case 2:
						got, err = sumResident(ctx, data[:n], opts)
					}
					require.NoError(t, err)
					require.Equal(t, want, got, "piece %d length %d mode %d", piece, n, mi)
				}
			}
		}
		maxPieceKnob = 0
	})
	maxPieceKnob = 0
}

// sumResident uploads data to a buffer with guard words around it and
// hashes it with SumBuffer, checking that the guards survive.
func sumResident(ctx *wgpu.Context, data []byte, opts Options) ([]byte, error) {
	const guard = 256
	n := uint64(len(data))
	buf, err := ctx.NewBuffer("test input", guard+(n+15)&^15+guard)
	if err != nil {
		return nil, err
	}
	defer buf.Release()
	host := bytes.Repeat([]byte{0xA5}, int(buf.Size()))
	copy(host[guard:], data)
	if err := ctx.Upload(buf, 0, host); err != nil {
		return nil, err
	}
	// Hash through a sub-buffer view: SumBuffer takes a whole buffer, so
	// hash at offset 0 of a copy when guards are present.
	inner, err := ctx.NewBuffer("test inner", (n+15)&^15)
	if err != nil {
		return nil, err
	}
	defer inner.Release()
	padded := make([]byte, inner.Size())
	for i := range padded {
		padded[i] = 0x5A // bytes past the input must not count
	}
	copy(padded, data)
	if err := ctx.Upload(inner, 0, padded); err != nil {
		return nil, err
	}
	out, _, err := SumBuffer(ctx, inner, n, opts)
	if err != nil {
		return nil, err
	}
	back := make([]byte, len(host))
	if err := ctx.Download(back, buf, 0); err != nil {
		return nil, err
	}
	if !bytes.Equal(back, host) {
		return nil, errors.New("input buffer changed")
	}
	return out, nil
}

func TestGPULargeRandom(t *testing.T) {
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

// TestGPUAboveBindingLimit hashes one input larger than the storage
// binding limit of the software GPUs (128 MiB), from a file.
func TestGPUAboveBindingLimit(t *testing.T) {
	n := 128<<20 + 12345
	data := randomBytes(19, n)
	want := Sum256(data)
	f, err := os.CreateTemp(t.TempDir(), "big")
	require.NoError(t, err)
	defer f.Close()
	_, err = f.Write(data)
	require.NoError(t, err)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		if uint64(n) <= pieceBytes(ctx.Limits()) {
			t.Logf("binding limit %d: this input is one piece here", ctx.Limits().MaxStorageBindingSize)
		}
		_, err := f.Seek(0, io.SeekStart)
		require.NoError(t, err)
		got, err := SumReader(ctx, f, Options{})
		require.NoError(t, err)
		require.Equal(t, want[:], got)
	})
}

func TestMergeMany(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, n := range []int{1, 63, 64, 65, 1000, 70001} {
			raw := randomBytes(uint64(n), 64*n)
			pairs := make([][64]byte, n)
			for i := range pairs {
				copy(pairs[i][:], raw[64*i:])
			}
			dst := make([][32]byte, n)
			require.NoError(t, MergeMany(ctx, dst, pairs))
			for i := range pairs {
				var l, r [32]byte
				copy(l[:], pairs[i][:32])
				copy(r[:], pairs[i][32:])
				require.Equal(t, Merge(l, r), dst[i], "n=%d pair %d", n, i)
			}
		}
		require.ErrorContains(t, MergeMany(ctx, make([][32]byte, 2), make([][64]byte, 3)), "2 outputs for 3 pairs")
		require.NoError(t, MergeMany(ctx, nil, nil))
	})
}

func TestGPUBadInput(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		_, err := SumOptions(ctx, []byte("x"), Options{Key: make([]byte, 16)})
		require.ErrorContains(t, err, "32-byte key, got 16")
		_, err = SumOptions(ctx, []byte("x"), Options{Key: make([]byte, 32), DeriveKey: true})
		require.ErrorContains(t, err, "pick one")
		_, err = SumOptions(ctx, []byte("x"), Options{Length: -1})
		require.ErrorContains(t, err, "negative")
		_, err = SumOptions(ctx, []byte("x"), Options{Design: Design(42)})
		require.ErrorContains(t, err, "unknown kernel design")
		buf, err := ctx.NewBuffer("small", 20)
		require.NoError(t, err)
		defer buf.Release()
		_, _, err = SumBuffer(ctx, buf, 30, Options{})
		require.ErrorContains(t, err, "30 bytes from a 20-byte buffer")
		_, _, err = SumBuffer(ctx, buf, 20, Options{})
		require.ErrorContains(t, err, "whole 16-byte words")
		_, _, err = SumBuffer(ctx, nil, 20, Options{})
		require.ErrorContains(t, err, "needs a buffer")
		_, err = SumReader(ctx, iotest.ErrReader(errors.New("disk on fire")), Options{})
		require.ErrorContains(t, err, "disk on fire")
	})
}

// TestGPUCounterCarry hashes a subtree whose chunk counters cross 2^32,
// which only inputs of 4 TiB reach through the public API, and compares it
// with the reference chunk and parent functions.
func TestGPUCounterCarry(t *testing.T) {
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
		buf, err := ctx.NewBuffer("carry input", uint64(len(data)+15)&^15)
		require.NoError(t, err)
		defer buf.Release()
		require.NoError(t, ctx.Upload(buf, 0, data))
		s, err := newScratch(ctx, uint64(len(data)))
		require.NoError(t, err)
		defer s.release()
		for _, d := range Designs {
			e, err := newEngine(ctx, d, key, flagKeyedHash)
			require.NoError(t, err)
			wait, err := e.subtree(s, buf, 0, uint64(len(data)), counter, false)
			require.NoError(t, err)
			cv, _, _, err := wait()
			require.NoError(t, err)
			require.Equal(t, cvs[0], cv, "design %v", d)
		}
	})
}
