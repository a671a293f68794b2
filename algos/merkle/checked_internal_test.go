package merkle

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
)

// TestCheckedBytes reads a matrix's bytes through checkedBytes in pieces
// of every alignment, as the upload's goroutines do: the bytes come out
// unchanged, and an element out of the field stops the read whichever
// piece holds a byte of it, even a piece that splits it.
func TestCheckedBytes(t *testing.T) {
	goldilocks := fieldOf[uint64]{"Goldilocks", 0xffffffff00000001}
	data := make([]uint64, 10000)
	for i := range data {
		data[i] = uint64(i) * 0x9e3779b97f4a7c15 % goldilocks.p
	}
	b := wgpu.Bytes(data)
	check := func(x []byte) error { return checkElements(x, goldilocks) }
	for _, step := range []int{1, 3, 7, 8, 13, 4096 + 5, checkBlock + 3, len(b)} {
		r := &checkedBytes{b: b, size: 8, check: check}
		out := make([]byte, len(b))
		for off := 0; off < len(b); off += step {
			n, err := r.ReadAt(out[off:min(off+step, len(b))], int64(off))
			require.NoError(t, err, "step %d, offset %d", step, off)
			require.Equal(t, min(step, len(b)-off), n)
		}
		require.True(t, bytes.Equal(b, out), "step %d", step)
	}
	bad := append([]uint64(nil), data...)
	bad[5000] = goldilocks.p
	b = wgpu.Bytes(bad)
	for _, step := range []int{1, 3, 7, 8, 13, 4096 + 5, checkBlock + 3, len(b)} {
		for _, start := range []int{0, 5000*8 + 3, 5000*8 + 7} { // the bad element's first byte, its middle, its last
			r := &checkedBytes{b: b, size: 8, check: check}
			found := false
			for off := start; off < len(b) && !found; off += step {
				_, err := r.ReadAt(make([]byte, min(step, len(b)-off)), int64(off))
				found = errors.Is(err, errNotElement)
			}
			require.Equal(t, start <= 5000*8+7, found, "step %d from %d", step, start)
		}
	}
}
