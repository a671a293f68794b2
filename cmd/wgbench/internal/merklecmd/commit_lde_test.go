package merklecmd

import (
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/lde"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// TestCommitBlowupCLI: commit --blowup prints lde.Commit's root of
// Plonky3's extension, on the CPU and the GPU, and refuses what it does
// not take.
func TestCommitBlowupCLI(t *testing.T) {
	dir := t.TempDir()
	hash := poseidon2.BabyBearMerkle
	m, in := writeMatrix31(t, dir, hash, 16, 7, 4)
	for _, rate := range []int{2, 4} {
		ref, err := lde.Commit(nil, m, merkle.RowHash[uint32](hash), lde.Options{Extend: lde.Plonky3(rate)})
		require.NoError(t, err)
		root := ref.Root()
		for _, backend := range append(gputest.Backends(), "cpu") {
			stdout, _, err := wgbench(t, "commit", "--backend", backend, "--field", "babybear", "--blowup", map[int]string{2: "2", 4: "4"}[rate], "--matrix", "16x7", "--in", in)
			require.NoError(t, err, backend)
			require.Equal(t, hex.EncodeToString(root[:])+"\n", stdout, backend)
		}
	}
	requireInputError(t, []string{"commit", "--backend", "cpu", "--field", "babybear", "--blowup", "3", "--matrix", "16x7", "--in", in}, "--blowup 3: the blowup is a power of two from 2 to 16")
	requireInputError(t, []string{"commit", "--backend", "cpu", "--field", "babybear", "--blowup", "2", "--matrix", "16x7", "--in", in, "--matrix", "16x7", "--in", in}, "extends one --matrix")
	requireInputError(t, []string{"commit", "--backend", "cpu", "--hash", "blake3:4,rescue", "--blowup", "2", "--matrix", "16x7", "--in", in}, "not a schedule")
	requireInputError(t, []string{"commit", "--backend", "cpu", "--records", "4", "--blowup", "2", "--in", in}, "extends one --matrix")
}
