package main

import (
	"encoding/hex"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// TestDevicesFlag runs rescue, merkle and b3sum split over several
// devices of one adapter (one device several times, as globals.group
// gives it: --devices names an adapter once) and compares with one
// device's output; --devices refuses an adapter named twice.
func TestDevicesFlag(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(9, 9))
	els, raw := rescueRecords(rng, 41, 8)
	records := filepath.Join(dir, "records")
	require.NoError(t, os.WriteFile(records, raw, 0o644))
	leaves := make([]byte, 32<<10)
	for i := range leaves {
		leaves[i] = byte(rng.Uint32())
	}
	leafFile := filepath.Join(dir, "leaves")
	require.NoError(t, os.WriteFile(leafFile, leaves, 0o644))
	for _, b := range gputest.Backends() {
		ctx := gputest.Context(t, b)
		one, _, err := wgbench(t, "--backend", b, "merkle", "--hash", "blake3", "--in", leafFile)
		require.NoError(t, err)
		three, _, err := wgbenchOn(t, ctx, 3, "--backend", b, "merkle", "--hash", "blake3", "--in", leafFile)
		require.NoError(t, err)
		require.Equal(t, one, three, b)
		nodesOne, nodesThree := filepath.Join(dir, "n1"), filepath.Join(dir, "n3")
		_, _, err = wgbench(t, "--backend", b, "merkle", "--hash", "blake3", "--in", leafFile, "--out", nodesOne)
		require.NoError(t, err)
		_, _, err = wgbenchOn(t, ctx, 3, "--backend", b, "merkle", "--hash", "blake3", "--in", leafFile, "--out", nodesThree)
		require.NoError(t, err)
		a, _ := os.ReadFile(nodesOne)
		c, _ := os.ReadFile(nodesThree)
		require.Equal(t, a, c, b)

		out, _, err := wgbenchOn(t, ctx, 2, "--backend", b, "rescue", "merge", "--in", records)
		require.NoError(t, err)
		require.Equal(t, digestBytes(els, 8), []byte(out), b)

		big := filepath.Join(dir, "big")
		require.NoError(t, os.WriteFile(big, append(leaves, leaves[:12345]...), 0o644))
		whole, _, err := wgbench(t, "--backend", b, "b3sum", "--device", "gpu", big)
		require.NoError(t, err)
		split, _, err := wgbenchOn(t, ctx, 3, "--backend", b, "b3sum", "--device", "gpu", big)
		require.NoError(t, err)
		require.Equal(t, whole, split, b)
		require.Equal(t, fmt.Sprintf("%x  %s\n", blake3.Sum256(append(leaves, leaves[:12345]...)), big), split)

		_, _, err = wgbench(t, "--backend", b, "--devices", "7,x", "merkle", "--hash", "blake3", "--in", leafFile)
		require.ErrorContains(t, err, "not an adapter index")
		_, _, err = wgbench(t, "--backend", b, "--devices", "0,0", "merkle", "--hash", "blake3", "--in", leafFile)
		require.ErrorContains(t, err, `devices "0,0": adapter 0 is named twice`)
	}
}

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
			_, _, err = wgbenchWith(t, &globals{args: args, group: halfClosed}, "")
			require.Error(t, err, "%s %v: the closed second device built no range", b, c.args)
		}
		_, _, err = wgbenchWith(t, &globals{args: []string{"--backend", b, "commit", "--records", "32", "--in", in}, group: halfClosed}, "")
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
		require.Len(t, two.Fit(w, extraDevicesCost).Adapters, c.want, "%s 2^%d x 128: %v", c.hash, bits.Len(uint(c.rows))-1, w)
	}
}
