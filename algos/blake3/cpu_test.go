package blake3

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// cpuMode is one of BLAKE3's three modes, as the CPU path takes it (key
// words and flags) and as the reference Hasher is built for it.
type cpuMode struct {
	name  string
	key   [8]uint32
	flags uint32
	ref   func() *Hasher
}

func cpuModes(t testing.TB, key []byte, context string) []cpuMode {
	require.Len(t, key, KeySize)
	return []cpuMode{
		{"hash", iv, 0, New},
		{"keyed_hash", cvWords([32]byte(key)), flagKeyedHash, func() *Hasher { return must(NewKeyed(key)) }},
		{"derive_key", deriveKeyWords(context), flagDeriveKeyMaterial, func() *Hasher { return NewDeriveKey(context) }},
	}
}

var (
	cpuTestKey     = []byte("whats the Elvish word for friend")
	cpuTestContext = "wgcompute 2026-11-24 cpu_test context"
)

// refXOF is the reference Hasher's first n output bytes for data.
func (m cpuMode) refXOF(data []byte, n int) []byte {
	h := m.ref()
	h.Write(data)
	out := make([]byte, n)
	h.XOF(out)
	return out
}

// checkCPURoot compares cpuRoot with the reference at output lengths 32
// and 131.
func checkCPURoot(t *testing.T, m cpuMode, data []byte) {
	t.Helper()
	want := m.refXOF(data, 131)
	o := cpuRoot(data, 0, m.key, m.flags, 0)
	for _, n := range []int{32, 131} {
		got := make([]byte, n)
		o.rootBytes(got, 0)
		if !bytes.Equal(got, want[:n]) {
			t.Fatalf("%s: cpuRoot of %d bytes, %d output bytes:\n got %x\nwant %x", m.name, len(data), n, got, want[:n])
		}
	}
}

// withProcs runs fn with GOMAXPROCS set to each of a few values, so that
// the task split is tested for more cores than the machine has.
func withProcs(t *testing.T, fn func(t *testing.T)) {
	for _, p := range []int{1, 2, 7, 64} {
		t.Run(fmt.Sprintf("procs%d", p), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(p))
			fn(t)
		})
	}
}

func TestCPUVectors(t *testing.T) {
	v := loadVectors(t)
	modes := cpuModes(t, []byte(v.Key), v.Context)
	for _, c := range v.Cases {
		in := vectorInput(c.InputLen)
		for i, want := range []string{c.Hash, c.KeyedHash, c.DeriveKey} {
			got := make([]byte, len(want)/2)
			o := cpuRoot(in, 0, modes[i].key, modes[i].flags, 0)
			o.rootBytes(got, 0)
			require.Equal(t, want, hex.EncodeToString(got), "%s len %d", modes[i].name, c.InputLen)
		}
	}
}

func TestCPUEveryLength(t *testing.T) {
	data := randomBytes(11, 8192)
	for _, m := range cpuModes(t, cpuTestKey, cpuTestContext) {
		t.Run(m.name, func(t *testing.T) {
			for n := 0; n <= len(data); n++ {
				checkCPURoot(t, m, data[:n])
			}
		})
	}
}

// cpuBoundaryLengths are the lengths around subtree boundaries: k chunks
// and one byte either side, for k one below, at and one above each power
// of two up to 2^12, then a few sizes of several MiB.
func cpuBoundaryLengths() []int {
	var ns []int
	for j := 0; j <= 12; j++ {
		for _, k := range []int{1<<j - 1, 1 << j, 1<<j + 1} {
			for _, d := range []int{-1, 0, 1} {
				if n := k*ChunkSize + d; n >= 0 {
					ns = append(ns, n)
				}
			}
		}
	}
	return append(ns, 3<<20+17, 5<<20+999, 8<<20, 9<<20+ChunkSize+1)
}

func TestCPURootBoundaries(t *testing.T) {
	lengths := cpuBoundaryLengths()
	data := randomBytes(12, lengths[len(lengths)-1])
	for _, m := range cpuModes(t, cpuTestKey, cpuTestContext) {
		t.Run(m.name, func(t *testing.T) {
			want := map[int][]byte{}
			for _, n := range lengths {
				want[n] = m.refXOF(data[:n], 131)
			}
			withProcs(t, func(t *testing.T) {
				for _, n := range lengths {
					o := cpuRoot(data[:n], 0, m.key, m.flags, 0)
					for _, size := range []int{32, 131} {
						got := make([]byte, size)
						o.rootBytes(got, 0)
						require.Equal(t, want[n][:size], got, "len %d, %d output bytes", n, size)
					}
				}
			})
		})
	}
}

// cpuSubtreeCV (a test of cpuHashMemory at any counter) returns the chaining value of data hashed as a subtree
// whose first chunk has counter chunkCounter (data: a power-of-two number
// of whole 1024-byte chunks, at least one chunk; it may be hashed on all
// cores).
func cpuSubtreeCV(data []byte, chunkCounter uint64, key [8]uint32, flags uint32) [8]uint32 {
	chunks := uint64(len(data) / ChunkSize)
	if len(data)%ChunkSize != 0 || bits.OnesCount64(chunks) != 1 {
		panic(fmt.Sprintf("blake3: cpuSubtreeCV of %d bytes, not a power-of-two number of chunks", len(data)))
	}
	st := cvStack{key: key, flags: flags, base: chunkCounter}
	cpuHashMemory(&st, data, chunks, 0)
	return st.cv[bits.TrailingZeros64(chunks)]
}

// refSubtreeCV is the CV of data hashed as a subtree whose first chunk has
// counter counter, by the reference's chunk and parent nodes.
func refSubtreeCV(data []byte, counter uint64, key [8]uint32, flags uint32) [8]uint32 {
	if len(data) == ChunkSize {
		c := newChunkState(key, counter, flags)
		c.update(data)
		return c.output().chainingValue()
	}
	half := len(data) / 2
	l := refSubtreeCV(data[:half], counter, key, flags)
	r := refSubtreeCV(data[half:], counter+uint64(half/ChunkSize), key, flags)
	return parentOutput(l, r, key, flags).chainingValue()
}

func TestCPUSubtreeCV(t *testing.T) {
	data := randomBytes(13, 1<<20)
	for _, m := range cpuModes(t, cpuTestKey, cpuTestContext) {
		t.Run(m.name, func(t *testing.T) {
			withProcs(t, func(t *testing.T) {
				for _, chunks := range []int{1, 2, 4, 8, 16, 32, 64, 128, 1024} {
					for _, counter := range []uint64{0, 1, 16, 1<<32 - 3, 5 << 40} {
						in := data[:chunks*ChunkSize]
						want := refSubtreeCV(in, counter, m.key, m.flags)
						got := cpuSubtreeCV(in, counter, m.key, m.flags)
						require.Equal(t, want, got, "%d chunks at counter %d", chunks, counter)
					}
				}
			})
		})
	}
	require.Panics(t, func() { cpuSubtreeCV(data[:3*ChunkSize], 0, iv, 0) })
	require.Panics(t, func() { cpuSubtreeCV(data[:ChunkSize+1], 0, iv, 0) })
	require.Panics(t, func() { cpuSubtreeCV(nil, 0, iv, 0) })
}

// eofReaderAt reads like bytes.Reader but returns io.EOF with a read that
// fills its buffer at the end of the input, as io.ReaderAt allows.
type eofReaderAt []byte

func (r eofReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(r)) {
		return 0, io.EOF
	}
	n := copy(p, r[off:])
	if n < len(p) || off+int64(n) == int64(len(r)) {
		return n, io.EOF
	}
	return n, nil
}

// failReaderAt fails every read that reaches past byte at.
type failReaderAt struct {
	data []byte
	at   int64
}

var errCPUTestRead = errors.New("test read error")

func (r failReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > r.at {
		return 0, errCPUTestRead
	}
	return copy(p, r.data[off:]), nil
}

func TestCPURootReaderAt(t *testing.T) {
	lengths := []int{0, 1, ChunkSize, ChunkSize + 1, 100 << 10, cpuPiece, cpuPiece + 1, 3*cpuPiece + 5000, 4 * cpuPiece}
	data := randomBytes(14, lengths[len(lengths)-1])
	path := filepath.Join(t.TempDir(), "input")
	require.NoError(t, os.WriteFile(path, data, 0o600))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	for _, m := range cpuModes(t, cpuTestKey, cpuTestContext) {
		t.Run(m.name, func(t *testing.T) {
			withProcs(t, func(t *testing.T) {
				for _, n := range lengths {
					want := make([]byte, 131)
					o := cpuRoot(data[:n], 0, m.key, m.flags, 0)
					o.rootBytes(want, 0)
					for _, r := range []io.ReaderAt{f, eofReaderAt(data[:n])} {
						o, err := cpuRootReaderAt(r, int64(n), 0, m.key, m.flags, 0)
						require.NoError(t, err, "len %d", n)
						got := make([]byte, 131)
						o.rootBytes(got, 0)
						require.Equal(t, want, got, "%T len %d", r, n)
					}
				}
			})
		})
	}
}

func TestCPURootReaderAtErrors(t *testing.T) {
	data := randomBytes(15, 3*cpuPiece+5000)
	before := runtime.NumGoroutine()
	for _, n := range []int{10, 5000, cpuPiece + 1, len(data)} {
		// The reader holds one byte less than asked for.
		_, err := cpuRootReaderAt(eofReaderAt(data[:n-1]), int64(n), 0, iv, 0, 0)
		require.ErrorIs(t, err, io.ErrUnexpectedEOF, "len %d", n)
	}
	for _, at := range []int64{0, 1000, cpuPiece / 2, cpuPiece + 1, 2*cpuPiece + 1, int64(len(data)) - 1} {
		_, err := cpuRootReaderAt(failReaderAt{data, at}, int64(len(data)), 0, iv, 0, 0)
		require.ErrorIs(t, err, errCPUTestRead, "failing past %d", at)
	}
	_, err := cpuRootReaderAt(eofReaderAt(data), -1, 0, iv, 0, 0)
	require.Error(t, err)
	// The workers of the failed calls have all returned.
	require.LessOrEqual(t, runtime.NumGoroutine(), before)
}

// TestCPURunBatches hashes one chunk per task, more tasks than a batch
// holds, on a few workers, and checks the subtrees pushed against hashing
// each subtree whole; an error in a later batch stops the work there.
func TestCPURunBatches(t *testing.T) {
	const chunks = 3*cpuBatchTasks + 77
	data := randomBytes(19, chunks*ChunkSize)
	key := deriveKeyWords(cpuTestContext)
	hash := func(_ int, first, count uint64) ([8]uint32, error) {
		return subtreeCVSerial(data[first*ChunkSize:(first+count)*ChunkSize], first, &key, flagDeriveKeyMaterial), nil
	}
	want := cvStack{key: key, flags: flagDeriveKeyMaterial}
	require.NoError(t, cpuRun(&want, chunks, chunks, 1, hash))
	for _, workers := range []int{1, 2, 5} {
		got := cvStack{key: key, flags: flagDeriveKeyMaterial}
		require.NoError(t, cpuRun(&got, chunks, 1, workers, hash))
		require.Equal(t, want.chunks, got.chunks)
		for h := range 64 {
			if chunks&(1<<h) != 0 {
				require.Equal(t, want.cv[h], got.cv[h], "%d workers, subtree of 2^%d chunks", workers, h)
			}
		}
	}
	var calls atomic.Int64
	failing := func(w int, first, count uint64) ([8]uint32, error) {
		calls.Add(1)
		if first == 2*cpuBatchTasks+5 {
			return [8]uint32{}, errCPUTestRead
		}
		return hash(w, first, count)
	}
	st := cvStack{key: key, flags: flagDeriveKeyMaterial}
	require.ErrorIs(t, cpuRun(&st, chunks, 1, 3, failing), errCPUTestRead)
	require.LessOrEqual(t, calls.Load(), int64(3*cpuBatchTasks), "the batch after the error ran")
}

// TestCPUSmallNoAllocs checks that small inputs are hashed on the calling
// goroutine (starting a goroutine would allocate), with no garbage.
func TestCPUSmallNoAllocs(t *testing.T) {
	data := randomBytes(16, 2*cpuWorkerBytes-1)
	for _, n := range []int{0, 1000, 4096, len(data)} {
		allocs := testing.AllocsPerRun(10, func() { cpuRoot(data[:n], 0, iv, 0, 0) })
		require.Zero(t, allocs, "len %d", n)
	}
}

func BenchmarkCPURoot(b *testing.B) {
	for _, n := range []int{4 << 10, 256 << 10, 64 << 20} {
		data := randomBytes(17, n)
		b.Run(cpuSizeName(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				o := cpuRoot(data, 0, iv, 0, 0)
				var d [Size]byte
				o.rootBytes(d[:], 0)
			}
		})
	}
}

// BenchmarkCPURootReaderAt hashes a 64 MiB file (in the page cache after
// the first run) through cpuRootReaderAt.
func BenchmarkCPURootReaderAt(b *testing.B) {
	n := 64 << 20
	path := filepath.Join(b.TempDir(), "input")
	require.NoError(b, os.WriteFile(path, randomBytes(18, n), 0o600))
	f, err := os.Open(path)
	require.NoError(b, err)
	defer f.Close()
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		o, err := cpuRootReaderAt(f, int64(n), 0, iv, 0, 0)
		if err != nil {
			b.Fatal(err)
		}
		var d [Size]byte
		o.rootBytes(d[:], 0)
	}
}

func cpuSizeName(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%dMiB", n>>20)
	}
	return fmt.Sprintf("%dKiB", n>>10)
}
