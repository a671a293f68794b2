package field

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCheckedReader reads elements of both sizes through a CheckedReader
// as an upload does: the bytes come out as PutElements writes them, and
// an element not below p (at the start, at the end, on either side of a
// block boundary) stops exactly the reads that hold a byte of it,
// whatever their offset and length, after copying the blocks before it.
func TestCheckedReader(t *testing.T) {
	t.Run("goldilocks", func(t *testing.T) { testCheckedReader[uint64](t, GoldilocksP) })
	t.Run("babybear", func(t *testing.T) { testCheckedReader[uint32](t, uint64(BabyBear.P())) })
}

func testCheckedReader[E Element](t *testing.T, p uint64) {
	size := ElementSize[E]()
	per := CheckedBlock / size // elements of a block read from offset 0
	rng := rand.New(rand.NewPCG(1, uint64(size)))
	for _, n := range []int{1, 3, 1001, per - 1, per + 1, 2*per + 5} {
		els := make([]E, n)
		for i := range els {
			els[i] = E(rng.Uint64N(p))
		}
		els[n-1] = E(p - 1) // the largest element is canonical
		want := make([]byte, n*size)
		PutElements(want, els)

		// All of it at once, by Read and by ReadAt.
		got, err := io.ReadAll(NewCheckedReader(els, p))
		require.NoError(t, err, "%d elements", n)
		require.True(t, bytes.Equal(want, got), "%d elements", n)
		buf := make([]byte, len(want)+3)
		k, err := NewCheckedReader(els, p).ReadAt(buf, 0)
		require.Equal(t, io.EOF, err, "a read past the end")
		require.Equal(t, len(want), k)
		require.True(t, bytes.Equal(want, buf[:k]))

		// Bad elements: the first, the last, and the ones at the block
		// boundaries of a read from offset 0.
		bads := []int{0, n - 1}
		for b := per; b < n; b += per {
			bads = append(bads, b-1, b)
		}
		for _, bad := range bads {
			for _, v := range []uint64{p, p + 1, uint64(^E(0))} {
				mod := append([]E(nil), els...)
				mod[bad] = E(v)
				checkBad(t, rng, mod, p, bad, want)
			}
		}
	}

	// In pieces of every alignment, as the upload's goroutines read, at
	// once: the bytes come out unchanged.
	els := make([]E, per+7)
	for i := range els {
		els[i] = E(rng.Uint64N(p))
	}
	want := make([]byte, len(els)*size)
	PutElements(want, els)
	r := NewCheckedReader(els, p)
	var wg sync.WaitGroup
	for _, step := range []int{1, 3, 7, 8, 13, 4096 + 5, CheckedBlock + 3, len(want)} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := make([]byte, len(want))
			for off := 0; off < len(want); off += step {
				k, err := r.ReadAt(out[off:min(off+step, len(want))], int64(off))
				if err != nil && !(errors.Is(err, io.EOF) && off+k == len(want)) {
					t.Errorf("step %d, offset %d: %v", step, off, err)
					return
				}
				if k != min(step, len(want)-off) {
					t.Errorf("step %d, offset %d: read %d bytes", step, off, k)
					return
				}
			}
			if !bytes.Equal(want, out) {
				t.Errorf("step %d: the bytes differ", step)
			}
		}()
	}
	wg.Wait()

	_, err := r.ReadAt(make([]byte, 1), int64(len(want)))
	require.Equal(t, io.EOF, err, "a read at the end")
	_, err = r.ReadAt(make([]byte, 1), -1)
	require.ErrorContains(t, err, "negative offset")
	k, err := NewCheckedReader([]E(nil), p).Read(make([]byte, 4))
	require.Equal(t, 0, k)
	require.Equal(t, io.EOF, err, "no elements")
}

// checkBad reads els, whose element bad alone is not below p (want is
// the bytes of els before it was made so), through a CheckedReader: a
// read of the whole fails and copies the blocks before the bad one, and
// a read from a random offset of a random length fails exactly when it
// holds a byte of the bad element.
func checkBad[E Element](t *testing.T, rng *rand.Rand, els []E, p uint64, bad int, want []byte) {
	size := ElementSize[E]()
	require.GreaterOrEqual(t, uint64(els[bad]), p)
	r := NewCheckedReader(els, p)
	first, last := bad*size, bad*size+size-1 // the bad element's bytes
	read := func(off, length int) {
		t.Helper()
		dst := make([]byte, length)
		k, err := r.ReadAt(dst, int64(off))
		end := min(off+length, len(want))
		if off <= last && first < end {
			require.ErrorIs(t, err, ErrNotCanonical, "%d elements, bad %d, read %d+%d", len(els), bad, off, length)
			// The blocks before the first that holds a byte of it.
			require.Equal(t, (max(first, off)-off)/CheckedBlock*CheckedBlock, k, "%d elements, bad %d, read %d+%d", len(els), bad, off, length)
		} else {
			require.True(t, err == nil || errors.Is(err, io.EOF), "%d elements, bad %d, read %d+%d: %v", len(els), bad, off, length, err)
			require.Equal(t, end-off, k)
		}
		require.True(t, bytes.Equal(want[off:off+k], dst[:k]), "%d elements, bad %d, read %d+%d", len(els), bad, off, length)
	}
	read(0, len(want))
	read(first, 1)
	read(last, 1)
	read(max(0, first-1), 1)
	read(min(len(want)-1, last+1), 1)
	for range 20 {
		off := rng.IntN(len(want))
		length := 1 + rng.IntN(min(len(want), 3*CheckedBlock))
		if rng.IntN(2) == 0 { // near the bad element, often across it
			off = max(0, min(len(want)-1, first-rng.IntN(3*size)))
			length = 1 + rng.IntN(4*size)
		}
		read(off, length)
	}
	_, err := io.ReadAll(NewCheckedReader(els, p))
	require.ErrorIs(t, err, ErrNotCanonical, "Read, bad %d", bad)
}

// TestCheckedReaderLittleEndian pins the bytes to the canonical encoding
// on the hosts the project runs on.
func TestCheckedReaderLittleEndian(t *testing.T) {
	got, err := io.ReadAll(NewCheckedReader([]uint64{0x0102030405060708}, GoldilocksP))
	require.NoError(t, err)
	require.Equal(t, binary.LittleEndian.AppendUint64(nil, 0x0102030405060708), got)
}
