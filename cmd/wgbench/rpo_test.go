package main

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/rpo"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// rpoCLI is 'wgbench rpo' as the shared CLI tests run it.
var rpoCLI = cliHash{name: "rpo", merge: rpo.Merge, hashElements: rpo.HashElements,
	seed: 8, variant: "fast", lastVariant: "fast"}

func TestRPOCLI(t *testing.T) { testElementHashCLI(t, rpoCLI) }

func TestRPOCLIVariant(t *testing.T) { testElementHashCLIVariant(t, rpoCLI) }

// TestRPOCLIVectors hashes miden-crypto's vectors from a file: the 19
// prefixes of 0..18, each its own file of one record.
func TestRPOCLIVectors(t *testing.T) {
	t.Setenv("WGCOMPUTE_BACKEND", gputest.Backends()[0])
	raw, err := os.ReadFile("../../testdata/rpo256.json")
	require.NoError(t, err)
	var spec struct {
		Vectors []struct {
			Fn     string   `json:"fn"`
			Input  []string `json:"input"`
			Output []string `json:"output"`
		} `json:"vectors"`
	}
	require.NoError(t, json.Unmarshal(raw, &spec))
	dir := t.TempDir()
	for i, v := range spec.Vectors {
		var rec, want []byte
		for _, s := range v.Input {
			e, err := strconv.ParseUint(s, 10, 64)
			require.NoError(t, err)
			rec = binary.LittleEndian.AppendUint64(rec, e)
		}
		for _, s := range v.Output {
			e, err := strconv.ParseUint(s, 10, 64)
			require.NoError(t, err)
			want = binary.LittleEndian.AppendUint64(want, e)
		}
		in := filepath.Join(dir, "v"+strconv.Itoa(i))
		require.NoError(t, os.WriteFile(in, rec, 0o644))
		args := []string{"rpo", "hash", "--elements", strconv.Itoa(len(v.Input)), "--in", in}
		if v.Fn == "merge" {
			args = []string{"rpo", "merge", "--in", in}
		}
		out, _, err := wgbench(t, args...)
		require.NoError(t, err, "vector %d", i)
		require.Equal(t, want, []byte(out), "vector %d", i)
	}
}

func TestRPOCLIBadInput(t *testing.T) {
	testElementHashCLIBadInput(t, rpoCLI)
	t.Setenv("WGCOMPUTE_BACKEND", "cpu")
	in := filepath.Join(t.TempDir(), "any.bin")
	require.NoError(t, os.WriteFile(in, make([]byte, 64), 0o644))
	_, _, err := wgbench(t, "rpo", "merge", "--in", in, "--variant", "vec4")
	require.ErrorContains(t, err, `rpo: unknown variant "vec4": accepted are [fast]`)

	help, _, err := wgbench(t, "rpo", "--help")
	require.NoError(t, err)
	require.True(t, strings.Contains(help, "Rpo256::merge"), help)
}

// TestRPOMerkleCLI builds an RPO tree with 'merkle --hash rpo' and checks
// its root against the library's CPU reference.
func TestRPOMerkleCLI(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	_, raw := rescueRecords(rng, 64, 4)
	in := filepath.Join(t.TempDir(), "leaves.bin")
	require.NoError(t, os.WriteFile(in, raw, 0o644))
	want := rpoRoot(raw)
	for _, backend := range append([]string{"cpu"}, gputest.Backends()...) {
		out, _, err := wgbench(t, "--backend", backend, "merkle", "--hash", "rpo", "--in", in)
		require.NoError(t, err, backend)
		require.Contains(t, out, want, backend)
	}
}

// rpoRoot is the hex root of the tree over raw's 32-byte leaves, merged
// with rpo.MerkleMerge.
func rpoRoot(raw []byte) string {
	level := make([][32]byte, len(raw)/32)
	for i := range level {
		copy(level[i][:], raw[32*i:])
	}
	for len(level) > 1 {
		next := make([][32]byte, len(level)/2)
		for i := range next {
			next[i] = rpo.MerkleMerge{}.Merge(level[2*i], level[2*i+1])
		}
		level = next
	}
	return hex.EncodeToString(level[0][:])
}

func TestBenchRPO(t *testing.T) {
	backend := gputest.Backends()[0]
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	stdout, _, err := wgbench(t, "bench", "rpo", "--quick", "--repeats", "1", "--backend", backend, "--json", jsonPath, "--no-progress")
	require.NoError(t, err)
	b, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	tables, err := readResults(jsonPath, b)
	require.NoError(t, err)
	require.Len(t, tables, 2)
	tb := tables[0]
	require.Equal(t, "rpo", tb.Suite)
	require.Len(t, tb.Rows, 2, "--quick measures 64² and 128² inputs")
	for _, row := range tb.Rows {
		require.Len(t, row, len(tb.Columns))
		for _, cell := range row[1:7] {
			v, err := strconv.ParseFloat(cell, 64)
			require.NoError(t, err, "cell %q", cell)
			require.Positive(t, v, "cell %q", cell)
		}
	}
	require.Equal(t, "128² = 16384", tb.Rows[1][0])
	require.Len(t, tables[1].Rows, 2)
	require.Contains(t, stdout, "### RPO256 (miden-crypto Rpo256): merges and hash_elements per second")
}
