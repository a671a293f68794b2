package blake3

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// span is a piece's bytes, [off, off+n).
type span struct{ off, n uint64 }

func spansOf(ps []Piece) []span {
	var s []span
	for _, p := range ps {
		s = append(s, span{p.Offset, p.Length})
	}
	return s
}

// TestSubtrees checks the pieces of ranges against pieces worked out by
// hand, and the errors of bad ranges.
func TestSubtrees(t *testing.T) {
	const c = ChunkSize
	for _, tc := range []struct {
		total, off, n uint64
		want          []span
	}{
		{0, 0, 0, []span{{0, 0}}}, // the empty input's one piece
		{5, 0, 5, []span{{0, 5}}},
		{5, 0, 0, nil},
		{c, 0, c, []span{{0, c}}},
		{c, c, 0, nil},
		{c + 1, 0, c + 1, []span{{0, c}, {c, 1}}},
		{c + 1, c, 1, []span{{c, 1}}},
		{4 * c, 0, 4 * c, []span{{0, 2 * c}, {2 * c, 2 * c}}}, // not the whole input: its halves
		{4*c + 1, 0, 4 * c, []span{{0, 4 * c}}},
		{3*c + 7, 0, 3*c + 7, []span{{0, 2 * c}, {2 * c, c + 7}}}, // 4 chunks, the last one short
		{3 * c, 0, 3 * c, []span{{0, 2 * c}, {2 * c, c}}},
		{3*c + 7, c, 2*c + 7, []span{{c, c}, {2 * c, c + 7}}},
		{10 * c, c, 8 * c, []span{{c, c}, {2 * c, 2 * c}, {4 * c, 4 * c}, {8 * c, c}}},
		{10*c - 3, 8 * c, 2*c - 3, []span{{8 * c, 2*c - 3}}},
		{10*c - 3, 6 * c, 4*c - 3, []span{{6 * c, 2 * c}, {8 * c, 2*c - 3}}},
		{100 * c, 96 * c, 4 * c, []span{{96 * c, 4 * c}}},
		{100 * c, 5 * c, 0, nil},
		{c + 5, c + 5, 0, nil}, // empty at the end
	} {
		ps, err := Subtrees(tc.total, tc.off, tc.n)
		require.NoError(t, err, "%+v", tc)
		require.Equal(t, tc.want, spansOf(ps), "[%d, %d) of %d", tc.off, tc.off+tc.n, tc.total)
	}
	for _, tc := range []struct {
		total, off, n uint64
		want          string
	}{
		{100, 0, 101, "passes the end of the 100-byte input"},
		{100, 101, 0, "passes the end"},
		{3000, 2048, math.MaxUint64, "passes the end"},
		{3000, 1000, 24, "starts at byte 1000, inside a chunk"},
		{3000, 0, 1000, "[0, 1000) ends inside a chunk: a range ends at a multiple of 1024 or at the input's end, 3000"},
		{3000, 1024, 1, "ends inside a chunk"},
	} {
		_, err := Subtrees(tc.total, tc.off, tc.n)
		require.ErrorContains(t, err, tc.want, "%+v", tc)
	}
}

// TestSubtreesTile checks, for random inputs and ranges, that the pieces
// of a range tile it, that each is a valid piece, and that each is as
// large as it may be: doubling it leaves the range or breaks alignment.
func TestSubtreesTile(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		total := rng.Uint64N(1 << uint(rng.IntN(40)))
		chunks := chunksOf(total)
		a, b := rng.Uint64N(chunks+1), rng.Uint64N(chunks+1)
		a, b = min(a, b), max(a, b)
		off, end := min(a*ChunkSize, total), min(b*ChunkSize, total)
		ps, err := Subtrees(total, off, end-off)
		require.NoError(t, err)
		at := off
		for _, p := range ps {
			require.Equal(t, at, p.Offset)
			at += p.Length
			if total <= ChunkSize {
				p.Last = make([]byte, lastBlockLen(total))
				require.NoError(t, p.check())
				continue
			}
			require.NoError(t, p.check())
			size := chunksOf(p.Length)
			first := p.Offset / ChunkSize
			grown := first%(2*size) != 0 || first+2*size > chunksOf(end) || 2*size == chunks
			require.True(t, grown, "%s could be twice as large", p.describe())
		}
		require.Equal(t, end, at, "[%d, %d) of %d", off, end, total)
	}
}

// TestPart checks that the parts of an input cover it in order, start at
// chunk boundaries, and differ by a chunk at most.
func TestPart(t *testing.T) {
	for _, total := range []uint64{0, 1, ChunkSize, ChunkSize + 1, 7*ChunkSize + 5, 1 << 30, math.MaxUint64} {
		for _, k := range []uint64{1, 2, 3, 7, 64} {
			var at uint64
			least, most := uint64(math.MaxUint64), uint64(0)
			for i := range k {
				off, n, err := Part(total, i, k)
				require.NoError(t, err)
				require.Equal(t, at, off, "part %d of %d of %d bytes", i, k, total)
				_, err = Subtrees(total, off, n)
				require.NoError(t, err, "part %d of %d of %d bytes", i, k, total)
				at = off + n
				least, most = min(least, chunksOf(n)), max(most, chunksOf(n))
			}
			require.Equal(t, total, at, "%d parts of %d bytes", k, total)
			require.LessOrEqual(t, most-least, uint64(1), "%d parts of %d bytes", k, total)
		}
		// More parts than chunks, with no overflow.
		const k = 1 << 40
		var at uint64
		for _, i := range []uint64{0, 1, k / 3, k - 2, k - 1} {
			off, n, err := Part(total, i, k)
			require.NoError(t, err)
			require.GreaterOrEqual(t, off, at)
			_, err = Subtrees(total, off, n)
			require.NoError(t, err, "part %d of %d of %d bytes", i, k, total)
			at = off + n
		}
		require.Equal(t, total, at)
	}
	_, _, err := Part(100, 0, 0)
	require.ErrorContains(t, err, "part 0 of 0")
	_, _, err = Part(100, 3, 3)
	require.ErrorContains(t, err, "accepted are parts 0 to k-1")
}

// pieceLengths are input lengths around the block, chunk, SIMD batch and
// subtree boundaries, and a few odd sizes of megabytes.
var pieceLengths = []int{0, 1, 63, 64, 65, 1023, 1024, 1025, 2048, 2049, 3*1024 + 7, 16 * 1024, 16*1024 + 1,
	17 * 1024, 33*1024 - 1, 64 * 1024, 64*1024 + 1, 300_001, 1<<20 + 4097, 3<<20 + 12345}

// randomCuts cuts a total-byte input at k-1 random chunk boundaries (some
// of them the same, giving empty ranges) into k ranges.
func randomCuts(rng *rand.Rand, total uint64, k int) []span {
	chunks := chunksOf(total)
	cuts := []uint64{0, total}
	for range k - 1 {
		cuts = append(cuts, min(rng.Uint64N(chunks+1)*ChunkSize, total))
	}
	slices.Sort(cuts)
	var s []span
	for i := 0; i+1 < len(cuts); i++ {
		s = append(s, span{cuts[i], cuts[i+1] - cuts[i]})
	}
	return s
}

// hashInPieces hashes data in the ranges of cuts with sum and returns
// all the pieces, shuffled.
func hashInPieces(t *testing.T, rng *rand.Rand, data []byte, cuts []span, sum func(r io.ReaderAt, total, off, n uint64) ([]Piece, error)) []Piece {
	t.Helper()
	var all []Piece
	for _, c := range cuts {
		ps, err := sum(bytes.NewReader(data), uint64(len(data)), c.off, c.n)
		require.NoError(t, err, "range [%d, %d) of %d bytes", c.off, c.off+c.n, len(data))
		all = append(all, ps...)
	}
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	return all
}

// TestPiecesCombine hashes inputs of many lengths in 1, 2, 3 and 7 ranges
// cut at random, on the CPU and on every GPU backend (with small limits
// too, so that large pieces are hashed in several uploads), in all modes,
// and checks that combining the pieces gives the reference hash, with
// extended output.
func TestPiecesCombine(t *testing.T) {
	data := randomBytes(50, pieceLengths[len(pieceLengths)-1])
	eachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		rng := rand.New(rand.NewPCG(51, 52))
		for mi, mode := range testModes {
			for li, n := range pieceLengths {
				if n > 1<<20 && ctx != nil && (li+mi)%3 != 0 {
					continue // megabytes on a CPU-emulated GPU: some of them
				}
				in := data[:n]
				want := refSum(t, in, mode)
				for _, k := range []int{1, 2, 3, 7} {
					cuts := randomCuts(rng, uint64(n), k)
					ps := hashInPieces(t, rng, in, cuts, func(r io.ReaderAt, total, off, n uint64) ([]Piece, error) {
						return SumPieces(ctx, r, total, off, n, mode)
					})
					got, err := Combine(ps, mode)
					require.NoError(t, err, "%d bytes in ranges %v: pieces %v", n, cuts, spansOf(ps))
					require.Equal(t, want, got, "%d bytes in ranges %v, mode %d", n, cuts, mi)
					out, err := CombineOutput(ps, mode)
					require.NoError(t, err)
					long := make([]byte, len(want)+100)
					_, err = io.ReadFull(out, long)
					require.NoError(t, err)
					require.Equal(t, want, long[:len(want)])
				}
			}
		}
	})
}

// TestPiecesAuto hashes pieces with an Auto on each of its devices: the
// CPU, the GPU, and both together (the hybrid, with small tasks so that
// pieces of a few hundred KiB are shared), and checks the combined hash.
func TestPiecesAuto(t *testing.T) {
	data := randomBytes(53, 1<<20+5000)
	wants := make([][]byte, len(testModes))
	for i, mode := range testModes {
		wants[i] = refSum(t, data, mode)
	}
	// check hashes data in 2 and then 7 ranges with a, and returns the
	// bytes the GPU hashed in the hybrid.
	check := func(t *testing.T, a *Auto, mi int) (gpuBytes uint64) {
		rng := rand.New(rand.NewPCG(54, uint64(mi)))
		for _, k := range []int{2, 7} {
			ps := hashInPieces(t, rng, data, randomCuts(rng, uint64(len(data)), k), func(r io.ReaderAt, total, off, n uint64) ([]Piece, error) {
				ps, err := a.SumPieces(r, total, off, n)
				gpuBytes += a.gpuBytes
				return ps, err
			})
			got, err := Combine(ps, testModes[mi])
			require.NoError(t, err)
			require.Equal(t, wants[mi], got, "%d ranges", k)
		}
		return gpuBytes
	}
	for mi, mode := range testModes {
		t.Run(fmt.Sprintf("cpu/mode%d", mi), func(t *testing.T) {
			check(t, newAuto(t, AutoOptions{Options: mode, Device: DeviceCPU}), mi)
		})
	}
	gputest.ForEachSmall(t, func(t *testing.T, ctx *wgpu.Context) {
		for mi, mode := range testModes {
			var timing wgpu.Timing
			mode.Timing = &timing
			check(t, autoOn(t, ctx, AutoOptions{Options: mode, Device: DeviceGPU}), mi)
			require.Positive(t, timing.Elapsed(), "the GPU's timing")
			gpuBytes := check(t, hybridOn(t, ctx, mode, ChunkSize, 16*ChunkSize), mi)
			require.Positive(t, gpuBytes, "the GPU took no run in the hybrid")
		}
	})
}

// TestPiecesReadErrors checks that SumPieces fails on a reader shorter or
// longer than the input's length, one that fails, and bad arguments, on
// the CPU and the GPU, releasing what it made.
func TestPiecesReadErrors(t *testing.T) {
	data := randomBytes(55, 200_000)
	n := uint64(len(data))
	eachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, tc := range []struct {
			r             io.ReaderAt
			total, off, n uint64
			want          string
		}{
			{eofReaderAt(data[:150_000]), n, 0, n, "unexpected EOF"},
			{eofReaderAt(data[:150_000]), n, 128 * ChunkSize, n - 128*ChunkSize, "unexpected EOF"},
			{eofReaderAt(data), n - 10, 0, n - 10, "the input has a byte at 199990, past the 199990 bytes it was said to hold"},
			{eofReaderAt(data[:5]), 4, 0, 4, "past the 4 bytes"},
			{failReaderAt{data, 100_000}, n, 0, n, errCPUTestRead.Error()},
			{nil, n, 0, n, "needs a reader, got nil"},
			{eofReaderAt(data), n, 1, 1023, "inside a chunk"},
			{eofReaderAt(data), math.MaxUint64, 0, 0, "reads at most"},
		} {
			_, err := SumPieces(ctx, tc.r, tc.total, tc.off, tc.n, Options{})
			require.ErrorContains(t, err, tc.want, "[%d, %d) of %d", tc.off, tc.off+tc.n, tc.total)
		}
		// A range that does not reach the end reads nothing past it.
		_, err := SumPieces(ctx, eofReaderAt(data[:64*ChunkSize]), n, 0, 64*ChunkSize, Options{})
		require.NoError(t, err)
		if ctx != nil {
			gputest.NoLeaks(t, ctx, func() error {
				_, err := SumPieces(ctx, bytes.NewReader(data), n, 4*ChunkSize, n-4*ChunkSize, Options{Key: make([]byte, KeySize)})
				return err
			})
			gputest.NoLeaks(t, ctx, func() error { // an error path
				_, err := SumPieces(ctx, eofReaderAt(data[:150_000]), n, 0, n, Options{})
				return err
			})
		}
	})
}

// testPieces are the pieces of a 5000-byte input in hash mode, with made
// up chaining values: [0, 4096) and [4096, 5000).
func testPieces() []Piece {
	return []Piece{
		{Total: 5000, Offset: 0, Length: 4096, CV: [32]byte{1}},
		{Total: 5000, Offset: 4096, Length: 904, CV: [32]byte{2}},
	}
}

// TestCombineErrors checks that Combine rejects pieces that do not make
// up one input, saying what is wrong.
func TestCombineErrors(t *testing.T) {
	_, err := Combine(testPieces(), Options{})
	require.NoError(t, err)
	dup := append(testPieces(), testPieces()...)
	_, err = Combine(dup, Options{})
	require.NoError(t, err, "identical pieces count once")

	key := make([]byte, KeySize)
	for _, tc := range []struct {
		name  string
		edit  func(ps []Piece) []Piece
		opts  Options
		wants string
	}{
		{"none", func([]Piece) []Piece { return nil }, Options{}, "no pieces to combine"},
		{"gap", func(ps []Piece) []Piece { return ps[1:] }, Options{}, "bytes [0, 4096) of the 5000-byte input are in no piece"},
		{"end", func(ps []Piece) []Piece { return ps[:1] }, Options{}, "bytes [4096, 5000) of the 5000-byte input are in no piece"},
		{"overlap", func(ps []Piece) []Piece {
			return append(ps, Piece{Total: 5000, Offset: 2048, Length: 2048})
		}, Options{}, "the piece [2048, 4096) of a 5000-byte input overlaps the piece [0, 4096)"},
		{"differ", func(ps []Piece) []Piece {
			return append(ps, Piece{Total: 5000, Offset: 4096, Length: 904, CV: [32]byte{3}})
		}, Options{}, "two different pieces hold bytes [4096, 5000)"},
		{"totals", func(ps []Piece) []Piece { ps[1].Total, ps[1].Length = 6000, 1904; return ps }, Options{}, "pieces of inputs of different lengths"},
		{"mixed modes", func(ps []Piece) []Piece { ps[1].Mode = ModeKeyed; return ps }, Options{}, "was hashed in keyed mode, and the options ask for hash"},
		{"options' mode", func(ps []Piece) []Piece { return ps }, Options{Key: key}, "was hashed in hash mode, and the options ask for keyed"},
		{"derive-key", func(ps []Piece) []Piece { return ps }, Options{DeriveKey: true}, "the options ask for derive-key"},
		{"bad options", func(ps []Piece) []Piece { return ps }, Options{Key: key[:5]}, "32-byte key"},
		{"length", func(ps []Piece) []Piece { return ps }, Options{Length: -1}, "output length -1 is negative"},
		{"unaligned", func(ps []Piece) []Piece { ps[1].Offset = 4000; ps[1].Length = 1000; return ps }, Options{}, "starts inside a chunk"},
		{"not a power of two", func(ps []Piece) []Piece {
			return []Piece{{Total: 5000, Length: 3072}, {Total: 5000, Offset: 3072, Length: 1928}}
		}, Options{}, "piece [0, 3072) of a 5000-byte input has 3 chunks: a piece has a power of two"},
		{"misaligned", func(ps []Piece) []Piece {
			return []Piece{{Total: 5000, Length: 1024}, {Total: 5000, Offset: 1024, Length: 2048}, {Total: 5000, Offset: 3072, Length: 1928}}
		}, Options{}, "starts at chunk 1, not at a multiple of its 2 chunks"},
		{"whole", func(ps []Piece) []Piece { return []Piece{{Total: 4096, Length: 4096}} }, Options{}, "is the whole input"},
		{"inner end", func(ps []Piece) []Piece { ps[0].Length = 4000; return ps }, Options{}, "ends inside a chunk"},
		{"empty", func(ps []Piece) []Piece { return append(ps, Piece{Total: 5000, Offset: 4096}) }, Options{}, "is empty"},
		{"past the end", func(ps []Piece) []Piece { ps[1].Length = 1000; return ps }, Options{}, "passes the input's end"},
		{"last block", func(ps []Piece) []Piece { ps[1].Last = []byte{1}; return ps }, Options{}, "only the piece of an input of one chunk or less has one"},
		{"small input, part of it", func([]Piece) []Piece { return []Piece{{Total: 500, Length: 400}} }, Options{}, "an input of one chunk or less has one piece, all of it"},
		{"small input, its block", func([]Piece) []Piece { return []Piece{{Total: 500, Length: 500, Last: make([]byte, 64)}} }, Options{}, "has a last block of 64 bytes: the input's has 52"},
		{"one block, a CV", func([]Piece) []Piece { return []Piece{{Total: 5, Length: 5, Last: make([]byte, 5), CV: [32]byte{1}}} }, Options{}, "its CV must be zero"},
		{"unknown mode", func(ps []Piece) []Piece { ps[0].Mode = 7; return ps }, Options{}, "unknown mode 7"},
	} {
		_, err := Combine(tc.edit(testPieces()), tc.opts)
		require.ErrorContains(t, err, tc.wants, tc.name)
	}
}

// TestPieceText checks that records read back as the pieces written, for
// pieces of inputs of every kind, and that bad records are rejected with
// a message saying why.
func TestPieceText(t *testing.T) {
	data := randomBytes(56, 5000)
	for _, n := range []int{0, 5, 64, 65, 1024, 1025, 5000} {
		for _, mode := range testModes {
			ps, err := SumPieces(nil, bytes.NewReader(data[:n]), uint64(n), 0, uint64(n), mode)
			require.NoError(t, err)
			for _, p := range ps {
				text, err := p.MarshalText()
				require.NoError(t, err)
				var q Piece
				require.NoError(t, q.UnmarshalText(text), "%s", text)
				if len(p.Last) == 0 {
					p.Last = nil
				}
				require.Equal(t, p, q)
			}
		}
	}
	var p Piece
	text, err := Piece{Total: 3, Length: 3, Last: []byte("abc")}.MarshalText()
	require.NoError(t, err)
	require.Equal(t, "b3piece hash 3 0 3 "+zeroCV+" 616263", string(text))
	text, err = Piece{Mode: ModeDeriveKey, Total: 0}.MarshalText()
	require.NoError(t, err)
	require.Equal(t, "b3piece derive-key 0 0 0 "+zeroCV+" -", string(text))
	_, err = Piece{Total: 3, Length: 3}.MarshalText()
	require.ErrorContains(t, err, "last block of 0 bytes")

	cv := "01" + zeroCV[2:]
	for _, tc := range []struct{ text, want string }{
		{"", `not a piece record: it starts with "", not "b3piece"`},
		{"b3sum hash 5000 0 4096 " + cv, "not a piece record"},
		{"b3piece hash 5000 0 4096", `6 or 7 fields separated by single spaces: "b3piece hash 5000 0 4096" is not`},
		{"b3piece  hash 5000 0 4096 " + cv, "6 or 7 fields"},
		{"b3piece hash 5000 0 4096 " + cv + "\n", "is not 64 lowercase hex digits"},
		{"b3piece sha256 5000 0 4096 " + cv, `unknown mode "sha256": accepted are [hash keyed derive-key]`},
		{"b3piece hash 05000 0 4096 " + cv, `the total "05000" is not a decimal number of bytes`},
		{"b3piece hash 5000 +0 4096 " + cv, `the offset "+0"`},
		{"b3piece hash 5000 0 -1 " + cv, `the length "-1"`},
		{"b3piece hash 5000 0 4096 " + cv[:62], "not 64 lowercase hex digits"},
		{"b3piece hash 5000 0 4096 " + "AB" + cv[2:], "not 64 lowercase hex digits"},
		{"b3piece hash 5000 0 4096 " + cv + " 00", "only the piece of an input of one chunk or less has"},
		{"b3piece hash 5 0 5 " + zeroCV, "it must end with the input's last block"},
		{"b3piece hash 0 0 0 " + zeroCV + " 00", "its last field must be -"},
		{"b3piece hash 5 0 5 " + zeroCV + " 0a0b0c0d0E", "the last block \"0a0b0c0d0E\" is not lowercase hex"},
		{"b3piece hash 5 0 5 " + zeroCV + " 0a0b", "has a last block of 2 bytes: the input's has 5"},
		{"b3piece hash 5000 0 3072 " + cv, "has 3 chunks"},
		{"b3piece keyed 5000 4096 1000 " + cv, "passes the input's end"},
	} {
		err := p.UnmarshalText([]byte(tc.text))
		require.ErrorContains(t, err, tc.want, "%q", tc.text)
	}
}

var zeroCV = fmt.Sprintf("%064d", 0)

// FuzzPieceText holds the record parser to the writer: whatever it
// accepts is a valid piece that MarshalText writes back byte for byte.
func FuzzPieceText(f *testing.F) {
	for _, p := range append(testPieces(),
		Piece{Total: 0}, Piece{Mode: ModeKeyed, Total: 70, Length: 70, CV: [32]byte{9}, Last: []byte{1, 2, 3, 4, 5, 6}},
		Piece{Mode: ModeDeriveKey, Total: 1 << 40, Offset: 1 << 39, Length: 1 << 39, CV: [32]byte{0xff}}) {
		text, err := p.MarshalText()
		require.NoError(f, err)
		f.Add(string(text))
	}
	f.Add("b3piece hash 5000 0 4096 " + zeroCV + " -")
	f.Fuzz(func(t *testing.T, s string) {
		var p Piece
		if err := p.UnmarshalText([]byte(s)); err != nil {
			return
		}
		if err := p.check(); err != nil {
			t.Fatalf("%q parsed to an invalid piece: %v", s, err)
		}
		text, err := p.MarshalText()
		if err != nil || string(text) != s {
			t.Fatalf("%q parsed to %+v, which writes back as %q (%v)", s, p, text, err)
		}
	})
}

// TestSumOn hashes inputs split over Groups of 2, 3 and 7 devices (members
// of different limits) in every mode, through SumReader and Sum on a
// Group, and compares with the reference; a reader read in sequence runs
// on the first member, and a nil *Group is the CPU.
func TestSumOn(t *testing.T) {
	data := randomBytes(53, 1<<20+4097)
	gputest.ForEachGroup(t, func(t *testing.T, g *sched.Group) {
		for mi, mode := range testModes {
			for _, n := range []int{0, 1, 1024, 1025, 3*1024 + 7, 64*1024 + 1, 300_001, 1<<20 + 4097} {
				var tm wgpu.Timing
				opts := mode
				opts.Timing = &tm
				got, err := SumReader(g, bytes.NewReader(data[:n]), opts)
				require.NoError(t, err, "%d bytes, mode %d", n, mi)
				require.Equal(t, refSum(t, data[:n], mode), got, "%d bytes, mode %d", n, mi)
				require.NotZero(t, tm.Wall)
			}
		}
		d, err := Sum(g, data)
		require.NoError(t, err)
		require.Equal(t, Sum256(data), d)
		seq, err := SumReader(g, io.MultiReader(bytes.NewReader(data[:300_001])), Options{})
		require.NoError(t, err)
		require.Equal(t, refSum(t, data[:300_001], Options{}), seq)
		_, err = sumOn(g, bytes.NewReader(data[:10]), 11, Options{})
		require.Error(t, err, "a reader shorter than the length given")
		for _, c := range g.Contexts() {
			require.Zero(t, c.LiveBuffers())
		}
	})
	_, err := sumOn(nil, bytes.NewReader(nil), 0, Options{})
	require.ErrorContains(t, err, "no Group")
	var none *sched.Group
	got, err := SumReader(none, bytes.NewReader(data[:1025]), Options{})
	require.NoError(t, err)
	require.Equal(t, refSum(t, data[:1025], Options{}), got)
}

// TestSumPiecesBuffer hashes ranges of inputs already on the device, each
// in a buffer of its own as each GPU of a Group would hold its share, and
// checks that their pieces combine into the reference hash.
func TestSumPiecesBuffer(t *testing.T) {
	data := randomBytes(54, 1<<20+4097)
	forGPUs := func(t *testing.T, ctx *wgpu.Context) {
		rng := rand.New(rand.NewPCG(55, 56))
		for mi, mode := range testModes {
			e, err := NewEngine(ctx, mode)
			require.NoError(t, err)
			for _, n := range []int{0, 1, 1024, 1025, 3*1024 + 7, 64*1024 + 1, 200_001, 1<<20 + 4097} {
				if words16(uint64(n)) > ctx.Limits().MaxBufferSize {
					continue // small limits: the ranges must fit a buffer; their bindings are still split
				}
				in := data[:n]
				for _, k := range []int{1, 2, 3} {
					var all []Piece
					for _, c := range randomCuts(rng, uint64(n), k) {
						buf, err := ctx.NewBuffer("range", words16(c.n))
						require.NoError(t, err)
						require.NoError(t, ctx.Upload(buf, 0, in[c.off:c.off+c.n]))
						ps, err := e.SumPiecesBuffer(buf, uint64(n), c.off, c.n)
						buf.Release()
						require.NoError(t, err, "%d bytes, range %+v", n, c)
						all = append(all, ps...)
					}
					got, err := Combine(all, mode)
					require.NoError(t, err)
					require.Equal(t, refSum(t, in, mode), got, "%d bytes in %d ranges, mode %d", n, k, mi)
				}
			}
			e.Release()
			require.Zero(t, ctx.LiveBuffers())
		}
		e, err := NewEngine(ctx, Options{})
		require.NoError(t, err)
		_, err = e.SumPiecesBuffer(nil, 10, 0, 10)
		require.ErrorContains(t, err, "needs a buffer")
		small, err := ctx.NewBuffer("small", 16)
		require.NoError(t, err)
		_, err = e.SumPiecesBuffer(small, 4096, 0, 4096)
		require.ErrorContains(t, err, "need 4096 bytes of the buffer")
		_, err = e.SumPiecesBuffer(small, 4096, 5, 7)
		require.Error(t, err, "a range that does not start on a chunk")
		small.Release()
		e.Release()
	}
	gputest.ForEach(t, forGPUs)
	gputest.ForEachSmall(t, forGPUs)
}
