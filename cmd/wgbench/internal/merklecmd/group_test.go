package merklecmd

import (
	"encoding/hex"
	"math/bits"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// TestCommitDevices commits Goldilocks matrices (one, and several of
// different heights, with Poseidon2) and a BabyBear matrix split over two
// devices of one adapter, and compares the root and the nodes with the
// CPU's; on a Group whose second member is closed the commit fails, so
// the command did split. Records stay on the first device.
func TestCommitDevices(t *testing.T) {
	dir := t.TempDir()
	m, in := writeFieldMatrix(t, dir, 64, 11, 3)
	a, inA := writeFieldMatrix(t, dir, 16, 3, 4)
	bb := poseidon2.BabyBearMerkle
	m31, in31 := writeMatrix31(t, dir, bb, 32, 17, 5)
	one, err := merkle.CommitMatrix(nil, m, poseidon2.MerkleMerge{}, merkle.Options{})
	require.NoError(t, err)
	several, err := merkle.CommitMatrices(nil, []merkle.Matrix[uint64]{m, a}, poseidon2.MerkleMerge{}, merkle.Options{})
	require.NoError(t, err)
	babybear, err := merkle.CommitMatrix(nil, m31, bb, merkle.Options{})
	require.NoError(t, err)
	for _, b := range gputest.Backends() {
		ctx := gputest.Context(t, b)
		closed, err := wgpu.Open(gputest.Options(t, b))
		require.NoError(t, err)
		require.NoError(t, closed.Close())
		halfClosed, err := sched.NewGroup(ctx, closed)
		require.NoError(t, err)
		halfClosed = halfClosed.SplitAll()
		nodes := filepath.Join(dir, "nodes-"+b)
		for _, c := range []struct {
			args []string
			tree *merkle.Tree
		}{
			{[]string{"--hash", "poseidon2", "--matrix", "64x11", "--in", in, "--out", nodes}, one},
			{[]string{"--hash", "poseidon2", "--matrix", "64x11", "--in", in, "--matrix", "16x3", "--in", inA, "--out", nodes}, several},
			{[]string{"--field", "babybear", "--matrix", "32x17", "--in", in31, "--out", nodes}, babybear},
		} {
			args := append([]string{"--backend", b, "commit"}, c.args...)
			out, _, err := wgbenchOn(t, ctx, 2, args...)
			require.NoError(t, err, "%s %v", b, c.args)
			root := c.tree.Root()
			require.Equal(t, hex.EncodeToString(root[:])+"\n", out, "%s %v", b, c.args)
			requireFile(t, nodes, wgpu.Bytes(c.tree.Nodes()))
			_, _, err = wgbenchWith(t, &cli.Globals{Args: args, Group: halfClosed}, "")
			require.Error(t, err, "%s %v: the closed second device built no range", b, c.args)
		}
		_, _, err = wgbenchWith(t, &cli.Globals{Args: []string{"--backend", b, "commit", "--records", "32", "--in", in}, Group: halfClosed}, "")
		require.NoError(t, err, "%s: records", b)
	}
}

// TestCommitWorkDecision: the one-shot decision opens a second GPU for a
// commitment only where half of one GPU's estimated time saves more than
// the second's set-up (250 ms): not for a 2^20 x 128 Goldilocks Poseidon2
// matrix (1 GiB, about 110 ms on one H200) nor 2^22 x 128 (about 440 ms,
// measured no faster on two), but for 2^23 x 128; not for 2^20 x 128 with
// Rescue (about 230 ms) nor 2^21 (about 460), but for 2^22.
func TestCommitWorkDecision(t *testing.T) {
	two := wgpu.Choice{Adapters: make([]wgpu.AdapterInfo, 2)}
	for _, c := range []struct {
		hash    string
		rows    int
		elBytes int
		want    int
	}{
		{"poseidon2", 1 << 20, 8, 1},
		{"poseidon2", 1 << 22, 8, 1},
		{"poseidon2", 1 << 23, 8, 2},
		{"rescue", 1 << 20, 8, 1},
		{"rescue", 1 << 21, 8, 1},
		{"rescue", 1 << 22, 8, 2},
		{"poseidon2-babybear", 1 << 20, 4, 1},
		{"poseidon2-babybear", 1 << 24, 4, 2},
		{"no-such-hash", 1 << 30, 8, 1},
	} {
		w := commitWork(c.hash, []shape{{c.rows, 128, c.rows * 128 * c.elBytes}})
		require.Len(t, two.Fit(w, cli.ExtraDevicesCost).Adapters, c.want, "%s 2^%d x 128: %v", c.hash, bits.Len(uint(c.rows))-1, w)
	}
}
