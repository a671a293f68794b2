package bench

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/registry"
	"github.com/wgcompute/wgcompute/cmd/internal/results"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// TestBenchPoseidon2 runs the suite at its quick sizes and checks the
// tables' shape: every rate a positive number, every variant measured.
func TestBenchPoseidon2(t *testing.T) {
	backend := gputest.Backends()[0]
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	_, _, err := wgbench(t, "bench", "poseidon2", "--quick", "--repeats", "1", "--backend", backend, "--json", jsonPath)
	require.NoError(t, err)
	tables, err := results.Read(jsonPath, mustRead(t, jsonPath))
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
	h, err := registry.Lookup("poseidon2")
	require.NoError(t, err)
	require.Len(t, variants.Rows, len(benchHashOf(h).variants()))
	for i, v := range benchHashOf(h).variants() {
		require.Equal(t, v, variants.Rows[i][0])
	}
}

func TestBenchRPO(t *testing.T) {
	backend := gputest.Backends()[0]
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	stdout, _, err := wgbench(t, "bench", "rpo", "--quick", "--repeats", "1", "--backend", backend, "--json", jsonPath, "--no-progress")
	require.NoError(t, err)
	b, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	tables, err := results.Read(jsonPath, b)
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
