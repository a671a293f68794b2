package main

import (
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// poseidon2CLI is 'wgbench poseidon2' as the shared CLI tests run it.
var poseidon2CLI = cliHash{name: "poseidon2", merge: poseidon2.Merge, hashElements: poseidon2.HashElements,
	seed: 9, variant: "muldiag", lastVariant: "muldiag"}

func TestPoseidon2CLI(t *testing.T) { testElementHashCLI(t, poseidon2CLI) }

func TestPoseidon2CLIVariantAndDevices(t *testing.T) { testElementHashCLIVariant(t, poseidon2CLI) }

func TestPoseidon2CLIBadInput(t *testing.T) { testElementHashCLIBadInput(t, poseidon2CLI) }

// TestPoseidon2Merkle builds, proves and verifies a tree with --hash
// poseidon2 on the CPU and the GPU.
func TestPoseidon2Merkle(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 17))
	_, raw := rescueRecords(rng, 64, 4)
	leaves := make([][32]byte, 64)
	for i := range leaves {
		copy(leaves[i][:], raw[32*i:])
	}
	want, err := merkle.Build(nil, leaves, poseidon2.MerkleMerge{}, merkle.Options{})
	require.NoError(t, err)
	root := want.Root()
	dir := t.TempDir()
	in := filepath.Join(dir, "leaves.bin")
	require.NoError(t, os.WriteFile(in, raw, 0o644))
	for _, backend := range []string{"cpu", gputest.Backends()[0]} {
		t.Run(backend, func(t *testing.T) {
			nodes := filepath.Join(dir, backend+"-nodes.bin")
			out, _, err := wgbench(t, "merkle", "--backend", backend, "--hash", "poseidon2", "--in", in, "--out", nodes)
			require.NoError(t, err)
			require.Equal(t, hex.EncodeToString(root[:])+"\n", out)
			requireFile(t, nodes, wgpu.Bytes(want.Nodes()))

			proof, _, err := wgbench(t, "merkle", "prove", "--backend", backend, "--hash", "poseidon2", "--in", in, "--index", "37")
			require.NoError(t, err)
			var p merkle.Proof
			require.NoError(t, json.Unmarshal([]byte(proof), &p))
			require.True(t, merkle.Verify(poseidon2.MerkleMerge{}, root, 64, p))
			pf := filepath.Join(dir, backend+"-proof.json")
			require.NoError(t, os.WriteFile(pf, []byte(proof), 0o644))
			_, _, err = wgbench(t, "merkle", "verify", "--hash", "poseidon2", "--proof", pf, "--root", hex.EncodeToString(root[:]), "--leaves", "64")
			require.NoError(t, err)
			_, _, err = wgbench(t, "merkle", "verify", "--hash", "rescue", "--proof", pf, "--root", hex.EncodeToString(root[:]), "--leaves", "64")
			require.Error(t, err, "a Poseidon2 proof does not verify as Rescue")
		})
	}
	_, _, err = wgbench(t, "merkle", "--hash", "nope", "--in", in)
	require.ErrorContains(t, err, "blake3, rescue, rpo, poseidon2")
}

// TestBenchPoseidon2 runs the suite at its quick sizes and checks the
// tables' shape: every rate a positive number, every variant measured.
func TestBenchPoseidon2(t *testing.T) {
	backend := gputest.Backends()[0]
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	_, _, err := wgbench(t, "bench", "poseidon2", "--quick", "--repeats", "1", "--backend", backend, "--json", jsonPath)
	require.NoError(t, err)
	tables, err := readResults(jsonPath, mustRead(t, jsonPath))
	require.NoError(t, err)
	require.Len(t, tables, 2)
	main, variants := tables[0], tables[1]
	require.Equal(t, "poseidon2", main.Suite)
	require.True(t, strings.HasPrefix(main.Title, "Poseidon2"))
	require.Len(t, main.Rows, 2, "--quick measures 64² and 128²")
	require.Equal(t, "64² = 4096", main.Rows[0][0])
	for _, row := range main.Rows {
		require.Len(t, row, len(main.Columns))
		for _, c := range []int{1, 2, 3, 4, 5, 6} {
			require.NotContains(t, []string{"", "0", "+Inf", "NaN"}, row[c], "column %q", main.Columns[c])
		}
	}
	require.Len(t, variants.Rows, len(poseidon2Bench.variants()))
	for i, v := range poseidon2Bench.variants() {
		require.Equal(t, v, variants.Rows[i][0])
	}
}
