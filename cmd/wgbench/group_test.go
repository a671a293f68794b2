package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/clitest"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// TestDevicesFlag runs rescue, merkle and b3sum split over several
// devices of one adapter (one device several times, as globals.group
// gives it: --devices names an adapter once) and compares with one
// device's output; --devices refuses an adapter named twice.
func TestDevicesFlag(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(9, 9))
	els, raw := clitest.GoldilocksRecords(rng, 41, 8)
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
		require.Equal(t, clitest.GoldilocksDigests(rescue.HashElements, els, 8), []byte(out), b)

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
