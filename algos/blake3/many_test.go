package blake3

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	lukechampine "lukechampine.com/blake3"
)

// manySizes are the input lengths SumMany is tested at: empty, around a
// word, a block, a chunk and two, and inputs of several chunks whose
// trees are incomplete (3000 bytes: 3 chunks, 5000: 5, 9217: 10).
var manySizes = []int{0, 1, 2, 3, 5, 63, 64, 65, 127, 1023, 1024, 1025, 2048, 3000, 5000, 9217}

// manyCounts are the input counts: odd, so that groups of inputs (2 or 4
// per 4-byte-aligned item) leave some over.
var manyCounts = []int{1, 3, 37}

// manyWant is the reference: each input hashed with the reference Hasher
// in the mode of opts, and for the default mode also checked against
// lukechampine.com/blake3.
func manyWant(t testing.TB, data []byte, n, size int, opts Options) [][32]byte {
	want := make([][32]byte, n)
	for i := range want {
		in := data[i*size : (i+1)*size]
		want[i] = [32]byte(refSum(t, in, opts))
		if opts.Key == nil && !opts.DeriveKey {
			require.Equal(t, lukechampine.Sum256(in), want[i])
		}
	}
	return want
}

// requireDigests compares digests, naming the first that differs.
func requireDigests(t *testing.T, want, got [][32]byte, what string) {
	t.Helper()
	require.Equal(t, len(want), len(got), what)
	for i := range want {
		if want[i] != got[i] {
			t.Fatalf("%s: digest %d of %d is %x, want %x", what, i, len(want), got[i], want[i])
		}
	}
}

func TestSumMany(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	modes := []Options{{}, {Key: []byte("whats the Elvish word for friend")}, {DeriveKey: true, Context: "wgcompute SumMany test"}}
	eachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, size := range manySizes {
			for _, n := range manyCounts {
				data := randomBytes(seed+uint64(size*1000+n), n*size)
				for mi, opts := range modes {
					if mi > 0 && n != 3 {
						continue // the modes differ in the key words alone
					}
					want := manyWant(t, data, n, size, opts)
					got := make([][32]byte, n)
					for i := range got {
						got[i] = [32]byte{0xEE}
					}
					var tm wgpu.Timing
					opts.Timing = &tm
					require.NoError(t, SumMany(ctx, got, data, size, opts))
					requireDigests(t, want, got, fmt.Sprintf("%d inputs of %d bytes, mode %d", n, size, mi))
					if n > 0 && size > 0 {
						require.NotZero(t, tm.Elapsed())
					}
				}
			}
		}
	})
}

// TestSumManyLarge: many inputs, under small limits many pieces of a
// batch (64 KiB bindings hold 16 inputs of 4000 bytes).
func TestSumManyLarge(t *testing.T) {
	const n, size = 2001, 4001
	data := randomBytes(rand.Uint64(), n*size)
	want := manyWant(t, data, n, size, Options{})
	eachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		got := make([][32]byte, n)
		require.NoError(t, SumMany(ctx, got, data, size, Options{}))
		requireDigests(t, want, got, "large")
	})
}

// TestSumManyBuffer hashes inputs already on the device into digests that
// stay there, at odd sizes and counts, in pieces under small limits (and
// with bindings of 4 KiB, many pieces whose ranges start 256-aligned
// below their first input and digest).
func TestSumManyBuffer(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	run := func(t *testing.T, ctx *wgpu.Context) {
		for _, size := range []int{0, 1, 3, 64, 65, 1025, 3000} {
			for _, n := range []int{1, 9, 77} {
				data := randomBytes(seed+uint64(size*1000+n), n*size)
				want := manyWant(t, data, n, size, Options{})
				src, err := ctx.NewBuffer("test inputs", uint64(max(16, (len(data)+3)&^3)))
				require.NoError(t, err)
				dst, err := ctx.NewBuffer("test digests", uint64(32*n+64))
				require.NoError(t, err)
				require.NoError(t, ctx.Upload(src, 0, data))
				guard := make([]byte, 64)
				for i := range guard {
					guard[i] = 0xA5
				}
				require.NoError(t, ctx.Upload(dst, uint64(32*n), guard))
				var tm wgpu.Timing
				require.NoError(t, SumManyBuffer(ctx, dst, src, n, size, Options{Timing: &tm}))
				out := make([][32]byte, n+2)
				require.NoError(t, ctx.Download(wgpu.Bytes(out), dst, 0))
				requireDigests(t, want, out[:n], fmt.Sprintf("%d inputs of %d bytes", n, size))
				require.Equal(t, guard, wgpu.Bytes(out[n:]), "the guard after the digests")
				src.Release()
				dst.Release()
			}
		}
	}
	gputest.ForEach(t, run)
	gputest.ForEachSmall(t, run)
	for _, b := range gputest.Backends() {
		t.Run(b+"/4KiB", func(t *testing.T) { run(t, gputest.Limited(t, b, wgpu.Limits{MaxStorageBindingSize: 4 << 10})) })
	}
}

func TestSumManyErrors(t *testing.T) {
	d := make([][32]byte, 3)
	require.ErrorContains(t, SumMany(nil, d, make([]byte, 10), 3, Options{}), "need exactly inputs × size")
	require.ErrorContains(t, SumMany(nil, d, nil, -1, Options{}), "0 or more")
	require.ErrorContains(t, SumMany(nil, make([][32]byte, 4), nil, 1<<62, Options{}), "4 inputs of 4611686018427387904 bytes: 4 × 4611686018427387904 is more than 9223372036854775807 bytes") // wrapped to 0
	require.ErrorContains(t, SumMany(nil, d, make([]byte, 9), 3, Options{Length: 64}), "Length must be 0 or 32")
	require.ErrorContains(t, SumMany(nil, d, make([]byte, 9), 3, Options{Key: []byte("short")}), "32-byte key")
	require.ErrorContains(t, SumManyBuffer(nil, nil, nil, 1, 1, Options{}), "needs the Context")
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		buf, err := ctx.NewBuffer("small", 64)
		require.NoError(t, err)
		defer buf.Release()
		require.ErrorContains(t, SumManyBuffer(ctx, buf, nil, 1, 1, Options{}), "got nil")
		require.ErrorContains(t, SumManyBuffer(ctx, buf, buf, 3, 30, Options{}), "3 inputs of 30 bytes do not fit the 64-byte source")
		require.ErrorContains(t, SumManyBuffer(ctx, buf, buf, 4, 1<<62, Options{}), "do not fit")
		require.ErrorContains(t, SumManyBuffer(ctx, buf, buf, 3, 1, Options{}), "destination of 96 bytes")
		// 2^59 × 32 bytes wrapped to 0.
		require.ErrorContains(t, SumManyBuffer(ctx, buf, buf, 1<<59, 0, Options{}), "576460752303423488 digests need a destination of 576460752303423488 × 32 is more than 9223372036854775807 bytes")
		require.ErrorContains(t, SumManyBuffer(ctx, buf, buf, -1, 1, Options{}), "0 or more")
		gputest.NoLeaks(t, ctx, func() error {
			return SumMany(ctx, make([][32]byte, 5), make([]byte, 5*1025), 1025, Options{})
		})
		gputest.NoLeaks(t, ctx, func() error { return SumMany(ctx, d, make([]byte, 10), 3, Options{}) })
	})
}

// FuzzSumManyGPU holds SumMany on the GPU to the reference: count inputs
// of size bytes, cut from the fuzzer's bytes repeated, each equal to
// Sum256 of itself.
func FuzzSumManyGPU(f *testing.F) {
	f.Add([]byte{}, uint16(0), uint8(3))
	f.Add([]byte("abc"), uint16(1), uint8(5))
	f.Add([]byte{0xff, 1}, uint16(BlockSize+1), uint8(7))
	f.Add([]byte("wgcompute"), uint16(ChunkSize+1), uint8(2))
	f.Add(randomBytes(5, 3000), uint16(3*ChunkSize-1), uint8(9))
	ctx := gputest.Context(f, gputest.Backends()[0])
	f.Fuzz(func(t *testing.T, seed []byte, size uint16, count uint8) {
		n, sz := int(count%64), int(size)%(8*ChunkSize)
		data := make([]byte, n*sz)
		for i := range data {
			if len(seed) == 0 {
				data[i] = byte(i * 7)
			} else {
				data[i] = seed[i%len(seed)] ^ byte(i>>8)
			}
		}
		got := make([][32]byte, n)
		if err := SumMany(ctx, got, data, sz, Options{}); err != nil {
			t.Fatalf("SumMany of %d inputs of %d bytes: %v", n, sz, err)
		}
		for i := range got {
			if want := Sum256(data[i*sz : (i+1)*sz]); got[i] != want {
				t.Fatalf("input %d of %d, %d bytes: %x, want %x", i, n, sz, got[i], want)
			}
		}
	})
}
