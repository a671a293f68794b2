package batch

import (
	"testing"

	"github.com/wgcompute/wgcompute/algos/field/u64emu"
)

// TestFirstNonCanonicalBlocks: the first element not below p is found
// wherever it lies (the first and last of a block, the last of the data,
// past a partial block), before a later one, and none in field data.
func TestFirstNonCanonicalBlocks(t *testing.T) {
	const block = 1 << 12
	const p = u64emu.P
	for _, n := range []int{0, 1, block - 1, block, block + 1, 5*block + 7} {
		data := make([]uint64, n)
		for i := range data {
			data[i] = p - 1 - uint64(i)
		}
		if got := FirstNonCanonical(data, p); got != -1 {
			t.Fatalf("n=%d field data: got %d, want -1", n, got)
		}
		for _, bad := range []int{0, block - 1, block, 3*block + 5, n - 1} {
			if bad < 0 || bad >= n {
				continue
			}
			data[bad] = p
			if bad+2*block < n {
				data[bad+2*block] = ^uint64(0) // a later one is not the first
			}
			if got := FirstNonCanonical(data, p); got != bad {
				t.Fatalf("n=%d bad at %d: got %d", n, bad, got)
			}
			data[bad] = 0
			if bad+2*block < n {
				data[bad+2*block] = 0
			}
		}
	}
}
